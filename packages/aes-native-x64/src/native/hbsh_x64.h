/*
 * Adiantum/HPolyC's SIMD primitives for x86-64 with AVX2 (aes_native.h: aes_native_hbsh), included by
 * aes_x64.c after its CPUID helpers; the HBSH passes, HChaCha and the rest of Poly1305 are the glue's
 * (hbsh.h).
 *
 *   chacha_xor  ChaCha (RFC 8439 §2.3) eight blocks at a time, one per 32-bit lane of 16 ymm rows
 *               (state word i of blocks 0..7 in row i); rotations by 16 and 8 with VPSHUFB, by 12 and 7
 *               with two shifts and an OR; the rows turned into eight 64-byte blocks by an 8×8 transpose
 *               of 32-bit words (VPUNPCK{L,H}DQ, VPUNPCK{L,H}QDQ, VPERM2I128) per half. A tail shorter
 *               than 512 bytes takes one more group of eight through a stack buffer, wiped after.
 *   nh          NH (Adiantum §6): per 16-byte unit m, the message broadcast to both lanes and added to
 *               the key units u, u+1 (passes 0, 1) and u+2, u+3 (passes 2, 3); VPSHUFD puts (a0, a1) and
 *               (a2, a3) of each lane in the even words and VPMULUDQ gives a0·a2 and a1·a3, summed per
 *               pass in 64-bit lanes.
 *   poly_blocks Poly1305's polynomial over groups of eight blocks, four lanes of radix 2^26 (below).
 *
 * Constant time: only lengths decide what runs; the instructions (VPADDD, VPXOR, VPSHUFB with constant
 * masks, shifts by constants, VPMULUDQ, VPADDQ) take the same time whatever their operands.
 */
#include "poly26.h"

#define HBSH_AVX2 __attribute__((target("avx2")))
#define HBSH_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

static int cpu_has_avx2(void) {
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if ((c & (CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX)) != (CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX)) return 0;
  if ((read_xcr0() & XCR0_SSE_AVX) != XCR0_SSE_AVX) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & CPUID7_EBX_AVX2) != 0;
}

HBSH_AVX2_INLINE __m256i hbsh_rot16(__m256i v) {
  const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10,
                                     11, 8, 9, 14, 15, 12, 13);
  return _mm256_shuffle_epi8(v, m);
}
HBSH_AVX2_INLINE __m256i hbsh_rot8(__m256i v) {
  const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11,
                                     8, 9, 10, 15, 12, 13, 14);
  return _mm256_shuffle_epi8(v, m);
}
#define HBSH_ROTV(v, n) _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - (n)))
#define HBSH_QRV(a, b, c, d)                                                                              \
  a = _mm256_add_epi32(a, b), d = hbsh_rot16(_mm256_xor_si256(d, a)), c = _mm256_add_epi32(c, d),        \
  b = HBSH_ROTV(_mm256_xor_si256(b, c), 12), a = _mm256_add_epi32(a, b), d = hbsh_rot8(_mm256_xor_si256(d, a)), \
  c = _mm256_add_epi32(c, d), b = HBSH_ROTV(_mm256_xor_si256(b, c), 7)

/*
 * The 8×8 transpose of 32-bit words: x[i] holds word i of blocks 0..7 (one per lane); afterwards o[b]
 * holds words 0..7 of block b.
 */
