// x-disk as a child process on LUKS volumes: format detection (and --type), the same dump and the same
// plaintext as x-luks, byte for byte, exit codes, option errors and OUT handling.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Container,
  convertToLuks1,
  describeWithCryptsetup,
  makeLuks2Container,
  removeAllContainers,
} from '@x/containers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '@x/disk';
import { orList } from '@x/disk-format';
import { luksFixture, runCli, runDisk, sameBytes } from './helpers.js';

const SAMPLE = luksFixture('sample-luks2.img');
const SAMPLE_PASS = luksFixture('sample.passphrase');
/** The formats x-disk names when it recognizes none: those it can recognize (`LUKS, BitLocker or FileVault 2`). */
const KNOWN = orList(FORMATS.filter((f) => f.detect).map((f) => f.name));
/** And the ones it cannot, which only --type opens: TrueCrypt/VeraCrypt. */
const UNTOLD = ` (${FORMATS.filter((f) => !f.detect)
  .map((f) => `a ${f.name} volume has no signature: --type ${f.type}`)
  .join('; ')})`;

/** No file in `dir` is a temporary `.part` file, and `out` does not exist. */
async function nothingWritten(dir: string, out: string) {
  await expect(stat(out)).rejects.toThrow(/ENOENT/);
  expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
}

describe('x-disk on the committed sample', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-disk-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('dump detects LUKS and prints what x-luks dump prints (text and --json, with and without --type)', async () => {
    for (const extra of [[], ['--json']]) {
      const luks = await runCli(['dump', SAMPLE, ...extra]);
      expect(luks.code).toBe(0);
      for (const type of [[], ['--type', 'luks']]) {
        const disk = await runDisk(['dump', SAMPLE, ...extra, ...type]);
        expect(disk.stderr).toBe('');
        expect(disk.code).toBe(0);
        expect(disk.stdout.toString()).toBe(luks.stdout.toString());
      }
    }
    const text = (await runDisk(['dump', SAMPLE])).stdout.toString();
    expect(text).toMatch(/^LUKS header information \(version 2\)/);
    expect(text).toMatch(/cipher: aes-xts-plain64/);
  });

  it('decrypt writes the sample text (passphrase from a file and from stdin) and names the format', async () => {
    const text = await readFile(luksFixture('sample.txt'));
    const want = new Uint8Array(64 * 1024);
    want.set(text);
    const r = await runDisk(['decrypt', SAMPLE, join(dir, 'a'), '--passphrase-file', SAMPLE_PASS]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^x-disk: LUKS2 aes-xts-plain64, 4096-byte sectors, 64 KiB of payload at 524288, keyslot 0, kernel \S+\n/,
    );
    expect(r.stderr).toMatch(/\nx-disk: decrypted 64 KiB in [\d.]+ s, [\d.]+ MB\/s\n$/);
    expect(sameBytes(await readFile(join(dir, 'a')), want)).toBe(true);
    const s = await runDisk(['decrypt', SAMPLE, join(dir, 'b'), '--passphrase-file', '-', '--type', 'luks'], {
      stdin: await readFile(SAMPLE_PASS),
    });
    expect(s.code).toBe(0);
    expect(sameBytes(await readFile(join(dir, 'b')), want)).toBe(true);
    expect((await stat(join(dir, 'b'))).mode & 0o777).toBe(0o600);
  });

  it('option errors exit 1 with the usage text, before anything is written', async () => {
    const out = join(dir, 'never');
    const key = join(dir, 'key');
    await writeFile(key, new Uint8Array(64));
    for (const [args, message] of [
      [[], /no command/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['dump'], /dump takes one IMAGE/],
      [['dump', SAMPLE, '--bogus'], /^x-disk: unknown option --bogus\n/],
      [['dump', SAMPLE, '--type', 'ntfs'], /--type takes luks.*, not "ntfs"/],
      [['decrypt', SAMPLE], /decrypt takes IMAGE and OUT/],
      [['decrypt', SAMPLE, out], /a LUKS volume needs --key-file or --volume-key-file/],
      [['decrypt', SAMPLE, out, '--passphrase-file', SAMPLE_PASS, '--volume-key-file', key], /at most one of/],
      [['decrypt', SAMPLE, out, '--recovery-password', '1-2-3'], /--recovery-password does not open a LUKS volume/],
      [['decrypt', SAMPLE, out, '--startup-key', key], /--startup-key does not open a LUKS volume/],
      [['decrypt', SAMPLE, out, '--passphrase-file', SAMPLE_PASS, '--keyslot', 'one'], /--key-slot takes a keyslot/],
    ] as [string[], RegExp][]) {
      const r = await runDisk(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).toMatch(/usage:\n {2}x-disk dump IMAGE/);
    }
    await nothingWritten(dir, out);
    const h = await runDisk(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout.toString()).toMatch(/x-disk decrypt IMAGE OUT \[SECRET\]/);
    expect(h.stdout.toString()).toMatch(/--recovery-password DIGITS/);
  });

  it('-V, --version; -h after a subcommand is its help; the exit codes are in the help', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    for (const v of ['-V', '--version']) expect((await runDisk([v])).stdout.toString()).toBe(`x-disk ${version}\n`);
    const d = await runDisk(['decrypt', '-h']);
    expect(d.code).toBe(0);
    expect(d.stdout.toString()).toMatch(/^usage: x-disk decrypt IMAGE OUT \[SECRET\]/);
    expect(d.stdout.toString()).toMatch(/^ {2}-d, --key-file FILE +the passphrase/m);
    expect(d.stdout.toString()).toMatch(/^ {2}--volume-key-file FILE +the raw volume key/m);
    expect(d.stdout.toString()).not.toMatch(/--json/);
    expect(d.stdout.toString()).toMatch(
      /exit status: 0 done, 2 wrong passphrase, recovery password, startup key or volume key, 1 other errors\n$/,
    );
    const u = await runDisk(['dump', SAMPLE, '--foo']);
    expect(u.code).toBe(1);
    expect(u.stderr).toMatch(/^x-disk: unknown option --foo\nusage:\n/);
    const m = await runDisk(['decrypt', SAMPLE, join(dir, 'never'), '--type']);
    expect(m.stderr).toMatch(/^x-disk: --type needs a value \(TYPE\)\n/);
  });

  it('an image of no known format exits 1 and says so; --type luks reports what LUKS finds', async () => {
    const junk = join(dir, 'junk.img');
    await writeFile(junk, randomBytes(64 * 1024));
    const r = await runDisk(['dump', junk]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `x-disk: ${junk} is not a ${KNOWN} volume that x-disk recognizes (no known signature); --type names the format${UNTOLD}\n`,
    );
    const t = await runDisk([
      'decrypt',
      junk,
      join(dir, 'junk.out'),
      '--passphrase-file',
      SAMPLE_PASS,
      '--type',
      'luks',
    ]);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/^x-disk: not a LUKS volume \(no LUKS magic at offset 0, no LUKS2 secondary header\)\n$/);
    await nothingWritten(dir, join(dir, 'junk.out'));
    const tiny = join(dir, 'tiny.img');
    await writeFile(tiny, 'LUKS');
    const s = await runDisk(['dump', tiny]);
    expect(s.code).toBe(1);
    expect(s.stderr).toBe(
      `x-disk: ${tiny} is not a ${KNOWN} volume that x-disk recognizes (only 4 bytes); --type names the format${UNTOLD}\n`,
    );
    const n = await runDisk(['dump', join(dir, 'no-such-file')]);
    expect(n.code).toBe(1);
    expect(n.stderr).toBe(`x-disk: ${join(dir, 'no-such-file')}: no such file\n`);
  });
});

