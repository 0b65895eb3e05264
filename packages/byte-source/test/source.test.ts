// The three sources read the same bytes, and refuse reads past the end with an ImageError before
// touching dst.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  blobSource,
  type ByteSource,
  bytesSource,
  checkSectorRead,
  ImageError,
  readBytes,
  toSource,
  type WritableByteSource,
  writableBytes,
} from '../src/index.js';
import { openFileSource } from '../src/file.js';

const image = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7 + 3) & 0xff);
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function fileSource(): Promise<ByteSource> {
  dir ??= await mkdtemp(join(tmpdir(), 'x-byte-source-'));
  const path = join(dir, 'image.bin');
  await writeFile(path, image);
  return openFileSource(path);
}

describe.each([
  ['bytes', async () => bytesSource(image)],
  ['Blob', async () => blobSource(new Blob([image]))],
  ['file', fileSource],
])('%s source', (_name, make) => {
  it('reads any range, and refuses reads past the end without writing', async () => {
    const src = await make();
    expect(src.size).toBe(image.length);
    expect(await readBytes(src, 1234, 100)).toEqual(image.subarray(1234, 1334));
    expect(await readBytes(src, 0, image.length)).toEqual(image);
    const dst = new Uint8Array(16).fill(0xee);
    await expect(src.read(4990, dst)).rejects.toThrow(
      /^@x\/byte-source: the image is truncated: bytes 4990\.\.5006 wanted, it has 5000$/,
    );
    await expect(src.read(4990, dst)).rejects.toBeInstanceOf(ImageError);
    expect(dst.every((b) => b === 0xee)).toBe(true);
    await src.close?.();
  });
});

describe('toSource', () => {
  it('takes bytes, a Blob and a ByteSource, and nothing else', async () => {
    expect(toSource(image).size).toBe(5000);
    expect(toSource(new Blob([image])).size).toBe(5000);
    const own: ByteSource = { size: 1, async read() {} };
    expect(toSource(own)).toBe(own);
    expect(() => toSource('disk.img' as never)).toThrow(TypeError);
    expect(() => toSource(null as never)).toThrow(/^@x\/byte-source: the image must be/);
  });

  it('refuses negative and fractional offsets', async () => {
    await expect(bytesSource(image).read(-1, new Uint8Array(1))).rejects.toThrow(RangeError);
    await expect(bytesSource(image).read(0.5, new Uint8Array(1))).rejects.toThrow(RangeError);
  });

  it('a file that is not a regular file is refused', async () => {
    await expect(openFileSource(tmpdir())).rejects.toThrow(/is a directory, not a regular file or block device/);
  });
});

describe('checkSectorRead', () => {
  it('returns the byte offset of a read of whole sectors inside the volume, and refuses anything else', () => {
    const dst = new Uint8Array(1024);
    expect(checkSectorRead('@x/t', dst, 3, 512, 4096, 'the volume')).toBe(1536);
    expect(() => checkSectorRead('@x/t', dst, 7, 512, 4096, 'the volume')).toThrow(
      new RangeError('@x/t: sectors 7 … past the volume (8 sectors)'),
    );
    expect(() => checkSectorRead('@x/t', new Uint8Array(100), 0, 512, 4096, 'x')).toThrow(
      new RangeError('@x/t: dst is not a whole number of 512-byte sectors (100 bytes)'),
    );
    expect(() => checkSectorRead('@x/t', dst, -1, 512, 4096, 'x')).toThrow(RangeError);
    expect(() => checkSectorRead('@x/t', dst, 0.5, 512, 4096, 'x')).toThrow(RangeError);
    expect(() => checkSectorRead('@x/t', [] as never, 0, 512, 4096, 'x')).toThrow(
      new TypeError('@x/t: dst must be a Uint8Array'),
    );
  });
});

describe('writable sources: bytes in memory and a file opened { writable: true }', () => {
  async function writableFile(): Promise<{ src: WritableByteSource & { close(): Promise<void> }; path: string }> {
    dir ??= await mkdtemp(join(tmpdir(), 'x-byte-source-'));
    const path = join(dir, 'writable.bin');
    await writeFile(path, image);
    return { src: await openFileSource(path, { writable: true }), path };
  }

  it('writes in place, reads back what was written, and refuses writes past the end untouched', async () => {
    const mem = image.slice();
    const { src: file, path } = await writableFile();
    try {
      for (const [src, bytes] of [
        [writableBytes(mem), async () => mem],
        [file, async () => new Uint8Array(await readFile(path))],
      ] as const) {
        await src.write(4990, Uint8Array.of(1, 2, 3));
        await src.flush?.();
        expect(Array.from(await readBytes(src, 4989, 5))).toEqual([image[4989], 1, 2, 3, image[4993]]);
        const before = await bytes();
        await expect(src.write(4998, Uint8Array.of(9, 9, 9))).rejects.toThrow(
          new RangeError('@x/byte-source: a write of bytes 4998..5001 is past the end of the image (5000 bytes)'),
        );
        await expect(src.write(-1, Uint8Array.of(9))).rejects.toThrow(RangeError);
        await expect(src.write(0, [9] as never)).rejects.toThrow(TypeError);
        expect(await bytes()).toEqual(before);
        expect(src.size).toBe(5000);
      }
    } finally {
      await file.close();
    }
  });

  it('a file opened without { writable: true } has no write', async () => {
    const { path } = await writableFile();
    const ro = await openFileSource(path);
    try {
      expect('write' in ro).toBe(false);
    } finally {
      await ro.close();
    }
  });
});
