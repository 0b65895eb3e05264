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
import { open } from 'node:fs/promises';
import { type ByteSource, checkWrite, ImageError, truncatedMessage, type WritableByteSource } from './index.js';

/**
 * Opens `path` read-only as a {@link ByteSource}; `read` fills the whole buffer or rejects (a file that
 * got shorter is reported as truncated). With `{ writable: true }` the file is opened for reading and
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
  const fh = await open(path, writable ? 'r+' : 'r');
  let size: number;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ImageError(`@x/byte-source: ${path} is not a regular file`);
    size = st.size;
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
