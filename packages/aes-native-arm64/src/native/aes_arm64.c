/*
 * AES kernels on the ARMv8 Cryptographic Extension, written with ACLE intrinsics (arm_neon.h).
 *
 * The four instructions and the FIPS 197 steps they perform:
 *   AESE  (vaeseq_u8)   AddRoundKey, then ShiftRows and SubBytes          (§5.1.4, §5.1.2, §5.1.1)
 *   AESMC (vaesmcq_u8)  MixColumns                                        (§5.1.3)
 *   AESD  (vaesdq_u8)   AddRoundKey, then InvShiftRows and InvSubBytes    (§5.3.1, §5.3.2)
 *   AESIMC(vaesimcq_u8) InvMixColumns                                     (§5.3.3)
 * Because AESE/AESD put AddRoundKey first, a cipher of Nr rounds is Nr-1 pairs (AESE, AESMC) with round
 * keys 0 .. Nr-2, one AESE with round key Nr-1, and an XOR with round key Nr; decryption is the same with
 * AESD/AESIMC over the equivalent inverse cipher's keys (§5.3.5), which is what @x/aes-keyschedule's
 * `decryptionKeys` holds. AESE is followed directly by the AESMC of the same register so that cores that
 * fuse the pair (Cortex-A57 onwards, Neoverse, Apple) issue it as one operation.
 *
 * Every kernel is instantiated three times with a constant round count, so the loops over rounds unroll
 * and all 11, 13 or 15 round keys stay in vector registers for the whole call (AArch64 has 32: 15 keys,
 * 8 blocks in flight and the CBC chaining value fit; XTS's eight tweaks do too for AES-128 and AES-192,
 * while for AES-256 GCC keeps one value on the stack and reloads the tweak constants from memory each batch).
 *
 * Timing: the AES instructions are constant time; nothing here branches on or indexes by secret data.
 *
 * The Node-API glue is @x/aes-native-addon's (addon.c); this file gives it one code path, "armv8-ce"
 * (aes_native_paths, at the end).
 *
 * scripts/breaks.mjs patches a copy of this file with each patch in breaks/ (deliberately wrong kernels)
 * and checks that the tests catch every one; this file itself has no test hooks.
 */
#include "aes_arm64.h"

#include "aes_native.h"

#if defined(__aarch64__)

#include <arm_neon.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_AES
#define HWCAP_AES (1UL << 3) /* Linux arch/arm64/include/uapi/asm/hwcap.h */
#endif
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

#define LANES AES_ARM64_PARALLEL_BLOCKS

/* The round keys of one call, in registers. */
typedef struct {
  uint8x16_t k[15];
} keys_t;

ALWAYS_INLINE void load_keys(keys_t *ks, const uint8_t *p, const int rounds) {
  UNROLL for (int r = 0; r <= rounds; r++) ks->k[r] = vld1q_u8(p + 16 * r);
}

/* The cipher of FIPS 197 §5.1 on one block. */
ALWAYS_INLINE uint8x16_t encrypt1(const keys_t *ks, const int rounds, uint8x16_t s) {
  UNROLL for (int r = 0; r < rounds - 1; r++) s = vaesmcq_u8(vaeseq_u8(s, ks->k[r]));
  s = vaeseq_u8(s, ks->k[rounds - 1]);
  return veorq_u8(s, ks->k[rounds]);
}

/* The equivalent inverse cipher of FIPS 197 §5.3.5 on one block. */
ALWAYS_INLINE uint8x16_t decrypt1(const keys_t *ks, const int rounds, uint8x16_t s) {
  UNROLL for (int r = 0; r < rounds - 1; r++) s = vaesimcq_u8(vaesdq_u8(s, ks->k[r]));
  s = vaesdq_u8(s, ks->k[rounds - 1]);
  return veorq_u8(s, ks->k[rounds]);
}

