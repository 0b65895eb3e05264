/*
 * Adiantum/HPolyC's SIMD primitives for AArch64 with Advanced SIMD (NEON, part of every ARMv8-A core;
 * aes_native.h: aes_native_hbsh), included by aes_arm64.c; the HBSH passes, HChaCha and the rest of
 * Poly1305 are the glue's (hbsh.h).
 *
 *   chacha_xor  ChaCha (RFC 8439 §2.3) four blocks at a time, one per 32-bit lane of 16 q registers
 *               (state word i of blocks 0..3 in row i); rotation by 16 with REV32 on halfwords, by 12, 8
 *               and 7 with SHL + SRI; the rows turned into four 64-byte blocks by 4×4 transposes of 32-bit
 *               words (TRN1/TRN2, then the halves combined). A tail shorter than 256 bytes takes one more
 *               group of four through a stack buffer, wiped after.
 *   nh          NH (Adiantum §6): per 16-byte unit m and pass i, t = m + key words 4u+4i .. 4u+4i+3 (one
 *               ADD), then UMLAL of t's low half by its high half gives t0·t2 and t1·t3, summed per pass
 *               in the two 64-bit lanes of one accumulator.
 *   poly_blocks Poly1305's polynomial over groups of eight blocks, four lanes of radix 2^26 (below).
 *
 * Constant time: only lengths decide what runs; ADD, EOR, shifts by constants, REV32, TRN and UMLAL take
 * the same time whatever their operands.
 */
#include "poly26.h"

static int neon_available(void) { return 1; /* Advanced SIMD is mandatory in ARMv8-A */ }

#define HBSH_NEON_ROTL(v, n) vsriq_n_u32(vshlq_n_u32(v, n), v, 32 - (n))
ALWAYS_INLINE uint32x4_t hbsh_neon_rot16(uint32x4_t v) {
  return vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v)));
}
#define HBSH_NEON_QR(a, b, c, d)                                                                    \
  a = vaddq_u32(a, b), d = hbsh_neon_rot16(veorq_u32(d, a)), c = vaddq_u32(c, d),                   \
  b = HBSH_NEON_ROTL(veorq_u32(b, c), 12), a = vaddq_u32(a, b), d = HBSH_NEON_ROTL(veorq_u32(d, a), 8), \
  c = vaddq_u32(c, d), b = HBSH_NEON_ROTL(veorq_u32(b, c), 7)

/* The 4×4 transpose of 32-bit words: x[i] lane b holds word i of block b; afterwards o[b] holds words 0..3 of it. */
ALWAYS_INLINE void hbsh_neon_transpose4(const uint32x4_t x[4], uint32x4_t o[4]) {
  const uint32x4x2_t ab = vtrnq_u32(x[0], x[1]); /* (a0 b0 a2 b2), (a1 b1 a3 b3) */
  const uint32x4x2_t cd = vtrnq_u32(x[2], x[3]);
  o[0] = vcombine_u32(vget_low_u32(ab.val[0]), vget_low_u32(cd.val[0]));
  o[1] = vcombine_u32(vget_low_u32(ab.val[1]), vget_low_u32(cd.val[1]));
  o[2] = vcombine_u32(vget_high_u32(ab.val[0]), vget_high_u32(cd.val[0]));
  o[3] = vcombine_u32(vget_high_u32(ab.val[1]), vget_high_u32(cd.val[1]));
}

