/*
 * BitLocker's Elephant diffusers for x86-64 with AVX2 (aes_native.h: aes_native_elephant), included by
 * aes_x64.c after hbsh_x64.h (whose CPUID check and 8×8 transpose it shares). The glue's elephant.h gives
 * the steps and runs the sectors left over.
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
#define EL_ROT(x, r) _mm256_or_si256(_mm256_slli_epi32(x, r), _mm256_srli_epi32(x, 32 - (r)))
#define EL_ADD(a, b) _mm256_add_epi32(a, b)
#define EL_SUB(a, b) _mm256_sub_epi32(a, b)
#define EL_XOR(a, b) _mm256_xor_si256(a, b)

/* Diffuser A, decryption direction, on n rows: 5 cycles of t[i] += t[i−2] ⊕ (t[i−5] <<< Ra[i mod 4]). */
HBSH_AVX2_INLINE void el_a_decrypt(__m256i *t, size_t n) {
  for (int c = 0; c < 5; c++) {
    /* i = 0 .. 7: the indices i − 2 and i − 5 wrap around to the sector's end */
    t[0] = EL_ADD(t[0], EL_XOR(t[n - 2], EL_ROT(t[n - 5], 9)));
    t[1] = EL_ADD(t[1], EL_XOR(t[n - 1], t[n - 4]));
    t[2] = EL_ADD(t[2], EL_XOR(t[0], EL_ROT(t[n - 3], 13)));
    t[3] = EL_ADD(t[3], EL_XOR(t[1], t[n - 2]));
    t[4] = EL_ADD(t[4], EL_XOR(t[2], EL_ROT(t[n - 1], 9)));
    t[5] = EL_ADD(t[5], EL_XOR(t[3], t[0]));
    t[6] = EL_ADD(t[6], EL_XOR(t[4], EL_ROT(t[1], 13)));
    t[7] = EL_ADD(t[7], EL_XOR(t[5], t[2]));
    /* t[i − 2] and t[i − 1], just written, kept in registers: the steps' only serial dependency */
    __m256i p2 = t[6], p1 = t[7];
    for (size_t i = 8; i < n; i += 4) {
      const __m256i w0 = EL_ADD(t[i], EL_XOR(p2, EL_ROT(t[i - 5], 9)));
      const __m256i w1 = EL_ADD(t[i + 1], EL_XOR(p1, t[i - 4]));
      p2 = EL_ADD(t[i + 2], EL_XOR(w0, EL_ROT(t[i - 3], 13)));
      p1 = EL_ADD(t[i + 3], EL_XOR(w1, t[i - 2]));
      t[i] = w0;
      t[i + 1] = w1;
      t[i + 2] = p2;
      t[i + 3] = p1;
    }
  }
}

/* Diffuser A, encryption direction: the steps of el_a_decrypt undone, i downward. */
HBSH_AVX2_INLINE void el_a_encrypt(__m256i *t, size_t n) {
  for (int c = 0; c < 5; c++) {
    for (size_t i = n - 4; i >= 8; i -= 4) {
      t[i + 3] = EL_SUB(t[i + 3], EL_XOR(t[i + 1], t[i - 2]));
      t[i + 2] = EL_SUB(t[i + 2], EL_XOR(t[i], EL_ROT(t[i - 3], 13)));
      t[i + 1] = EL_SUB(t[i + 1], EL_XOR(t[i - 1], t[i - 4]));
      t[i] = EL_SUB(t[i], EL_XOR(t[i - 2], EL_ROT(t[i - 5], 9)));
    }
    t[7] = EL_SUB(t[7], EL_XOR(t[5], t[2]));
    t[6] = EL_SUB(t[6], EL_XOR(t[4], EL_ROT(t[1], 13)));
    t[5] = EL_SUB(t[5], EL_XOR(t[3], t[0]));
    t[4] = EL_SUB(t[4], EL_XOR(t[2], EL_ROT(t[n - 1], 9)));
    t[3] = EL_SUB(t[3], EL_XOR(t[1], t[n - 2]));
    t[2] = EL_SUB(t[2], EL_XOR(t[0], EL_ROT(t[n - 3], 13)));
    t[1] = EL_SUB(t[1], EL_XOR(t[n - 1], t[n - 4]));
    t[0] = EL_SUB(t[0], EL_XOR(t[n - 2], EL_ROT(t[n - 5], 9)));
  }
}