/* §5.1 on eight independent blocks, round by round, so eight AESE/AESMC chains overlap in the pipeline. */
ALWAYS_INLINE void encrypt8(const keys_t *ks, const int rounds, uint8x16_t s[LANES]) {
  UNROLL for (int r = 0; r < rounds - 1; r++) {
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vaesmcq_u8(vaeseq_u8(s[j], ks->k[r]));
  }
  UNROLL for (int j = 0; j < LANES; j++) s[j] = veorq_u8(vaeseq_u8(s[j], ks->k[rounds - 1]), ks->k[rounds]);
}

/* §5.3.5 on eight independent blocks, interleaved as encrypt8 is. */
ALWAYS_INLINE void decrypt8(const keys_t *ks, const int rounds, uint8x16_t s[LANES]) {
  UNROLL for (int r = 0; r < rounds - 1; r++) {
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vaesimcq_u8(vaesdq_u8(s[j], ks->k[r]));
  }
  UNROLL for (int j = 0; j < LANES; j++) s[j] = veorq_u8(vaesdq_u8(s[j], ks->k[rounds - 1]), ks->k[rounds]);
}

/* ECB: eight blocks at a time, then the 1-7 block tail one by one. Loads of a batch precede its stores. */
ALWAYS_INLINE void ecb_encrypt(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t n) {
  keys_t ks;
  load_keys(&ks, rk, rounds);
  size_t i = 0;
  for (; i + LANES <= n; i += LANES) {
    uint8x16_t s[LANES];
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vld1q_u8(src + 16 * (i + j));
    encrypt8(&ks, rounds, s);
    UNROLL for (int j = 0; j < LANES; j++) vst1q_u8(dst + 16 * (i + j), s[j]);
  }
  for (; i < n; i++) vst1q_u8(dst + 16 * i, encrypt1(&ks, rounds, vld1q_u8(src + 16 * i)));
}

ALWAYS_INLINE void ecb_decrypt(const int rounds, const uint8_t *dk, uint8_t *dst, const uint8_t *src, size_t n) {
  keys_t ks;
  load_keys(&ks, dk, rounds);
  size_t i = 0;
  for (; i + LANES <= n; i += LANES) {
    uint8x16_t s[LANES];
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vld1q_u8(src + 16 * (i + j));
    decrypt8(&ks, rounds, s);
    UNROLL for (int j = 0; j < LANES; j++) vst1q_u8(dst + 16 * (i + j), s[j]);
  }
  for (; i < n; i++) vst1q_u8(dst + 16 * i, decrypt1(&ks, rounds, vld1q_u8(src + 16 * i)));
}

/*
 * CBC encryption (NIST SP 800-38A §6.2), C[i] = E(P[i] ^ C[i-1]): serial by definition. The chain is
 * kept as u = C[i-1] ^ K[Nr], the state before the final AddRoundKey, and P[i] ^ K[0] ^ K[Nr] is formed
 * off the chain, so that the first AESE of the next block does all three XORs and the loop-carried path
 * is AESE/AESMC pairs only.
 */
ALWAYS_INLINE void cbc_encrypt_chain(const keys_t *ks, const int rounds, uint8_t *dst, const uint8_t *src, size_t n,
                                     uint8x16_t iv) {
  const uint8x16_t first_last = veorq_u8(ks->k[0], ks->k[rounds]);
  uint8x16_t u = veorq_u8(iv, ks->k[rounds]);
  for (size_t i = 0; i < n; i++) {
    uint8x16_t s = vaesmcq_u8(vaeseq_u8(u, veorq_u8(vld1q_u8(src + 16 * i), first_last)));
    UNROLL for (int r = 1; r < rounds - 1; r++) s = vaesmcq_u8(vaeseq_u8(s, ks->k[r]));
    u = vaeseq_u8(s, ks->k[rounds - 1]);
    vst1q_u8(dst + 16 * i, veorq_u8(u, ks->k[rounds]));
  }
}

ALWAYS_INLINE void cbc_encrypt(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t n,
                               const uint8_t *iv) {
  keys_t ks;
  load_keys(&ks, rk, rounds);
  cbc_encrypt_chain(&ks, rounds, dst, src, n, vld1q_u8(iv));
}