describeWithCryptsetup('x-disk decrypt on cryptsetup volumes', () => {
  let luks2: Container;
  let luks1: Container;
  let dir: string;
  let passFiles: string[];
  const passphrases = [randomBytes(10).toString('hex'), randomBytes(10).toString('hex')];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-disk-cli-'));
    luks2 = await makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 512,
      dataSize: 3 << 20, // not a whole number of 4 MiB chunks
      passphrases,
    });
    luks1 = await convertToLuks1(luks2);
    passFiles = await Promise.all(
      passphrases.map(async (p, i) => {
        const f = join(dir, `pass${i}`);
        await writeFile(f, p);
        return f;
      }),
    );
  });
  afterAll(async () => {
    await removeAllContainers();
    await rm(dir, { recursive: true, force: true });
  });

  for (const which of ['LUKS2', 'LUKS1'] as const) {
    it(`${which}: the same plaintext as x-luks decrypt, byte for byte, by passphrase and by volume key`, async () => {
      const c = which === 'LUKS2' ? luks2 : luks1;
      const byLuks = join(dir, `${which}.x-luks`);
      const byDisk = join(dir, `${which}.x-disk`);
      const byKey = join(dir, `${which}.x-disk-key`);
      const keyFile = join(dir, `${which}.vk`);
      await writeFile(keyFile, c.volumeKey);
      const [l, d, k] = await Promise.all([
        runCli(['decrypt', c.path, byLuks, '--passphrase-file', passFiles[1]]),
        runDisk(['decrypt', c.path, byDisk, '--passphrase-file', passFiles[1]]),
        runDisk(['decrypt', c.path, byKey, '--volume-key-file', keyFile]),
      ]);
      expect([l.code, d.code, k.code]).toEqual([0, 0, 0]);
      expect(d.stderr).toMatch(
        new RegExp(
          `^x-disk: ${which} aes-xts-plain64, 512-byte sectors, 3.0 MiB of payload at ${c.payloadOffset}, keyslot 1, kernel `,
        ),
      );
      expect(k.stderr).toMatch(/, volume key given, kernel /);
      // the summary lines differ only in the command's name
      expect(d.stderr.split('\n')[0]).toBe(l.stderr.split('\n')[0].replace(/^x-luks/, 'x-disk'));
      const [a, b, v] = await Promise.all([readFile(byLuks), readFile(byDisk), readFile(byKey)]);
      expect(sameBytes(a, b)).toBe(true);
      expect(sameBytes(v, b)).toBe(true);
      expect(sameBytes(b, c.original)).toBe(true);
    });
  }

  it('--keyslot restricts the keyslots tried; dump names the same keyslots as x-luks', async () => {
    const out = join(dir, 'slot');
    const r = await runDisk(['decrypt', luks2.path, out, '--passphrase-file', passFiles[0], '--keyslot', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('x-disk: no keyslot opens with this passphrase (tried 1)\n');
    await nothingWritten(dir, out);
    const s = await runDisk(['decrypt', luks2.path, out, '--passphrase-file', passFiles[0], '--keyslot', '0']);
    expect(s.code).toBe(0);
    expect(sameBytes(await readFile(out), luks2.original)).toBe(true);
    await rm(out);
    const [d, l] = await Promise.all([runDisk(['dump', luks1.path]), runCli(['dump', luks1.path])]);
    expect(d.stdout.toString()).toMatch(/^LUKS header information \(version 1\)\n/);
    expect(d.stdout.toString()).toBe(l.stdout.toString());
  });

  it('a wrong passphrase or volume key exits 2 and writes nothing', async () => {
    const bad = join(dir, 'bad-pass');
    await writeFile(bad, `${passphrases[0]}\n`); // one byte more than the real one
    const out = join(dir, 'wrong');
    const r = await runDisk(['decrypt', luks2.path, out, '--passphrase-file', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('x-disk: no keyslot opens with this passphrase (tried 0, 1)\n');
    await nothingWritten(dir, out);
    const wrongKey = Uint8Array.from(luks1.volumeKey);
    wrongKey[0] ^= 1;
    const kf = join(dir, 'wrong-vk');
    await writeFile(kf, wrongKey);
    const k = await runDisk(['decrypt', luks1.path, out, '--volume-key-file', kf]);
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(/^x-disk: .*volume key does not match/);
    await nothingWritten(dir, out);
  });

  it('finds a LUKS2 volume by its secondary header when the primary magic is gone', async () => {
    const copy = join(dir, 'no-magic.img');
    const bytes = await readFile(luks2.path);
    bytes.fill(0, 0, 6);
    await writeFile(copy, bytes);
    const d = await runDisk(['dump', copy]);
    expect(d.code).toBe(0);
    expect(d.stdout.toString()).toMatch(/read from the secondary copy/);
    const out = join(dir, 'from-secondary');
    const r = await runDisk(['decrypt', copy, out, '--passphrase-file', passFiles[0]]);
    expect(r.code).toBe(0);
    expect(sameBytes(await readFile(out), luks2.original)).toBe(true);
  });

  it('a truncated image exits 1 with a clear message and no OUT', async () => {
    const cut = join(dir, 'cut.img');
    await writeFile(cut, (await readFile(luks2.path)).subarray(0, 10_000));
    const out = join(dir, 'cut.out');
    const r = await runDisk(['decrypt', cut, out, '--passphrase-file', passFiles[0]]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-disk: no usable LUKS2 header: primary header: the image is truncated/);
    await nothingWritten(dir, out);
  });

  it('refuses an existing OUT without --force, replaces it with --force; - writes to stdout', async () => {
    const out = join(dir, 'existing');
    await writeFile(out, 'keep me');
    const r = await runDisk(['decrypt', luks1.path, out, '--passphrase-file', passFiles[0]]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-disk: .*existing exists; pass --force to overwrite it\nusage:/);
    expect(await readFile(out, 'utf8')).toBe('keep me');
    const f = await runDisk(['decrypt', luks1.path, out, '--passphrase-file', passFiles[0], '--force']);
    expect(f.code).toBe(0);
    expect(sameBytes(await readFile(out), luks1.original)).toBe(true);
    const s = await runDisk(['decrypt', luks1.path, '-', '--passphrase-file', passFiles[0]]);
    expect(s.code).toBe(0);
    expect(sameBytes(s.stdout, luks1.original)).toBe(true);
  });

  it('writes in place to a device with --force (/dev/null)', async () => {
    const r = await runDisk(['decrypt', luks2.path, '/dev/null', '--passphrase-file', passFiles[0], '--force']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/x-disk: decrypted 3.0 MiB/);
  });
});
