/*
 * Adiantum/HPolyC's SIMD primitives for AArch64 with Advanced SIMD (NEON, part of every ARMv8-A core;
 * aes_native.h: aes_native_hbsh), included by aes_arm64.c; the HBSH passes, HChaCha and Poly1305 are the
 * glue's (hbsh.h).
 *
 *   chacha_xor  ChaCha (RFC 8439 §2.3) four blocks at a time, one per 32-bit lane of 16 q registers
 *               (state word i of blocks 0..3 in row i); rotation by 16 with REV32 on halfwords, by 12, 8
 *               and 7 with SHL + SRI; the rows turned into four 64-byte blocks by 4×4 transposes of 32-bit
 *               words (TRN1/TRN2, then the halves combined). A tail shorter than 256 bytes takes one more
 *               group of four through a stack buffer, wiped after.
 *   nh          NH (Adiantum §6): per 16-byte unit m and pass i, t = m + key words 4u+4i .. 4u+4i+3 (one
 *               ADD), then UMLAL of t's low half by its high half gives t0·t2 and t1·t3, summed per pass
 *               in the two 64-bit lanes of one accumulator.
 *
 * Constant time: only lengths decide what runs; ADD, EOR, shifts by constants, REV32, TRN and UMLAL take
 * the same time whatever their operands.
 */
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

static const aes_native_hbsh arm64_hbsh_neon = {"neon", neon_available, hbsh_chacha_xor_neon, hbsh_nh_neon, NULL,
                                                NULL};
