// Issue 25, items 5 and 6: a secret file is read only up to cryptsetup's bound (8 MiB for a key or
// passphrase file, 512 bytes for a raw volume key), so `/dev/zero` is refused instead of read for ever;
// and an IMAGE that is a FIFO is refused without an open(2) that would wait for a writer for ever.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture, runCli, runDisk } from './helpers.js';

const SAMPLE = luksFixture('sample-luks2.img');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-cli-bounded-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('secret files are bounded', () => {
  it.each([
    ['x-disk', '--key-file', runDisk],
    ['x-disk', '--passphrase-file', runDisk],
    ['x-luks', '--key-file', runCli],
  ] as const)('%s %s /dev/zero is refused: more than 8 MiB', async (_c, option, run) => {
    const out = join(dir, `zero${option}`);
    const r = await run(['decrypt', SAMPLE, out, option, '/dev/zero']);
    expect(r.stderr).toMatch(
      /^x-(disk|luks): \/dev\/zero: more than 8 MiB \(8388608 bytes\), the most a key file may hold$/m,
    );
    expect(r.code).toBe(1);
    expect(await readdir(dir)).not.toContain(`zero${option}`);
  });

  it('a key file of exactly 8 MiB is read (and is the wrong passphrase), one byte more is refused', async () => {
    const exact = join(dir, 'exact');
    await writeFile(exact, new Uint8Array(8 << 20).fill(0x61));
    const ok = await runDisk(['decrypt', SAMPLE, join(dir, 'exact.out'), '-d', exact]);
    expect(ok.code).toBe(2);
    const over = join(dir, 'over');
    await writeFile(over, new Uint8Array((8 << 20) + 1).fill(0x61));
    const r = await runDisk(['decrypt', SAMPLE, join(dir, 'over.out'), '-d', over]);
    expect(r.stderr).toMatch(/over: more than 8 MiB/);
    expect(r.code).toBe(1);
  });

  it('stdin without end (/dev/zero) is refused', async () => {
    const r = await runDisk(['decrypt', SAMPLE, join(dir, 'stdin.out'), '-d', '-'], {
      stdin: new Uint8Array((8 << 20) + 65536),
    });
    expect(r.stderr).toMatch(/standard input: more than 8 MiB/);
    expect(r.code).toBe(1);
  });

  it.each([
    ['x-disk', runDisk],
    ['x-luks', runCli],
  ] as const)('%s --volume-key-file /dev/zero is refused: more than 512 bytes', async (_c, run) => {
    const r = await run(['decrypt', SAMPLE, join(dir, 'vk.out'), '--volume-key-file', '/dev/zero']);
    expect(r.stderr).toMatch(/\/dev\/zero: more than 512 bytes, the most a volume key file may hold$/m);
    expect(r.code).toBe(1);
  });
});

describe('an IMAGE that is not a regular file or a block device', () => {
  it.each([
    ['x-disk decrypt', runDisk, 'decrypt'],
    ['x-disk dump', runDisk, 'dump'],
    ['x-luks dump', runCli, 'dump'],
  ] as const)('%s: a FIFO with no writer is refused (no blocking open)', async (_c, run, sub) => {
    const fifo = join(dir, `fifo-${sub}-${_c.split(' ')[0]}`);
    execFileSync('mkfifo', [fifo]);
    const args = sub === 'decrypt' ? ['decrypt', fifo, join(dir, 'fifo.out'), '-d', '/dev/null'] : ['dump', fifo];
    // a blocking open would wait for a writer for ever: the test's own timeout is then the failure
    const r = await run(args);
    expect(r.stderr).toMatch(/: a FIFO, not a regular file or block device: IMAGE must be one$/m);
    expect(r.code).toBe(1);
  });

  it('a directory and a character device are refused by name', async () => {
    const d = await runDisk(['dump', dir]);
    expect(d.stderr).toMatch(/: a directory, not a regular file or block device/);
    const c = await runDisk(['dump', '/dev/null']);
    expect(c.stderr).toMatch(/\/dev\/null: a character device, not a regular file or block device/);
  });
});
