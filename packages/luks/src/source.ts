// Where the bytes of an image come from: `@x/byte-source` owns the sources (bytes, Blob/File, a file in
// Node), shared with the other disk formats; `@x/luks` re-exports them under the names it always had.
import type { ImageInput } from '@x/byte-source';

export { blobSource, bytesSource, readBytes, toSource, type ByteSource } from '@x/byte-source';

/**
 * What `openLuks`/`readHeader` take: a source, the image's bytes, or a Blob (a File is one).
 *
 * @example
 * ```ts
 * const input: LuksInput = new Blob([bytes]);
 * ```
 */
export type LuksInput = ImageInput;