/* Four keystream blocks (256 bytes) of `state` from block counter `ctr` (low word): out[4b + g] = bytes 16g.. of block b. */
ALWAYS_INLINE void hbsh_neon_chacha4(const uint32_t state[16], uint32_t ctr, int rounds, uint32x4_t out[16]) {
  static const uint32_t lanes[4] = {0, 1, 2, 3};
  uint32x4_t x[16], in[16];
  for (int i = 0; i < 16; i++) in[i] = vdupq_n_u32(state[i]);
  in[12] = vaddq_u32(vdupq_n_u32(ctr), vld1q_u32(lanes));
  for (int i = 0; i < 16; i++) x[i] = in[i];
  for (int r = 0; r < rounds; r += 2) {
    HBSH_NEON_QR(x[0], x[4], x[8], x[12]);
    HBSH_NEON_QR(x[1], x[5], x[9], x[13]);
    HBSH_NEON_QR(x[2], x[6], x[10], x[14]);
    HBSH_NEON_QR(x[3], x[7], x[11], x[15]);
    HBSH_NEON_QR(x[0], x[5], x[10], x[15]);
    HBSH_NEON_QR(x[1], x[6], x[11], x[12]);
    HBSH_NEON_QR(x[2], x[7], x[8], x[13]);
    HBSH_NEON_QR(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; i++) x[i] = vaddq_u32(x[i], in[i]);
  for (int g = 0; g < 4; g++) {
    uint32x4_t o[4];
    hbsh_neon_transpose4(x + 4 * g, o);
    for (int b = 0; b < 4; b++) out[4 * b + g] = o[b];
  }
}

static void hbsh_chacha_xor_neon(const uint32_t state[16], int rounds, uint8_t *dst, const uint8_t *src,
                                 size_t len) {
  uint32x4_t ks[16];
  uint32_t ctr = state[12];
  size_t at = 0;
  for (; len - at >= 256; at += 256, ctr += 4) {
    hbsh_neon_chacha4(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) {
      const uint8x16_t m = vld1q_u8(src + at + 16 * i);
      vst1q_u8(dst + at + 16 * i, veorq_u8(m, vreinterpretq_u8_u32(ks[i])));
    }
  }
  if (at < len) {
    uint8_t buf[256] __attribute__((aligned(16)));
    hbsh_neon_chacha4(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) vst1q_u8(buf + 16 * i, vreinterpretq_u8_u32(ks[i]));
    const size_t n = len - at;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) vst1q_u8(dst + at + i, veorq_u8(vld1q_u8(src + at + i), vld1q_u8(buf + i)));
    for (; i < n; i++) dst[at + i] = src[at + i] ^ buf[i];
    aes_native_wipe(buf, sizeof buf);
  }
  aes_native_wipe(ks, sizeof ks);
}

