// A new format is a package exporting a DiskFormat and one list entry: x-disk with TOY (@x/toy-format, made
// up for this) after @x/disk's formats (./x-disk-toy.ts, no other change) detects a TOY image, dumps it,
// decrypts it with -d, --volume-key-file and on several threads, exits 2 for a wrong secret, and names
// TOY in --type and --help. x-disk without it does not know the image.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeToyImage } from '@x/toy-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, runDisk, sameBytes } from './helpers.js';

const toyDisk = (args: string[]) => run('x-disk-toy', args, { env: { X_AES_KERNEL: 'portable' } });

describe('x-disk with one more format in its list', () => {
  let dir: string;
  const plain = Uint8Array.from({ length: 12 << 20 }, (_, i) => (i * 7 + (i >> 12)) & 0xff); // three 4 MiB chunks
  const { image, volumeKey } = makeToyImage(plain, 'toy passphrase');
  const f = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-disk-toy-'));
    await Promise.all([
      writeFile(f('toy.img'), image),
      writeFile(f('pass'), 'toy passphrase'),
      writeFile(f('wrong'), 'toy passphrase\n'),
      writeFile(f('key'), volumeKey),
    ]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('detects and dumps it; --help and --type name it', async () => {
    const d = await toyDisk(['dump', f('toy.img')]);
    expect(d).toMatchObject({ code: 0, stderr: '' });
    expect(d.stdout.toString()).toBe(
      `TOY header information\nLabel:          toy volume\nPayload:        ${12 << 20} bytes at 512\n`,
    );
    const j = await toyDisk(['dump', f('toy.img'), '--json', '--type', 'toy']);
    expect(JSON.parse(j.stdout.toString())).toEqual({
      version: 1,
      label: 'toy volume',
      payloadOffset: 512,
      payloadSize: 12 << 20,
    });
    const h = await toyDisk(['--help']);
    expect(h.stdout.toString()).toMatch(/x-disk dump IMAGE \[--json\] \[--type luks\|bitlk\|fvault2\|tcrypt\|toy\]/);
    expect(h.stdout.toString()).toMatch(
      /IMAGE {5}LUKS \(luks\), BitLocker \(bitlk\), FileVault 2 \(fvault2\), TrueCrypt\/VeraCrypt \(tcrypt\) or TOY \(toy\)/,
    );
  });

  it('decrypts it with -d PASSFILE, with --volume-key-file, on one thread or three: the same bytes', async () => {
    for (const [args, how] of [
      [['-d', f('pass'), '--threads', '1'], 'passphrase'],
      [['--key-file', f('pass'), '--threads', '3'], 'passphrase'],
      [['--volume-key-file', f('key'), '--threads', '3'], 'volume key given'],
    ] as const) {
      const out = f(`out-${args.join('-').replace(/\W/g, '')}`);
      const r = await toyDisk(['decrypt', f('toy.img'), out, ...args]);
      expect(r.code, r.stderr).toBe(0);
      const threads = args[args.length - 1] === '3' ? ' \\(3 threads\\)' : '';
      expect(r.stderr).toMatch(
        new RegExp(`^x-disk: TOY aes-xts-plain64, 12\\.0 MiB, ${how}, kernel portable${threads}\\n`),
      );
      expect(sameBytes(await readFile(out), plain)).toBe(true);
    }
  });

  it('a wrong passphrase or volume key exits 2; an option TOY does not take is a usage error', async () => {
    const w = await toyDisk(['decrypt', f('toy.img'), f('never'), '-d', f('wrong')]);
    expect(w).toMatchObject({ code: 2, stderr: 'x-disk: wrong passphrase\n' });
    const k = await toyDisk(['decrypt', f('toy.img'), f('never'), '--volume-key-file', f('pass')]);
    expect(k).toMatchObject({ code: 2, stderr: 'x-disk: wrong volume key\n' });
    const u = await toyDisk(['decrypt', f('toy.img'), f('never'), '--recovery-password', '1-2']);
    expect(u.code).toBe(1);
    expect(u.stderr).toMatch(
      /^x-disk: --recovery-password does not open a TOY volume \(it takes --key-file or --volume-key-file\)\nusage:/,
    );
    await expect(readFile(f('never'))).rejects.toThrow(/ENOENT/);
  });

  it('x-disk without it does not know the image', async () => {
    const r = await runDisk(['dump', f('toy.img')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `x-disk: ${f('toy.img')} is not a LUKS, BitLocker or FileVault 2 volume that x-disk recognizes (no known signature); --type names the format (a TrueCrypt/VeraCrypt volume has no signature: --type tcrypt)\n`,
    );
  });
});
