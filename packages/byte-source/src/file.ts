/**
 * `@x/byte-source/file`: a {@link ByteSource} over a file, for Node (the main entry point stays free of
 * `node:` modules so that browsers can load it).
 *
 * @example
 * ```ts
 * import { openFileSource } from '@x/byte-source/file';
 * const src = await openFileSource('disk.img');
 * try {
 *   // … hand src to openLuks / openBitlocker / openFileVault2 …
 * } finally {
 *   await src.close();
 * }
 * ```
 *
 * @packageDocumentation
 */
import { constants, type BigIntStats } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { type ByteSource, checkWrite, ImageError, truncatedMessage, type WritableByteSource } from './index.js';

/** What `st` is, when it is neither a regular file nor a block device. */
function kindOf(st: BigIntStats): string | undefined {
  if (st.isFile() || st.isBlockDevice()) return undefined;
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The size of the block device `st` is, in bytes: Linux's /sys/dev/block/MAJOR:MINOR/size (512-byte
 * units whatever the device's sector size). Node has no BLKGETSIZE64 and its `stat` says 0 for a device.
 */
async function blockDeviceSize(path: string, st: BigIntStats): Promise<number> {
  // glibc's encoding of dev_t (gnu_dev_major/gnu_dev_minor)
  const major = ((st.rdev >> 8n) & 0xfffn) | ((st.rdev >> 32n) & ~0xfffn);
  const minor = (st.rdev & 0xffn) | ((st.rdev >> 12n) & ~0xffn);
  let text: string;
  try {
    text = await readFile(`/sys/dev/block/${major}:${minor}/size`, 'utf8');
  } catch {
    throw new ImageError(
      `@x/byte-source: ${path} is a block device whose size this system does not tell (no /sys/dev/block/${major}:${minor}/size)`,
    );
  }
  return Number(BigInt(text.trim()) * 512n);
}

/**
 * Opens `path` read-only as a {@link ByteSource}; `read` fills the whole buffer or rejects (a file that
 * got shorter is reported as truncated). `path` must be a regular file or (on Linux) a block device:
 * anything else (a FIFO, a directory, a character device such as /dev/zero, a socket) is refused with an
 * ImageError that names it. The file is opened with O_NONBLOCK and checked with `fstat`, so that a FIFO
 * never blocks the open, not even one put in the file's place after a check by name. With `{ writable: true }` the file is opened for reading and
 * writing, and the source is a {@link WritableByteSource}: `write` stores inside the file (never past
 * its end), `flush` is fsync. Close it when done.
 *
 * @example
 * ```ts
 * const src = await openFileSource('/tmp/volume.img');
 * console.log(src.size);
 * await src.close();
 * const rw = await openFileSource('/tmp/volume.img', { writable: true });
 * await rw.write(0, header);
 * await rw.flush();
 * await rw.close();
 * ```
 */
export async function openFileSource(path: string): Promise<ByteSource & { close(): Promise<void> }>;
export async function openFileSource(
  path: string,
  options: { writable: true },
): Promise<WritableByteSource & { flush(): Promise<void>; close(): Promise<void> }>;
export async function openFileSource(
  path: string,
  options?: { writable?: boolean },
): Promise<ByteSource & { close(): Promise<void> }>;
export async function openFileSource(path: string, options: { writable?: boolean } = {}) {
  const writable = options.writable === true;
  const fh = await open(path, (writable ? constants.O_RDWR : constants.O_RDONLY) | constants.O_NONBLOCK);
  let size: number;
  try {
    const st = await fh.stat({ bigint: true });
    const kind = kindOf(st);
    if (kind) throw new ImageError(`@x/byte-source: ${path} is ${kind}, not a regular file or block device`);
    size = st.isBlockDevice() ? await blockDeviceSize(path, st) : Number(st.size);
  } catch (e) {
    await fh.close();
    throw e;
  }
  const source: ByteSource & { close(): Promise<void> } = {
    size,
    async read(offset, dst) {
      if (offset + dst.length > size) throw new ImageError(truncatedMessage(offset, dst.length, size));
      let done = 0;
      while (done < dst.length) {
        const { bytesRead } = await fh.read(dst, done, dst.length - done, offset + done);
        if (bytesRead === 0)
          throw new ImageError(`@x/byte-source: ${path} ended at ${offset + done} while reading (truncated?)`);
        done += bytesRead;
      }
    },
    close: () => fh.close(),
  };
  if (!writable) return source;
  return {
    ...source,
    async write(offset: number, bytes: Uint8Array) {
      if (!(bytes instanceof Uint8Array)) throw new TypeError('@x/byte-source: bytes must be a Uint8Array');
      checkWrite(size, offset, bytes.length);
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, offset + done);
        done += bytesWritten;
      }
    },
    flush: () => fh.sync(),
  };
}
