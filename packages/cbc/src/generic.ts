/**
 * CBC (NIST SP 800-38A §6.2) over the two block primitives every kernel has, for kernels without the
 * fast path: the mode written once, in batches of the kernel's `parallelBlocks`. The kernel only ever
 * sees the cipher's own scratch (no views of the caller's buffers, so nothing is allocated per call);
 * every byte of `src` is read before the same byte of `dst` is written, so in place works.
 */
import { type AesBlockPrimitives, BlockBatch } from '@x/aes-kernels/hazmat';

/** The scratch a cipher owns for the generic paths: a batch of blocks (`BlockBatch`), and CBC's chaining. */
export class CbcScratch extends BlockBatch {
  /** The last ciphertext block of the previous batch, and of this one (CBC decryption in place). */
  readonly carry = new Uint8Array(16);
  readonly next = new Uint8Array(16);

  /** Zeroes everything a call left behind. */
  override wipe(): void {
    super.wipe();
    this.carry.fill(0);
    this.next.fill(0);
  }
}

/**
 * CBC decryption of chains of `sectorSize` bytes, chain s with IV `ivs[16s ..]`: P[i] = D(C[i]) ^ C[i-1].
 * Every D(C[i]) is independent, so batches run across chain boundaries. Within a batch the outputs are
 * written last block first, so in place each C[i-1] is read before P[i-1] replaces it; the batch's last
 * ciphertext block is kept for the next batch.
 */
export function decryptSectors(
  k: AesBlockPrimitives,
  s: CbcScratch,
  dst: Uint8Array,
  src: Uint8Array,
  sectorSize: number,
  ivs: Uint8Array,
): void {
  const n = src.length >>> 4,
    spb = sectorSize >>> 4;
  const batch = s.batch,
    carry = s.carry,
    next = s.next;
  for (let i = 0; i < n; i += s.blocks) {
    const m = n - i < s.blocks ? n - i : s.blocks;
    const at = 16 * i,
      len = 16 * m;
    for (let x = 0; x < len; x++) batch[x] = src[at + x];
    for (let x = 0; x < 16; x++) next[x] = src[at + len - 16 + x];
    k.decryptBlocks(s.views[m], s.views[m]);
    for (let j = m - 1; j >= 0; j--) {
      const b = i + j,
        o = 16 * b,
        p = 16 * j;
      if (b % spb === 0) {
        const v = 16 * (b / spb);
        for (let x = 0; x < 16; x++) dst[o + x] = batch[p + x] ^ ivs[v + x];
      } else if (j === 0) {
        for (let x = 0; x < 16; x++) dst[o + x] = batch[x] ^ carry[x];
      } else {
        for (let x = 0; x < 16; x++) dst[o + x] = batch[p + x] ^ src[o - 16 + x];
      }
    }
    carry.set(next);
  }
  s.wipe();
}

/** CBC encryption of one chain: C[i] = E(P[i] ^ C[i-1]), C[-1] = iv. Serial: one block per kernel call. */
export function encrypt(k: AesBlockPrimitives, s: CbcScratch, dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
  const c = s.views[1];
  c.set(iv);
  for (let o = 0; o < src.length; o += 16) {
    for (let x = 0; x < 16; x++) c[x] ^= src[o + x];
    k.encryptBlocks(c, c);
    for (let x = 0; x < 16; x++) dst[o + x] = c[x];
  }
  s.wipe();
}

/**
 * CBC encryption of chains of `sectorSize` bytes, chain s with IV `ivs[16s ..]`, up to a batch of chains
 * side by side: lane j of the batch holds sector g + j's chaining value, and step t encrypts block t of
 * every lane in one kernel call. The chaining value C[t-1] stays in the lane, so P[t] is XORed into it.
 */
export function encryptSectors(
  k: AesBlockPrimitives,
  s: CbcScratch,
  dst: Uint8Array,
  src: Uint8Array,
  sectorSize: number,
  ivs: Uint8Array,
): void {
  const sectors = src.length / sectorSize;
  const batch = s.batch;
  for (let g = 0; g < sectors; g += s.blocks) {
    const m = sectors - g < s.blocks ? sectors - g : s.blocks;
    for (let x = 0; x < 16 * m; x++) batch[x] = ivs[16 * g + x];
    for (let t = 0; t < sectorSize; t += 16) {
      for (let j = 0, o = g * sectorSize + t; j < m; j++, o += sectorSize) {
        for (let x = 0; x < 16; x++) batch[16 * j + x] ^= src[o + x];
      }
      k.encryptBlocks(s.views[m], s.views[m]);
      for (let j = 0, o = g * sectorSize + t; j < m; j++, o += sectorSize) {
        for (let x = 0; x < 16; x++) dst[o + x] = batch[16 * j + x];
      }
    }
  }
  s.wipe();
}
