/*
 * BitLocker's Elephant diffusers for x86-64 with AVX2 (aes_native.h: aes_native_elephant), included by
 * aes_x64.c after hbsh_x64.h (whose CPUID check and 8×8 transpose it shares). The glue's elephant_steps.h
 * has the diffusers' steps on rows of lanes, over the vector operations defined here; its elephant.h runs
 * the sectors left over.
 *
 * Each step d[i] ±= d[i∓2] ⊕ (d[i∓5] <<< r) depends on the one two before it, so one sector has no
 * parallelism to offer a vector; eight sectors do. diffuse8 turns eight sectors into words × lanes (row i
 * of the scratch holds word i of sectors 0..7: an 8×8 transpose of 32-bit words per 32 bytes, the key XOR
 * folded into the transpose where the direction has it there), runs both diffusers on the rows, and turns
 * them back. Rotations by the constants 9, 13, 10 and 25 are two shifts and an OR.
 *
 * Constant time: VPADDD, VPSUBD, VPXOR, shifts by constants and the transposes' fixed shuffles, at indices
 * that depend on the sector size alone.
 */
#define EL_VEC __m256i
#define EL_INLINE HBSH_AVX2_INLINE
#define EL_ROT(x, r) _mm256_or_si256(_mm256_slli_epi32(x, r), _mm256_srli_epi32(x, 32 - (r)))
#define EL_ADD(a, b) _mm256_add_epi32(a, b)
#define EL_SUB(a, b) _mm256_sub_epi32(a, b)
#define EL_XOR(a, b) _mm256_xor_si256(a, b)

#include "elephant_steps.h"

/*
 * Rows ← eight sectors (stride 4n bytes), 32 bytes of each at a time; each sector's 32 bytes XORed with its
 * key first when `key` is set (encryption).
 */
HBSH_AVX2_INLINE void el_to_rows(__m256i *t, const uint8_t *data, size_t n, const uint8_t *keys, int key) {
  __m256i k[8], x[8];
  for (int s = 0; s < 8; s++) k[s] = _mm256_loadu_si256((const __m256i *)(const void *)(keys + 32 * s));
  for (size_t j = 0; j < n; j += 8) {
    for (int s = 0; s < 8; s++) {
      x[s] = _mm256_loadu_si256((const __m256i *)(const void *)(data + 4 * (n * s + j)));
      if (key) x[s] = EL_XOR(x[s], k[s]);
    }
    hbsh_transpose8(x, t + j);
  }
}

/* Eight sectors ← rows, each sector's 32 bytes XORed with its key on the way when `key` is set (decryption). */
HBSH_AVX2_INLINE void el_from_rows(uint8_t *data, const __m256i *t, size_t n, const uint8_t *keys, int key) {
  __m256i k[8], x[8];
  for (int s = 0; s < 8; s++) k[s] = _mm256_loadu_si256((const __m256i *)(const void *)(keys + 32 * s));
  for (size_t j = 0; j < n; j += 8) {
    hbsh_transpose8(t + j, x);
    for (int s = 0; s < 8; s++) {
      _mm256_storeu_si256((__m256i *)(void *)(data + 4 * (n * s + j)), key ? EL_XOR(x[s], k[s]) : x[s]);
    }
  }
}

HBSH_AVX2 static void el_diffuse8_avx2(uint8_t *data, size_t n, const uint8_t *keys, int decrypt,
                                       uint32_t *scratch) {
  __m256i *t = (__m256i *)(void *)scratch;
  el_to_rows(t, data, n, keys, !decrypt);
  el_diffuse_rows(t, n, decrypt);
  el_from_rows(data, t, n, keys, decrypt);
  _mm256_zeroupper();
}

static const aes_native_elephant x64_elephant_avx2 = {"avx2", cpu_has_avx2, el_diffuse8_avx2};
