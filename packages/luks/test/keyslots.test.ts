// addKey and removeKey: in memory on LUKS1 and LUKS2 images createLuks makes (both passphrases open, the
// header copies and seqid, the area placement cryptsetup uses, random bytes over removed key material, the
// last keyslot kept, nothing written on a refusal); a write that stops at every point leaves a volume that
// opens; and on volumes cryptsetup made, cryptsetup itself opens what addKey and removeKey leave, and goes
// on adding keys to them.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileSource } from '@x/byte-source/file';
import { describeWithCryptsetup, runCryptsetup } from '@x/containers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addKey,
  createLuks,
  type CreateOptions,
  LuksError,
  type Luks2Header,
  openLuks,
  readHeader,
  removeKey,
  WrongPassphraseError,
} from '../src/index.js';
import { sameBytes } from './helpers.js';

const fast = { pbkdf: 'pbkdf2', iterations: 1000 } as const;

async function image(type: 'luks1' | 'luks2', options: Partial<CreateOptions> = {}) {
  const plain = randomBytes(8192);
  let bytes = new Uint8Array(0);
  await createLuks(
    plain,
    {
      async write(offset, b) {
        if (offset + b.length > bytes.length) {
          const grown = new Uint8Array(offset + b.length);
          grown.set(bytes);
          bytes = grown;
        }
        bytes.set(b, offset);
      },
    },
    { type, passphrase: 'one', ...fast, ...options },
  );
  return { bytes, plain };
}

async function opensWith(bytes: Uint8Array, passphrase: string, plain: Uint8Array): Promise<string | undefined> {
  const v = await openLuks(bytes, { passphrase });
  const out = new Uint8Array(v.payloadSize);
  await v.read(out, 0);
  v.close();
  expect(sameBytes(out.subarray(0, plain.length), plain)).toBe(true);
  return v.keyslot;
}

