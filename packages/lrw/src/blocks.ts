/**
 * LRW of whole blocks over the two block primitives every kernel has (Linux crypto/lrw.c): block j of a
 * data unit whose first block has the index I is C = E_K1(P ⊕ T) ⊕ T with T = K2 ⊗ (I + j) in
 * GF(2^128) (gf128.ts). T is computed in full (a constant-time product) at the first block of a unit, and
 * from then on incrementally, T(I + 1) = T(I) ⊕ K2·(2^(k+1) − 1) with k the trailing ones of I, as Linux
 * does; a unit whose index continues the previous one's (dm-crypt's benbi IVs of consecutive sectors)
 * goes on incrementally too. Batches of the kernel's `parallelBlocks` run across unit boundaries, on
 * scratch the cipher owns (nothing allocated per call). Each block is read before it is written, so in
 * place works.
 */
import { type AesBlockPrimitives, BlockBatch } from '@x/aes-kernels/hazmat';
import { type LrwTables, trailingOnes, word } from './gf128.js';

/** The scratch an LRW cipher owns: a batch of blocks (`BlockBatch`), their T, and the T carried on. */
export class LrwScratch extends BlockBatch {
  /** The T of each block of the batch (the batch holds P ⊕ T going in). */
  readonly tweaks = new Uint8Array(16 * this.blocks);
  /** T of the next block (four words, big-endian order), carried from unit to unit. */
  readonly t = new Int32Array(4);

  /** Zeroes everything a call left behind. */
  override wipe(): void {
    super.wipe();
    this.tweaks.fill(0);
    this.t.fill(0);
  }
}

function putWord(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = v >>> 16;
  b[o + 2] = v >>> 8;
  b[o + 3] = v;
}

/**
 * LRW of whole blocks, units of `unitSize` bytes, unit u starting at the block index `ivs[16u .. 16u+16)`
 * (a big-endian 128-bit number). E_K1 (or D_K1) is `k`.
 */
export function lrwBlocks(
  k: AesBlockPrimitives,
  s: LrwScratch,
  tables: LrwTables,
  dst: Uint8Array,
  src: Uint8Array,
  unitSize: number,
  ivs: Uint8Array,
  decrypt: boolean,
): void {
  const n = src.length >>> 4,
    spb = unitSize >>> 4;
  const batch = s.batch,
    tw = s.tweaks,
    t = s.t,
    inc = tables.mulinc;
  // The index of the next block (public), and whether T (in s.t) is K2 ⊗ it.
  let i0 = 0,
    i1 = 0,
    i2 = 0,
    i3 = 0,
    known = false;
  for (let i = 0; i < n; i += s.blocks) {
    const m = n - i < s.blocks ? n - i : s.blocks;
    for (let j = 0; j < m; j++) {
      const b = i + j,
        p = 16 * j,
        o = 16 * b;
      if (b % spb === 0) {
        const at = 16 * (b / spb);
        const j0 = word(ivs, at),
          j1 = word(ivs, at + 4),
          j2 = word(ivs, at + 8),
          j3 = word(ivs, at + 12);
        if (!known || j0 !== i0 || j1 !== i1 || j2 !== i2 || j3 !== i3) {
          tables.multiply(t, ivs, at);
          i0 = j0;
          i1 = j1;
          i2 = j2;
          i3 = j3;
          known = true;
        }
      }
      putWord(tw, p, t[0]);
      putWord(tw, p + 4, t[1]);
      putWord(tw, p + 8, t[2]);
      putWord(tw, p + 12, t[3]);
      for (let x = 0; x < 16; x++) batch[p + x] = src[o + x] ^ tw[p + x];
      // T ← T ⊕ K2·(2^(k+1) − 1), I ← I + 1 (mod 2^128: from all ones, k = 128 wraps to 0 as k = 127 does)
      const r = 4 * Math.min(trailingOnes(i0, i1, i2, i3), 127);
      t[0] ^= inc[r];
      t[1] ^= inc[r + 1];
      t[2] ^= inc[r + 2];
      t[3] ^= inc[r + 3];
      i3 = (i3 + 1) | 0;
      if (i3 === 0) {
        i2 = (i2 + 1) | 0;
        if (i2 === 0) {
          i1 = (i1 + 1) | 0;
          if (i1 === 0) i0 = (i0 + 1) | 0;
        }
      }
    }
    if (decrypt) k.decryptBlocks(s.views[m], s.views[m]);
    else k.encryptBlocks(s.views[m], s.views[m]);
    for (let x = 0, o = 16 * i; x < 16 * m; x++) dst[o + x] = batch[x] ^ tw[x];
  }
  s.wipe();
}