/*
 * CBC encryption of many sectors, each its own chain with its own IV. One chain is serial, but the chains
 * are independent, so eight sectors run side by side: step k encrypts block k of sectors s .. s+7, lane j
 * computing C[s+j][k] = E(P[s+j][k] ^ C[s+j][k-1]) with the eight AESE/AESMC chains interleaved round by
 * round (the pipeline that one serial chain leaves idle). Each lane keeps its chain as cbc_encrypt_chain
 * does, u = C[k-1] ^ K[Nr], so the first AESE does the three XORs. Every lane's block is loaded before it
 * is stored, so dst == src is safe. The last 1-7 sectors (sectors % 8) run one chain at a time.
 */
ALWAYS_INLINE void sectors_encrypt(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs) {
  keys_t ks;
  load_keys(&ks, rk, rounds);
  const size_t stride = 16 * sector_blocks;
  const uint8x16_t first_last = veorq_u8(ks.k[0], ks.k[rounds]);
  size_t s = 0;
  for (; s + LANES <= sectors; s += LANES) {
    const uint8_t *p = src + s * stride;
    uint8_t *c = dst + s * stride;
    uint8x16_t u[LANES];
    UNROLL for (int j = 0; j < LANES; j++) u[j] = veorq_u8(vld1q_u8(ivs + 16 * (s + j)), ks.k[rounds]);
    for (size_t k = 0; k < sector_blocks; k++) {
      uint8x16_t x[LANES];
      UNROLL for (int j = 0; j < LANES; j++) x[j] = veorq_u8(vld1q_u8(p + j * stride + 16 * k), first_last);
      UNROLL for (int j = 0; j < LANES; j++) x[j] = vaesmcq_u8(vaeseq_u8(u[j], x[j]));
      UNROLL for (int r = 1; r < rounds - 1; r++) {
        UNROLL for (int j = 0; j < LANES; j++) x[j] = vaesmcq_u8(vaeseq_u8(x[j], ks.k[r]));
      }
      UNROLL for (int j = 0; j < LANES; j++) {
        u[j] = vaeseq_u8(x[j], ks.k[rounds - 1]);
        vst1q_u8(c + j * stride + 16 * k, veorq_u8(u[j], ks.k[rounds]));
      }
    }
  }
  for (; s < sectors; s++) {
    cbc_encrypt_chain(&ks, rounds, dst + s * stride, src + s * stride, sector_blocks, vld1q_u8(ivs + 16 * s));
  }
}

/*
 * CBC decryption of one chain (NIST SP 800-38A §6.2), P[i] = D(C[i]) ^ C[i-1]: every C is known, so eight
 * blocks are decrypted at once, then the 1-7 block tail. C[i-1] is read back from `src` after the rounds
 * but before any store of the batch, so that dst == src works; C[i+7] is kept as the next batch's IV.
 */
ALWAYS_INLINE void cbc_decrypt_chain(const keys_t *ks, const int rounds, uint8_t *dst, const uint8_t *src,
                                     size_t n, uint8x16_t iv) {
  size_t i = 0;
  for (; i + LANES <= n; i += LANES) {
    const uint8_t *c = src + 16 * i;
    uint8x16_t s[LANES];
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vld1q_u8(c + 16 * j);
    decrypt8(ks, rounds, s);
    s[0] = veorq_u8(s[0], iv);
    UNROLL for (int j = 1; j < LANES; j++) s[j] = veorq_u8(s[j], vld1q_u8(c + 16 * (j - 1)));
    iv = vld1q_u8(c + 16 * (LANES - 1));
    UNROLL for (int j = 0; j < LANES; j++) vst1q_u8(dst + 16 * (i + j), s[j]);
  }
  for (; i < n; i++) {
    const uint8x16_t c = vld1q_u8(src + 16 * i);
    vst1q_u8(dst + 16 * i, veorq_u8(decrypt1(ks, rounds, c), iv));
    iv = c;
  }
}

