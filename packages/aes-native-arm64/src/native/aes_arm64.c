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
 * CTR and POLYVAL (PMULL/PMULL2, FEAT_PMULL, the other half of the Cryptographic Extension) follow XTS.
 * Adiantum/HPolyC's ChaCha and NH on NEON are hbsh_arm64.h's, BitLocker's Elephant diffusers elephant_arm64.h's.
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
#include <string.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_AES
#define HWCAP_AES (1UL << 3) /* Linux arch/arm64/include/uapi/asm/hwcap.h */
#endif
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1UL << 4)
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
 * CTR (NIST SP 800-38A §6.5): block j of a call is src ^ E(counter block j), the counter blocks from the
 * 16-byte IV by one of three rules (aes_native.h): be128 (the whole block a big-endian integer, + j modulo
 * 2^128), be32 (GCM's inc32, SP 800-38D §6.2: only the last 4 bytes, + j modulo 2^32), xctr (HCTR2's XCTR:
 * iv ^ le128(j + 1)). The counter and the IV are public, so the code may branch on them; it never branches
 * on or indexes by the key or the data.
 *
 * be128 and be32 keep the next counter block b as bytes, and the same counter as a 128-bit integer
 * {hi, lo} in two general registers (for be32 only lo's last 32 bits move). Each batch of eight takes the
 * cheapest of three ways that is exact for it, chosen on lo (public):
 *   - the last byte goes no higher than 0xff over the batch and the step to the next (31 batches in 32):
 *     block j is b + j as sixteen byte lanes, one add;
 *   - else, the last 32-bit word does not wrap, or wraps as be32 wants: w = rev32(b) holds the four
 *     big-endian words in native lanes and block j is rev32(w + {0, 0, 0, j}), an add and a byte reversal
 *     (a 32-bit lane add wraps modulo 2^32, which is inc32);
 *   - else (be128 across a 32-bit wrap: once every 2^32 blocks, or when the IV starts near it), 128-bit adds
 *     in general registers, and b rebuilt from {hi, lo}.
 * xctr keeps n = {J, 0}, J the index of the next block, as two 64-bit lanes (a little-endian 128-bit
 * integer; J < 2^64 for any length a size_t holds), and base = iv ^ n. In the 8-block loop J is a multiple
 * of 8, so J + 1 + t = J | (t + 1) for t = 0..6: block J + t is base ^ {t + 1, 0}, one XOR, and block J + 7,
 * iv ^ (J + 8), is the next batch's base. (Folding that XOR into the first round key instead, AESE(base,
 * K[0] ^ {t + 1, 0}), saves nothing: AESE overwrites its input register, so each lane then needs a copy of
 * base, a MOV in place of the EOR.)
 */
#define CTR_BE128 AES_NATIVE_CTR_BE128
#define CTR_BE32 AES_NATIVE_CTR_BE32
#define CTR_XCTR AES_NATIVE_CTR_XCTR

typedef struct {
  uint8x16_t b;   /* be128, be32: the next counter block; xctr: iv ^ n */
  uint64_t hi;    /* be128, be32: the next counter block as a big-endian integer, bytes 0-7 */
  uint64_t lo;    /*              and bytes 8-15 */
  uint64x2_t n;   /* xctr: {J, 0}, J the index of the next block */
  uint8x16_t iv;  /* xctr: the IV */
} ctr_t;

ALWAYS_INLINE uint64_t load_be64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

/* The 16 big-endian bytes of the integer hi * 2^64 + lo, as a vector. */
ALWAYS_INLINE uint8x16_t be_block(uint64_t hi, uint64_t lo) {
  return vcombine_u8(vcreate_u8(__builtin_bswap64(hi)), vcreate_u8(__builtin_bswap64(lo)));
}

/* {x, 0}: x in the low 64-bit lane. */
ALWAYS_INLINE uint64x2_t low64(uint64_t x) { return vcombine_u64(vcreate_u64(x), vcreate_u64(0)); }

ALWAYS_INLINE void ctr_init(ctr_t *c, const uint8_t *iv) {
  c->iv = vld1q_u8(iv);
  c->b = c->iv;
  c->n = vdupq_n_u64(0);
  c->hi = load_be64(iv);
  c->lo = load_be64(iv + 8);
}

