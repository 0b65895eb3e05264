/*
 * The steps of BitLocker's Elephant diffusers on rows of lanes (elephant.h has them word by word), written
 * once for every kernel's SIMD diffuser: row i holds word i of as many sectors as the vector has 32-bit
 * lanes. The kernel defines, before including this file:
 *
 *   EL_VEC        the vector type (__m256i, uint32x4_t)
 *   EL_INLINE     the storage class and attributes of these functions (static inline, target attributes)
 *   EL_ADD, EL_SUB, EL_XOR (a, b)    lane-wise addition and subtraction mod 2^32, and XOR
 *   EL_ROT(x, r)  lane-wise rotation left by the constant r (9, 10, 13 or 25)
 *
 * Each step d[i] ±= d[i∓2] ⊕ (d[i∓5] <<< r) depends on the one two before it, which is why the lanes are
 * sectors, not words of one sector. Constant time: lane-wise arithmetic and rotations by constants, at
 * indices that depend on the sector size alone.
 */
#ifndef X_AES_NATIVE_ELEPHANT_STEPS_H
#define X_AES_NATIVE_ELEPHANT_STEPS_H

/* Diffuser A, decryption direction, on n rows: 5 cycles of t[i] += t[i−2] ⊕ (t[i−5] <<< Ra[i mod 4]). */
EL_INLINE void el_a_decrypt(EL_VEC *t, size_t n) {
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
    EL_VEC p2 = t[6], p1 = t[7];
    for (size_t i = 8; i < n; i += 4) {
      const EL_VEC w0 = EL_ADD(t[i], EL_XOR(p2, EL_ROT(t[i - 5], 9)));
      const EL_VEC w1 = EL_ADD(t[i + 1], EL_XOR(p1, t[i - 4]));
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
EL_INLINE void el_a_encrypt(EL_VEC *t, size_t n) {
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
EL_INLINE void el_b_decrypt(EL_VEC *t, size_t n) {
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
EL_INLINE void el_b_encrypt(EL_VEC *t, size_t n) {
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

/* Both diffusers on rows, in the order of the direction: encryption A then B, decryption B⁻¹ then A⁻¹. */
EL_INLINE void el_diffuse_rows(EL_VEC *t, size_t n, int decrypt) {
  if (decrypt) {
    el_b_decrypt(t, n);
    el_a_decrypt(t, n);
  } else {
    el_a_encrypt(t, n);
    el_b_encrypt(t, n);
  }
}

#endif
