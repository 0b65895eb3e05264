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
import { type ByteSource, ImageError, truncatedMessage } from './index.js';

/**
 * Opens `path` read-only as a {@link ByteSource}; `read` fills the whole buffer or rejects (a file that
 * got shorter is reported as truncated). Close it when done.
 *
 * @example
 * ```ts
 * const src = await openFileSource('/tmp/volume.img');
 * console.log(src.size);
 * await src.close();
 * ```
 */
export async function openFileSource(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  const fh = await open(path, 'r');
  let size: number;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ImageError(`@x/byte-source: ${path} is not a regular file`);
    size = st.size;
  } catch (e) {
    await fh.close();
    throw e;
  }
  return {
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
}