/* Moves the scalar counter on by k blocks (k <= 8): be128 with the carry into hi, be32 in the last word only. */
ALWAYS_INLINE void ctr_step(const int kind, ctr_t *c, uint64_t k) {
  if (kind == CTR_BE128) {
    const uint64_t lo = c->lo + k;
    c->hi += lo < c->lo;
    c->lo = lo;
  } else if (kind == CTR_BE32) {
    c->lo = (c->lo & 0xffffffff00000000u) | (uint32_t)(c->lo + k);
  }
}

/* The next eight counter blocks, in s[0..7]. */
ALWAYS_INLINE void ctr_next8(const int kind, ctr_t *c, uint8x16_t s[LANES]) {
  if (kind == CTR_XCTR) {
    UNROLL for (int t = 0; t + 1 < LANES; t++) s[t] = veorq_u8(c->b, vreinterpretq_u8_u64(low64((uint64_t)t + 1)));
    c->n = vaddq_u64(c->n, low64(LANES));
    c->b = veorq_u8(c->iv, vreinterpretq_u8_u64(c->n));
    s[LANES - 1] = c->b;
  } else if ((uint8_t)c->lo <= UINT8_MAX - LANES) {
    UNROLL for (int j = 0; j < LANES; j++) s[j] = vaddq_u8(c->b, vsetq_lane_u8((uint8_t)j, vdupq_n_u8(0), 15));
    c->b = vaddq_u8(c->b, vsetq_lane_u8(LANES, vdupq_n_u8(0), 15));
    ctr_step(kind, c, LANES);
  } else if (kind == CTR_BE32 || (uint32_t)c->lo <= UINT32_MAX - LANES) {
    const uint32x4_t w = vreinterpretq_u32_u8(vrev32q_u8(c->b));
    UNROLL for (int j = 0; j < LANES; j++) {
      s[j] = vrev32q_u8(vreinterpretq_u8_u32(vaddq_u32(w, vsetq_lane_u32((uint32_t)j, vdupq_n_u32(0), 3))));
    }
    c->b = vrev32q_u8(vreinterpretq_u8_u32(vaddq_u32(w, vsetq_lane_u32(LANES, vdupq_n_u32(0), 3))));
    ctr_step(kind, c, LANES);
  } else {
    /*
     * be128 across a wrap of the last word: 128-bit adds in general registers. The empty asm hides hi and
     * lo from the optimiser, which would otherwise keep lo + 1 .. lo + 7 as seven induction variables of
     * the 8-block loop (and a call instead would spill the round keys to the stack around it).
     */
    uint64_t hi = c->hi, lo = c->lo;
    __asm__("" : "+r"(hi), "+r"(lo));
    UNROLL for (int j = 0; j < LANES; j++) {
      const uint64_t l = lo + (uint64_t)j;
      s[j] = be_block(hi + (l < lo), l);
    }
    ctr_step(kind, c, LANES);
    c->b = be_block(c->hi, c->lo);
  }
}

/* The next counter block, for the tail after the batches (from {hi, lo}, or from n for xctr). */
ALWAYS_INLINE uint8x16_t ctr_next1(const int kind, ctr_t *c) {
  if (kind == CTR_XCTR) {
    c->n = vaddq_u64(c->n, low64(1));
    return veorq_u8(c->iv, vreinterpretq_u8_u64(c->n));
  }
  const uint8x16_t s = be_block(c->hi, c->lo);
  ctr_step(kind, c, 1);
  return s;
}

/*
 * Copies n < 16 bytes in fixed-size pieces (8, 4, 2, 1, by n's bits; n is public) that the compiler turns
 * into plain loads and stores: a call to memcpy would make it spill the round keys, which live in
 * caller-saved vector registers, onto the stack around the call, and leave them there.
 */
ALWAYS_INLINE void copy_short(uint8_t *d, const uint8_t *s, size_t n) {
  size_t o = 0;
  if (n & 8) {
    memcpy(d + o, s + o, 8);
    o += 8;
  }
  if (n & 4) {
    memcpy(d + o, s + o, 4);
    o += 4;
  }
  if (n & 2) {
    memcpy(d + o, s + o, 2);
    o += 2;
  }
  if (n & 1) d[o] = s[o];
}