/*
 * Many sectors, each its own CBC chain with its own IV; the round keys are loaded once for all of them.
 * One chain is one sector of all the blocks.
 */
ALWAYS_INLINE void sectors_decrypt(const int rounds, const uint8_t *dk, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs) {
  keys_t ks;
  load_keys(&ks, dk, rounds);
  const size_t stride = 16 * sector_blocks;
  for (size_t s = 0; s < sectors; s++) {
    cbc_decrypt_chain(&ks, rounds, dst + s * stride, src + s * stride, sector_blocks, vld1q_u8(ivs + 16 * s));
  }
}

/*
 * XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks. A tweak is a 128-bit little-endian integer (§5.2),
 * held as two 64-bit lanes t = {low, high}; vld1q_u8 of its 16 bytes gives exactly that lane order on a
 * little-endian core (AArch64 as Linux and macOS run it).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the XTS tweak arithmetic assumes a little-endian AArch64"
#endif

/* The reduction x^128 = x^7 + x^2 + x + 1 (0x87) of GF(2^128) (IEEE 1619 §5.2). */
#define XTS_POLY 0x87u

/*
 * T·α (§5.2, "multiplication by a primitive element"): T shifted left by one bit as a 128-bit integer, and
 * if bit 127 was set, 0x87 XORed into byte 0. Without a branch:
 *   c = t >> 63, arithmetic, per lane: {low's bit 63, high's bit 63}, each 0 or all ones;
 *   swapped to {high's bit 63, low's bit 63} and masked with {0x87, 1}: high's bit 63 becomes the
 *   reduction into the low lane, low's bit 63 the carry into the high lane's bit 0;
 *   t + t shifts each lane left by one (the bits that leave a lane are exactly those c carries), and the
 *   XOR puts the carries in (the bits they land on are zero after the shift, so XOR is OR).
 */
ALWAYS_INLINE uint64x2_t xts_mul_alpha(uint64x2_t t) {
  const uint64x2_t fold = {XTS_POLY, 1};
  const int64x2_t c = vshrq_n_s64(vreinterpretq_s64_u64(t), 63);
  const uint64x2_t m = vandq_u64(vreinterpretq_u64_s64(vextq_s64(c, c, 1)), fold);
  return veorq_u64(vaddq_u64(t, t), m);
}

/*
 * T·α^8, the step from one batch of eight tweaks to the next, in one short dependency chain instead of
 * eight doublings: shifting left by 8 bits moves every byte up by one (vextq_u8 with a zero vector) and
 * drops the top byte h, and h·x^128 = h·0x87 is a carry-less product of at most 15 bits that goes into
 * bytes 0 and 1. PMULL.8B (vmull_p8, base Advanced SIMD) forms it: h in every byte times {0x87, 0, ...}
 * leaves h·0x87 in 16-bit lane 0 and zero elsewhere.
 */
ALWAYS_INLINE uint64x2_t xts_mul_alpha8(uint64x2_t t) {
  const uint8x16_t b = vreinterpretq_u8_u64(t);
  const uint8x16_t up = vextq_u8(vdupq_n_u8(0), b, 15);
  const poly16x8_t h = vmull_p8(vreinterpret_p8_u8(vdup_laneq_u8(b, 15)), vcreate_p8(XTS_POLY));
  return vreinterpretq_u64_u8(veorq_u8(up, vreinterpretq_u8_p16(h)));
}

/* One XTS round of the cipher (AESE+AESMC) or of the equivalent inverse cipher (AESD+AESIMC). */
ALWAYS_INLINE uint8x16_t xts_round(const int decrypt, uint8x16_t s, uint8x16_t k) {
  return decrypt ? vaesimcq_u8(vaesdq_u8(s, k)) : vaesmcq_u8(vaeseq_u8(s, k));
}

