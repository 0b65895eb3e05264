// x-luks encrypt as a child process: the volume it writes opens in @x/luks and in cryptsetup (luksDump,
// open --test-passphrase, --dump-volume-key), its options reach the header, and the output rules hold
// (no partial OUT, --force, OUT = PLAIN refused, exit codes).
import { randomBytes } from 'node:crypto';
import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithCryptsetup, dumpVolumeKey, runCryptsetup } from '@x/containers';
import { type Luks2Header, openLuks, readHeader } from '@x/luks';
import { runCli, sameBytes } from './helpers.js';

let dir: string;
let plainFile: string;
let passFile: string;
const plain = randomBytes(3 * 1024 * 1024 + 512);
const passphrase = 'encrypt me, please';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-luks-encrypt-'));
  plainFile = join(dir, 'plain');
  passFile = join(dir, 'pass');
  await writeFile(plainFile, plain);
  await writeFile(passFile, passphrase);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const FAST = ['--pbkdf', 'pbkdf2', '--pbkdf-force-iterations', '1000'];

async function plaintextOf(image: string, pass: string = passphrase) {
  const v = await openLuks(new Uint8Array(await readFile(image)), { passphrase: pass });
  const out = new Uint8Array(v.payloadSize);
  await v.read(out, 0);
  v.close();
  return { out, v };
}