HBSH_AVX2_INLINE void hbsh_transpose8(const __m256i x[8], __m256i o[8]) {
  const __m256i t0 = _mm256_unpacklo_epi32(x[0], x[1]), t1 = _mm256_unpackhi_epi32(x[0], x[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(x[2], x[3]), t3 = _mm256_unpackhi_epi32(x[2], x[3]);
  const __m256i t4 = _mm256_unpacklo_epi32(x[4], x[5]), t5 = _mm256_unpackhi_epi32(x[4], x[5]);
  const __m256i t6 = _mm256_unpacklo_epi32(x[6], x[7]), t7 = _mm256_unpackhi_epi32(x[6], x[7]);
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  o[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
  o[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
  o[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
  o[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
  o[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
  o[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
  o[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
  o[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* Eight keystream blocks (512 bytes) of `state` from block counter `ctr` (low word) into out. */
HBSH_AVX2_INLINE void hbsh_chacha8(const uint32_t state[16], uint32_t ctr, int rounds, __m256i out[16]) {
  __m256i x[16], in[16];
  for (int i = 0; i < 16; i++) in[i] = _mm256_set1_epi32((int)state[i]);
  in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)ctr), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int i = 0; i < 16; i++) x[i] = in[i];
  for (int r = 0; r < rounds; r += 2) {
    HBSH_QRV(x[0], x[4], x[8], x[12]);
    HBSH_QRV(x[1], x[5], x[9], x[13]);
    HBSH_QRV(x[2], x[6], x[10], x[14]);
    HBSH_QRV(x[3], x[7], x[11], x[15]);
    HBSH_QRV(x[0], x[5], x[10], x[15]);
    HBSH_QRV(x[1], x[6], x[11], x[12]);
    HBSH_QRV(x[2], x[7], x[8], x[13]);
    HBSH_QRV(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; i++) x[i] = _mm256_add_epi32(x[i], in[i]);
  /* out[2b] = bytes 0..31 of block b, out[2b+1] = bytes 32..63. */
  __m256i lo[8], hi[8];
  hbsh_transpose8(x, lo);
  hbsh_transpose8(x + 8, hi);
  for (int b = 0; b < 8; b++) {
    out[2 * b] = lo[b];
    out[2 * b + 1] = hi[b];
  }
}

HBSH_AVX2 static void hbsh_chacha_xor_avx2(const uint32_t state[16], int rounds, uint8_t *dst, const uint8_t *src,
                                           size_t len) {
  __m256i ks[16];
  uint32_t ctr = state[12];
  size_t at = 0;
  for (; len - at >= 512; at += 512, ctr += 8) {
    hbsh_chacha8(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) {
      const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(src + at + 32 * i));
      _mm256_storeu_si256((__m256i *)(void *)(dst + at + 32 * i), _mm256_xor_si256(m, ks[i]));
    }
  }
  if (at < len) {
    uint8_t buf[512] __attribute__((aligned(32)));
    hbsh_chacha8(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) _mm256_store_si256((__m256i *)(void *)(buf + 32 * i), ks[i]);
    const size_t n = len - at;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(src + at + i));
      const __m256i k = _mm256_load_si256((const __m256i *)(const void *)(buf + i));
      _mm256_storeu_si256((__m256i *)(void *)(dst + at + i), _mm256_xor_si256(m, k));
    }
    for (; i < n; i++) dst[at + i] = src[at + i] ^ buf[i];
    aes_native_wipe(buf, sizeof buf);
  }
  for (int i = 0; i < 16; i++) ks[i] = _mm256_setzero_si256();
  __asm__ __volatile__("" : : "r"(ks) : "memory");
  _mm256_zeroupper();
}

HBSH_AVX2 static void hbsh_nh_avx2(const uint32_t *key, const uint8_t *msg, size_t units, uint64_t sums[4]) {
  __m256i acc01 = _mm256_setzero_si256(), acc23 = _mm256_setzero_si256();
  for (size_t u = 0; u < units; u++) {
    const __m256i m = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(msg + 16 * u)));
    const __m256i t01 = _mm256_add_epi32(m, _mm256_loadu_si256((const __m256i *)(const void *)(key + 4 * u)));
    const __m256i t23 = _mm256_add_epi32(m, _mm256_loadu_si256((const __m256i *)(const void *)(key + 4 * u + 8)));
    /* (a0, a1) and (a2, a3) of each lane into the even words: VPMULUDQ gives (a0·a2, a1·a3). */
    acc01 = _mm256_add_epi64(acc01, _mm256_mul_epu32(_mm256_shuffle_epi32(t01, 0x50), _mm256_shuffle_epi32(t01, 0xfa)));
    acc23 = _mm256_add_epi64(acc23, _mm256_mul_epu32(_mm256_shuffle_epi32(t23, 0x50), _mm256_shuffle_epi32(t23, 0xfa)));
  }
  /* Each pass's sum is the two 64-bit lanes of its 128-bit half. */
  const __m256i s01 = _mm256_add_epi64(acc01, _mm256_unpackhi_epi64(acc01, acc01));
  const __m256i s23 = _mm256_add_epi64(acc23, _mm256_unpackhi_epi64(acc23, acc23));
  sums[0] += (uint64_t)_mm256_extract_epi64(s01, 0);
  sums[1] += (uint64_t)_mm256_extract_epi64(s01, 2);
  sums[2] += (uint64_t)_mm256_extract_epi64(s23, 0);
  sums[3] += (uint64_t)_mm256_extract_epi64(s23, 2);
  _mm256_zeroupper();
}

/*
 * Poly1305's polynomial with AVX2 (VPMULUDQ: the 64-bit product of the low 32 bits of each 64-bit lane),
 * four lanes of radix 2^26 (five limbs, one per register, a block per 64-bit lane), eight blocks per
 * iteration: blocks 0..3 of the eight (M0) and 4..7 (M1), each lane l holding block σ(l) of its four with
 * σ = (0, 2, 1, 3), the order VPUNPCK{L,H}QDQ of two registers of two blocks gives. Every iteration but
 * the last is A = (A + M0)·r^8 + M1·r^4 (Horner over r^4 twice, one carry); the last multiplies lane l by
 * r^(8 − σ(l)) and r^(4 − σ(l)) instead, so that block i of n ends up times r^(n − i); then the lanes are
 * added. A product's column k is Σ a_i·r_j over i + j = k, plus Σ a_i·5r_j over i + j = k + 5 (2^130 ≡ 5),
 * the powers taken from the glue's 44/44/42-bit limbs (hbsh.h) and h from and back to radix 2^64 in
 * scalar code at the ends of the call (poly26.h, shared with the NEON primitive of @x/aes-native-arm64).
 *
 * Bounds: the carried limbs are below 2^26 + 2^11, with a block added below 2^27 + 2^11 (limb 4 of h on
 * entry, whose h2 is a few bits, below 2^27 too, 2^27.4 with its block); the powers' limbs are at most
 * 2^26 (or a little more) and 5 times them below 2^29, so every VPMULUDQ operand fits its 32 bits, each
 * product is below 2^56 and a column of ten below 2^59. The column sums are carried 0→1 and 3→4, 1→2 and
 * 4→0 (times 5), 2→3, 0→1 and 3→4, which brings every limb back below 2^26 + 2^11.
 *
 * The products accumulate one limb of the multiplicand at a time, each column sum pinned in a register
 * (an empty asm), so that the compiler neither computes all fifty products first nor spills them: a
 * fifth less time with GCC 12.
 *
 * Constant time: VPMULUDQ, VPADDQ, shifts and masks by constants, and scalar shifts, masks and adds;
 * only the block count decides what runs.
 */
/* Four blocks at m (blocks 0 and 1 in the low and high 128-bit halves of the first register, 2 and 3 of
 * the second) as radix-2^26 limbs with 2^128 added, block σ(l) in lane l. */
HBSH_AVX2_INLINE void hbsh_poly_load4(const uint8_t *m, __m256i t[5]) {
  const __m256i m26 = _mm256_set1_epi64x((long long)HBSH_M26);
  const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)m);
  const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));
  const __m256i lo = _mm256_unpacklo_epi64(v0, v1), hi = _mm256_unpackhi_epi64(v0, v1);
  t[0] = _mm256_and_si256(lo, m26);
  t[1] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), m26);
  t[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52), _mm256_slli_epi64(hi, 12)), m26);
  t[3] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), m26);
  t[4] = _mm256_or_si256(_mm256_srli_epi64(hi, 40), _mm256_set1_epi64x(1LL << 24));
}

