/**
 * `@x/byte-source`: where the bytes of a disk image come from. The format packages (`@x/luks`,
 * `@x/bitlocker`, `@x/filevault2`) only ever call `read(offset, dst)` on a {@link ByteSource}, so the same
 * code runs on a Uint8Array, a browser Blob/File, or (`@x/byte-source/file`, Node only) a file.
 *
 * @example
 * ```ts
 * import { toSource, readBytes } from '@x/byte-source';
 * const src = toSource(blob);                    // a Uint8Array, a Blob/File or a ByteSource
 * const first = await readBytes(src, 0, 512);    // ImageError if the image is shorter
 * ```
 *
 * @packageDocumentation
 */

/**
 * The image is shorter than a read asked for, or a read failed: a damaged or truncated image.
 *
 * @example
 * ```ts
 * import { ImageError, readBytes, toSource } from '@x/byte-source';
 * await readBytes(toSource(new Uint8Array(10)), 0, 512).catch((e) => e instanceof ImageError); // true
 * ```
 */
export class ImageError extends Error {
  override name = 'ImageError';
}

/**
 * A random-access image: `size` bytes, read with `read(offset, dst)`, which fills all of `dst` from
 * `offset` or rejects. `close()`, when present, releases what the source holds (a file handle).
 *
 * @example
 * ```ts
 * import type { ByteSource } from '@x/byte-source';
 * const zeros: ByteSource = { size: 1 << 20, async read(_offset, dst) { dst.fill(0); } };
 * ```
 */
export interface ByteSource {
  readonly size: number;
  read(offset: number, dst: Uint8Array): Promise<void>;
  close?(): Promise<void>;
}

/**
 * What the format packages take as an image: a source, the image's bytes, or a Blob (a File is one).
 *
 * @example
 * ```ts
 * const input: ImageInput = new Blob([bytes]);
 * ```
 */
export type ImageInput = ByteSource | Uint8Array | Blob;

const PREFIX = '@x/byte-source';

/** The message of a read past the end, shared by every source so that formats report it the same way. */
export function truncatedMessage(offset: number, length: number, size: number): string {
  return `${PREFIX}: the image is truncated: bytes ${offset}..${offset + length} wanted, it has ${size}`;
}

function checkRange(size: number, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`${PREFIX}: offset ${offset} is not a non-negative integer`);
  if (offset + length > size) throw new ImageError(truncatedMessage(offset, length, size));
}

/**
 * A source over bytes in memory (no copy is made; reads copy out of it).
 *
 * @example
 * ```ts
 * import { bytesSource } from '@x/byte-source';
 * const src = bytesSource(image);
 * ```
 */
