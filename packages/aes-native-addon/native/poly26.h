/*
 * Poly1305's numbers in radix 2^26, for the SIMD primitives' poly_blocks (aes_native.h: aes_native_hbsh)
 * that multiply 32-bit limbs in vector lanes: x86-64's AVX2 (hbsh_x64.h) and AArch64's NEON
 * (hbsh_arm64.h). A 130-bit value is five limbs l0 + 2^26·l1 + 2^52·l2 + 2^78·l3 + 2^104·l4. What the
 * primitives take in and give back is the glue's (hbsh.h): the powers of r as 44/44/42-bit limbs, h in
 * radix 2^64 (h0 + 2^64·h1 + 2^128·h2, h2 a few bits).
 *
 * Constant time: shifts, masks, adds and multiplications by 5, whatever the values.
 */
#ifndef AES_NATIVE_POLY26_H
#define AES_NATIVE_POLY26_H

#include <stdint.h>

#include "aes_native.h"

#define HBSH_M26 0x3ffffffULL

/* A power of r, as 44/44/42-bit limbs (the last two may carry a little more), as five limbs of 26 bits (the
 * last one at most 2^26, or a little more). */
static inline void hbsh_limbs26(const uint64_t p[3], uint64_t l[5]) {
  uint64_t p1 = p[1] + (p[0] >> 44), p0 = p[0] & 0xfffffffffffULL;
  const uint64_t p2 = p[2] + (p1 >> 44);
  p1 &= 0xfffffffffffULL;
  l[0] = p0 & HBSH_M26;
  l[1] = (p0 >> 26 | p1 << 18) & HBSH_M26;
  l[2] = (p1 >> 8) & HBSH_M26;
  l[3] = (p1 >> 34 | p2 << 10) & HBSH_M26;
  l[4] = p2 >> 16;
}

/*
 * r^1 .. r^8 (pows[k] = r^(k+1) as 44/44/42-bit limbs) as the multipliers of the primitives: t[k][0..4]
 * the limbs of r^(k+1), t[k][5..8] 5 times its limbs 1..4 (for the products past 2^130), each below 2^29.
 * The caller wipes t.
 */
static inline void hbsh_pows26(const uint64_t pows[8][3], uint32_t t[8][9]) {
  uint64_t l[5];
  for (int k = 0; k < 8; k++) {
    hbsh_limbs26(pows[k], l);
    for (int i = 0; i < 9; i++) t[k][i] = (uint32_t)(i < 5 ? l[i] : 5 * l[i - 4]);
  }
  aes_native_wipe(l, sizeof l);
}

/* h (radix 2^64) as limbs: the first four of 26 bits, the last with h2's few bits above them. */
static inline void hbsh_h_to26(const uint64_t h[3], uint64_t l[5]) {
  l[0] = h[0] & HBSH_M26;
  l[1] = (h[0] >> 26) & HBSH_M26;
  l[2] = (h[0] >> 52 | h[1] << 12) & HBSH_M26;
  l[3] = (h[1] >> 14) & HBSH_M26;
  l[4] = h[1] >> 40 | h[2] << 24;
}

/*
 * The sums of the lanes' limbs (each below 2^32) back to h in radix 2^64: carried into limbs below 2^26,
 * the bits of limb 4 past 2^130 folded back as 5 times them (2^130 ≡ 5), so that h2 stays the few bits
 * that the glue's one-block step allows (limb 4 may reach 2^26). l is left carried.
 */
static inline void hbsh_h_from26(uint64_t l[5], uint64_t h[3]) {
  l[1] += l[0] >> 26, l[0] &= HBSH_M26;
  l[2] += l[1] >> 26, l[1] &= HBSH_M26;
  l[3] += l[2] >> 26, l[2] &= HBSH_M26;
  l[4] += l[3] >> 26, l[3] &= HBSH_M26;
  l[0] += (l[4] >> 26) * 5, l[4] &= HBSH_M26;
  l[1] += l[0] >> 26, l[0] &= HBSH_M26;
  l[2] += l[1] >> 26, l[1] &= HBSH_M26;
  l[3] += l[2] >> 26, l[2] &= HBSH_M26;
  l[4] += l[3] >> 26, l[3] &= HBSH_M26;
  h[0] = l[0] | l[1] << 26 | l[2] << 52;
  h[1] = l[2] >> 12 | l[3] << 14 | l[4] << 40;
  h[2] = l[4] >> 24;
}

#endif