/* d += a·r, r[0..4] the power's limbs and r[5..8] 5 times limbs 1..4: a_i·r_j into column i + j, or
 * a_i·5r_j into column i + j − 5 past limb 4; one limb of a at a time, into the five columns. */
HBSH_AVX2_INLINE void hbsh_poly_mul26(__m256i d[5], const __m256i a[5], const __m256i r[9]) {
  for (int i = 0; i < 5; i++) {
    for (int k = 0; k < 5; k++) {
      const __m256i x = k >= i ? r[k - i] : r[k - i + 9];
      d[k] = _mm256_add_epi64(d[k], _mm256_mul_epu32(a[i], x));
      __asm__("" : "+x"(d[k]));
    }
  }
}

/* Eight blocks at m into a: a = (a + M0)·p + M1·q, carried to limbs below 2^26 + 2^11. */
HBSH_AVX2_INLINE void hbsh_poly_step8(__m256i a[5], const uint8_t *m, const __m256i p[9], const __m256i q[9]) {
  const __m256i m26 = _mm256_set1_epi64x((long long)HBSH_M26);
  __m256i t[5], d[5];
  for (int i = 0; i < 5; i++) d[i] = _mm256_setzero_si256();
  hbsh_poly_load4(m + 64, t);
  hbsh_poly_mul26(d, t, q);
  hbsh_poly_load4(m, t);
  for (int i = 0; i < 5; i++) t[i] = _mm256_add_epi64(a[i], t[i]);
  hbsh_poly_mul26(d, t, p);
  /* Carries 0→1 and 3→4, 1→2 and 4→0 (times 5: 2^130 ≡ 5), 2→3, 0→1 and 3→4. */
  __m256i c = _mm256_srli_epi64(d[0], 26), e = _mm256_srli_epi64(d[3], 26);
  d[0] = _mm256_and_si256(d[0], m26), d[3] = _mm256_and_si256(d[3], m26);
  d[1] = _mm256_add_epi64(d[1], c), d[4] = _mm256_add_epi64(d[4], e);
  c = _mm256_srli_epi64(d[1], 26), e = _mm256_srli_epi64(d[4], 26);
  d[1] = _mm256_and_si256(d[1], m26), d[4] = _mm256_and_si256(d[4], m26);
  d[2] = _mm256_add_epi64(d[2], c), d[0] = _mm256_add_epi64(d[0], _mm256_add_epi64(e, _mm256_slli_epi64(e, 2)));
  c = _mm256_srli_epi64(d[2], 26), e = _mm256_srli_epi64(d[0], 26);
  d[2] = _mm256_and_si256(d[2], m26), d[0] = _mm256_and_si256(d[0], m26);
  d[3] = _mm256_add_epi64(d[3], c), d[1] = _mm256_add_epi64(d[1], e);
  e = _mm256_srli_epi64(d[3], 26);
  d[3] = _mm256_and_si256(d[3], m26);
  d[4] = _mm256_add_epi64(d[4], e);
  for (int i = 0; i < 5; i++) a[i] = d[i];
}