/* Overwrites 16 bytes of the stack in a way the compiler may not drop (a store, then a barrier on it). */
ALWAYS_INLINE void wipe16(uint8_t *p) {
  vst1q_u8(p, vdupq_n_u8(0));
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * `len` bytes: eight counter blocks encrypted interleaved (encrypt8) per 128 bytes, each keystream block
 * XORed with its source block, loaded before the store (so dst == src is safe); then the whole blocks
 * left, one at a time (independent blocks: an out-of-order core overlaps them); then a last partial
 * block through a zero-padded stack copy, which is wiped afterwards (it held keystream beyond `len`).
 */
ALWAYS_INLINE void ctr_xor(const int rounds, const int kind, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                           size_t len, const uint8_t *iv) {
  keys_t ks;
  load_keys(&ks, rk, rounds);
  ctr_t c;
  ctr_init(&c, iv);
  const size_t blocks = len / 16;
  size_t i = 0;
  for (; i + LANES <= blocks; i += LANES) {
    uint8x16_t s[LANES];
    ctr_next8(kind, &c, s);
    encrypt8(&ks, rounds, s);
    UNROLL for (int j = 0; j < LANES; j++) {
      vst1q_u8(dst + 16 * (i + j), veorq_u8(s[j], vld1q_u8(src + 16 * (i + j))));
    }
  }
  for (; i < blocks; i++) {
    const uint8x16_t k = encrypt1(&ks, rounds, ctr_next1(kind, &c));
    vst1q_u8(dst + 16 * i, veorq_u8(k, vld1q_u8(src + 16 * i)));
  }
  const size_t r = len % 16;
  if (r != 0) {
    uint8_t t[16] __attribute__((aligned(16)));
    vst1q_u8(t, vdupq_n_u8(0));
    copy_short(t, src + 16 * blocks, r);
    vst1q_u8(t, veorq_u8(vld1q_u8(t), encrypt1(&ks, rounds, ctr_next1(kind, &c))));
    copy_short(dst + 16 * blocks, t, r);
    wipe16(t);
  }
}

/*
 * POLYVAL (RFC 8452 §3) with PMULL/PMULL2 (FEAT_PMULL: 64 x 64 -> 128-bit carry-less products).
 *
 * A field element is the 16 bytes read as a little-endian 128-bit integer, which vld1q gives as two
 * 64-bit lanes {a0, a1} (low, high) on a little-endian core; bit i is the coefficient of x^i. The field
 * is GF(2)[x] / g, g = x^128 + x^127 + x^126 + x^121 + 1, and POLYVAL's product is dot(a, b) = a·b·x^-128.
 *
 * Aggregated reduction (Gueron's, for GCM and GCM-SIV): dot is linear, so eight sequential updates
 * acc = dot(acc ^ X, H) are one sum of eight products and one reduction:
 *   acc' = dot(acc ^ X1, H^8) ^ dot(X2, H^7) ^ ... ^ dot(X8, H^1),
 * where H^k is the k-th power under dot (H^1 = H, H^(k+1) = dot(H^k, H)), precomputed in the table.
 *
 * Products: a·b = a1b1·x^128 + m·x^64 + a0b0, with the middle term m = a0b1 + a1b0. For X2..X8, which do
 * not depend on the accumulator, Karatsuba: m = (a0 + a1)(b0 + b1) + a0b0 + a1b1, three PMULLs, with
 * (b0 + b1) of each power precomputed in the table and (a0 + a1) of a block from a ^ swap(a); the sums of
 * the three kinds of product are kept apart and m formed once per group. The accumulator's block, which is
 * on the loop-carried path, takes four PMULLs instead (m = a0b1 + a1b0 directly, against swap(H^8)), one
 * step shorter than Karatsuba's.
 *
 * Reduction (Montgomery, by x^-128) of the 256-bit sum, limbs D3 D2 D1 D0 = {hi1, hi0 + m1, lo1 + m0, lo0}:
 * g = x^128 + x^64·c + 1 with c = x^63 + x^62 + x^57 (0xc200000000000000 as a 64-bit polynomial). Adding
 * D0·g, which changes nothing modulo g, adds D0 at x^0 (clearing it), D0·c at x^64 (into D1, D2) and D0 at
 * x^128 (into D2); then the new D1 is cleared the same way one limb higher, and what is left, a multiple
 * of x^128, divided by x^128, is the new D3 D2:
 *   t = D0·c;  D1' = D1 + t0;  u = D1'·c;  result = {D2 + D0 + t1 + u0, D3 + D1' + u1}.
 * In vectors, with swap({p, q}) = {q, p}: z = lo ^ swap(t ^ m) has D1' in lane 1 and D0 + t1 + m1 in
 * lane 0, so u = PMULL2(z, c) and the result is hi ^ z ^ u: two PMULLs, one EXT, four EORs.
 *
 * The table (AES_NATIVE_POLYVAL_TABLE_BYTES, of which 192 are used): H^k at 16(k - 1) for k = 1..8, then at
 * 128 + 8(k - 1) the Karatsuba half h0 ^ h1 of H^k, so that the halves of H^(2q+1) and H^(2q+2) form one
 * vector, whose lanes PMULL and PMULL2 take (a data block's a0 ^ a1 is in both of its lanes).
 *
 * Timing: PMULL, EOR and EXT take the same time whatever their operands; the only branches are on the
 * block count and `reversed`, and the table is read at offsets that depend on the block count only.
 */
#define POLYVAL_POWERS 8
#define POLYVAL_KARATSUBA (16 * POLYVAL_POWERS)
#define POLYVAL_TABLE_USED (16 * POLYVAL_POWERS + 8 * POLYVAL_POWERS)
_Static_assert(POLYVAL_TABLE_USED <= AES_NATIVE_POLYVAL_TABLE_BYTES, "the POLYVAL table does not fit");

/* Makes v opaque to the optimiser (an empty asm that "changes" it): no instruction, no reassociation across it. */
#define OPAQUE(v) __asm__("" : "+w"(v))

/* g's terms between x^64 and x^128, shifted down by 64: x^63 + x^62 + x^57. */
#define POLYVAL_C 0xc200000000000000u

/* A sum of unreduced products: lo = Σ a0·b0, hi = Σ a1·b1, mid = Σ (a0 + a1)(b0 + b1) (Karatsuba's). */
typedef struct {
  uint64x2_t lo, hi, mid;
} wide_t;

/*
 * PMULL of the low lanes. The intrinsic vmull_p64 takes two 64-bit scalars, and GCC 12, given the low lanes
 * of vectors, keeps them as separate 64-bit values and spills the hash-key powers' halves to the stack (where
 * they would stay after the call); the instruction itself reads the low lanes of the vector registers.
 */
ALWAYS_INLINE uint64x2_t clmul_lo(uint64x2_t a, uint64x2_t b) {
  uint64x2_t r;
  __asm__("pmull %0.1q, %1.1d, %2.1d" : "=w"(r) : "w"(a), "w"(b));
  return r;
}

ALWAYS_INLINE uint64x2_t clmul_hi(uint64x2_t a, uint64x2_t b) {
  return vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)));
}