static void hbsh_nh_neon(const uint32_t *key, const uint8_t *msg, size_t units, uint64_t sums[4]) {
  uint64x2_t acc0 = vdupq_n_u64(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  for (size_t u = 0; u < units; u++) {
    const uint32x4_t m = vreinterpretq_u32_u8(vld1q_u8(msg + 16 * u));
    const uint32_t *k = key + 4 * u;
    const uint32x4_t t0 = vaddq_u32(m, vld1q_u32(k)), t1 = vaddq_u32(m, vld1q_u32(k + 4));
    const uint32x4_t t2 = vaddq_u32(m, vld1q_u32(k + 8)), t3 = vaddq_u32(m, vld1q_u32(k + 12));
    /* (t0, t1) · (t2, t3) lane by lane: a0·a2 and a1·a3 of each pass, widened to 64 bits and added */
    acc0 = vmlal_u32(acc0, vget_low_u32(t0), vget_high_u32(t0));
    acc1 = vmlal_u32(acc1, vget_low_u32(t1), vget_high_u32(t1));
    acc2 = vmlal_u32(acc2, vget_low_u32(t2), vget_high_u32(t2));
    acc3 = vmlal_u32(acc3, vget_low_u32(t3), vget_high_u32(t3));
  }
  sums[0] += vgetq_lane_u64(acc0, 0) + vgetq_lane_u64(acc0, 1);
  sums[1] += vgetq_lane_u64(acc1, 0) + vgetq_lane_u64(acc1, 1);
  sums[2] += vgetq_lane_u64(acc2, 0) + vgetq_lane_u64(acc2, 1);
  sums[3] += vgetq_lane_u64(acc3, 0) + vgetq_lane_u64(acc3, 1);
}

/*
 * Poly1305's polynomial with NEON (UMLAL/UMLAL2: 32×32-bit products added to 64-bit lanes), four lanes of
 * radix 2^26 (poly26.h; five limbs, one per register, a block per 32-bit lane), eight blocks per
 * iteration, the same algorithm as the AVX2 primitive of @x/aes-native-x64: blocks 0..3 of the eight
 * (M0) and 4..7 (M1), block l of four in lane l (VLD4 de-interleaves the blocks' 32-bit words, so the lanes
 * keep the blocks' order). Every iteration but the last is A = (A + M0)·r^8 + M1·r^4; the last multiplies
 * lane l by r^(8 − l) and r^(4 − l) instead, so that block i of n ends up times r^(n − i); then the lanes
 * are added. A product's column k is Σ a_i·r_j over i + j = k, plus Σ a_i·5r_j over i + j = k + 5
 * (2^130 ≡ 5), in two registers of two 64-bit lanes (lanes 0, 1 and 2, 3), carried as in the AVX2 code
 * and narrowed back to 32-bit lanes (UZP1).
 *
 * Bounds, as there: limbs below 2^26 + 2^11 after each carry, below 2^27.4 with a block (and h's top limb
 * on entry) added; the powers' limbs at most 2^26 or a little more and 5 times them below 2^29; each
 * product below 2^56 and a column of ten below 2^60, within the 64-bit lanes.
 *
 * Constant time: UMLAL, ADD, AND, ORR, shifts and SLI by constants, UZP1 and VLD4 take the same time
 * whatever their operands; only the block count decides what runs.
 */

/* Four blocks at m as radix-2^26 limbs with 2^128 added, block l in lane l. */
ALWAYS_INLINE void hbsh_neon_poly_load4(const uint8_t *m, uint32x4_t t[5]) {
  const uint32x4x4_t w = vld4q_u32((const uint32_t *)(const void *)m); /* w.val[k] lane l: word k of block l */
  const uint32x4_t m26 = vdupq_n_u32((uint32_t)HBSH_M26);
  t[0] = vandq_u32(w.val[0], m26);
  t[1] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[0], 26), w.val[1], 6), m26);
  t[2] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[1], 20), w.val[2], 12), m26);
  t[3] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[2], 14), w.val[3], 18), m26);
  t[4] = vorrq_u32(vshrq_n_u32(w.val[3], 8), vdupq_n_u32(1u << 24));
}

/* d += a·r (lanes 0, 1 in lo, 2, 3 in hi), r[0..4] the power's limbs and r[5..8] 5 times limbs 1..4: a_i·r_j
 * into column i + j, or a_i·5r_j into column i + j − 5 past limb 4. */
ALWAYS_INLINE void hbsh_neon_poly_mul(uint64x2_t lo[5], uint64x2_t hi[5], const uint32x4_t a[5], const uint32x4_t r[9]) {
  for (int i = 0; i < 5; i++) {
    for (int k = 0; k < 5; k++) {
      const uint32x4_t x = k >= i ? r[k - i] : r[k - i + 9];
      lo[k] = vmlal_u32(lo[k], vget_low_u32(a[i]), vget_low_u32(x));
      hi[k] = vmlal_high_u32(hi[k], a[i], x);
    }
  }
}

/* Carries c → c + 1 of the column sums (c + 1 = 5: into column 0, times 5), both halves. */
ALWAYS_INLINE void hbsh_neon_poly_carry(uint64x2_t d[5], const int c) {
  const uint64x2_t m26 = vdupq_n_u64(HBSH_M26);
  const uint64x2_t e = vshrq_n_u64(d[c], 26);
  d[c] = vandq_u64(d[c], m26);
  d[(c + 1) % 5] = vaddq_u64(d[(c + 1) % 5], c == 4 ? vaddq_u64(e, vshlq_n_u64(e, 2)) : e);
}

