// Where the bytes of an image come from. The parsers and the volume only ever call `read(offset, dst)`,
// so the same code runs on a Uint8Array, a browser Blob/File, or (in `./file.ts`, Node only) a file.
import { LuksError } from './errors.js';

/**
 * A random-access image: `size` bytes, read with `read(offset, dst)`, which fills all of `dst` from
 * `offset` or rejects. `close()`, when present, releases what the source holds (a file handle).
 *
 * @example
 * ```ts
 * import type { ByteSource } from '@x/luks';
 * const zeros: ByteSource = { size: 1 << 20, async read(_offset, dst) { dst.fill(0); } };
 * ```
 */
export interface ByteSource {
  readonly size: number;
  read(offset: number, dst: Uint8Array): Promise<void>;
  close?(): Promise<void>;
}

/**
 * What `openLuks`/`readHeader` take: a source, the image's bytes, or a Blob (a File is one).
 *
 * @example
 * ```ts
 * const input: LuksInput = new Blob([bytes]);
 * ```
 */
export type LuksInput = ByteSource | Uint8Array | Blob;

function checkRange(size: number, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`@x/luks: offset ${offset} is not a non-negative integer`);
  if (offset + length > size) {
    throw new LuksError(`@x/luks: the image is truncated: bytes ${offset}..${offset + length} wanted, it has ${size}`);
  }
}

/**
 * A source over bytes in memory (no copy is made; reads copy out of it).
 *
 * @example
 * ```ts
 * import { bytesSource, openLuks } from '@x/luks';
 * const volume = await openLuks(bytesSource(image), { passphrase: 'secret' });
 * ```
 */
export function bytesSource(bytes: Uint8Array): ByteSource {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('@x/luks: bytes must be a Uint8Array');
  return {
    size: bytes.length,
    async read(offset, dst) {
      checkRange(bytes.length, offset, dst.length);
      dst.set(bytes.subarray(offset, offset + dst.length));
    },
  };
}

/**
 * A source over a Blob or File (browsers, and Node ≥ 20): each read slices the Blob.
 *
 * @example
 * ```ts
 * import { blobSource, openLuks } from '@x/luks';
 * const file = input.files[0];                       // <input type="file">
 * const volume = await openLuks(blobSource(file), { passphrase });
 * ```
 */
export function blobSource(blob: Blob): ByteSource {
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new TypeError('@x/luks: blob must be a Blob');
  return {
    size: blob.size,
    async read(offset, dst) {
      checkRange(blob.size, offset, dst.length);
      const part = new Uint8Array(await blob.slice(offset, offset + dst.length).arrayBuffer());
      if (part.length !== dst.length) throw new LuksError(`@x/luks: short read from the Blob at ${offset}`);
      dst.set(part);
    },
  };
}

/**
 * The source for any {@link LuksInput}.
 *
 * @example
 * ```ts
 * import { toSource } from '@x/luks';
 * const src = toSource(new Uint8Array(4096));
 * src.size; // 4096
 * ```
 */
export function toSource(input: LuksInput): ByteSource {
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
  throw new TypeError('@x/luks: the image must be a Uint8Array, a Blob or a ByteSource { size, read(offset, dst) }');
}

/** Reads `length` bytes at `offset` into a new array. */
export async function readBytes(source: ByteSource, offset: number, length: number): Promise<Uint8Array> {
  const dst = new Uint8Array(length);
  await source.read(offset, dst);
  return dst;
}