HBSH_AVX2 static void hbsh_poly_avx2(uint64_t h[3], const uint64_t pows[8][3], const uint8_t *m, size_t blocks) {
  uint32_t pt[8][9];
  uint64_t hl[5];
  hbsh_pows26(pows, pt);
  /* Broadcast r^8 and r^4 (every iteration but the last); r^(8 − σ(l)) and r^(4 − σ(l)) per lane l (the
   * last): lanes 0 .. 3 take r^8, r^6, r^7, r^5 and r^4, r^2, r^3, r^1. */
  __m256i p8[9], p4[9], last8[9], last4[9];
  for (int i = 0; i < 9; i++) {
    p8[i] = _mm256_set1_epi64x(pt[7][i]);
    p4[i] = _mm256_set1_epi64x(pt[3][i]);
    last8[i] = _mm256_setr_epi64x(pt[7][i], pt[5][i], pt[6][i], pt[4][i]);
    last4[i] = _mm256_setr_epi64x(pt[3][i], pt[1][i], pt[2][i], pt[0][i]);
  }
  /* h into lane 0 (block 0's), as limbs. */
  hbsh_h_to26(h, hl);
  __m256i a[5];
  for (int i = 0; i < 5; i++) a[i] = _mm256_setr_epi64x((long long)hl[i], 0, 0, 0);
  const size_t groups = blocks / 8;
  for (size_t g = 0; g + 1 < groups; g++, m += 128) hbsh_poly_step8(a, m, p8, p4);
  hbsh_poly_step8(a, m, last8, last4);
  /* The lanes added (each limb below 2^26 + 2^11: the sums below 2^29), back to radix 2^64. */
  uint64_t t[4] __attribute__((aligned(32)));
  for (int i = 0; i < 5; i++) {
    _mm256_store_si256((__m256i *)(void *)t, a[i]);
    hl[i] = t[0] + t[1] + t[2] + t[3];
  }
  hbsh_h_from26(hl, h);
  aes_native_wipe(pt, sizeof pt);
  aes_native_wipe(hl, sizeof hl);
  aes_native_wipe(t, sizeof t);
  for (int i = 0; i < 9; i++) p8[i] = p4[i] = last8[i] = last4[i] = _mm256_setzero_si256();
  __asm__ __volatile__("" : : "r"(p8), "r"(p4), "r"(last8), "r"(last4) : "memory");
  _mm256_zeroall();
}

