/*
 * POLYVAL (RFC 8452 §3) on x86-64 with carry-less multiplication: PCLMULQDQ on xmm (the aesni path),
 * VPCLMULQDQ on ymm, two blocks per instruction (the vaes path), and on zmm, four (the avx512 path). Included once, by aes_x64.c, whose path
 * tables point at the functions at the end (polyval_init, and polyval_update of each path).
 *
 * The field: GF(2^128) modulo P(x) = x^128 + x^127 + x^126 + x^121 + 1, an element a 16-byte
 * little-endian integer (bit i of it the coefficient of x^i), so that a plain 128-bit load is an element.
 * POLYVAL's product is dot(a, b) = a·b·x^-128 mod P, and one step of the hash is acc = dot(acc ^ X, H).
 *
 * Multiplication (the Karatsuba form of Gueron and Kounavis, "Intel Carry-Less Multiplication Instruction
 * and its Usage for Computing the GCM Mode", §"Karatsuba"): with a = a1·x^64 + a0, b = b1·x^64 + b0,
 * a·b = a1b1·x^128 + ((a0^a1)(b0^b1) ^ a0b0 ^ a1b1)·x^64 + a0b0: three 64×64 products, (b0^b1) stored with
 * each power of H.
 *
 * Reduction by x^-128 (Montgomery form, as in RFC 8452's and Gueron's AES-GCM-SIV code): from
 * x^128 = x^127 + x^126 + x^121 + 1 (mod P), x^-64 = x^64 + x^63 + x^62 + x^57, so for a 128-bit
 * v = v1·x^64 + v0, v·x^-64 = v1 + v0·x^64 + v0·(x^63 + x^62 + x^57): swap v's halves and XOR in the
 * carry-less product of v0 with 0xC200000000000000 (bits 63, 62, 57; the product has at most 127 bits, so
 * nothing more is left to reduce). Twice gives lo·x^-128; the high half of the product is added as is:
 * (hi·x^128 + lo)·x^-128 = hi + lo·x^-128.
 *
 * Aggregation: n steps in a row are acc' = Σ (Y_i)·H^(n-i+1)·x^(-128(n-i+1)) with Y_1 = acc ^ X_1, Y_i = X_i;
 * with the "dot powers" D^k = H^k·x^(-128(k-1)) (D^1 = H, D^k = dot(D^(k-1), H)) each term is
 * Y_i·D^(n-i+1)·x^-128, so the products of a whole group are added unreduced and reduced once per group:
 * 8 blocks per reduction on xmm, 16 on ymm, 32 on zmm, and the group's tail the same way with lower powers.
 *
 * Table (AES_NATIVE_POLYVAL_TABLE_BYTES, 16-byte aligned): pow[k] = D^(32-k) at byte 16k (k = 0 .. 31, so
 * D^32 first and D^1 last: block j of a group of g blocks uses pow[32 - g + j], and a 32- or 64-byte load
 * at pow[k] is the powers of two or four consecutive blocks); kar[k] = the 64-bit XOR of pow[k]'s halves,
 * in both halves, at byte 512 + 16k. 1024 bytes.
 *
 * Constant time: carry-less multiplication takes the same time for every operand; no branch and no
 * address depends on H, the accumulator or the data (branches are on the block count and `reversed`).
 * `reversed` (GHASH, RFC 8452 Appendix A) byte-reverses each block with PSHUFB on the way in: the shuffle
 * always runs, with the identity when not reversed.
 */
#ifndef X_POLYVAL_X64_H
#define X_POLYVAL_X64_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "aes_native.h"

#define PV_XMM static inline __attribute__((always_inline, target("sse4.1,pclmul")))
#define PV_YMM static inline __attribute__((always_inline, target("avx2,vpclmulqdq,pclmul,sse4.1")))
#define PV_ZMM \
  static inline __attribute__((always_inline, target("avx512f,avx512vl,avx512bw,vpclmulqdq,avx2,pclmul,sse4.1")))

#define PV_POWERS 32 /* D^1 .. D^32 in the table */
#define PV_KAR 512   /* byte offset of kar[] in the table */

/* 0xC200000000000000 in the low half: x^63 + x^62 + x^57, the reduction constant above. */
#define PV_REDUCE_CONST ((long long)0xC200000000000000ULL)

PV_XMM __m128i pv_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
PV_XMM void pv_store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }

/* PSHUFB masks: identity, and byte reversal of a block (RFC 8452 Appendix A's ByteReverse). */
PV_XMM __m128i pv_order(const int reversed) {
  return reversed ? _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                  : _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

/* The unreduced sum of products of a group: a·b = hi·x^128 + mid·x^64 + lo, mid still in Karatsuba form. */
typedef struct {
  __m128i lo, hi, mid;
} pv_sum;

/* s += a·b, b's Karatsuba half bk (the XOR of its halves, in the low half). */
PV_XMM void pv_mul_add(pv_sum *s, __m128i a, __m128i b, __m128i bk) {
  s->lo = _mm_xor_si128(s->lo, _mm_clmulepi64_si128(a, b, 0x00));
  s->hi = _mm_xor_si128(s->hi, _mm_clmulepi64_si128(a, b, 0x11));
  const __m128i ak = _mm_xor_si128(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
  s->mid = _mm_xor_si128(s->mid, _mm_clmulepi64_si128(ak, bk, 0x00));
}

/* (hi·x^128 + mid·x^64 + lo)·x^-128 mod P: Karatsuba's middle term, then two Montgomery steps of x^-64. */
PV_XMM __m128i pv_reduce(pv_sum s) {
  const __m128i c = _mm_set_epi64x(0, PV_REDUCE_CONST);
  const __m128i mid = _mm_xor_si128(s.mid, _mm_xor_si128(s.lo, s.hi));
  __m128i lo = _mm_xor_si128(s.lo, _mm_slli_si128(mid, 8));
  const __m128i hi = _mm_xor_si128(s.hi, _mm_srli_si128(mid, 8));
  lo = _mm_xor_si128(_mm_shuffle_epi32(lo, _MM_SHUFFLE(1, 0, 3, 2)), _mm_clmulepi64_si128(lo, c, 0x00));
  lo = _mm_xor_si128(_mm_shuffle_epi32(lo, _MM_SHUFFLE(1, 0, 3, 2)), _mm_clmulepi64_si128(lo, c, 0x00));
  return _mm_xor_si128(lo, hi);
}

PV_XMM __m128i pv_kar(__m128i b) {
  const __m128i k = _mm_xor_si128(b, _mm_shuffle_epi32(b, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_unpacklo_epi64(k, k);
}

/* polyval_init: pow[] and kar[] from H (RFC 8452 §3: h as given, no conversion). */
static __attribute__((target("sse4.1,pclmul"))) void x64_polyval_init(uint8_t *table, const uint8_t *h) {
  const __m128i H = pv_load(h), Hk = pv_kar(H);
  __m128i d = H;
  for (int k = 1; k <= PV_POWERS; k++) {
    pv_store(table + 16 * (PV_POWERS - k), d);
    pv_store(table + PV_KAR + 16 * (PV_POWERS - k), pv_kar(d));
    pv_sum s = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    pv_mul_add(&s, d, H, Hk);
    d = pv_reduce(s); /* D^(k+1) = dot(D^k, H) */
  }
}

/*
 * g consecutive blocks (1 <= g <= 16) with the accumulator a XORed into the first, reduced once: block j
 * times pow[32 - g + j]. The first block's product is added last, so that only it waits for a.
 */
PV_XMM __m128i pv_group_xmm(const uint8_t *table, __m128i a, const uint8_t *data, const int g, __m128i order) {
  pv_sum s = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
  const uint8_t *pow = table + 16 * (PV_POWERS - g), *kar = table + PV_KAR + 16 * (PV_POWERS - g);
  for (int j = 1; j < g; j++) {
    pv_mul_add(&s, _mm_shuffle_epi8(pv_load(data + 16 * j), order), pv_load(pow + 16 * j), pv_load(kar + 16 * j));
  }
  pv_mul_add(&s, _mm_xor_si128(a, _mm_shuffle_epi8(pv_load(data), order)), pv_load(pow), pv_load(kar));
  return pv_reduce(s);
}

/* The aesni path: 8 blocks per reduction (D^8 .. D^1), then the tail of 1 .. 7 the same way. */
static __attribute__((target("sse4.1,pclmul"))) void x64_polyval_update_clmul(const uint8_t *table, uint8_t *acc,
                                                                              const uint8_t *data, size_t blocks,
                                                                              int reversed) {
  const __m128i order = pv_order(reversed);
  __m128i a = pv_load(acc);
  size_t i = 0;
  for (; i + 8 <= blocks; i += 8) a = pv_group_xmm(table, a, data + 16 * i, 8, order);
  switch (blocks - i) {
    case 0: break;
    case 1: a = pv_group_xmm(table, a, data + 16 * i, 1, order); break;
    case 2: a = pv_group_xmm(table, a, data + 16 * i, 2, order); break;
    case 3: a = pv_group_xmm(table, a, data + 16 * i, 3, order); break;
    case 4: a = pv_group_xmm(table, a, data + 16 * i, 4, order); break;
    case 5: a = pv_group_xmm(table, a, data + 16 * i, 5, order); break;
    case 6: a = pv_group_xmm(table, a, data + 16 * i, 6, order); break;
    default: a = pv_group_xmm(table, a, data + 16 * i, 7, order); break;
  }
  pv_store(acc, a);
}

/* ymm: the same sums, two blocks (one per lane) per instruction. */
typedef struct {
  __m256i lo, hi, mid;
} pv_ysum;

PV_YMM __m256i pv_yload(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }

PV_YMM void pv_ymul_add(pv_ysum *s, __m256i a, __m256i b, __m256i bk) {
  s->lo = _mm256_xor_si256(s->lo, _mm256_clmulepi64_epi128(a, b, 0x00));
  s->hi = _mm256_xor_si256(s->hi, _mm256_clmulepi64_epi128(a, b, 0x11));
  const __m256i ak = _mm256_xor_si256(a, _mm256_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
  s->mid = _mm256_xor_si256(s->mid, _mm256_clmulepi64_epi128(ak, bk, 0x00));
}

/* The two lanes' sums added into one xmm sum (the products of both lanes go into the same result). */
PV_YMM pv_sum pv_fold(pv_ysum y) {
  pv_sum s;
  s.lo = _mm_xor_si128(_mm256_castsi256_si128(y.lo), _mm256_extracti128_si256(y.lo, 1));
  s.hi = _mm_xor_si128(_mm256_castsi256_si128(y.hi), _mm256_extracti128_si256(y.hi, 1));
  s.mid = _mm_xor_si128(_mm256_castsi256_si128(y.mid), _mm256_extracti128_si256(y.mid, 1));
  return s;
}

/*
 * g consecutive blocks (1 <= g <= 16), a XORed into the first, reduced once: pairs of blocks in ymm (the
 * 32 bytes at pow[32 - g + j] are the pair's two powers), an odd last block in xmm with D^1.
 */
PV_YMM __m128i pv_group_ymm(const uint8_t *table, __m128i a, const uint8_t *data, const int g, __m256i order) {
  pv_ysum y = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  const uint8_t *pow = table + 16 * (PV_POWERS - g), *kar = table + PV_KAR + 16 * (PV_POWERS - g);
  int j = 2;
  for (; j + 2 <= g; j += 2) {
    pv_ymul_add(&y, _mm256_shuffle_epi8(pv_yload(data + 16 * j), order), pv_yload(pow + 16 * j),
                pv_yload(kar + 16 * j));
  }
  if (g >= 2) {
    const __m256i x0 = _mm256_xor_si256(_mm256_zextsi128_si256(a), _mm256_shuffle_epi8(pv_yload(data), order));
    pv_ymul_add(&y, x0, pv_yload(pow), pv_yload(kar));
  }
  pv_sum s = pv_fold(y);
  if (g & 1) {
    const __m128i last = _mm_shuffle_epi8(pv_load(data + 16 * (g - 1)), _mm256_castsi256_si128(order));
    pv_mul_add(&s, g == 1 ? _mm_xor_si128(a, last) : last, pv_load(pow + 16 * (g - 1)), pv_load(kar + 16 * (g - 1)));
  }
  return pv_reduce(s);
}

/* The last 0 .. 15 blocks, one group reduced once (both wide paths). */
PV_YMM __m128i pv_rest_ymm(const uint8_t *table, __m128i a, const uint8_t *t, const size_t g, __m256i order) {
  switch (g) {
    case 0: break;
    case 1: a = pv_group_ymm(table, a, t, 1, order); break;
    case 2: a = pv_group_ymm(table, a, t, 2, order); break;
    case 3: a = pv_group_ymm(table, a, t, 3, order); break;
    case 4: a = pv_group_ymm(table, a, t, 4, order); break;
    case 5: a = pv_group_ymm(table, a, t, 5, order); break;
    case 6: a = pv_group_ymm(table, a, t, 6, order); break;
    case 7: a = pv_group_ymm(table, a, t, 7, order); break;
    case 8: a = pv_group_ymm(table, a, t, 8, order); break;
    case 9: a = pv_group_ymm(table, a, t, 9, order); break;
    case 10: a = pv_group_ymm(table, a, t, 10, order); break;
    case 11: a = pv_group_ymm(table, a, t, 11, order); break;
    case 12: a = pv_group_ymm(table, a, t, 12, order); break;
    case 13: a = pv_group_ymm(table, a, t, 13, order); break;
    case 14: a = pv_group_ymm(table, a, t, 14, order); break;
    default: a = pv_group_ymm(table, a, t, 15, order); break;
  }
  return a;
}

/* The vaes path: 16 blocks per reduction (8 ymm: D^16 .. D^1), then the tail of 1 .. 15 the same way. */
static __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.1"))) void x64_polyval_update_vclmul(
    const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t blocks, int reversed) {
  const __m256i order = _mm256_broadcastsi128_si256(pv_order(reversed));
  __m128i a = pv_load(acc);
  size_t i = 0;
  for (; i + 16 <= blocks; i += 16) a = pv_group_ymm(table, a, data + 16 * i, 16, order);
  pv_store(acc, pv_rest_ymm(table, a, data + 16 * i, blocks - i, order));
  _mm256_zeroupper();
}

/* zmm: the same sums, four blocks (one per lane) per instruction. */
typedef struct {
  __m512i lo, hi, mid;
} pv_zsum;

PV_ZMM __m512i pv_zload(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }

PV_ZMM void pv_zmul_add(pv_zsum *s, __m512i a, __m512i b, __m512i bk) {
  s->lo = _mm512_xor_si512(s->lo, _mm512_clmulepi64_epi128(a, b, 0x00));
  s->hi = _mm512_xor_si512(s->hi, _mm512_clmulepi64_epi128(a, b, 0x11));
  const __m512i ak = _mm512_xor_si512(a, _mm512_shuffle_epi32(a, (_MM_PERM_ENUM)_MM_SHUFFLE(1, 0, 3, 2)));
  s->mid = _mm512_xor_si512(s->mid, _mm512_clmulepi64_epi128(ak, bk, 0x00));
}

/* The four lanes' sums added into one xmm sum: halves into ymm, then pv_fold. */
PV_ZMM pv_sum pv_zfold(pv_zsum z) {
  pv_ysum y;
  y.lo = _mm256_xor_si256(_mm512_castsi512_si256(z.lo), _mm512_extracti64x4_epi64(z.lo, 1));
  y.hi = _mm256_xor_si256(_mm512_castsi512_si256(z.hi), _mm512_extracti64x4_epi64(z.hi, 1));
  y.mid = _mm256_xor_si256(_mm512_castsi512_si256(z.mid), _mm512_extracti64x4_epi64(z.mid, 1));
  return pv_fold(y);
}

/* 4r consecutive blocks (r = 4 or 8), a XORed into the first, reduced once: r registers of four blocks,
 * register j times the 64 bytes at pow[32 - 4r + 4j] (D^(4r-4j) .. D^(4r-4j-3)); register 0, which waits
 * for a, last. */
PV_ZMM __m512i pv_zdata(const uint8_t *p, const int rev, __m512i order) {
  return rev ? _mm512_shuffle_epi8(pv_zload(p), order) : pv_zload(p);
}

/* `rev` is a constant at every call (so the byte reversal is there only for GHASH: a zmm shuffle takes the
 * same port as the carry-less multiplications on the Intel cores measured). */
PV_ZMM __m128i pv_group_zmm(const uint8_t *table, __m128i a, const uint8_t *data, const int r, const int rev,
                            __m512i order) {
  pv_zsum z = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  const uint8_t *pow = table + 16 * (PV_POWERS - 4 * r), *kar = table + PV_KAR + 16 * (PV_POWERS - 4 * r);
  for (int j = 1; j < r; j++) {
    pv_zmul_add(&z, pv_zdata(data + 64 * j, rev, order), pv_zload(pow + 64 * j), pv_zload(kar + 64 * j));
  }
  const __m512i x0 = _mm512_xor_si512(_mm512_zextsi128_si512(a), pv_zdata(data, rev, order));
  pv_zmul_add(&z, x0, pv_zload(pow), pv_zload(kar));
  return pv_reduce(pv_zfold(z));
}

/*
 * The avx512 path: 32 blocks per reduction (8 zmm: D^32 .. D^1): the chain from one group's accumulator
 * to the next (the first block's products, the fold and the reduction) is what bounds the ymm path's 16;
 * here it is paid half as often. Then 16 (4 zmm) and the vaes path's tail.
 */
PV_ZMM __m128i pv_update_zmm(const uint8_t *table, __m128i a, const uint8_t *data, size_t blocks, const int rev,
                             __m512i order) {
  size_t i = 0;
  for (; i + 32 <= blocks; i += 32) a = pv_group_zmm(table, a, data + 16 * i, 8, rev, order);
  if (blocks - i >= 16) a = pv_group_zmm(table, a, data + 16 * i, 4, rev, order), i += 16;
  return pv_rest_ymm(table, a, data + 16 * i, blocks - i, _mm512_castsi512_si256(order));
}

/* One copy without the byte reversal (POLYVAL) and one with it (GHASH): a branch on the public flag. */
static __attribute__((target("avx512f,avx512vl,avx512bw,vpclmulqdq,avx2,pclmul,sse4.1"))) void
x64_polyval_update_v512(const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t blocks, int reversed) {
  const __m512i order = _mm512_broadcast_i32x4(pv_order(reversed));
  if (reversed) {
    pv_store(acc, pv_update_zmm(table, pv_load(acc), data, blocks, 1, order));
  } else {
    pv_store(acc, pv_update_zmm(table, pv_load(acc), data, blocks, 0, order));
  }
  _mm256_zeroupper();
}

#endif