describe.each(['luks2', 'luks1'] as const)('addKey and removeKey, %s', (type) => {
  it('adds a keyslot both passphrases open, removes the first, keeps the last', async () => {
    const { bytes, plain } = await image(type);
    const before = bytes.slice();
    expect(await addKey(bytes, { passphrase: 'one', newPassphrase: 'two', ...fast })).toBe('1');
    expect(await opensWith(bytes, 'one', plain)).toBe('0');
    expect(await opensWith(bytes, 'two', plain)).toBe('1');
    const h = await readHeader(bytes);
    if (h.version === 2) {
      const old = (await readHeader(before)) as Luks2Header;
      expect(h.seqid).toBe(old.seqid + 1);
      expect(h.problems).toEqual([]); // both copies valid and equal
      // cryptsetup's place for keyslot 1: right after keyslot 0's area, 258,048 bytes for a 512-bit key
      expect(h.keyslots[1].area).toMatchObject({ offset: 32768 + 258048, size: 258048 });
      expect(h.digests[0].keyslots).toEqual(['0', '1']);
      expect(h.uuid).toBe(old.uuid);
      // the payload did not move or change
      expect(sameBytes(bytes.subarray(16 << 20), before.subarray(16 << 20))).toBe(true);
      // only the headers and keyslot 1's area changed
      expect(sameBytes(bytes.subarray(32768, 32768 + 258048), before.subarray(32768, 32768 + 258048))).toBe(true);
    } else {
      expect(h.keyslots.map((k) => k.active)).toEqual([true, true, false, false, false, false, false, false]);
      expect(h.keyslots[1].iterations).toBe(1000);
      expect(sameBytes(bytes.subarray(2 << 20), before.subarray(2 << 20))).toBe(true);
    }

    const k0 = type === 'luks2' ? [32768, 258048] : [8 * 512, 256000];
    const material0 = bytes.slice(k0[0], k0[0] + k0[1]);
    expect(await removeKey(bytes, { passphrase: 'one' })).toBe('0');
    await expect(openLuks(bytes, { passphrase: 'one' })).rejects.toThrow(WrongPassphraseError);
    expect(await opensWith(bytes, 'two', plain)).toBe('1');
    // the removed key material is overwritten (random bytes, as cryptsetup wipes it)
    const after = bytes.subarray(k0[0], k0[0] + k0[1]);
    expect(sameBytes(after, material0)).toBe(false);
    expect(after.filter((b) => b === 0).length).toBeLessThan(k0[1] / 100);

    const snapshot = bytes.slice();
    await expect(removeKey(bytes, { passphrase: 'two' })).rejects.toThrow(
      new LuksError(
        '@x/luks: keyslot 1 is the last one that opens the volume: removing it leaves a volume nobody can open (allowLast: true to do it anyway)',
      ),
    );
    expect(sameBytes(bytes, snapshot)).toBe(true);
    expect(await removeKey(bytes, { passphrase: 'two', allowLast: true })).toBe('1');
    await expect(openLuks(bytes, { passphrase: 'two' })).rejects.toThrow(LuksError);
  });

  it('takes the volume key instead of a passphrase, a chosen keyslot, and refuses without writing', async () => {
    const volumeKey = randomBytes(64);
    const { bytes, plain } = await image(type, { volumeKey });
    const snapshot = bytes.slice();
    await expect(addKey(bytes, { passphrase: 'wrong', newPassphrase: 'x', ...fast })).rejects.toThrow(
      WrongPassphraseError,
    );
    await expect(addKey(bytes, { passphrase: 'one', newPassphrase: 'x', newKeyslot: 0, ...fast })).rejects.toThrow(
      new LuksError('@x/luks: keyslot 0 is in use'),
    );
    await expect(addKey(bytes, { passphrase: 'one', newPassphrase: 'x', newKeyslot: 32, ...fast })).rejects.toThrow(
      RangeError,
    );
    await expect(addKey(bytes, { passphrase: 'one', newPassphrase: 3 as never })).rejects.toThrow(TypeError);
    await expect(addKey(bytes, { passphrase: 'one', newPassphrase: 'x', pbkdf: 'scrypt' as never })).rejects.toThrow(
      RangeError,
    );
    await expect(removeKey(bytes, { passphrase: 'wrong' })).rejects.toThrow(WrongPassphraseError);
    expect(sameBytes(bytes, snapshot)).toBe(true);

    expect(await addKey(bytes, { volumeKey, newPassphrase: 'five', newKeyslot: 5, ...fast })).toBe('5');
    expect(await opensWith(bytes, 'five', plain)).toBe('5');
    expect(await opensWith(bytes, 'one', plain)).toBe('0');
  });

  it('fills every keyslot, then says none is free', async () => {
    const { bytes, plain } = await image(type);
    const slots = type === 'luks1' ? 8 : 32;
    for (let i = 1; i < slots; i++)
      expect(await addKey(bytes, { passphrase: 'one', newPassphrase: `p${i}`, ...fast })).toBe(String(i));
    await expect(addKey(bytes, { passphrase: 'one', newPassphrase: 'more', ...fast })).rejects.toThrow(
      new LuksError(`@x/luks: all ${slots} ${type.toUpperCase()} keyslots are in use`),
    );
    expect(await opensWith(bytes, `p${slots - 1}`, plain)).toBe(String(slots - 1));
  });

  it('a write that stops anywhere, even half done, leaves a volume the old passphrase opens', async () => {
    const { bytes: base, plain } = await image(type);
    for (const op of ['add', 'remove'] as const) {
      let prepared = base;
      if (op === 'remove') {
        prepared = base.slice();
        await addKey(prepared, { passphrase: 'one', newPassphrase: 'two', ...fast });
      }
      attempts: for (let stopAt = 0; ; stopAt++) {
        for (const torn of [false, true]) {
          const bytes = prepared.slice();
          let writes = 0;
          const crashing = {
            size: bytes.length,
            async read(offset: number, dst: Uint8Array) {
              dst.set(bytes.subarray(offset, offset + dst.length));
            },
            async write(offset: number, b: Uint8Array) {
              if (writes++ === stopAt) {
                if (torn) bytes.set(b.subarray(0, b.length >> 1), offset); // half of it reached the disk
                throw new Error('power cut');
              }
              bytes.set(b, offset);
            },
          };
          const r =
            op === 'add'
              ? await addKey(crashing, { passphrase: 'one', newPassphrase: 'two', ...fast }).catch((e: Error) => e)
              : await removeKey(crashing, { passphrase: 'one' }).catch((e: Error) => e);
          // the passphrase that stays opens the volume, whatever was written
          const stays = op === 'add' ? 'one' : 'two';
          await opensWith(bytes, stays, plain);
          if (!(r instanceof Error)) {
            expect(writes).toBe(stopAt);
            if (op === 'add') await opensWith(bytes, 'two', plain);
            else await expect(openLuks(bytes, { passphrase: 'one' })).rejects.toThrow(WrongPassphraseError);
          }
          if (!(r instanceof Error) && torn) {
            expect(stopAt).toBe(type === 'luks2' ? 3 : 2); // every write was cut short once
            break attempts;
          }
        }
        if (stopAt > 4) throw new Error('more writes than expected');
      }
    }
  });
});