static const aes_native_hbsh x64_hbsh_avx2 = {"avx2",       cpu_has_avx2, hbsh_chacha_xor_avx2,
                                              hbsh_nh_avx2, cpu_has_avx2, hbsh_poly_avx2};

/*
 * The same primitives with AVX-512 (F, VL, BW), for the avx512 path:
 *
 *   chacha_xor  sixteen blocks at a time, one per 32-bit lane of 16 zmm rows; every rotation one VPROLD;
 *               the rows turned into sixteen 64-byte blocks by a 16×16 transpose of 32-bit words: 4×4
 *               within each 128-bit lane (VPUNPCK{L,H}DQ, VPUNPCK{L,H}QDQ), then 4×4 of the lanes
 *               (VSHUFI32X4, twice). A tail of more than 512 bytes takes one more group of sixteen
 *               through a wiped stack buffer; one of 512 bytes or fewer, the AVX2 code (eight blocks).
 *   nh          the 16-byte message unit broadcast to the four lanes and added to the key units u .. u+3,
 *               the four passes in one register, one VPMULUDQ per unit.
 *
 * Constant time as the AVX2 code (VPROLD by constants adds nothing that depends on data).
 */
#define HBSH_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx2")))
#define HBSH_AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,avx512vl,avx512bw,avx2")))

#define HBSH_QRZ(a, b, c, d)                                                                                   \
  a = _mm512_add_epi32(a, b), d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 16), c = _mm512_add_epi32(c, d), \
  b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 12), a = _mm512_add_epi32(a, b),                              \
  d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 8), c = _mm512_add_epi32(c, d),                               \
  b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 7)

/*
 * The 16×16 transpose of 32-bit words: x[i] holds word i of blocks 0..15 (block 4l + e in element e of
 * lane l); afterwards o[b] holds the 16 words of block b. First, for each group g of four rows, a 4×4
 * transpose within every lane, giving u[g][k]: lane l holds words 4g .. 4g+3 of block 4l + k; then, for
 * each k, the 4×4 transpose of the lanes of u[0..3][k].
 */
HBSH_AVX512_INLINE void hbsh_transpose16(const __m512i x[16], __m512i o[16]) {
  __m512i u[4][4];
  for (int g = 0; g < 4; g++) {
    const __m512i t0 = _mm512_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
    const __m512i t1 = _mm512_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
    const __m512i t2 = _mm512_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
    const __m512i t3 = _mm512_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
    u[g][0] = _mm512_unpacklo_epi64(t0, t2);
    u[g][1] = _mm512_unpackhi_epi64(t0, t2);
    u[g][2] = _mm512_unpacklo_epi64(t1, t3);
    u[g][3] = _mm512_unpackhi_epi64(t1, t3);
  }
  for (int k = 0; k < 4; k++) {
    const __m512i a = _mm512_shuffle_i32x4(u[0][k], u[1][k], 0x44); /* {u0.l0, u0.l1, u1.l0, u1.l1} */
    const __m512i b = _mm512_shuffle_i32x4(u[0][k], u[1][k], 0xee); /* {u0.l2, u0.l3, u1.l2, u1.l3} */
    const __m512i c = _mm512_shuffle_i32x4(u[2][k], u[3][k], 0x44);
    const __m512i d = _mm512_shuffle_i32x4(u[2][k], u[3][k], 0xee);
    o[k] = _mm512_shuffle_i32x4(a, c, 0x88);      /* lane 0 of each: block k */
    o[4 + k] = _mm512_shuffle_i32x4(a, c, 0xdd);  /* lane 1: block 4 + k */
    o[8 + k] = _mm512_shuffle_i32x4(b, d, 0x88);  /* lane 2: block 8 + k */
    o[12 + k] = _mm512_shuffle_i32x4(b, d, 0xdd); /* lane 3: block 12 + k */
  }
}

