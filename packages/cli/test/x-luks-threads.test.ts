// `x-luks decrypt --threads N` as a child process, on containers cryptsetup made: the same bytes for every
// N (LUKS2 and LUKS1, XTS and CBC-ESSIV, 512 and 4096-byte sectors, a last chunk cut short, to a file and
// to stdout), a thread failing half way (exit 1, one line, no partial OUT), and the values --threads
// refuses.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Container,
  convertToLuks1,
  describeWithCryptsetup,
  makeLuks2Container,
  removeAllContainers,
} from '@x/containers';
import { kernels } from '@x/aes-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture, runCli, sameBytes } from './helpers.js';

const MiB = 1 << 20;

describe('x-luks decrypt --threads: values it refuses', () => {
  const SAMPLE = luksFixture('sample-luks2.img');
  const PASS = luksFixture('sample.passphrase');
  it.each(['0', '1.5', 'abc', '257', '', '0x2', '2e0'])('--threads=%s is a usage error, exit 1', async (v) => {
    const r = await runCli(['decrypt', SAMPLE, '/tmp/never-written', '--passphrase-file', PASS, `--threads=${v}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^x-luks: --threads takes a whole number of threads from 1 to 256, not "${v}"\\nusage:`),
    );
  });

  it('--threads -1 is a usage error, exit 1 (the value of --threads, as cryptsetup reads options)', async () => {
    const r = await runCli(['decrypt', SAMPLE, '/tmp/never-written', '--passphrase-file', PASS, '--threads', '-1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-luks: --threads takes a whole number of threads from 1 to 256, not "-1"\n/);
    expect(r.stderr).toMatch(/usage:/);
    const eq = await runCli(['decrypt', SAMPLE, '/tmp/never-written', '--passphrase-file', PASS, '--threads=-1']);
    expect(eq.code).toBe(1);
    expect(eq.stderr).toMatch(/^x-luks: --threads takes a whole number of threads from 1 to 256, not "-1"\n/);
  });

  it('encrypt does not take --threads; --help names it', async () => {
    const r = await runCli(['encrypt', SAMPLE, '/tmp/never-written', '--passphrase-file', PASS, '--threads', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-luks: encrypt does not take --threads\n/);
    const h = await runCli(['--help']);
    expect(h.stdout.toString()).toMatch(/\[--threads N\]/);
    expect(h.stdout.toString()).toMatch(/--threads N +decrypt on N threads/);
  });
});

describeWithCryptsetup('x-luks decrypt --threads N on cryptsetup containers', () => {
  const passphrase = randomBytes(8).toString('hex');
  let dir: string;
  let passFile: string;
  let volumes: { name: string; c: Container; keyFile: string }[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-luks-threads-'));
    passFile = join(dir, 'pass');
    await writeFile(passFile, passphrase);
    const [xts, cbc] = await Promise.all([
      // 4 chunks of 4 MiB and a short fifth
      makeLuks2Container({
        cipher: 'aes-xts-plain64',
        keySize: 512,
        sectorSize: 4096,
        dataSize: 16 * MiB + 12 * 4096,
        passphrases: [passphrase],
      }),
      // three and a bit chunks, 512-byte sectors: kept LUKS1-compatible, converted below
      makeLuks2Container({
        cipher: 'aes-cbc-essiv:sha256',
        keySize: 256,
        dataSize: 13 * MiB + 3 * 512,
        passphrases: [passphrase],
      }),
    ]);
    const luks1 = await convertToLuks1(cbc);
    volumes = [];
    for (const [name, c] of [
      ['LUKS2 aes-xts-plain64, 4096-byte sectors', xts],
      ['LUKS2 aes-cbc-essiv:sha256, 512-byte sectors', cbc],
      ['LUKS1 aes-cbc-essiv:sha256', luks1],
    ] as const) {
      const keyFile = join(dir, `${volumes.length}.key`);
      await writeFile(keyFile, c.volumeKey);
      volumes.push({ name, c, keyFile });
    }
  });
  afterAll(async () => {
    await removeAllContainers();
    await rm(dir, { recursive: true, force: true });
  });

  it('by default: one thread per core on the software kernels, one on a hardware AES kernel', async () => {
    const cores = availableParallelism();
    const { c, keyFile } = volumes[0]; // 16 MiB and a bit: more than one chunk
    const soft = await runCli(['decrypt', c.path, '-', '--volume-key-file', keyFile], {
      env: { X_AES_KERNEL: 'wasm-simd128' },
    });
    expect(soft.code).toBe(0);
    expect(soft.stderr).toMatch(
      cores > 1 ? new RegExp(`kernel wasm-simd128 \\(${cores} threads\\)`) : /kernel wasm-simd128\n/,
    );
    const native = kernels().find((k) => k.startsWith('native-'));
    if (native) {
      const hard = await runCli(['decrypt', c.path, '-', '--volume-key-file', keyFile], {
        env: { X_AES_KERNEL: native },
      });
      expect(hard.code).toBe(0);
      expect(hard.stderr).toMatch(new RegExp(`kernel ${native}[^\\n(]*\\n`));
      expect(hard.stdout.equals(soft.stdout)).toBe(true);
    }
    expect(sameBytes(soft.stdout, c.original)).toBe(true);
  });

  it('writes the same bytes for N = 1, 2, 3, from the key file and from the passphrase', async () => {
    for (const { name, c, keyFile } of volumes) {
      for (const n of [1, 2, 3]) {
        for (const secret of [
          ['--volume-key-file', keyFile],
          ['--passphrase-file', passFile],
        ]) {
          const what = `${name}, --threads ${n}, ${secret[0]}`;
          const out = join(dir, `out-${n}`);
          const r = await runCli(['decrypt', c.path, out, ...secret, '--threads', String(n)]);
          expect(r.code, `${what}: ${r.stderr}`).toBe(0);
          expect(sameBytes(await readFile(out), c.original), what).toBe(true);
          expect((await stat(out)).mode & 0o777).toBe(0o600);
          const [summary] = r.stderr.split('\n');
          // a passphrase is unlocked once, here; the threads open the volume from its key
          expect(summary, what).toMatch(secret[0] === '--volume-key-file' ? /, volume key given, / : /, keyslot 0, /);
          if (n === 1) expect(summary, what).toMatch(/, kernel \S+$/);
          else expect(summary, what).toMatch(new RegExp(`, kernel \\S+ \\(${n} threads\\)$`));
          await rm(out);
        }
      }
    }
  });

  it('writes the same bytes to stdout, and over an existing OUT with --force', async () => {
    const { c, keyFile } = volumes[0];
    const s = await runCli(['decrypt', c.path, '-', '--volume-key-file', keyFile, '--threads', '3']);
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/\(3 threads\)\n/);
    expect(sameBytes(s.stdout, c.original)).toBe(true);
    const out = join(dir, 'existing');
    await writeFile(out, 'keep me');
    const refused = await runCli(['decrypt', c.path, out, '--volume-key-file', keyFile, '--threads', '2']);
    expect(refused.code).toBe(1);
    expect(await readFile(out, 'utf8')).toBe('keep me');
    const f = await runCli(['decrypt', c.path, out, '--volume-key-file', keyFile, '--threads', '2', '--force']);
    expect(f.code).toBe(0);
    expect(sameBytes(await readFile(out), c.original)).toBe(true);
    await rm(out);
  });

  it('a wrong key file exits 2 before any thread opens anything', async () => {
    const { c, keyFile } = volumes[0];
    const wrong = Uint8Array.from(await readFile(keyFile));
    wrong[0] ^= 1;
    const kf = join(dir, 'wrong.key');
    await writeFile(kf, wrong);
    const r = await runCli(['decrypt', c.path, join(dir, 'wrong.out'), '--volume-key-file', kf, '--threads', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('x-luks: the volume key does not match the header digest\n');
    expect((await readdir(dir)).filter((f) => f.includes('wrong.out'))).toEqual([]);
  });

  it('an image cut short while the threads read it: exit 1, one line, no partial OUT', async () => {
    // a bigger volume on the slowest kernel, so that the cut comes while the threads are reading
    const big = await makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 256,
      sectorSize: 4096,
      dataSize: 96 * MiB,
      passphrases: [passphrase],
      dir,
      name: 'cut',
    });
    const image = join(dir, 'cut-copy.img');
    await copyFile(big.path, image);
    const kf = join(dir, 'cut.key');
    await writeFile(kf, big.volumeKey);
    await big.remove();
    const out = join(dir, 'cut.out');
    const running = runCli(['decrypt', image, out, '--volume-key-file', kf, '--threads', '2'], {
      env: { X_AES_KERNEL: 'portable' },
    });
    // the temporary file exists once the threads are open and the first chunks are on their way
    // (no deadline: if the command ends first, that is the failure; a hang is the test's hang guard's)
    let ended = false;
    const end = () => {
      ended = true;
    };
    running.then(end, end);
    for (;;) {
      const part = (await readdir(dir)).find((f) => f.startsWith('.cut.out.') && f.endsWith('.part'));
      if (part) break;
      if (ended) throw new Error('the command ended before its temporary file appeared');
      await new Promise((r) => setTimeout(r, 10));
    }
    await truncate(image, big.payloadOffset + 8 * MiB);
    const r = await running;
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^x-luks: LUKS2 aes-xts-plain64, .*, kernel portable \(2 threads\)$/);
    // a thread's read past the new end, or (cut while they open) a thread seeing a shorter image
    expect(lines[1]).toMatch(
      /^x-luks: .*cut-copy\.img (ended at \d+ while reading \(truncated\?\)|changed while it was being opened)$/,
    );
    expect(lines.slice(2)).toEqual(['']);
    expect((await readdir(dir)).filter((f) => f.includes('cut.out'))).toEqual([]);
  });
});