ALWAYS_INLINE uint64x2_t swap64(uint64x2_t a) { return vextq_u64(a, a, 1); }

/*
 * w += a·h, Karatsuba: `ak` has a0 ^ a1 in both lanes, and `hk` has h0 ^ h1 in lane `lane` (a constant),
 * so the middle product is PMULL (lane 0) or PMULL2 (lane 1).
 */
ALWAYS_INLINE void mul_acc(wide_t *w, uint64x2_t a, uint64x2_t ak, uint64x2_t h, uint64x2_t hk, const int lane) {
  w->lo = veorq_u64(w->lo, clmul_lo(a, h));
  w->hi = veorq_u64(w->hi, clmul_hi(a, h));
  w->mid = veorq_u64(w->mid, lane ? clmul_hi(ak, hk) : clmul_lo(ak, hk));
}

/*
 * dot(a, h) ^ (the products summed in w), reduced once: a·h by four PMULLs (the accumulator's block, last,
 * so that it has the shortest path to the result), w's middle term from Karatsuba's, then the reduction.
 */
ALWAYS_INLINE uint64x2_t polyval_finish(wide_t w, uint64x2_t a, uint64x2_t h) {
  const uint64x2_t c = vdupq_n_u64(POLYVAL_C);
  const uint64x2_t hs = swap64(h);
  uint64x2_t m0 = veorq_u64(w.mid, veorq_u64(w.lo, w.hi));
  uint64x2_t lo = w.lo, hi = w.hi;
  /*
   * Barriers against reassociation: GCC 12 otherwise regroups the XORs below into one chain that puts
   * the reduction's product t first and the accumulator's products last, 26 cycles per group instead of
   * 18 on the Neoverse V1 model of llvm-mca. They emit nothing.
   */
  OPAQUE(m0);
  OPAQUE(lo);
  OPAQUE(hi);
  lo = veorq_u64(lo, clmul_lo(a, h));
  hi = veorq_u64(hi, clmul_hi(a, h));
  uint64x2_t m = veorq_u64(m0, veorq_u64(clmul_lo(a, hs), clmul_hi(a, hs)));
  OPAQUE(lo);
  OPAQUE(hi);
  OPAQUE(m);
  const uint64x2_t t = clmul_lo(lo, c);
  const uint64x2_t z = veorq_u64(lo, swap64(veorq_u64(t, m)));
  uint64x2_t hz = veorq_u64(hi, z);
  OPAQUE(hz);
  return veorq_u64(hz, clmul_hi(z, c));
}

