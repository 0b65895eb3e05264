/**
 * Conversion of one block to and from the one-block bitsliced layout of the serial path (CBC encryption):
 * eight 32-bit words, word b holding bit b of byte p (FIPS 197 §3.4 order, p = 4c + r) at bit p and
 * again at bit 16 + p. Only shifts, masks and XORs on the data; byte loads and stores by explicit
 * shifts, so the host's endianness and the views' byteOffset never matter.
 */

/**
 * XORs block `src[o .. o+15]`, converted to the one-block layout, and the round key `k[ko .. ko+7]` into
 * `q[0..7]`: AddRoundKey (FIPS 197 §5.1.4) of P ^ C[i-1] for CBC (NIST SP 800-38A §6.2), when `q` holds
 * C[i-1].
 *
 * @example
 * ```ts
 * const q = new Int32Array(8);
 * narrowPackXor(new Uint8Array(16).fill(0xff), 0, q, new Int32Array(8), 0);
 * q[0]; // -1: bit 0 of every byte is set, in both halves
 * ```
 */
export function narrowPackXor(src: Uint8Array, o: number, q: Int32Array, k: Int32Array, ko: number): void {
  // Two 8×8 bit transposes: (x0, x1) holds bytes 0..7 as a 64-bit value with bit 8p + b = bit b of byte
  // p; three swaps of the index bits (p0 ↔ b0, p1 ↔ b1, p2 ↔ b2) make bit 8b + p = bit b of byte p.
  let x0 = src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24);
  let x1 = src[o + 4] | (src[o + 5] << 8) | (src[o + 6] << 16) | (src[o + 7] << 24);
  let x2 = src[o + 8] | (src[o + 9] << 8) | (src[o + 10] << 16) | (src[o + 11] << 24);
  let x3 = src[o + 12] | (src[o + 13] << 8) | (src[o + 14] << 16) | (src[o + 15] << 24);
  let t = ((x0 >>> 7) ^ x0) & 0x00aa00aa;
  x0 ^= t ^ (t << 7);
  t = ((x1 >>> 7) ^ x1) & 0x00aa00aa;
  x1 ^= t ^ (t << 7);
  t = ((x2 >>> 7) ^ x2) & 0x00aa00aa;
  x2 ^= t ^ (t << 7);
  t = ((x3 >>> 7) ^ x3) & 0x00aa00aa;
  x3 ^= t ^ (t << 7);
  t = ((x0 >>> 14) ^ x0) & 0x0000cccc;
  x0 ^= t ^ (t << 14);
  t = ((x1 >>> 14) ^ x1) & 0x0000cccc;
  x1 ^= t ^ (t << 14);
  t = ((x2 >>> 14) ^ x2) & 0x0000cccc;
  x2 ^= t ^ (t << 14);
  t = ((x3 >>> 14) ^ x3) & 0x0000cccc;
  x3 ^= t ^ (t << 14);
  t = ((x0 >>> 4) ^ x1) & 0x0f0f0f0f;
  x1 ^= t;
  x0 ^= t << 4;
  t = ((x2 >>> 4) ^ x3) & 0x0f0f0f0f;
  x3 ^= t;
  x2 ^= t << 4;
  // Byte b of (x0, x1) is now bit b of bytes 0..7, of (x2, x3) bit b of bytes 8..15: interleave them into
  // 16-bit words and copy each into the upper half.
  let z = (x0 & 0x00ff00ff) | ((x2 & 0x00ff00ff) << 8);
  let y = z & 0xffff;
  q[0] ^= y ^ (y << 16) ^ k[ko];
  q[2] ^= (z >>> 16) ^ (z & 0xffff0000) ^ k[ko + 2];
  z = ((x0 >>> 8) & 0x00ff00ff) | (x2 & 0xff00ff00);
  y = z & 0xffff;
  q[1] ^= y ^ (y << 16) ^ k[ko + 1];
  q[3] ^= (z >>> 16) ^ (z & 0xffff0000) ^ k[ko + 3];
  z = (x1 & 0x00ff00ff) | ((x3 & 0x00ff00ff) << 8);
  y = z & 0xffff;
  q[4] ^= y ^ (y << 16) ^ k[ko + 4];
  q[6] ^= (z >>> 16) ^ (z & 0xffff0000) ^ k[ko + 6];
  z = ((x1 >>> 8) & 0x00ff00ff) | (x3 & 0xff00ff00);
  y = z & 0xffff;
  q[5] ^= y ^ (y << 16) ^ k[ko + 5];
  q[7] ^= (z >>> 16) ^ (z & 0xffff0000) ^ k[ko + 7];
}

