/**
 * `@x/luks/file`: a {@link ByteSource} over a file, for Node (the main entry point stays free of `node:`
 * modules so that browsers can load it).
 *
 * @example
 * ```ts
 * import { openLuks } from '@x/luks';
 * import { openFileSource } from '@x/luks/file';
 * const src = await openFileSource('disk.img');
 * try {
 *   const volume = await openLuks(src, { passphrase: 'secret' });
 *   // … volume.read(buf, sector) …
 *   volume.close();
 * } finally {
 *   await src.close();
 * }
 * ```
 *
 * @packageDocumentation
 */
import { open } from 'node:fs/promises';
import { LuksError } from './errors.js';
import type { ByteSource } from './source.js';

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
    if (!st.isFile()) throw new LuksError(`@x/luks: ${path} is not a regular file`);
    size = st.size;
  } catch (e) {
    await fh.close();
    throw e;
  }
  return {
    size,
    async read(offset, dst) {
      if (offset + dst.length > size) {
        throw new LuksError(
          `@x/luks: the image is truncated: bytes ${offset}..${offset + dst.length} wanted, it has ${size}`,
        );
      }
      let done = 0;
      while (done < dst.length) {
        const { bytesRead } = await fh.read(dst, done, dst.length - done, offset + done);
        if (bytesRead === 0)
          throw new LuksError(`@x/luks: ${path} ended at ${offset + done} while reading (truncated?)`);
        done += bytesRead;
      }
    },
    close: () => fh.close(),
  };
}
