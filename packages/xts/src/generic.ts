/**
 * XTS-AES of whole blocks (IEEE 1619 §5.3.1, §5.4.1) over the two block primitives every kernel has, for
 * kernels without the `xtsEncrypt`/`xtsDecrypt` fast paths: in batches of the kernel's `parallelBlocks`,
 * on scratch the cipher owns (nothing allocated per call). Each block is read before it is written, so
 * in place works.
 */
import { type AesBlockPrimitives, BlockBatch } from '@x/aes-kernels/hazmat';

/** The scratch an XTS cipher owns for the generic path: a batch of blocks (`BlockBatch`), and their tweaks. */
export class XtsScratch extends BlockBatch {
  /** The tweak T·α^j of each block of the batch (the batch holds P ^ T·α^j going in). */
  readonly tweaks = new Uint8Array(16 * this.blocks);

  /** Zeroes everything a call left behind. */
  override wipe(): void {
    super.wipe();
    this.tweaks.fill(0);
  }
}

/**
 * `to[q ..] = from[p ..]·α` in GF(2^128) (IEEE 1619 §5.2: little-endian bytes, reduction by
 * x^128 + x^7 + x^2 + x + 1), the reduction applied through a mask, not a branch. `from` and `to` may be
 * the same block.
 */
export function mulAlpha(to: Uint8Array, q: number, from: Uint8Array, p: number): void {
  const carry = from[p + 15] >>> 7;
  for (let i = 15; i > 0; i--) to[q + i] = ((from[p + i] << 1) | (from[p + i - 1] >>> 7)) & 0xff;
  to[q] = ((from[p] << 1) & 0xff) ^ (0x87 & -carry);
}

/**
 * XTS of whole blocks, units of `unitSize` bytes, unit u from the encrypted tweak `tweaks[16u ..]`: block
 * j of a unit is E_K1(P ^ T·α^j) ^ T·α^j (or with D_K1). Batches run across unit boundaries.
 */
export function xtsBlocks(
  k: AesBlockPrimitives,
  s: XtsScratch,
  dst: Uint8Array,
  src: Uint8Array,
  unitSize: number,
  tweaks: Uint8Array,
  decrypt: boolean,
): void {
  const n = src.length >>> 4,
    spb = unitSize >>> 4;
  const batch = s.batch,
    tw = s.tweaks;
  for (let i = 0; i < n; i += s.blocks) {
    const m = n - i < s.blocks ? n - i : s.blocks;
    for (let j = 0; j < m; j++) {
      const b = i + j,
        p = 16 * j,
        o = 16 * b;
      if (b % spb === 0) {
        const t = 16 * (b / spb);
        for (let x = 0; x < 16; x++) tw[p + x] = tweaks[t + x];
      } else {
        // The previous block's tweak: this batch's previous lane, or the last lane of the previous batch.
        mulAlpha(tw, p, tw, j === 0 ? 16 * (s.blocks - 1) : p - 16);
      }
      for (let x = 0; x < 16; x++) batch[p + x] = src[o + x] ^ tw[p + x];
    }
    if (decrypt) k.decryptBlocks(s.views[m], s.views[m]);
    else k.encryptBlocks(s.views[m], s.views[m]);
    for (let x = 0, o = 16 * i; x < 16 * m; x++) dst[o + x] = batch[x] ^ tw[x];
  }
  s.wipe();
}
