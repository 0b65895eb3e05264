/*
 * BitLocker's Elephant diffusers for AArch64 on NEON (aes_native.h: aes_native_elephant), included by
 * aes_arm64.c after hbsh_arm64.h (whose 4×4 transpose it shares). The glue's elephant_steps.h has the
 * diffusers' steps on rows of lanes, over the vector operations defined here; its elephant.h runs the
 * sectors left over.
 *
 * A q register has four 32-bit lanes, so the eight sectors of a call to diffuse8 go as two groups of four:
 * each turned into words × lanes (row i of the scratch holds word i of the four sectors: a 4×4 transpose
 * per 16 bytes of each, the key XOR folded in where the direction has it there), both diffusers run on
 * the rows, and the rows turned back. Rotations by constants are SHL + SRI.
 *
 * Constant time: ADD, SUB, EOR, shifts by constants and the transposes' fixed permutations, at indices
 * that depend on the sector size alone.
 */
#define EL_VEC uint32x4_t
#define EL_INLINE ALWAYS_INLINE
#define EL_ROT(x, r) vsriq_n_u32(vshlq_n_u32(x, r), x, 32 - (r))
#define EL_ADD(a, b) vaddq_u32(a, b)
#define EL_SUB(a, b) vsubq_u32(a, b)
#define EL_XOR(a, b) veorq_u32(a, b)

#include "elephant_steps.h"

/* The 16-byte piece `j / 4` of sector s's 32-byte key (the key repeats every eight words). */
#define EL_KEY(keys, s, j) vld1q_u32((const uint32_t *)(const void *)((keys) + 32 * (s) + 4 * ((j) & 7)))

/* Rows ← four sectors (stride 4n bytes), 16 bytes of each at a time, XORed with its key first when `key` is set. */
ALWAYS_INLINE void el_neon_to_rows(uint32x4_t *t, const uint8_t *data, size_t n, const uint8_t *keys, int key) {
  uint32x4_t x[4];
  for (size_t j = 0; j < n; j += 4) {
    for (int s = 0; s < 4; s++) {
      x[s] = vreinterpretq_u32_u8(vld1q_u8(data + 4 * (n * s + j)));
      if (key) x[s] = veorq_u32(x[s], EL_KEY(keys, s, j));
    }
    hbsh_neon_transpose4(x, t + j);
  }
}

/* Four sectors ← rows, each 16 bytes XORed with its key on the way when `key` is set. */
ALWAYS_INLINE void el_neon_from_rows(uint8_t *data, const uint32x4_t *t, size_t n, const uint8_t *keys, int key) {
  uint32x4_t x[4];
  for (size_t j = 0; j < n; j += 4) {
    hbsh_neon_transpose4(t + j, x);
    for (int s = 0; s < 4; s++) {
      vst1q_u8(data + 4 * (n * s + j), vreinterpretq_u8_u32(key ? veorq_u32(x[s], EL_KEY(keys, s, j)) : x[s]));
    }
  }
}

static void el_diffuse8_neon(uint8_t *data, size_t n, const uint8_t *keys, int decrypt, uint32_t *scratch) {
  uint32x4_t *t = (uint32x4_t *)(void *)scratch;
  for (int half = 0; half < 2; half++) {
    uint8_t *d = data + half * 16 * n; /* four sectors of 4n bytes */
    const uint8_t *k = keys + half * 128;
    el_neon_to_rows(t, d, n, k, !decrypt);
    el_diffuse_rows(t, n, decrypt);
    el_neon_from_rows(d, t, n, k, decrypt);
  }
}

static const aes_native_elephant arm64_elephant_neon = {"neon", neon_available, el_diffuse8_neon};