/* Diffuser B, decryption direction: 3 cycles of t[i] += t[i+2] ⊕ (t[i+5] <<< Rb[i mod 4]), i upward. */
HBSH_AVX2_INLINE void el_b_decrypt(__m256i *t, size_t n) {
  for (int c = 0; c < 3; c++) {
    for (size_t i = 0; i < n - 8; i += 4) {
      t[i] = EL_ADD(t[i], EL_XOR(t[i + 2], t[i + 5]));
      t[i + 1] = EL_ADD(t[i + 1], EL_XOR(t[i + 3], EL_ROT(t[i + 6], 10)));
      t[i + 2] = EL_ADD(t[i + 2], EL_XOR(t[i + 4], t[i + 7]));
      t[i + 3] = EL_ADD(t[i + 3], EL_XOR(t[i + 5], EL_ROT(t[i + 8], 25)));
    }
    /* i = n − 8 .. n − 1: i + 2 and i + 5 wrap around to the sector's start */
    t[n - 8] = EL_ADD(t[n - 8], EL_XOR(t[n - 6], t[n - 3]));
    t[n - 7] = EL_ADD(t[n - 7], EL_XOR(t[n - 5], EL_ROT(t[n - 2], 10)));
    t[n - 6] = EL_ADD(t[n - 6], EL_XOR(t[n - 4], t[n - 1]));
    t[n - 5] = EL_ADD(t[n - 5], EL_XOR(t[n - 3], EL_ROT(t[0], 25)));
    t[n - 4] = EL_ADD(t[n - 4], EL_XOR(t[n - 2], t[1]));
    t[n - 3] = EL_ADD(t[n - 3], EL_XOR(t[n - 1], EL_ROT(t[2], 10)));
    t[n - 2] = EL_ADD(t[n - 2], EL_XOR(t[0], t[3]));
    t[n - 1] = EL_ADD(t[n - 1], EL_XOR(t[1], EL_ROT(t[4], 25)));
  }
}

/* Diffuser B, encryption direction: the steps of el_b_decrypt undone, i downward. */
HBSH_AVX2_INLINE void el_b_encrypt(__m256i *t, size_t n) {
  for (int c = 0; c < 3; c++) {
    t[n - 1] = EL_SUB(t[n - 1], EL_XOR(t[1], EL_ROT(t[4], 25)));
    t[n - 2] = EL_SUB(t[n - 2], EL_XOR(t[0], t[3]));
    t[n - 3] = EL_SUB(t[n - 3], EL_XOR(t[n - 1], EL_ROT(t[2], 10)));
    t[n - 4] = EL_SUB(t[n - 4], EL_XOR(t[n - 2], t[1]));
    t[n - 5] = EL_SUB(t[n - 5], EL_XOR(t[n - 3], EL_ROT(t[0], 25)));
    t[n - 6] = EL_SUB(t[n - 6], EL_XOR(t[n - 4], t[n - 1]));
    t[n - 7] = EL_SUB(t[n - 7], EL_XOR(t[n - 5], EL_ROT(t[n - 2], 10)));
    t[n - 8] = EL_SUB(t[n - 8], EL_XOR(t[n - 6], t[n - 3]));
    for (size_t i = n - 12;; i -= 4) {
      t[i + 3] = EL_SUB(t[i + 3], EL_XOR(t[i + 5], EL_ROT(t[i + 8], 25)));
      t[i + 2] = EL_SUB(t[i + 2], EL_XOR(t[i + 4], t[i + 7]));
      t[i + 1] = EL_SUB(t[i + 1], EL_XOR(t[i + 3], EL_ROT(t[i + 6], 10)));
      t[i] = EL_SUB(t[i], EL_XOR(t[i + 2], t[i + 5]));
      if (i == 0) break;
    }
  }
}

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
  if (decrypt) {
    el_b_decrypt(t, n);
    el_a_decrypt(t, n);
  } else {
    el_a_encrypt(t, n);
    el_b_encrypt(t, n);
  }
  el_from_rows(data, t, n, keys, decrypt);
  _mm256_zeroupper();
}

static const aes_native_elephant x64_elephant_avx2 = {"avx2", cpu_has_avx2, el_diffuse8_avx2};
