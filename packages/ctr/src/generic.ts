/**
 * The CTR keystream over the block primitive every kernel has, for kernels without the `ctr` fast path:
 * counter blocks built in a batch of the kernel's `parallelBlocks` (a whole multiple of it, at least 32
 * blocks), encrypted in one call, XORed into `dst`. The scratch is the cipher's: nothing is allocated per
 * call. Each byte of `src` is read before the same byte of `dst` is written, so in place works.
 */
import { type AesBlockPrimitives, BlockBatch, type CtrCounter } from '@x/aes-kernels/hazmat';

/**
 * The scratch a CTR user (`@x/ctr`, `@x/gcm`, `@x/hctr2`) owns for the generic keystream: a batch of
 * blocks (`BlockBatch`: counter blocks, then keystream), and the counter.
 */
export class CtrScratch extends BlockBatch {
  /** The counter of the next block: the counter block itself (be128, be32), or j + 1 little-endian (xctr). */
  readonly counter = new Uint8Array(16);

  /** Zeroes everything a call left behind. */
  override wipe(): void {
    super.wipe();
    this.counter.fill(0);
  }
}

/**
 * Adds one to the integer in bytes [from, 16) of `c`, big-endian, modulo 2^(8·(16 - from)): every byte is
 * touched, whatever the carry (no early exit).
 */
function incrementBe(c: Uint8Array, from: number): void {
  let carry = 1;
  for (let i = 15; i >= from; i--) {
    carry += c[i];
    c[i] = carry & 0xff;
    carry >>>= 8;
  }
}

/** Adds one to the 128-bit little-endian integer in `c`. */
function incrementLe(c: Uint8Array): void {
  let carry = 1;
  for (let i = 0; i < 16; i++) {
    carry += c[i];
    c[i] = carry & 0xff;
    carry >>>= 8;
  }
}

/**
 * dst = src ^ keystream for `src.length` bytes (any length), the counter blocks from `iv` as
 * {@link CtrCounter} says, over `k.encryptBlocks`.
 */
export function ctrBlocks(
  k: AesBlockPrimitives,
  s: CtrScratch,
  dst: Uint8Array,
  src: Uint8Array,
  iv: Uint8Array,
  counter: CtrCounter,
): void {
  const n = src.length;
  const c = s.counter,
    batch = s.batch;
  const xctr = counter === 'xctr';
  const from = counter === 'be32' ? 12 : 0;
  if (xctr) {
    c.fill(0);
    c[0] = 1;
  } else {
    c.set(iv);
  }
  for (let off = 0; off < n; off += 16 * s.blocks) {
    const bytes = n - off < 16 * s.blocks ? n - off : 16 * s.blocks;
    const m = (bytes + 15) >>> 4;
    for (let j = 0; j < m; j++) {
      const p = 16 * j;
      if (xctr) {
        for (let x = 0; x < 16; x++) batch[p + x] = iv[x] ^ c[x];
        incrementLe(c);
      } else {
        for (let x = 0; x < 16; x++) batch[p + x] = c[x];
        incrementBe(c, from);
      }
    }
    k.encryptBlocks(s.views[m], s.views[m]);
    for (let x = 0; x < bytes; x++) dst[off + x] = src[off + x] ^ batch[x];
  }
  s.wipe();
}