export function bytesSource(bytes: Uint8Array): ByteSource {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${PREFIX}: bytes must be a Uint8Array`);
  return {
    size: bytes.length,
    async read(offset, dst) {
      checkRange(bytes.length, offset, dst.length);
      dst.set(bytes.subarray(offset, offset + dst.length));
    },
  };
}

/**
 * An image that can also be written in place: `write(offset, bytes)` stores all of `bytes` at `offset`
 * (inside the image: it never grows) or rejects; `flush()`, when present, returns once what was written is
 * on stable storage (a file's fsync), so that a writer can order its updates for a crash.
 *
 * @example
 * ```ts
 * import type { WritableByteSource } from '@x/byte-source';
 * const image: WritableByteSource = writableBytes(new Uint8Array(1 << 20));
 * await image.write(0, new Uint8Array([1, 2, 3]));
 * ```
 */
export interface WritableByteSource extends ByteSource {
  write(offset: number, bytes: Uint8Array): Promise<void>;
  flush?(): Promise<void>;
}

/**
 * A writable source over bytes in memory: reads copy out of `bytes`, writes copy into it (no copy of the
 * array is made, so the caller sees every write).
 *
 * @example
 * ```ts
 * import { writableBytes } from '@x/byte-source';
 * const image = writableBytes(bytes);
 * await image.write(512, sector);
 * ```
 */
export function writableBytes(bytes: Uint8Array): WritableByteSource {
  const src = bytesSource(bytes);
  return {
    size: src.size,
    read: src.read,
    async write(offset, data) {
      if (!(data instanceof Uint8Array)) throw new TypeError(`${PREFIX}: bytes must be a Uint8Array`);
      checkWrite(bytes.length, offset, data.length);
      bytes.set(data, offset);
    },
  };
}

/** A write must lie inside the image: images are rewritten in place, never extended. */
export function checkWrite(size: number, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`${PREFIX}: offset ${offset} is not a non-negative integer`);
  if (offset + length > size)
    throw new RangeError(
      `${PREFIX}: a write of bytes ${offset}..${offset + length} is past the end of the image (${size} bytes)`,
    );
}

/**
 * A source over a Blob or File (browsers, and Node ≥ 20): each read slices the Blob.
 *
 * @example
 * ```ts
 * import { blobSource } from '@x/byte-source';
 * const src = blobSource(input.files[0]);        // <input type="file">
 * ```
 */
export function blobSource(blob: Blob): ByteSource {
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new TypeError(`${PREFIX}: blob must be a Blob`);
  return {
    size: blob.size,
    async read(offset, dst) {
      checkRange(blob.size, offset, dst.length);
      const part = new Uint8Array(await blob.slice(offset, offset + dst.length).arrayBuffer());
      if (part.length !== dst.length) throw new ImageError(`${PREFIX}: short read from the Blob at ${offset}`);
      dst.set(part);
    },
  };
}

/**
 * The source for any {@link ImageInput}.
 *
 * @example
 * ```ts
 * import { toSource } from '@x/byte-source';
 * toSource(new Uint8Array(4096)).size; // 4096
 * ```
 */
export function toSource(input: ImageInput): ByteSource {
  if (input instanceof Uint8Array) return bytesSource(input);
  if (typeof Blob !== 'undefined' && input instanceof Blob) return blobSource(input);
  if (
    input !== null &&
    typeof input === 'object' &&
    typeof (input as ByteSource).read === 'function' &&
    typeof (input as ByteSource).size === 'number'
  ) {
    return input as ByteSource;
  }
  throw new TypeError(`${PREFIX}: the image must be a Uint8Array, a Blob or a ByteSource { size, read(offset, dst) }`);
}

/**
 * Reads `length` bytes at `offset` into a new array.
 *
 * @example
 * ```ts
 * const sector = await readBytes(src, 0, 512);
 * ```
 */
export async function readBytes(source: ByteSource, offset: number, length: number): Promise<Uint8Array> {
  const dst = new Uint8Array(length);
  await source.read(offset, dst);
  return dst;
}

/**
 * The argument rules of a volume's `read(dst, firstSector)`, the same in every format package: `dst` a
 * Uint8Array of whole `sectorSize`-byte sectors, `firstSector` a non-negative integer, all of it inside
 * the `size` bytes of the volume (`what` names it in the message, e.g. `the payload`). Returns the byte
 * offset of `firstSector`; throws a TypeError/RangeError prefixed with `prefix` before anything is read.
 *
 * @example
 * ```ts
 * const start = checkSectorRead('@x/luks', dst, firstSector, 4096, payloadSize, 'the payload');
 * ```
 */
export function checkSectorRead(
  prefix: string,
  dst: Uint8Array,
  firstSector: number,
  sectorSize: number,
  size: number,
  what: string,
): number {
  if (!(dst instanceof Uint8Array)) throw new TypeError(`${prefix}: dst must be a Uint8Array`);
  if (dst.length % sectorSize !== 0)
    throw new RangeError(`${prefix}: dst is not a whole number of ${sectorSize}-byte sectors (${dst.length} bytes)`);
  if (!Number.isSafeInteger(firstSector) || firstSector < 0)
    throw new RangeError(`${prefix}: firstSector ${firstSector} is not a non-negative integer`);
  const start = firstSector * sectorSize;
  if (start + dst.length > size)
    throw new RangeError(`${prefix}: sectors ${firstSector} … past ${what} (${size / sectorSize} sectors)`);
  return start;
}