ALWAYS_INLINE uint8x16_t xts_last(const int decrypt, uint8x16_t s, uint8x16_t k) {
  return decrypt ? vaesdq_u8(s, k) : vaeseq_u8(s, k);
}

/*
 * The blocks of one data unit, C = E_K1(P ^ T·α^j) ^ T·α^j (or D_K1), tweak `t` for block 0.
 *
 * Eight blocks at a time: lane j's tweak is T·α^j by doublings within the batch, and the next batch starts
 * from T·α^8 (xts_mul_alpha8), so the loop-carried path is three instructions rather than eight doublings.
 * The tweak is XORed into the block before the cipher and into the result after its final AddRoundKey
 * (folding it into K[0] ^ T and K[Nr] ^ T instead costs the same XORs and, in GCC 12's register
 * allocation, a dozen extra moves per batch). All eight blocks are loaded before any is stored, so
 * dst == src is safe. Then the 1-7 block tail, one block at a time.
 */
ALWAYS_INLINE void xts_unit(const keys_t *ks, const int rounds, const int decrypt, uint8_t *dst, const uint8_t *src,
                            size_t n, uint64x2_t t) {
  size_t i = 0;
  for (; i + LANES <= n; i += LANES) {
    uint8x16_t tw[LANES], s[LANES];
    uint64x2_t tj = t;
    UNROLL for (int j = 0; j < LANES; j++) {
      tw[j] = vreinterpretq_u8_u64(tj);
      if (j + 1 < LANES) tj = xts_mul_alpha(tj);
    }
    t = xts_mul_alpha8(t);
    UNROLL for (int j = 0; j < LANES; j++) {
      s[j] = xts_round(decrypt, veorq_u8(vld1q_u8(src + 16 * (i + j)), tw[j]), ks->k[0]);
    }
    UNROLL for (int r = 1; r < rounds - 1; r++) {
      UNROLL for (int j = 0; j < LANES; j++) s[j] = xts_round(decrypt, s[j], ks->k[r]);
    }
    UNROLL for (int j = 0; j < LANES; j++) {
      s[j] = veorq_u8(veorq_u8(xts_last(decrypt, s[j], ks->k[rounds - 1]), ks->k[rounds]), tw[j]);
    }
    UNROLL for (int j = 0; j < LANES; j++) vst1q_u8(dst + 16 * (i + j), s[j]);
  }
  for (; i < n; i++) {
    const uint8x16_t tb = vreinterpretq_u8_u64(t);
    uint8x16_t s = xts_round(decrypt, veorq_u8(vld1q_u8(src + 16 * i), tb), ks->k[0]);
    UNROLL for (int r = 1; r < rounds - 1; r++) s = xts_round(decrypt, s, ks->k[r]);
    vst1q_u8(dst + 16 * i, veorq_u8(veorq_u8(xts_last(decrypt, s, ks->k[rounds - 1]), ks->k[rounds]), tb));
    t = xts_mul_alpha(t);
  }
}

/* Many data units of `unit_blocks` blocks each, unit u from tweak `tweaks[16u ..]`; keys loaded once. */
ALWAYS_INLINE void xts_units(const int rounds, const int decrypt, const uint8_t *k, uint8_t *dst, const uint8_t *src,
                             size_t units, size_t unit_blocks, const uint8_t *tweaks) {
  keys_t ks;
  load_keys(&ks, k, rounds);
  const size_t stride = 16 * unit_blocks;
  for (size_t u = 0; u < units; u++) {
    const uint64x2_t t = vreinterpretq_u64_u8(vld1q_u8(tweaks + 16 * u));
    xts_unit(&ks, rounds, decrypt, dst + u * stride, src + u * stride, unit_blocks, t);
  }
}

/*
 * One out-of-line copy per key size (FIPS 197 §5 Figure 4: Nr = 10, 12, 14). The exported functions
 * switch on `rounds` once per call; the named copies are what scripts/mca.mjs feeds to llvm-mca.
 */
