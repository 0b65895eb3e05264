// x-luks as a child process: dump, decrypt, exit codes, OUT handling and the committed sample.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, stat, writeFile, mkdtemp, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithCryptsetup, makeLuks2Container, removeAllContainers, type Container } from '@x/containers';
import { luksFixture as fixture, runCli, sameBytes } from './helpers.js';

const SAMPLE = fixture('sample-luks2.img');

describe('x-luks on the committed sample', () => {
  it('dump shows the header', async () => {
    const r = await runCli(['dump', SAMPLE]);
    expect(r.code).toBe(0);
    const text = r.stdout.toString();
    expect(text).toMatch(/^LUKS header information \(version 2\)/);
    expect(text).toMatch(/cipher: aes-xts-plain64/);
    expect(text).toMatch(/sector: 4096 \[bytes\]/);
    expect(text).toMatch(/PBKDF: {6}argon2id, time 4, memory 64 KiB, 1 threads/);
    expect(text).toMatch(/0: pbkdf2-sha256, 1000 iterations/);
  });

  it('dump --json gives the parsed header', async () => {
    const r = await runCli(['dump', SAMPLE, '--json']);
    expect(r.code).toBe(0);
    const h = JSON.parse(r.stdout.toString());
    expect(h.version).toBe(2);
    expect(h.copy).toBe('primary');
    expect(h.segments[0]).toMatchObject({
      id: '0',
      type: 'crypt',
      offset: 524288,
      size: 'dynamic',
      encryption: 'aes-xts-plain64',
      sectorSize: 4096,
      ivTweak: '0',
    });
    expect(h.keyslots[0].kdf).toMatchObject({ type: 'argon2id', time: 4, memory: 64, cpus: 1 });
    expect(h.digests[0].keyslots).toEqual(['0']);
  });

  it('decrypt writes the sample text (passphrase from a file and from stdin)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-cli-'));
    try {
      const text = await readFile(fixture('sample.txt'));
      const want = new Uint8Array(64 * 1024);
      want.set(text);
      const r = await runCli(['decrypt', SAMPLE, join(dir, 'a'), '--passphrase-file', fixture('sample.passphrase')]);
      expect(r.stderr).toMatch(/LUKS2 aes-xts-plain64, 4096-byte sectors/);
      expect(r.code).toBe(0);
      expect(sameBytes(await readFile(join(dir, 'a')), want)).toBe(true);
      const s = await runCli(['decrypt', SAMPLE, join(dir, 'b'), '--passphrase-file', '-'], {
        stdin: await readFile(fixture('sample.passphrase')),
      });
      expect(s.code).toBe(0);
      expect(sameBytes(await readFile(join(dir, 'b')), want)).toBe(true);
      expect((await stat(join(dir, 'b'))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('usage errors exit 1', async () => {
    for (const args of [
      [],
      ['frobnicate'],
      ['dump'],
      ['decrypt', SAMPLE, '/tmp/x'],
      ['decrypt', SAMPLE, '/tmp/x', '--passphrase-file', 'a', '--volume-key-file', 'b'],
      ['dump', SAMPLE, '--bogus'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/usage:/);
    }
    const h = await runCli(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout.toString()).toMatch(/x-luks decrypt IMAGE OUT/);
  });
});

describeWithCryptsetup('x-luks decrypt: exit codes and OUT', () => {
  let small: Container;
  let big: Container;
  let dir: string;
  let passFile: string;
  const passphrase = randomBytes(10).toString('hex');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-luks-cli-'));
    [small, big] = await Promise.all([
      makeLuks2Container({
        cipher: 'aes-cbc-essiv:sha256',
        keySize: 256,
        dataSize: 128 * 1024,
        passphrases: [passphrase],
      }),
      makeLuks2Container({
        cipher: 'aes-cbc-plain64',
        keySize: 256,
        sectorSize: 4096,
        dataSize: 48 << 20,
        passphrases: [passphrase],
      }),
    ]);
    passFile = join(dir, 'pass');
    await writeFile(passFile, passphrase);
  });
  afterAll(async () => {
    await removeAllContainers();
    await rm(dir, { recursive: true, force: true });
  });

  it('a wrong passphrase exits 2 and writes nothing', async () => {
    const bad = join(dir, 'bad-pass');
    await writeFile(bad, `${passphrase}\n`); // one byte more than the real one
    const out = join(dir, 'wrong');
    const r = await runCli(['decrypt', small.path, out, '--passphrase-file', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^x-luks: no keyslot opens with this passphrase/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).not.toContain(expect.stringMatching(/\.part$/));
  });

  it('--key-file takes the raw volume key; a wrong one exits 2', async () => {
    const kf = join(dir, 'vk');
    await writeFile(kf, small.volumeKey);
    const out = join(dir, 'by-key');
    const r = await runCli(['decrypt', small.path, out, '--volume-key-file', kf]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/volume key given/);
    expect(sameBytes(await readFile(out), small.original)).toBe(true);
    const wrong = Uint8Array.from(small.volumeKey);
    wrong[31] ^= 0x80;
    await writeFile(kf, wrong);
    const w = await runCli(['decrypt', small.path, join(dir, 'by-wrong-key'), '--volume-key-file', kf]);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/volume key does not match/);
  });

  it('refuses an existing OUT without --force, and replaces it with --force', async () => {
    const out = join(dir, 'existing');
    await writeFile(out, 'keep me');
    const r = await runCli(['decrypt', small.path, out, '--passphrase-file', passFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exists; pass --force/);
    expect(await readFile(out, 'utf8')).toBe('keep me');
    const f = await runCli(['decrypt', small.path, out, '--passphrase-file', passFile, '--force']);
    expect(f.code).toBe(0);
    expect(sameBytes(await readFile(out), small.original)).toBe(true);
  });

  it('writes to stdout with OUT -', async () => {
    const r = await runCli(['decrypt', small.path, '-', '--passphrase-file', passFile]);
    expect(r.code).toBe(0);
    expect(sameBytes(r.stdout, small.original)).toBe(true);
  });

  it('opens from the secondary header when the primary is damaged', async () => {
    const copy = join(dir, 'damaged.img');
    await copyFile(small.path, copy);
    const bytes = await readFile(copy);
    bytes[4096 + 64] ^= 0xff;
    await writeFile(copy, bytes);
    const d = await runCli(['dump', copy]);
    expect(d.stdout.toString()).toMatch(/read from the secondary copy/);
    expect(d.stdout.toString()).toMatch(/warning: primary header: checksum mismatch/);
    const out = join(dir, 'from-secondary');
    const r = await runCli(['decrypt', copy, out, '--passphrase-file', passFile]);
    expect(r.code).toBe(0);
    expect(sameBytes(await readFile(out), small.original)).toBe(true);
  });

  it('a truncated image exits 1 with a clear message', async () => {
    const cut = join(dir, 'cut.img');
    await writeFile(cut, (await readFile(small.path)).subarray(0, 10_000));
    const r = await runCli(['decrypt', cut, join(dir, 'cut.out'), '--passphrase-file', passFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^x-luks: no usable LUKS2 header: primary header: the image is truncated/);
    const n = await runCli(['dump', join(dir, 'no-such-file')]);
    expect(n.code).toBe(1);
    expect(n.stderr).toMatch(/no-such-file: no such file\n$/);
  });

  it('leaves no partial OUT when stopped half way', async () => {
    const out = join(dir, 'stopped');
    let pid = 0;
    const running = runCli(['decrypt', big.path, out, '--passphrase-file', passFile], { onSpawn: (p) => (pid = p) });
    // wait for the temporary file to exist and grow, then stop the command
    // (no deadline: if the command ends first, that is the failure; a hang is the test's hang guard's)
    let ended = false;
    const end = () => {
      ended = true;
    };
    running.then(end, end);
    for (;;) {
      const part = (await readdir(dir)).find((f) => f.startsWith('.stopped.') && f.endsWith('.part'));
      if (part && (await stat(join(dir, part)).catch(() => undefined))?.size) break;
      if (ended) throw new Error('the command ended before its temporary file appeared');
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(pid, 'SIGTERM');
    const r = await running;
    expect(r.code).toBe(143);
    expect((await readdir(dir)).filter((f) => f.includes('stopped'))).toEqual([]);
  });
});