/* dot(a, b) = a·b·x^-128 (RFC 8452 §3), for the table's powers. */
ALWAYS_INLINE uint64x2_t polyval_dot(uint64x2_t a, uint64x2_t b) {
  const wide_t w = {vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0)};
  return polyval_finish(w, a, b);
}

/*
 * Data block X as a field element, byte-reversed first when `reversed` (GHASH's byte order, RFC 8452
 * Appendix A): REV64 (each half reversed), then EXT by 8 (halves swapped).
 */
ALWAYS_INLINE uint64x2_t polyval_load(const int reversed, const uint8_t *p) {
  const uint8x16_t x = vld1q_u8(p);
  if (reversed) {
    const uint64x2_t r = vreinterpretq_u64_u8(vrev64q_u8(x));
    return swap64(r);
  }
  return vreinterpretq_u64_u8(x);
}

/*
 * A block for Karatsuba: the element a, and in *k a vector with a0 ^ a1 in both lanes. When reversed, the
 * REV64 result is already swap(a), so that path costs one instruction more than the plain one.
 */
ALWAYS_INLINE uint64x2_t polyval_block(const int reversed, const uint8_t *p, uint64x2_t *k) {
  const uint8x16_t x = vld1q_u8(p);
  if (reversed) {
    const uint64x2_t r = vreinterpretq_u64_u8(vrev64q_u8(x));
    const uint64x2_t a = swap64(r);
    *k = veorq_u64(a, r);
    return a;
  }
  const uint64x2_t a = vreinterpretq_u64_u8(x);
  *k = veorq_u64(a, swap64(a));
  return a;
}

ALWAYS_INLINE void polyval_blocks(const int reversed, const uint8_t *table, uint8_t *accp, const uint8_t *data,
                                  size_t blocks) {
  uint64x2_t h[POLYVAL_POWERS], hk[POLYVAL_POWERS / 2];
  UNROLL for (int k = 0; k < POLYVAL_POWERS; k++) h[k] = vreinterpretq_u64_u8(vld1q_u8(table + 16 * k));
  UNROLL for (int q = 0; q < POLYVAL_POWERS / 2; q++) {
    hk[q] = vreinterpretq_u64_u8(vld1q_u8(table + POLYVAL_KARATSUBA + 16 * q));
  }
  uint64x2_t acc = vreinterpretq_u64_u8(vld1q_u8(accp));
  size_t i = 0;
  for (; i + POLYVAL_POWERS <= blocks; i += POLYVAL_POWERS) {
    const uint8_t *p = data + 16 * i;
    wide_t w = {vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0)};
    UNROLL for (int j = 1; j < POLYVAL_POWERS; j++) {
      const int e = POLYVAL_POWERS - 1 - j; /* block j takes H^(e + 1) */
      uint64x2_t k;
      const uint64x2_t a = polyval_block(reversed, p + 16 * j, &k);
      mul_acc(&w, a, k, h[e], hk[e / 2], e % 2);
    }
    acc = polyval_finish(w, veorq_u64(polyval_load(reversed, p), acc), h[POLYVAL_POWERS - 1]);
  }
  if (i < blocks) {
    /* n = 1..7 blocks left: the same with H^n .. H^1 (n is public; the table offsets depend only on it). */
    const size_t n = blocks - i;
    const uint8_t *p = data + 16 * i;
    wide_t w = {vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0)};
    for (size_t j = 1; j < n; j++) {
      uint64x2_t k;
      const uint64x2_t a = polyval_block(reversed, p + 16 * j, &k);
      const size_t e = n - 1 - j;
      mul_acc(&w, a, k, vreinterpretq_u64_u8(vld1q_u8(table + 16 * e)),
              vld1q_dup_u64((const uint64_t *)(const void *)(table + POLYVAL_KARATSUBA + 8 * e)), 0);
    }
    acc = polyval_finish(w, veorq_u64(polyval_load(reversed, p), acc),
                         vreinterpretq_u64_u8(vld1q_u8(table + 16 * (n - 1))));
  }
  vst1q_u8(accp, vreinterpretq_u8_u64(acc));
}