#define INSTANTIATE(NR)                                                                                    \
  __attribute__((noinline)) void aes_arm64_ecb_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,    \
                                                         size_t n) {                                       \
    ecb_encrypt(NR, k, d, s, n);                                                                           \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_ecb_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,    \
                                                         size_t n) {                                       \
    ecb_decrypt(NR, k, d, s, n);                                                                           \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_cbc_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,    \
                                                         size_t n, const uint8_t *iv) {                    \
    cbc_encrypt(NR, k, d, s, n, iv);                                                                       \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_sectors_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, \
                                                             size_t ns, size_t sb, const uint8_t *ivs) {   \
    sectors_decrypt(NR, k, d, s, ns, sb, ivs);                                                             \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_sectors_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, \
                                                             size_t ns, size_t sb, const uint8_t *ivs) {   \
    sectors_encrypt(NR, k, d, s, ns, sb, ivs);                                                             \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_xts_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,    \
                                                         size_t nu, size_t ub, const uint8_t *tw) {        \
    xts_units(NR, 0, k, d, s, nu, ub, tw);                                                                 \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_xts_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,    \
                                                         size_t nu, size_t ub, const uint8_t *tw) {        \
    xts_units(NR, 1, k, d, s, nu, ub, tw);                                                                 \
  }

INSTANTIATE(10)
INSTANTIATE(12)
INSTANTIATE(14)

#define DISPATCH(NAME, ...)                  \
  switch (rounds) {                          \
    case 10: NAME##_10(__VA_ARGS__); break;  \
    case 12: NAME##_12(__VA_ARGS__); break;  \
    case 14: NAME##_14(__VA_ARGS__); break;  \
    default: break;                          \
  }

void aes_arm64_encrypt_blocks(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks) {
  DISPATCH(aes_arm64_ecb_enc, rk, dst, src, blocks)
}

void aes_arm64_decrypt_blocks(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks) {
  DISPATCH(aes_arm64_ecb_dec, dk, dst, src, blocks)
}

void aes_arm64_cbc_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks,
                           const uint8_t *iv) {
  DISPATCH(aes_arm64_cbc_enc, rk, dst, src, blocks, iv)
}

void aes_arm64_cbc_decrypt_sectors(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs) {
  DISPATCH(aes_arm64_sectors_dec, dk, dst, src, sectors, sector_blocks, ivs)
}

void aes_arm64_cbc_encrypt_sectors(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs) {
  DISPATCH(aes_arm64_sectors_enc, rk, dst, src, sectors, sector_blocks, ivs)
}

void aes_arm64_xts_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                           size_t unit_blocks, const uint8_t *tweaks) {
  DISPATCH(aes_arm64_xts_enc, rk, dst, src, units, unit_blocks, tweaks)
}

void aes_arm64_xts_decrypt(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                           size_t unit_blocks, const uint8_t *tweaks) {
  DISPATCH(aes_arm64_xts_dec, dk, dst, src, units, unit_blocks, tweaks)
}

/* Whether the CPU implements AESE/AESD/AESMC/AESIMC (FEAT_AES); asks the OS, runs none of them. */
static int armv8_ce_available(void) {
#if defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#elif defined(__APPLE__)
  return 1; /* every Apple arm64 core has FEAT_AES */
#else
  return 0; /* unknown platform: never run the kernels */
#endif
}

static const aes_native_path armv8_ce = {
    "armv8-ce",
    armv8_ce_available,
    aes_arm64_encrypt_blocks,
    aes_arm64_decrypt_blocks,
    aes_arm64_cbc_encrypt,
    aes_arm64_cbc_decrypt_sectors,
    aes_arm64_cbc_encrypt_sectors,
    aes_arm64_xts_encrypt,
    aes_arm64_xts_decrypt,
};

const aes_native_path *const aes_native_paths[] = {&armv8_ce, NULL};

#else /* not __aarch64__: the binary builds, and has no path */

const aes_native_path *const aes_native_paths[] = {NULL};

#endif /* __aarch64__ */

const char aes_native_prefix[] = "@x/aes-native-arm64: ";