/**
 * The inverse of {@link narrowPackXor} (without the XOR): writes the block held in `q[0..7]` (lower
 * halves) to `dst[o .. o+15]`.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(16);
 * narrowUnpack(new Int32Array(8).fill(-1), out, 0); // out is 16 × 0xff
 * ```
 */
export function narrowUnpack(q: Int32Array, dst: Uint8Array, o: number): void {
  const w0 = q[0];
  const w1 = q[1];
  const w2 = q[2];
  const w3 = q[3];
  const w4 = q[4];
  const w5 = q[5];
  const w6 = q[6];
  const w7 = q[7];
  let x0 = (w0 & 0xff) | ((w1 & 0xff) << 8) | ((w2 & 0xff) << 16) | (w3 << 24);
  let x2 = ((w0 >>> 8) & 0xff) | (w1 & 0xff00) | ((w2 & 0xff00) << 8) | ((w3 & 0xff00) << 16);
  let x1 = (w4 & 0xff) | ((w5 & 0xff) << 8) | ((w6 & 0xff) << 16) | (w7 << 24);
  let x3 = ((w4 >>> 8) & 0xff) | (w5 & 0xff00) | ((w6 & 0xff00) << 8) | ((w7 & 0xff00) << 16);
  // The index-bit swaps commute and each is its own inverse, so the transpose undoes itself.
  let t = ((x0 >>> 4) ^ x1) & 0x0f0f0f0f;
  x1 ^= t;
  x0 ^= t << 4;
  t = ((x2 >>> 4) ^ x3) & 0x0f0f0f0f;
  x3 ^= t;
  x2 ^= t << 4;
  t = ((x0 >>> 14) ^ x0) & 0x0000cccc;
  x0 ^= t ^ (t << 14);
  t = ((x1 >>> 14) ^ x1) & 0x0000cccc;
  x1 ^= t ^ (t << 14);
  t = ((x2 >>> 14) ^ x2) & 0x0000cccc;
  x2 ^= t ^ (t << 14);
  t = ((x3 >>> 14) ^ x3) & 0x0000cccc;
  x3 ^= t ^ (t << 14);
  t = ((x0 >>> 7) ^ x0) & 0x00aa00aa;
  x0 ^= t ^ (t << 7);
  t = ((x1 >>> 7) ^ x1) & 0x00aa00aa;
  x1 ^= t ^ (t << 7);
  t = ((x2 >>> 7) ^ x2) & 0x00aa00aa;
  x2 ^= t ^ (t << 7);
  t = ((x3 >>> 7) ^ x3) & 0x00aa00aa;
  x3 ^= t ^ (t << 7);
  dst[o] = x0;
  dst[o + 1] = x0 >>> 8;
  dst[o + 2] = x0 >>> 16;
  dst[o + 3] = x0 >>> 24;
  dst[o + 4] = x1;
  dst[o + 5] = x1 >>> 8;
  dst[o + 6] = x1 >>> 16;
  dst[o + 7] = x1 >>> 24;
  dst[o + 8] = x2;
  dst[o + 9] = x2 >>> 8;
  dst[o + 10] = x2 >>> 16;
  dst[o + 11] = x2 >>> 24;
  dst[o + 12] = x3;
  dst[o + 13] = x3 >>> 8;
  dst[o + 14] = x3 >>> 16;
  dst[o + 15] = x3 >>> 24;
}
