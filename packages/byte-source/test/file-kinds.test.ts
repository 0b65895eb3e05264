// openFileSource takes a regular file or a block device and refuses everything else by name, without ever
// blocking (issue 25: a FIFO as IMAGE blocked open(2) for ever; /dev/zero had no end).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageError } from '../src/index.js';
import { openFileSource } from '../src/file.js';

const dir = mkdtempSync(join(tmpdir(), 'x-byte-source-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('what openFileSource refuses', () => {
  it('a FIFO with no writer: refused at once, read-only and writable', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const options of [{}, { writable: true }]) {
      const e = await openFileSource(fifo, options).catch((e: unknown) => e);
      expect(e).toBeInstanceOf(ImageError);
      expect((e as Error).message).toBe(`@x/byte-source: ${fifo} is a FIFO, not a regular file or block device`);
    }
  });

  it('a character device (/dev/zero), a directory, a socket', async () => {
    await expect(openFileSource('/dev/zero')).rejects.toThrow(
      new ImageError('@x/byte-source: /dev/zero is a character device, not a regular file or block device'),
    );
    await expect(openFileSource(dir)).rejects.toThrow(/ is a directory, not a regular file or block device$/);
    const sock = join(dir, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      // open(2) of a socket fails (ENXIO) before any fstat: an error either way, and no hang
      await expect(openFileSource(sock)).rejects.toThrow();
    } finally {
      server.close();
    }
  });
});

/** A loop device over `file`, when this machine lets us make one (root, losetup, /dev/loop*); else undefined. */
function loopDevice(file: string): string | undefined {
  try {
    return execFileSync('losetup', ['-f', '--show', '-r', file], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return undefined;
  }
}

describe('a block device', () => {
  const file = join(dir, 'backing.img');
  const bytes = Uint8Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 13 + (i >>> 9)) & 0xff);
  writeFileSync(file, bytes);
  const device = loopDevice(file);
  afterAll(() => {
    if (device) execFileSync('losetup', ['-d', device]);
  });
  if (!device) console.log('byte-source: block device test skipped: no loop device can be made here (losetup as root)');

  it.runIf(device !== undefined)('is read as its bytes, its size from /sys/dev/block', async () => {
    const src = await openFileSource(device!);
    try {
      expect(src.size).toBe(bytes.length);
      const dst = new Uint8Array(4096);
      await src.read(bytes.length - 4096, dst);
      expect(dst).toEqual(bytes.subarray(bytes.length - 4096));
      await expect(src.read(bytes.length - 1, new Uint8Array(2))).rejects.toThrow(ImageError);
    } finally {
      await src.close();
    }
  });
});