/* Sixteen keystream blocks (1024 bytes) of `state` from block counter `ctr` (low word): out[b] is block b. */
HBSH_AVX512_INLINE void hbsh_chacha16(const uint32_t state[16], uint32_t ctr, int rounds, __m512i out[16]) {
  __m512i x[16], in[16];
  for (int i = 0; i < 16; i++) in[i] = _mm512_set1_epi32((int)state[i]);
  in[12] = _mm512_add_epi32(_mm512_set1_epi32((int)ctr),
                            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  for (int i = 0; i < 16; i++) x[i] = in[i];
  for (int r = 0; r < rounds; r += 2) {
    HBSH_QRZ(x[0], x[4], x[8], x[12]);
    HBSH_QRZ(x[1], x[5], x[9], x[13]);
    HBSH_QRZ(x[2], x[6], x[10], x[14]);
    HBSH_QRZ(x[3], x[7], x[11], x[15]);
    HBSH_QRZ(x[0], x[5], x[10], x[15]);
    HBSH_QRZ(x[1], x[6], x[11], x[12]);
    HBSH_QRZ(x[2], x[7], x[8], x[13]);
    HBSH_QRZ(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; i++) x[i] = _mm512_add_epi32(x[i], in[i]);
  hbsh_transpose16(x, out);
}

HBSH_AVX512 static void hbsh_chacha_xor_avx512(const uint32_t state[16], int rounds, uint8_t *dst,
                                               const uint8_t *src, size_t len) {
  __m512i ks[16];
  uint32_t ctr = state[12];
  size_t at = 0;
  for (; len - at >= 1024; at += 1024, ctr += 16) {
    hbsh_chacha16(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) {
      const __m512i m = _mm512_loadu_si512((const void *)(src + at + 64 * i));
      _mm512_storeu_si512((void *)(dst + at + 64 * i), _mm512_xor_si512(m, ks[i]));
    }
  }
  if (len - at > 512) {
    uint8_t buf[1024] __attribute__((aligned(64)));
    hbsh_chacha16(state, ctr, rounds, ks);
    for (int i = 0; i < 16; i++) _mm512_store_si512((void *)(buf + 64 * i), ks[i]);
    const size_t n = len - at;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      const __m512i m = _mm512_loadu_si512((const void *)(src + at + i));
      const __m512i k = _mm512_load_si512((const void *)(buf + i));
      _mm512_storeu_si512((void *)(dst + at + i), _mm512_xor_si512(m, k));
    }
    for (; i < n; i++) dst[at + i] = src[at + i] ^ buf[i];
    aes_native_wipe(buf, sizeof buf);
  } else if (at < len) {
    uint32_t next[16];
    for (int i = 0; i < 16; i++) next[i] = state[i];
    next[12] = ctr;
    hbsh_chacha_xor_avx2(next, rounds, dst + at, src + at, len - at);
    aes_native_wipe(next, sizeof next);
  }
  for (int i = 0; i < 16; i++) ks[i] = _mm512_setzero_si512();
  __asm__ __volatile__("" : : "r"(ks) : "memory");
  _mm256_zeroupper();
}

HBSH_AVX512 static void hbsh_nh_avx512(const uint32_t *key, const uint8_t *msg, size_t units, uint64_t sums[4]) {
  __m512i acc = _mm512_setzero_si512();
  for (size_t u = 0; u < units; u++) {
    const __m512i m = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(msg + 16 * u)));
    const __m512i t = _mm512_add_epi32(m, _mm512_loadu_si512((const void *)(key + 4 * u)));
    /* lane i is pass i: (a0, a1) and (a2, a3) into the even words, VPMULUDQ gives (a0·a2, a1·a3). */
    acc = _mm512_add_epi64(acc, _mm512_mul_epu32(_mm512_shuffle_epi32(t, (_MM_PERM_ENUM)0x50),
                                                 _mm512_shuffle_epi32(t, (_MM_PERM_ENUM)0xfa)));
  }
  /* Each pass's sum is the two 64-bit words of its lane. */
  const __m512i s = _mm512_add_epi64(acc, _mm512_unpackhi_epi64(acc, acc));
  sums[0] += (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(s));
  sums[1] += (uint64_t)_mm_cvtsi128_si64(_mm512_extracti32x4_epi32(s, 1));
  sums[2] += (uint64_t)_mm_cvtsi128_si64(_mm512_extracti32x4_epi32(s, 2));
  sums[3] += (uint64_t)_mm_cvtsi128_si64(_mm512_extracti32x4_epi32(s, 3));
  _mm256_zeroupper();
}