describeWithCryptsetup('addKey and removeKey on volumes cryptsetup made, checked by cryptsetup', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-luks-keyslots-'));
    for (const [name, text] of [
      ['one', 'one'],
      ['two', 'two'],
      ['three', 'three'],
    ])
      await writeFile(join(dir, name), text);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['luks2', 'aes-xts-plain64', '512'],
    ['luks2', 'aes-cbc-essiv:sha256', '256'],
    ['luks1', 'aes-xts-plain64', '512'],
    ['luks1', 'aes-cbc-essiv:sha256', '128'],
  ])('%s, %s, %s-bit', async (type, cipher, keyBits) => {
    const img = join(dir, `${type}-${keyBits}`);
    const key = (name: string) => join(dir, name);
    await writeFile(img, '');
    await truncate(img, 20 << 20);
    await runCryptsetup([
      'luksFormat',
      '--type',
      type,
      '--cipher',
      cipher,
      '--key-size',
      keyBits,
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      key('one'),
      '--batch-mode',
      '--disable-locks',
      img,
    ]);
    const test = (name: string) =>
      runCryptsetup(['open', '--test-passphrase', '--disable-locks', '--key-file', key(name), img]);

    const file = await openFileSource(img, { writable: true });
    try {
      expect(await addKey(file, { passphrase: 'one', newPassphrase: 'two', ...fast })).toBe('1');
    } finally {
      await file.close();
    }
    await runCryptsetup(['luksDump', '--disable-locks', img]);
    await test('one');
    await test('two');
    // cryptsetup goes on from what addKey wrote: its own luksAddKey, and its repair finds nothing to fix
    await runCryptsetup([
      'luksAddKey',
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      key('two'),
      '--batch-mode',
      '--disable-locks',
      img,
      key('three'),
    ]);
    await test('three');
    const beforeRepair = await readFile(img);
    await runCryptsetup(['repair', '--batch-mode', '--disable-locks', img]);
    expect(sameBytes(await readFile(img), beforeRepair)).toBe(true);

    const again = await openFileSource(img, { writable: true });
    try {
      expect(await removeKey(again, { passphrase: 'one' })).toBe('0');
    } finally {
      await again.close();
    }
    await runCryptsetup(['luksDump', '--disable-locks', img]);
    await expect(test('one')).rejects.toThrow(/exit 2/);
    await test('two');
    await test('three');
    expect(await opensWithFile(img, 'three')).toBe('2');
  });
});

async function opensWithFile(path: string, passphrase: string): Promise<string | undefined> {
  const v = await openLuks(new Uint8Array(await readFile(path)), { passphrase });
  v.close();
  return v.keyslot;
}