/* Eight blocks at m into a: a = (a + M0)·p + M1·q, carried to limbs below 2^26 + 2^11. */
ALWAYS_INLINE void hbsh_neon_poly_step8(uint32x4_t a[5], const uint8_t *m, const uint32x4_t p[9], const uint32x4_t q[9]) {
  uint32x4_t t[5];
  uint64x2_t lo[5], hi[5];
  for (int i = 0; i < 5; i++) lo[i] = hi[i] = vdupq_n_u64(0);
  hbsh_neon_poly_load4(m + 64, t);
  hbsh_neon_poly_mul(lo, hi, t, q);
  hbsh_neon_poly_load4(m, t);
  for (int i = 0; i < 5; i++) t[i] = vaddq_u32(a[i], t[i]);
  hbsh_neon_poly_mul(lo, hi, t, p);
  /* Carries 0→1 and 3→4, 1→2 and 4→0 (times 5: 2^130 ≡ 5), 2→3, 0→1 and 3→4. */
  static const int order[] = {0, 3, 1, 4, 2, 0, 3};
  for (int i = 0; i < 7; i++) hbsh_neon_poly_carry(lo, order[i]), hbsh_neon_poly_carry(hi, order[i]);
  for (int i = 0; i < 5; i++) a[i] = vuzp1q_u32(vreinterpretq_u32_u64(lo[i]), vreinterpretq_u32_u64(hi[i]));
}

static void hbsh_poly_neon(uint64_t h[3], const uint64_t pows[8][3], const uint8_t *m, size_t blocks) {
  uint32_t pt[8][9];
  uint64_t hl[5];
  hbsh_pows26(pows, pt);
  /* r^8 and r^4 in every lane (every iteration but the last); r^(8 − l) and r^(4 − l) in lane l (the last). */
  uint32x4_t p8[9], p4[9], last8[9], last4[9];
  for (int i = 0; i < 9; i++) {
    const uint32_t w8[4] = {pt[7][i], pt[6][i], pt[5][i], pt[4][i]};
    const uint32_t w4[4] = {pt[3][i], pt[2][i], pt[1][i], pt[0][i]};
    p8[i] = vdupq_n_u32(pt[7][i]);
    p4[i] = vdupq_n_u32(pt[3][i]);
    last8[i] = vld1q_u32(w8);
    last4[i] = vld1q_u32(w4);
  }
  /* h into lane 0 (block 0's), as limbs. */
  hbsh_h_to26(h, hl);
  uint32x4_t a[5];
  for (int i = 0; i < 5; i++) a[i] = vsetq_lane_u32((uint32_t)hl[i], vdupq_n_u32(0), 0);
  const size_t groups = blocks / 8;
  for (size_t g = 0; g + 1 < groups; g++, m += 128) hbsh_neon_poly_step8(a, m, p8, p4);
  hbsh_neon_poly_step8(a, m, last8, last4);
  /* The lanes added (each limb below 2^26 + 2^11: the sums below 2^29), back to radix 2^64. */
  for (int i = 0; i < 5; i++) hl[i] = vaddlvq_u32(a[i]);
  hbsh_h_from26(hl, h);
  aes_native_wipe(pt, sizeof pt);
  aes_native_wipe(hl, sizeof hl);
  for (int i = 0; i < 9; i++) p8[i] = p4[i] = last8[i] = last4[i] = vdupq_n_u32(0);
  __asm__ __volatile__("" : : "r"(p8), "r"(p4), "r"(last8), "r"(last4) : "memory");
}

static const aes_native_hbsh arm64_hbsh_neon = {"neon",       neon_available, hbsh_chacha_xor_neon,
                                                hbsh_nh_neon, neon_available, hbsh_poly_neon};