/* Two out-of-line copies, so that neither loop tests `reversed` (and an llvm-mca run can find each). */
__attribute__((noinline)) void aes_arm64_polyval_plain(const uint8_t *table, uint8_t *acc, const uint8_t *data,
                                                       size_t blocks) {
  polyval_blocks(0, table, acc, data, blocks);
}

__attribute__((noinline)) void aes_arm64_polyval_reversed(const uint8_t *table, uint8_t *acc, const uint8_t *data,
                                                          size_t blocks) {
  polyval_blocks(1, table, acc, data, blocks);
}

void aes_arm64_polyval_init(uint8_t *table, const uint8_t *h) {
  const uint64x2_t h1 = vreinterpretq_u64_u8(vld1q_u8(h));
  uint64x2_t p = h1;
  UNROLL for (int k = 0; k < POLYVAL_POWERS; k++) {
    vst1q_u8(table + 16 * k, vreinterpretq_u8_u64(p));
    vst1_u64((uint64_t *)(void *)(table + POLYVAL_KARATSUBA + 8 * k), vget_low_u64(veorq_u64(p, swap64(p))));
    if (k + 1 < POLYVAL_POWERS) p = polyval_dot(p, h1);
  }
}

void aes_arm64_polyval_update(const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t blocks, int reversed) {
  if (reversed) {
    aes_arm64_polyval_reversed(table, acc, data, blocks);
  } else {
    aes_arm64_polyval_plain(table, acc, data, blocks);
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
  } \
  __attribute__((noinline)) void aes_arm64_ctr_be128_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,  \
                                                           size_t len, const uint8_t *iv) {                \
    ctr_xor(NR, CTR_BE128, k, d, s, len, iv);                                                              \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_ctr_be32_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,   \
                                                          size_t len, const uint8_t *iv) {                 \
    ctr_xor(NR, CTR_BE32, k, d, s, len, iv);                                                               \
  }                                                                                                        \
  __attribute__((noinline)) void aes_arm64_ctr_xctr_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s,   \
                                                          size_t len, const uint8_t *iv) {                 \
    ctr_xor(NR, CTR_XCTR, k, d, s, len, iv);                                                               \
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

void aes_arm64_ctr(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *iv,
                   int counter) {
  switch (counter) {
    case CTR_BE128: DISPATCH(aes_arm64_ctr_be128, rk, dst, src, len, iv) break;
    case CTR_BE32: DISPATCH(aes_arm64_ctr_be32, rk, dst, src, len, iv) break;
    case CTR_XCTR: DISPATCH(aes_arm64_ctr_xctr, rk, dst, src, len, iv) break;
    default: break;
  }
}

/*
 * Whether the CPU implements AESE/AESD/AESMC/AESIMC (FEAT_AES) and PMULL/PMULL2 (FEAT_PMULL), which this
 * one path uses; asks the OS, runs none of them. The architecture lets a core have FEAT_AES without
 * FEAT_PMULL (ID_AA64ISAR0_EL1.AES = 0b0001), but Arm's cores with the Cryptographic Extension have both.
 */
static int armv8_ce_available(void) {
#if defined(__linux__)
  const unsigned long need = HWCAP_AES | HWCAP_PMULL;
  return (getauxval(AT_HWCAP) & need) == need;
#elif defined(__APPLE__)
  return 1; /* every Apple arm64 core has FEAT_AES and FEAT_PMULL */
#else
  return 0; /* unknown platform: never run the kernels */
#endif
}

#include "hbsh_arm64.h"
#include "elephant_arm64.h"

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
    aes_arm64_ctr,
    aes_arm64_polyval_init,
    aes_arm64_polyval_update,
    &arm64_hbsh_neon, /* Adiantum/HPolyC: NEON ChaCha and NH (hbsh_arm64.h) */
    &arm64_elephant_neon, /* BitLocker's Elephant diffusers: NEON, four sectors per group (elephant_arm64.h) */
    NULL,                 /* no ctr_polyval: ctr, then polyval_update */
};

const aes_native_path *const aes_native_paths[] = {&armv8_ce, NULL};

#else /* not __aarch64__: the binary builds, and has no path */

const aes_native_path *const aes_native_paths[] = {NULL};

#endif /* __aarch64__ */

const char aes_native_prefix[] = "@x/aes-native-arm64: ";
