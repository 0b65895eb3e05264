// The worker's session, in Node (the browsers run it in e2e.test.ts): over @x/disk's formats with one more,
// TOY (@x/toy-format, made up), it inspects a TOY image, unlocks it and sends its plaintext, as the page
// would see it, with no other change; a wrong passphrase is a wrong secret; and the LUKS sample still opens.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { FORMATS } from '@x/disk';
import { makeToyImage, toyFormat } from '@x/toy-format';
import { describe, expect, it } from 'vitest';
import type { FromWorker } from '../src/protocol.ts';
import { Session } from '../src/session.ts';

const utf8 = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;

/** A session whose messages are kept; chunks are copied out and their buffers given back, as the page does. */
function session() {
  const got: FromWorker[] = [];
  const plain: Uint8Array[] = [];
  const s = new Session([...FORMATS, toyFormat], (m) => {
    got.push(m);
    if (m.type === 'chunk') {
      plain.push(new Uint8Array(m.buf, 0, m.length).slice());
      queueMicrotask(() => s.giveBack(m.buf));
    }
  });
  const last = () => got[got.length - 1];
  return { s, got, last, plaintext: () => Buffer.concat(plain) };
}

describe('the page’s session over a list with one more format', () => {
  const plain = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 3) & 0xff);
  const { image } = makeToyImage(plain, 'toy passphrase');

  it('inspects, unlocks and decrypts a TOY image', async () => {
    const { s, got, last, plaintext } = session();
    await s.run(() => s.inspect(new File([image], 'toy.img')));
    expect(last()).toEqual({
      type: 'inspected',
      format: 'TOY1',
      dump: `TOY header information\nLabel:          toy volume\nPayload:        100352 bytes at 512\n`,
      secrets: ['passphrase'],
      passphraseName: 'passphrase',
    });
    await s.run(() => s.unlock({ kind: 'passphrase', bytes: utf8('toy passphrase!') }));
    expect(last()).toEqual({
      type: 'error',
      name: 'WrongPassphraseError',
      message: 'wrong passphrase',
      wrongSecret: true,
    });
    await s.run(() => s.unlock({ kind: 'passphrase', bytes: utf8('toy passphrase') }));
    expect(last()).toMatchObject({
      type: 'unlocked',
      summary: expect.stringMatching(/^TOY aes-xts-plain64, 98 KiB, passphrase, kernel /),
      payloadSize: 100352,
    });
    await s.run(() => s.decrypt(16384, 2));
    expect(last()).toEqual({ type: 'done' });
    expect(got.filter((m) => m.type === 'chunk')).toHaveLength(7);
    const out = plaintext();
    expect(out.subarray(0, plain.length).equals(plain)).toBe(true);
    expect(out.subarray(plain.length).every((x) => x === 0)).toBe(true);
  });

  it('runs the steps in the order they were asked for: inspect and unlock sent back to back open the image', async () => {
    // What the page's new worker gets after a cancelled unlock: the image again, then the secret, at once.
    const { s, got } = session();
    const inspect = s.run(() => s.inspect(new File([image], 'toy.img')));
    const unlock = s.run(() => s.unlock({ kind: 'passphrase', bytes: utf8('toy passphrase') }));
    await Promise.all([inspect, unlock]);
    expect(got.map((m) => m.type)).toEqual(['inspected', 'unlocked']);
    await s.run(() => s.decrypt(65536, 2));
    expect(got.map((m) => m.type)).toEqual(['inspected', 'unlocked', 'chunk', 'chunk', 'done']);
  });

  it('says which formats it knows when none matches; the LUKS sample opens as before', async () => {
    const { s, last } = session();
    await s.run(() => s.inspect(new File([new Uint8Array(4096)], 'zeros.img')));
    expect(last()).toMatchObject({
      type: 'error',
      message:
        'zeros.img is not a LUKS, BitLocker, FileVault 2, TrueCrypt/VeraCrypt or TOY volume (no known signature)',
      wrongSecret: false,
    });
    const fixtures = join(dirname(createRequire(import.meta.url).resolve('@x/luks/package.json')), 'test', 'fixtures');
    await s.run(async () => s.inspect(new File([await readFile(join(fixtures, 'sample-luks2.img'))], 'sample.img')));
    expect(last()).toMatchObject({ type: 'inspected', format: 'LUKS2', secrets: ['passphrase'] });
    await s.run(async () =>
      s.unlock({
        kind: 'passphrase',
        bytes: new Uint8Array(await readFile(join(fixtures, 'sample.passphrase'))).buffer,
      }),
    );
    expect(last()).toMatchObject({
      type: 'unlocked',
      summary: expect.stringMatching(
        /^LUKS2 aes-xts-plain64, 4096-byte sectors, 64 KiB of payload at 524288, keyslot 0, kernel /,
      ),
    });
  });
});
