// IMAGE may be a block device (a disk, a partition, a loop device), as for cryptsetup: the same header and
// the same plaintext as from the image file behind it. Needs a loop device (root, losetup, /dev/loop*); a
// machine that cannot make one skips with a line saying so.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { luksFixture, runDisk } from './helpers.js';

const SAMPLE = luksFixture('sample-luks2.img');
const PASS = luksFixture('sample.passphrase');

/** A read-only loop device over `file`, or undefined when this machine cannot make one. */
function loopDevice(file: string): string | undefined {
  try {
    return execFileSync('losetup', ['-f', '--show', '-r', file], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return undefined;
  }
}

describe('a block device as IMAGE', () => {
  const device = loopDevice(SAMPLE);
  afterAll(() => {
    if (device) execFileSync('losetup', ['-d', device]);
  });
  if (!device) console.log('x-disk: block device test skipped: no loop device can be made here (losetup as root)');

  it.runIf(device !== undefined)('dump and decrypt read it as the file behind it', async () => {
    const [fromFile, fromDevice] = await Promise.all([runDisk(['dump', SAMPLE]), runDisk(['dump', device!])]);
    expect(fromDevice.stderr.toString()).toBe('');
    expect(fromDevice.code).toBe(0);
    expect(fromDevice.stdout.toString()).toBe(fromFile.stdout.toString());
    const a = await runDisk(['decrypt', SAMPLE, '-', '-d', PASS]);
    const b = await runDisk(['decrypt', device!, '-', '-d', PASS]);
    expect(b.code, b.stderr.toString()).toBe(0);
    expect(b.stdout.length).toBeGreaterThan(0);
    expect(Buffer.compare(b.stdout, a.stdout)).toBe(0);
  });
});
