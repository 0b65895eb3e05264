/**
 * GHASH (NIST SP 800-38D §6.4) on a kernel's POLYVAL multiply-accumulate (RFC 8452 §3), through the
 * identity of RFC 8452 Appendix A: GHASH_H(X_1 … X_n) = ByteReverse(POLYVAL_K(ByteReverse(X_1) …
 * ByteReverse(X_n))) with K = mulX_POLYVAL(ByteReverse(H)). The accumulator is kept in POLYVAL's byte
 * order (byte-reversed GHASH) and every block goes in with `reversed`, so no block is copied to be turned
 * around. Short pieces (a partial block, short AAD, the length block) are zero-padded into scratch the
 * hash owns, so that one call of the kernel covers as many of them as possible.
 */
import type { PolyvalKernel } from '@x/aes-kernels/hazmat';

/** Bytes of the staging scratch: 16 blocks. */
export const STAGE_BYTES = 256;

/**
 * K = mulX_POLYVAL(ByteReverse(h)) (RFC 8452 Appendix A), written to `to`: the POLYVAL key that makes
 * POLYVAL compute GHASH with hash key `h`. Multiplying by x in POLYVAL's field is a left shift of the
 * little-endian 128-bit integer, reduced by x^128 = x^127 + x^126 + x^121 + 1 (bytes 15 ^= 0xc2 and
 * 0 ^= 0x01) through a mask, not a branch. `to` and `h` are distinct arrays.
 */
export function polyvalKeyOfGhash(to: Uint8Array, h: Uint8Array): void {
  // ByteReverse(h) as little-endian: byte i of the reversed block is h[15 - i]; its top bit is h[0] >>> 7.
  const mask = -(h[0]! >>> 7) & 0xff;
  for (let i = 15; i > 0; i--) to[i] = ((h[15 - i]! << 1) | (h[16 - i]! >>> 7)) & 0xff;
  to[0] = ((h[15]! << 1) & 0xff) ^ (mask & 0x01);
  to[15]! ^= mask & 0xc2;
}

/**
 * Writes the GHASH length block [8·aBytes]_64 ‖ [8·cBytes]_64 (SP 800-38D §7.1 step 5, and §7.1 step 2
 * for a nonce, with aBytes = 0) at `b[o ..]`. Exact for any length a Uint8Array can have.
 */
export function writeLengths(b: Uint8Array, o: number, aBytes: number, cBytes: number): void {
  writeBits(b, o, aBytes);
  writeBits(b, o + 8, cBytes);
}

function writeBits(b: Uint8Array, o: number, bytes: number): void {
  const hi = Math.floor(bytes / 0x20000000); // bits / 2^32
  const lo = (bytes % 0x20000000) * 8; // bits mod 2^32
  b[o] = hi >>> 24;
  b[o + 1] = (hi >>> 16) & 0xff;
  b[o + 2] = (hi >>> 8) & 0xff;
  b[o + 3] = hi & 0xff;
  b[o + 4] = lo >>> 24;
  b[o + 5] = (lo >>> 16) & 0xff;
  b[o + 6] = (lo >>> 8) & 0xff;
  b[o + 7] = lo & 0xff;
}

/**
 * One GHASH key bound to a kernel's multiply-accumulate, with its accumulator and staging scratch. The
 * input is a sequence of pieces, each zero-padded to whole blocks (SP 800-38D §7.1 step 5: A ‖ 0^v ‖ C ‖
 * 0^u ‖ lengths): {@link stage} copies a piece into the scratch, {@link direct} hands whole blocks straight
 * to the kernel (after the staged ones), {@link lengths} stages the length block, {@link digest} gives
 * the result. Nothing is allocated after construction.
 */
export class Ghash {
  /** The accumulator, byte-reversed (POLYVAL's order): GHASH's Y_i is ByteReverse(acc). */
  readonly acc = new Uint8Array(16);
  readonly #hash: PolyvalKernel;
  readonly #stage = new Uint8Array(STAGE_BYTES);
  /** `#views[m]` is the first m blocks of the scratch, made once. */
  readonly #views: Uint8Array[] = [];
  #pos = 0;

  constructor(hash: PolyvalKernel) {
    this.#hash = hash;
    for (let m = 0; m <= STAGE_BYTES >>> 4; m++) this.#views.push(this.#stage.subarray(0, 16 * m));
  }

  /** The kernel's multiply-accumulate bound to this key: what a keyed kernel's `gcmSeal` takes. */
  get key(): PolyvalKernel {
    return this.#hash;
  }

  /** Starts a new hash: Y_0 = 0. */
  reset(): void {
    this.acc.fill(0);
    this.#pos = 0;
  }

  /** Hashes `src[from .. to)` zero-padded to whole blocks, copied through the scratch. */
  stage(src: Uint8Array, from: number, to: number): void {
    const b = this.#stage;
    let p = this.#pos;
    let i = from;
    while (i < to) {
      const end = to - i < STAGE_BYTES - p ? to : i + STAGE_BYTES - p;
      while (i < end) b[p++] = src[i++]!;
      if (p === STAGE_BYTES) p = this.#hashStage(p);
    }
    while ((p & 15) !== 0) b[p++] = 0;
    this.#pos = p === STAGE_BYTES ? this.#hashStage(p) : p;
  }

  /** Hashes the length block [8·aBytes]_64 ‖ [8·cBytes]_64. */
  lengths(aBytes: number, cBytes: number): void {
    writeLengths(this.#stage, this.#pos, aBytes, cBytes);
    const p = this.#pos + 16;
    this.#pos = p === STAGE_BYTES ? this.#hashStage(p) : p;
  }

  /** Hashes whole blocks `blocks` in place (no copy), after whatever is staged. */
  direct(blocks: Uint8Array): void {
    this.flush();
    this.#hash.update(this.acc, blocks, true);
  }

  /** Hashes what is staged. */
  flush(): void {
    if (this.#pos !== 0) this.#pos = this.#hashStage(this.#pos);
  }

  /** Flushes and writes GHASH's output (ByteReverse(acc)) XORed with `mask` to `out[0 .. n)`. */
  digest(out: Uint8Array, mask: Uint8Array, n: number): void {
    this.flush();
    const acc = this.acc;
    for (let i = 0; i < n; i++) out[i] = mask[i]! ^ acc[15 - i]!;
  }

  #hashStage(p: number): number {
    this.#hash.update(this.acc, this.#views[p >>> 4]!, true);
    return 0;
  }

  /** Zeroes the accumulator and the scratch. */
  wipe(): void {
    this.acc.fill(0);
    this.#stage.fill(0);
    this.#pos = 0;
  }

  /** Wipes, and the kernel wipes the hash key and its powers. */
  dispose(): void {
    this.wipe();
    this.#hash.dispose();
  }
}