/*
 * Poly1305's polynomial with AVX-512 IFMA (VPMADD52LUQ/VPMADD52HUQ: the low and high 52 bits of a 52×52-bit
 * product added to 64-bit lanes), eight blocks at a time, one per 64-bit lane, in the glue's radix of 44,
 * 44 and 42 bits (hbsh.h). Lane j accumulates blocks σ(j), σ(j) + 8, … with σ = (0, 4, 1, 5, 2, 6, 3, 7),
 * the order VPUNPCK{L,H}QDQ of two registers of four blocks gives: every group but the last is
 * A = (A + M)·r^8, the last multiplies lane j by r^(8 − σ(j)), so that block i of n ends up times
 * r^(n − i); then the lanes are added. Products: column k of A·R is Σ lo52 + 2^52·Σ hi52 of three limb
 * products (the terms at 2^132 and up folded by 20, as the C does), carried into 44/44/42-bit limbs
 * below 2^52 (what IFMA reads) before the next group adds its blocks.
 *
 * Constant time: IFMA, shifts, masks and adds by constants; only the block count decides what runs.
 */
#define HBSH_IFMA __attribute__((target("avx512f,avx512ifma,avx512vl,avx2")))
#define HBSH_IFMA_INLINE static inline __attribute__((always_inline, target("avx512f,avx512ifma,avx512vl,avx2")))

#define HBSH_L44 0xfffffffffffULL
#define HBSH_L42 0x3ffffffffffULL

