// x-luks add-key and remove-key as child processes, and encrypt --type luks1: on volumes the command made and
// on volumes cryptsetup made, cryptsetup opens every passphrase added and refuses every one removed; the
// last keyslot is kept; wrong passphrases are exit 2 with nothing written; usage mistakes are exit 1.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithCryptsetup, dumpVolumeKey, runCryptsetup } from '@x/containers';
import { openLuks, readHeader } from '@x/luks';
import { runCli, sameBytes } from './helpers.js';

let dir: string;
const file = (name: string) => join(dir, name);
const plain = randomBytes(256 * 1024 + 512);
const FAST = ['--pbkdf', 'pbkdf2', '--pbkdf-force-iterations', '1000'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-luks-keys-'));
  await writeFile(file('plain'), plain);
  for (const name of ['one', 'two', 'three', 'wrong']) await writeFile(file(name), `${name} passphrase`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function opens(image: string, pass: string): Promise<string | undefined> {
  const v = await openLuks(new Uint8Array(await readFile(image)), { passphrase: `${pass} passphrase` });
  const out = new Uint8Array(v.payloadSize);
  await v.read(out, 0);
  v.close();
  expect(sameBytes(out.subarray(0, plain.length), plain)).toBe(true);
  return v.keyslot;
}

describe.each(['luks2', 'luks1'])('x-luks encrypt --type %s, add-key, remove-key', (type) => {
  it('adds and removes keyslots in place', async () => {
    const img = file(`${type}.img`);
    const e = await runCli(['encrypt', file('plain'), img, '--passphrase-file', file('one'), '--type', type, ...FAST]);
    expect(e.stderr).toContain(`${type.toUpperCase()} aes-xts-plain64, 512-bit key, 512-byte sectors`);
    expect(e.code).toBe(0);
    expect((await readHeader(new Uint8Array(await readFile(img)))).version).toBe(type === 'luks1' ? 1 : 2);

    const a = await runCli([
      'add-key',
      img,
      '--passphrase-file',
      file('one'),
      '--new-passphrase-file',
      file('two'),
      ...FAST,
    ]);
    expect(a.stderr).toBe('x-luks: added keyslot 1 (pbkdf2-sha256, 1000 iterations)\n');
    expect(a.code).toBe(0);
    expect(await opens(img, 'one')).toBe('0');
    expect(await opens(img, 'two')).toBe('1');

    const before = await readFile(img);
    const w = await runCli([
      'add-key',
      img,
      '--passphrase-file',
      file('wrong'),
      '--new-passphrase-file',
      file('three'),
    ]);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/^x-luks: no keyslot opens with this passphrase/);
    const r1 = await runCli(['remove-key', img, '--passphrase-file', file('wrong')]);
    expect(r1.code).toBe(2);
    expect(sameBytes(await readFile(img), before)).toBe(true);

    const r = await runCli(['remove-key', img, '--passphrase-file', file('one')]);
    expect(r.stderr).toBe('x-luks: removed keyslot 0; its key material is overwritten\n');
    expect(r.code).toBe(0);
    await expect(opens(img, 'one')).rejects.toThrow(/no keyslot opens/);
    expect(await opens(img, 'two')).toBe('1');

    const last = await runCli(['remove-key', img, '--passphrase-file', file('two')]);
    expect(last.code).toBe(1);
    expect(last.stderr).toMatch(/^x-luks: keyslot 1 is the last one that opens the volume/);
    expect(await opens(img, 'two')).toBe('1');
  });
});

describe('usage', () => {
  it.each([
    [['add-key', 'img'], /add-key needs --new-keyfile/],
    [['add-key', 'img', '--new-passphrase-file', 'x'], /add-key needs exactly one of --key-file and --volume-key-file/],
    [['add-key', 'img', 'extra', '--passphrase-file', 'a', '--new-passphrase-file', 'b'], /add-key takes one IMAGE/],
    [['add-key', 'img', '--passphrase-file', '-', '--new-passphrase-file', '-'], /only one of them can be -/],
    [
      ['add-key', 'img', '--passphrase-file', 'a', '--new-passphrase-file', 'b', '--new-keyslot', '40'],
      /--new-key-slot takes a keyslot number/,
    ],
    [['remove-key', 'img'], /remove-key needs --key-file/],
    [
      ['remove-key', 'img', '--passphrase-file', 'a', '--new-passphrase-file', 'b'],
      /remove-key does not take --new-passphrase-file/,
    ],
    [['remove-key', 'img', '--passphrase-file', 'a', '--pbkdf', 'pbkdf2'], /remove-key does not take --pbkdf/],
    [['encrypt', 'p', 'o', '--passphrase-file', 'a', '--type', 'luks3'], /--type luks3: expected luks2 or luks1/],
    [
      ['decrypt', 'i', 'o', '--passphrase-file', 'a', '--new-passphrase-file', 'b'],
      /decrypt does not take --new-passphrase-file/,
    ],
  ])('%j', async (args, message) => {
    const r = await runCli(args as string[]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});

describeWithCryptsetup('x-luks add-key and remove-key on volumes cryptsetup made', () => {
  it.each(['luks2', 'luks1'])(
    '%s: cryptsetup opens what add-key adds and refuses what remove-key removes',
    async (type) => {
      const img = file(`cs-${type}.img`);
      await writeFile(img, '');
      await truncate(img, 20 << 20);
      await runCryptsetup([
        'luksFormat',
        '--type',
        type,
        ...FAST,
        '--key-file',
        file('one'),
        '--batch-mode',
        '--disable-locks',
        img,
      ]);
      const key = await dumpVolumeKey(img, file('one'));
      await writeFile(file('vk'), key);
      const test = (name: string) =>
        runCryptsetup(['open', '--test-passphrase', '--disable-locks', '--key-file', file(name), img]);

      const a = await runCli([
        'add-key',
        img,
        '--volume-key-file',
        file('vk'),
        '--new-passphrase-file',
        file('two'),
        '--new-keyslot',
        '3',
        ...FAST,
      ]);
      expect(a.stderr).toBe('x-luks: added keyslot 3 (pbkdf2-sha256, 1000 iterations)\n');
      expect(a.code).toBe(0);
      await test('one');
      await test('two');
      await runCryptsetup(['luksDump', '--disable-locks', img]);

      const r = await runCli(['remove-key', img, '--passphrase-file', file('one')]);
      expect(r.code).toBe(0);
      await expect(test('one')).rejects.toThrow(/exit 2/);
      await test('two');
      expect(sameBytes(await dumpVolumeKey(img, file('two')), key)).toBe(true);
    },
  );
});
