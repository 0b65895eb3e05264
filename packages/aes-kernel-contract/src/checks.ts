/**
 * The input rules every @x mode enforces, in one place (Go's crypto/cipher style: fixed, prefixed
 * messages). Each check throws before anything is written, so invalid input never touches `dst`.
 * The prefix names the package the user called (`@x/cbc`, `@x/xts`, …). Nothing here allocates unless
 * it throws. They pull in no kernel (so a bundle of `@x/cbc/portable` carries no WebAssembly);
 * `@x/aes-kernels` and `@x/aes-kernels/checks` re-export them for the modes.
 */

/** TypeError unless `value` is a Uint8Array (a Node Buffer is one). */
export function checkBytes(prefix: string, name: string, value: unknown): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${prefix}: ${name} must be a Uint8Array`);
}

/** RangeError unless `key` is an AES key length (FIPS 197 §5: 16, 24 or 32 bytes). */
export function checkKey(prefix: string, key: unknown): asserts key is Uint8Array {
  checkBytes(prefix, 'key', key);
  const n = key.length;
  if (n !== 16 && n !== 24 && n !== 32) {
    throw new RangeError(`${prefix}: key must be 16, 24 or 32 bytes, got ${n}`);
  }
}

/** TypeError unless `options` is undefined or an object (the options argument of a mode's constructor). */
export function checkOptions(prefix: string, options: unknown): asserts options is object | undefined {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`${prefix}: options must be an object`);
  }
}

/**
 * The rules for a call writing `src.length` bytes to `dst`: both Uint8Arrays, `src` whole 16-byte blocks,
 * `dst` at least as long, and the two either exactly the same bytes or not overlapping at all.
 */
export function checkBlocks(prefix: string, dst: unknown, src: unknown, memo?: OverlapMemo): asserts dst is Uint8Array {
  checkBytes(prefix, 'dst', dst);
  checkBytes(prefix, 'src', src);
  if ((src.length & 15) !== 0) {
    throw new RangeError(`${prefix}: src is not a whole number of 16-byte blocks (${src.length} bytes)`);
  }
  checkWrite(prefix, dst, src, memo);
}

/**
 * The rules for one data unit of a mode with ciphertext stealing (XTS, IEEE 1619 §5.3.2): any length of
 * at least one block, and otherwise as {@link checkBlocks}.
 */
export function checkDataUnit(
  prefix: string,
  dst: unknown,
  src: unknown,
  memo?: OverlapMemo,
): asserts dst is Uint8Array {
  checkBytes(prefix, 'dst', dst);
  checkBytes(prefix, 'src', src);
  if (src.length < 16) throw new RangeError(`${prefix}: src is shorter than one 16-byte block (${src.length} bytes)`);
  checkWrite(prefix, dst, src, memo);
}

/**
 * The rules for a stream call (CTR) writing `src.length` bytes to `dst`: any length, and otherwise as
 * {@link checkBlocks}.
 */
export function checkStream(prefix: string, dst: unknown, src: unknown, memo?: OverlapMemo): asserts dst is Uint8Array {
  checkBytes(prefix, 'dst', dst);
  checkBytes(prefix, 'src', src);
  checkWrite(prefix, dst, src, memo);
}

/**
 * A side input of any length that must not overlap the `written` bytes of `dst` (a nonce, AAD, an
 * HCTR2 tweak).
 */
export function checkSide(
  prefix: string,
  name: string,
  value: unknown,
  dst: Uint8Array,
  written: number,
  memo?: OverlapMemo,
): void {
  checkBytes(prefix, name, value);
  const hit =
    memo === undefined ? overlaps(dst, written, value, value.length) : memo.overlaps(dst, written, value, value.length);
  if (hit) throw new RangeError(`${prefix}: ${name} overlaps dst`);
}

function checkWrite(prefix: string, dst: Uint8Array, src: Uint8Array, memo?: OverlapMemo): void {
  if (dst.length < src.length) {
    throw new RangeError(`${prefix}: dst is shorter than src (${dst.length} < ${src.length} bytes)`);
  }
  const misplaced =
    memo === undefined
      ? overlaps(dst, src.length, src, src.length) && dst.byteOffset !== src.byteOffset
      : memo.misplaced(dst, src, src.length);
  if (misplaced) throw new RangeError(`${prefix}: dst and src overlap without being the same bytes`);
}

/** A 16-byte IV that the call will not overwrite while reading it. */
export function checkIv(
  prefix: string,
  iv: unknown,
  dst: Uint8Array,
  written: number,
  name = 'iv',
  memo?: OverlapMemo,
): void {
  checkBytes(prefix, name, iv);
  if (iv.length !== 16) throw new RangeError(`${prefix}: ${name} must be 16 bytes, got ${iv.length}`);
  if (memo === undefined ? overlaps(dst, written, iv, 16) : memo.overlaps(dst, written, iv, 16)) {
    throw new RangeError(`${prefix}: ${name} overlaps dst`);
  }
}

/**
 * The sector rules: `sectorSize` a positive multiple of 16, `src` whole sectors, and `ivs` exactly
 * `ivBytes` bytes per sector (16, or HCTR2's 32-byte tweaks), not overlapping the bytes the call writes.
 */
export function checkSectors(
  prefix: string,
  dst: Uint8Array,
  src: Uint8Array,
  sectorSize: unknown,
  ivs: unknown,
  ivsName = 'ivs',
  ivBytes = 16,
  memo?: OverlapMemo,
): void {
  if (typeof sectorSize !== 'number') throw new TypeError(`${prefix}: sectorSize must be a number`);
  if (!Number.isSafeInteger(sectorSize) || sectorSize <= 0 || (sectorSize & 15) !== 0) {
    throw new RangeError(`${prefix}: sectorSize must be a positive multiple of 16, got ${sectorSize}`);
  }
  if (src.length % sectorSize !== 0) {
    throw new RangeError(`${prefix}: src is not a whole number of ${sectorSize}-byte sectors (${src.length} bytes)`);
  }
  checkBytes(prefix, ivsName, ivs);
  const want = (src.length / sectorSize) * ivBytes;
  if (ivs.length !== want) {
    throw new RangeError(`${prefix}: ${ivsName} must be ${ivBytes} bytes per sector, ${want} bytes, got ${ivs.length}`);
  }
  if (
    memo === undefined ? overlaps(dst, src.length, ivs, ivs.length) : memo.overlaps(dst, src.length, ivs, ivs.length)
  ) {
    throw new RangeError(`${prefix}: ${ivsName} overlaps dst`);
  }
}

/** Whether bytes [0, an) of a and [0, bn) of b share memory. */
export function overlaps(a: Uint8Array, an: number, b: Uint8Array, bn: number): boolean {
  if (an === 0 || bn === 0 || a.buffer !== b.buffer) return false;
  return a.byteOffset < b.byteOffset + bn && b.byteOffset < a.byteOffset + an;
}

/**
 * The overlap rules of {@link overlaps}, remembering where the arrays of the last call lie, for a cipher
 * that is called again and again on the same arrays (a disk driver's I/O buffers). The ArrayBuffer an
 * array views and the offset it starts at never change, but reading them is not free: on Node 20
 * `.buffer` is a call into V8's C++ (about 30 ns) and `.byteOffset` about 15 ns, so the two overlap rules
 * of one CBC call (dst against src, dst against the IV) cost 100 ns, a quarter of the AES of a 4 KiB
 * decryption. Lengths are read afresh at every call (a view of a resizable buffer changes length; a
 * detached one has none), and a pair is remembered only while both arrays have bytes, when each offset is
 * the array's own (an out-of-bounds view reports 0). It holds one pair of each kind (dst with src, dst
 * with an IV or IVs) until {@link clear}, and allocates nothing.
 *
 * Small on purpose: V8 inlines a cipher method's rules, and its native call, only within a budget of
 * bytecode, and a call that overruns it costs tens of ns more.
 *
 * @example
 * ```ts
 * const memo = new OverlapMemo();                   // one per cipher, cleared by its dispose()
 * checkBlocks(PREFIX, dst, src, memo);              // the same errors as without it, in the same order
 * checkIv(PREFIX, iv, dst, src.length, 'iv', memo);
 * ```
 */
export class OverlapMemo {
  #dst: Uint8Array | undefined;
  #src: Uint8Array | undefined;
  /** src's offset in dst's buffer, or NaN when they are in different buffers (no comparison holds). */
  #srcAt = Number.NaN;
  #dstOfSide: Uint8Array | undefined;
  #side: Uint8Array | undefined;
  #sideAt = Number.NaN;
  /** dst's offset in its buffer, for each pair. */
  #dstAt = 0;
  #dstAtOfSide = 0;

  /** Whether the first `n` bytes of `dst` and of `src` overlap without being the same bytes. */
  misplaced(dst: Uint8Array, src: Uint8Array, n: number): boolean {
    if (n === 0) return false;
    if (dst !== this.#dst || src !== this.#src) this.#learnSrc(dst, src);
    const d = this.#dstAt;
    const s = this.#srcAt;
    return d !== s && d < s + n && s < d + n;
  }

  /** {@link overlaps}(dst, written, side, n): a side input (an IV, IVs) against the bytes written. */
  overlaps(dst: Uint8Array, written: number, side: Uint8Array, n: number): boolean {
    if (written === 0 || n === 0) return false;
    if (dst !== this.#dstOfSide || side !== this.#side) this.#learnSide(dst, side);
    const d = this.#dstAtOfSide;
    const s = this.#sideAt;
    return d < s + n && s < d + written;
  }

  /** Forgets every array (so that the memo no longer holds the caller's buffers). */
  clear(): void {
    this.#dst = this.#src = this.#dstOfSide = this.#side = undefined;
  }

  #learnSrc(dst: Uint8Array, src: Uint8Array): void {
    this.#dstAt = dst.byteOffset;
    this.#srcAt = dst.buffer === src.buffer ? src.byteOffset : Number.NaN;
    const keep = dst.length !== 0 && src.length !== 0;
    this.#dst = keep ? dst : undefined;
    this.#src = keep ? src : undefined;
  }

  #learnSide(dst: Uint8Array, side: Uint8Array): void {
    this.#dstAtOfSide = dst.byteOffset;
    this.#sideAt = dst.buffer === side.buffer ? side.byteOffset : Number.NaN;
    const keep = dst.length !== 0 && side.length !== 0;
    this.#dstOfSide = keep ? dst : undefined;
    this.#side = keep ? side : undefined;
  }
}