/* (a0, a1, a2)·(r0, r1, r2) with s1 = 20·r1, s2 = 20·r2, carried: limbs below 2^44 + 2^16. */
HBSH_IFMA_INLINE void hbsh_ifma_mul(__m512i a[3], __m512i r0, __m512i r1, __m512i r2, __m512i s1, __m512i s2) {
  const __m512i z = _mm512_setzero_si512();
  __m512i l0 = _mm512_madd52lo_epu64(z, a[0], r0), h0 = _mm512_madd52hi_epu64(z, a[0], r0);
  __m512i l1 = _mm512_madd52lo_epu64(z, a[0], r1), h1 = _mm512_madd52hi_epu64(z, a[0], r1);
  __m512i l2 = _mm512_madd52lo_epu64(z, a[0], r2), h2 = _mm512_madd52hi_epu64(z, a[0], r2);
  l0 = _mm512_madd52lo_epu64(l0, a[1], s2), h0 = _mm512_madd52hi_epu64(h0, a[1], s2);
  l1 = _mm512_madd52lo_epu64(l1, a[1], r0), h1 = _mm512_madd52hi_epu64(h1, a[1], r0);
  l2 = _mm512_madd52lo_epu64(l2, a[1], r1), h2 = _mm512_madd52hi_epu64(h2, a[1], r1);
  l0 = _mm512_madd52lo_epu64(l0, a[2], s1), h0 = _mm512_madd52hi_epu64(h0, a[2], s1);
  l1 = _mm512_madd52lo_epu64(l1, a[2], s2), h1 = _mm512_madd52hi_epu64(h1, a[2], s2);
  l2 = _mm512_madd52lo_epu64(l2, a[2], r0), h2 = _mm512_madd52hi_epu64(h2, a[2], r0);
  /* column k is l_k + 2^52·h_k at 2^(44k): h_k·2^52 is h_k·2^8 at the next limb (2^10 past limb 2, at
   * 2^130 ≡ 5). */
  const __m512i m44 = _mm512_set1_epi64((long long)HBSH_L44), m42 = _mm512_set1_epi64((long long)HBSH_L42);
  __m512i c = _mm512_add_epi64(_mm512_srli_epi64(l0, 44), _mm512_slli_epi64(h0, 8));
  a[0] = _mm512_and_si512(l0, m44);
  l1 = _mm512_add_epi64(l1, c);
  c = _mm512_add_epi64(_mm512_srli_epi64(l1, 44), _mm512_slli_epi64(h1, 8));
  a[1] = _mm512_and_si512(l1, m44);
  l2 = _mm512_add_epi64(l2, c);
  c = _mm512_add_epi64(_mm512_srli_epi64(l2, 42), _mm512_slli_epi64(h2, 10));
  a[2] = _mm512_and_si512(l2, m42);
  a[0] = _mm512_add_epi64(a[0], _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
  a[1] = _mm512_add_epi64(a[1], _mm512_srli_epi64(a[0], 44));
  a[0] = _mm512_and_si512(a[0], m44);
}

HBSH_IFMA static void hbsh_poly_ifma(uint64_t h[3], const uint64_t pows[8][3], const uint8_t *m, size_t blocks) {
  const __m512i m44 = _mm512_set1_epi64((long long)HBSH_L44);
  const __m512i hibit = _mm512_set1_epi64(1LL << 40);
  const __m512i r0 = _mm512_set1_epi64((long long)pows[7][0]), r1 = _mm512_set1_epi64((long long)pows[7][1]);
  const __m512i r2 = _mm512_set1_epi64((long long)pows[7][2]);
  const __m512i s1 = _mm512_set1_epi64((long long)(pows[7][1] * 20)), s2 = _mm512_set1_epi64((long long)(pows[7][2] * 20));
  /* h into lane 0 (block 0's), as limbs. */
  __m512i a[3];
  a[0] = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)(h[0] & HBSH_L44));
  a[1] = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)((h[0] >> 44 | h[1] << 20) & HBSH_L44));
  a[2] = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)(h[1] >> 24 | h[2] << 40));
  for (size_t g = 0; g < blocks / 8; g++, m += 128) {
    const __m512i v0 = _mm512_loadu_si512((const void *)m), v1 = _mm512_loadu_si512((const void *)(m + 64));
    const __m512i lo = _mm512_unpacklo_epi64(v0, v1), hi = _mm512_unpackhi_epi64(v0, v1);
    a[0] = _mm512_add_epi64(a[0], _mm512_and_si512(lo, m44));
    a[1] = _mm512_add_epi64(
        a[1], _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44), _mm512_slli_epi64(hi, 20)), m44));
    a[2] = _mm512_add_epi64(a[2], _mm512_or_si512(_mm512_srli_epi64(hi, 24), hibit));
    if (g + 1 < blocks / 8) {
      hbsh_ifma_mul(a, r0, r1, r2, s1, s2);
    } else {
      /* lane j (block σ(j)) times r^(8 − σ(j)): lanes 0 .. 7 take r^8, r^4, r^7, r^3, r^6, r^2, r^5, r^1. */
#define HBSH_LANE_POWERS(l, x)                                                                                  \
  _mm512_set_epi64((long long)(pows[0][l] * (x)), (long long)(pows[4][l] * (x)), (long long)(pows[1][l] * (x)), \
                   (long long)(pows[5][l] * (x)), (long long)(pows[2][l] * (x)), (long long)(pows[6][l] * (x)), \
                   (long long)(pows[3][l] * (x)), (long long)(pows[7][l] * (x)))
      hbsh_ifma_mul(a, HBSH_LANE_POWERS(0, 1), HBSH_LANE_POWERS(1, 1), HBSH_LANE_POWERS(2, 1),
                    HBSH_LANE_POWERS(1, 20), HBSH_LANE_POWERS(2, 20));
#undef HBSH_LANE_POWERS
    }
  }
  /* The lanes added (each below 2^45: the sums below 2^48), carried (the bits of limb 2 past 2^130 folded
   * back as 5 times them, so that h2 stays the few bits the C's one-block step allows), back to radix
   * 2^64. */
  uint64_t a0 = (uint64_t)_mm512_reduce_add_epi64(a[0]), a1 = (uint64_t)_mm512_reduce_add_epi64(a[1]);
  uint64_t a2 = (uint64_t)_mm512_reduce_add_epi64(a[2]);
  a1 += a0 >> 44;
  a0 &= HBSH_L44;
  a2 += a1 >> 44;
  a1 &= HBSH_L44;
  a0 += (a2 >> 42) * 5;
  a2 &= HBSH_L42;
  a1 += a0 >> 44;
  a0 &= HBSH_L44;
  a2 += a1 >> 44;
  a1 &= HBSH_L44;
  h[0] = a0 | a1 << 44;
  h[1] = a1 >> 20 | a2 << 24;
  h[2] = a2 >> 40;
  for (int i = 0; i < 3; i++) a[i] = _mm512_setzero_si512();
  __asm__ __volatile__("" : : "r"(a) : "memory");
  _mm256_zeroupper();
}

static int cpu_has_avx512_ifma(void) {
  unsigned a, b, c, d;
  if (!cpu_has_avx512_fvlbw()) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & CPUID7_EBX_AVX512IFMA) != 0;
}

static const aes_native_hbsh x64_hbsh_avx512 = {"avx512",           cpu_has_avx512_fvlbw, hbsh_chacha_xor_avx512,
                                                hbsh_nh_avx512,     cpu_has_avx512_ifma,  hbsh_poly_ifma};