describe('x-luks encrypt', () => {
  it('writes a LUKS2 volume of PLAIN that x-luks decrypt and openLuks read back', async () => {
    const out = join(dir, 'a.img');
    const r = await runCli(['encrypt', plainFile, out, '--passphrase-file', passFile, ...FAST]);
    expect(r.stderr).toMatch(
      /LUKS2 aes-xts-plain64, 512-bit key, 512-byte sectors, keyslot 0 pbkdf2-sha256, 1000 iterations/,
    );
    expect(r.stderr).toMatch(/encrypted 3\.0 MiB in/);
    expect(r.code).toBe(0);
    expect((await stat(out)).size).toBe(16 * 1024 * 1024 + plain.length);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const { out: got } = await plaintextOf(out);
    expect(sameBytes(got, plain)).toBe(true);
    const back = join(dir, 'a.plain');
    const d = await runCli(['decrypt', out, back, '--passphrase-file', passFile]);
    expect(d.code).toBe(0);
    expect(sameBytes(await readFile(back), plain)).toBe(true);
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('passes its options to the header (cipher, key size, sector size, argon2, label; stdin passphrase)', async () => {
    const out = join(dir, 'b.img');
    const r = await runCli(
      [
        'encrypt',
        plainFile,
        out,
        '--passphrase-file',
        '-',
        '--type',
        'luks2',
        '--cipher',
        'aes-cbc-essiv:sha256',
        '--key-size',
        '128',
        '--sector-size',
        '4096',
        '--pbkdf',
        'argon2i',
        '--pbkdf-force-iterations',
        '5',
        '--pbkdf-memory',
        '256',
        '--pbkdf-parallel',
        '1',
        '--label',
        'backup 1',
      ],
      { stdin: 'from stdin' },
    );
    expect(r.code).toBe(0);
    const h = (await readHeader(new Uint8Array(await readFile(out)))) as Luks2Header;
    expect(h.label).toBe('backup 1');
    expect(h.segments[0]).toMatchObject({ encryption: 'aes-cbc-essiv:sha256', sectorSize: 4096 });
    expect(h.keyslots[0].keySize).toBe(16);
    expect(h.keyslots[0].kdf).toMatchObject({ type: 'argon2i', time: 5, memory: 256, cpus: 1 });
    const { out: got } = await plaintextOf(out, 'from stdin');
    const want = new Uint8Array(Math.ceil(plain.length / 4096) * 4096);
    want.set(plain);
    expect(sameBytes(got, want)).toBe(true);
  });

  it('benchmarks with --iter-time', async () => {
    const out = join(dir, 'c.img');
    // on a clock that only PBKDF2 work advances, 1 µs per iteration (work-clock.mjs): what the benchmark
    // measures, and so the count it chooses, does not depend on the machine's load
    const clock = fileURLToPath(new URL('./work-clock.mjs', import.meta.url));
    const r = await runCli(
      ['encrypt', plainFile, out, '--passphrase-file', passFile, '--pbkdf', 'pbkdf2', '--iter-time', '50'],
      { env: { NODE_OPTIONS: `--import=${clock}`, X_TEST_MS_PER_PBKDF2_ITERATION: '0.001' } },
    );
    expect(r.code).toBe(0);
    const h = (await readHeader(new Uint8Array(await readFile(out)))) as Luks2Header;
    expect(h.keyslots[0].kdf).toMatchObject({ type: 'pbkdf2', iterations: 50_000 }); // 50 ms of work
    expect(h.digests[0].iterations).toBe(125_000); // the digest's 125 ms (cryptsetup's LUKS_MKD_ITERATIONS_MS)
  });

  it('follows the output rules: existing OUT, --force, OUT = PLAIN, no partial OUT on failure', async () => {
    const out = join(dir, 'd.img');
    await writeFile(out, 'old');
    let r = await runCli(['encrypt', plainFile, out, '--passphrase-file', passFile, ...FAST]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exists; pass --force to overwrite it/);
    expect(await readFile(out, 'utf8')).toBe('old');
    r = await runCli(['encrypt', plainFile, out, '--passphrase-file', passFile, ...FAST, '--force']);
    expect(r.code).toBe(0);
    expect(sameBytes((await plaintextOf(out)).out, plain)).toBe(true);
    // PLAIN itself under another name: refused even with --force
    const alias = join(dir, 'alias');
    await link(plainFile, alias);
    r = await runCli(['encrypt', plainFile, alias, '--passphrase-file', passFile, ...FAST, '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is PLAIN itself/);
    expect(sameBytes(await readFile(plainFile), plain)).toBe(true);
    // a failure after the temporary file exists (a key size the cipher refuses): nothing left behind
    const none = join(dir, 'none.img');
    r = await runCli(['encrypt', plainFile, none, '--passphrase-file', passFile, ...FAST, '--key-size', '384']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-luks: .*key/m);
    await expect(stat(none)).rejects.toThrow(/ENOENT/);
    r = await runCli(['encrypt', join(dir, 'missing'), none, '--passphrase-file', passFile, ...FAST]);
    expect(r.code).toBe(1);
    await expect(stat(none)).rejects.toThrow(/ENOENT/);
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('rejects bad command lines with the usage text; dump and decrypt still refuse encrypt options', async () => {
    const out = join(dir, 'e.img');
    const cases: [string[], RegExp][] = [
      [['encrypt', plainFile, out], /encrypt needs --key-file/],
      [['encrypt', plainFile], /encrypt takes PLAIN and OUT/],
      [
        ['encrypt', plainFile, out, '--passphrase-file', passFile, '--type', 'luks3'],
        /--type luks3: expected luks2 or luks1/,
      ],
      [['encrypt', plainFile, out, '--passphrase-file', passFile, '--pbkdf', 'scrypt'], /--pbkdf scrypt/],
      [['encrypt', plainFile, out, '--passphrase-file', passFile, '--sector-size', '1000'], /--sector-size takes/],
      [
        [
          'encrypt',
          plainFile,
          out,
          '--passphrase-file',
          passFile,
          '--iter-time',
          '10',
          '--pbkdf-force-iterations',
          '1000',
        ],
        /not both/,
      ],
      [
        ['encrypt', plainFile, out, '--passphrase-file', passFile, '--volume-key-file', passFile],
        /does not take --volume-key-file/,
      ],
      [['encrypt', plainFile, '-', '--passphrase-file', passFile], /OUT cannot be -/],
      [['decrypt', plainFile, out, '--passphrase-file', passFile, '--cipher', 'x'], /decrypt does not take --cipher/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/usage:/);
    }
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    const h = await runCli(['--help']);
    expect(h.stdout.toString()).toMatch(/x-luks encrypt PLAIN OUT -d FILE/);
  });
});

describeWithCryptsetup('x-luks encrypt in cryptsetup 2.6', () => {
  it('luksDump accepts OUT, open --test-passphrase the passphrase; its volume key decrypts PLAIN', async () => {
    for (const [i, extra] of [
      ['f', ['--sector-size', '4096', '--pbkdf', 'argon2id', '--pbkdf-force-iterations', '4', '--pbkdf-memory', '64']],
      ['g', ['--cipher', 'aes-cbc-essiv:sha256', ...FAST]],
    ] as const) {
      const out = join(dir, `${i}.img`);
      const r = await runCli(['encrypt', plainFile, out, '--passphrase-file', passFile, ...extra]);
      expect(r.code).toBe(0);
      const { stdout } = await runCryptsetup(['luksDump', '--disable-locks', out]);
      expect(stdout).toMatch(/^Version:\s+2$/m);
      await runCryptsetup(['open', '--test-passphrase', '--disable-locks', '--key-file', passFile, out]);
      const key = await dumpVolumeKey(out, passFile);
      const v = await openLuks(new Uint8Array(await readFile(out)), { volumeKey: key });
      const got = new Uint8Array(v.payloadSize);
      await v.read(got, 0);
      v.close();
      expect(sameBytes(got.subarray(0, plain.length), plain)).toBe(true);
    }
  });
});
