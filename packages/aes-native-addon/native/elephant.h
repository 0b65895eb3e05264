/*
 * BitLocker's Elephant diffusers (N. Ferguson, "AES-CBC + Elephant diffuser: A Disk Encryption Algorithm
 * for Windows Vista", Microsoft, 2006) in the glue, included by addon.c: the part of AES-CBC + Elephant
 * that is not AES, on many sectors in one native call. @x/dm-crypt makes the sector keys (one ECB call)
 * and runs CBC; this file runs, per sector of n = sector size / 4 little-endian words d[0 .. n), indices
 * mod n:
 *
 *   A, decryption, 5 cycles of   for i = 0 … n−1:  d[i] += d[i−2] ⊕ (d[i−5] <<< Ra[i mod 4]),  Ra = 9, 0, 13, 0
 *   B, decryption, 3 cycles of   for i = 0 … n−1:  d[i] += d[i+2] ⊕ (d[i+5] <<< Rb[i mod 4]),  Rb = 0, 10, 0, 25
 *
 *   decrypt  (after CBC⁻¹)   B, then A, then d ⊕= the sector's 32-byte key, repeated
 *   encrypt  (before CBC)    d ⊕= the key, then A and B undone step by step (i downward, subtracting)
 *
 * Eight sectors at a time go to the path's SIMD diffuser where it has one (aes_native.h:
 * aes_native_elephant), one sector per 32-bit lane; the sectors left over, and every sector on a path
 * without one, to the portable C below. Both work on a scratch copy (the words, aligned, whatever the
 * caller's alignment), wiped before the call returns.
 *
 * Constant time: adds, subtracts, xors and rotations by public amounts at public indices; the sector size
 * and count alone decide what runs.
 */
#ifndef X_AES_NATIVE_ELEPHANT_H
#define X_AES_NATIVE_ELEPHANT_H

#include <stdint.h>
#include <string.h>

#include "aes_native.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "elephant.h reads the sector's words with memcpy: little-endian hosts only"
#endif

/* Words per sector: 512- to 4096-byte sectors (BitLocker's, dm-crypt's). */
#define ELEPHANT_MIN_WORDS 128
#define ELEPHANT_MAX_WORDS 1024

static inline uint32_t elephant_rotl(uint32_t x, unsigned r) { return (x << r) | (x >> ((32 - r) & 31)); }

static const unsigned elephant_ra[4] = {9, 0, 13, 0};
static const unsigned elephant_rb[4] = {0, 10, 0, 25};

/* d ⊕= the 32-byte key k (eight little-endian words), repeated over n words. */
static void elephant_xor_key(uint32_t *d, size_t n, const uint8_t *k) {
  uint32_t kw[8];
  memcpy(kw, k, sizeof kw);
  for (size_t i = 0; i < n; i++) d[i] ^= kw[i & 7];
  aes_native_wipe(kw, sizeof kw);
}

/* One sector of n words at p, in place, through the scratch d (n words). */
static void elephant_sector_c(uint8_t *p, size_t n, const uint8_t *key, int decrypt, uint32_t *d) {
  const size_t m = n - 1;
  memcpy(d, p, 4 * n);
  if (decrypt) {
    for (int c = 0; c < 3; c++) {
      for (size_t i = 0; i < n; i++) d[i] += d[(i + 2) & m] ^ elephant_rotl(d[(i + 5) & m], elephant_rb[i & 3]);
    }
    for (int c = 0; c < 5; c++) {
      for (size_t i = 0; i < n; i++) d[i] += d[(i - 2) & m] ^ elephant_rotl(d[(i - 5) & m], elephant_ra[i & 3]);
    }
    elephant_xor_key(d, n, key);
  } else {
    elephant_xor_key(d, n, key);
    for (int c = 0; c < 5; c++) {
      for (size_t i = n; i-- > 0;) d[i] -= d[(i - 2) & m] ^ elephant_rotl(d[(i - 5) & m], elephant_ra[i & 3]);
    }
    for (int c = 0; c < 3; c++) {
      for (size_t i = n; i-- > 0;) d[i] -= d[(i + 2) & m] ^ elephant_rotl(d[(i + 5) & m], elephant_rb[i & 3]);
    }
  }
  memcpy(p, d, 4 * n);
}

/* The SIMD diffuser of `path` where it has one and the CPU runs it; NULL: the portable C alone. */
static const aes_native_elephant *elephant_ops(const aes_native_path *path, int portable) {
  if (portable || path->elephant == NULL || !path->elephant->available()) return NULL;
  return path->elephant;
}

/*
 * The diffusers of `count` sectors of `words` words (a power of two, ELEPHANT_MIN_WORDS ..
 * ELEPHANT_MAX_WORDS) at `data`, in place, sector s with the key at `keys + 32s`.
 */
static void elephant_run(const aes_native_elephant *simd, uint8_t *data, size_t count, size_t words,
                         const uint8_t *keys, int decrypt) {
  uint32_t scratch[8 * ELEPHANT_MAX_WORDS] __attribute__((aligned(32)));
  const size_t sector = 4 * words;
  size_t s = 0;
  if (simd != NULL) {
    for (; count - s >= 8; s += 8) simd->diffuse8(data + s * sector, words, keys + 32 * s, decrypt, scratch);
  }
  for (; s < count; s++) elephant_sector_c(data + s * sector, words, keys + 32 * s, decrypt, scratch);
  /* only what this call used: eight sectors' words after a SIMD group, else one sector's */
  const size_t used = (simd != NULL && count >= 8 ? 8 : 1) * words;
  aes_native_wipe(scratch, 4 * used);
}

#endif
