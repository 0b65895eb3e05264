/*
 * The contract between the Node-API glue of @x's native AES kernels (addon.c, in this package) and the
 * kernels themselves (aes_arm64.c in @x/aes-native-arm64, aes_x64.c in @x/aes-native-x64).
 *
 * A kernel is one or more code paths (ARMv8 Crypto Extensions; AES-NI on xmm; VAES on ymm), each a table
 * of the operations below. The glue is compiled together with one kernel's sources, which define
 * `aes_native_paths` (best first, NULL-terminated) and `aes_native_prefix`.
 *
 * Round keys are the bytes of @x/aes-keyschedule: `rk` is the expanded key of FIPS 197 §5.2, round key r
 * at bytes 16r .. 16r+15; `dk` is the schedule of the equivalent inverse cipher of FIPS 197 §5.3.5 in the
 * order it is applied. Both hold rounds + 1 round keys; rounds is 10, 12 or 14. The glue passes keys
 * 16-byte aligned.
 *
 * Lengths are in 16-byte blocks. `dst` and `src` are either the same bytes or do not overlap at all; every
 * operation reads the blocks it needs before it writes over them, so "in place" is safe. Nothing is
 * allocated; nothing is kept between calls.
 */
#ifndef X_AES_NATIVE_H
#define X_AES_NATIVE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Largest schedule: 15 round keys of 16 bytes (AES-256, FIPS 197 §5 Figure 4). */
#define AES_NATIVE_MAX_SCHEDULE_BYTES (16 * 15)

typedef struct aes_native_path {
  /* The path's name, as users force it: "armv8-ce", "aesni", "vaes". */
  const char *name;
  /* Whether this CPU and OS can run the path; never executes one of its instructions to find out. */
  int (*available)(void);
  /* Each block on its own: the cipher (FIPS 197 §5.1) with `rk`, the equivalent inverse cipher with `dk`. */
  void (*encrypt_blocks)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks);
  void (*decrypt_blocks)(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks);
  /* CBC encryption of one chain (NIST SP 800-38A §6.2): serial, from the 16-byte `iv`. */
  void (*cbc_encrypt)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks,
                      const uint8_t *iv);
  /* CBC decryption of `sectors` chains of `sector_blocks` blocks, chain s from IV `ivs + 16s`. */
  void (*cbc_decrypt_sectors)(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t sectors,
                              size_t sector_blocks, const uint8_t *ivs);
  /* CBC encryption of `sectors` chains of `sector_blocks` blocks, chain s from IV `ivs + 16s`. */
  void (*cbc_encrypt_sectors)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t sectors,
                              size_t sector_blocks, const uint8_t *ivs);
  /*
   * XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks: `units` data units of `unit_blocks` blocks, unit u
   * from the encrypted tweak T = E_K2(i) at `tweaks + 16u`; block j of a unit uses T·α^j. Encryption takes
   * `rk`, decryption `dk`.
   */
  void (*xts_encrypt)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                      size_t unit_blocks, const uint8_t *tweaks);
  void (*xts_decrypt)(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                      size_t unit_blocks, const uint8_t *tweaks);
  /*
   * A CTR keystream XORed into dst for `len` bytes (any length: the last block partial), counter blocks
   * from the 16-byte `iv` by `counter`: AES_NATIVE_CTR_BE128 (iv + j mod 2^128, big-endian: SP 800-38A),
   * AES_NATIVE_CTR_BE32 (last 4 bytes + j mod 2^32, big-endian: GCM's inc32), AES_NATIVE_CTR_XCTR
   * (iv ^ le128(j + 1): HCTR2's XCTR). `len` is in bytes, not blocks. NULL where the path has none.
   */
  void (*ctr)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *iv,
              int counter);
  /*
   * POLYVAL (RFC 8452 §3): polyval_init fills `table` (AES_NATIVE_POLYVAL_TABLE_BYTES, 16-byte aligned)
   * from the 16-byte hash key `h` (its powers, in whatever layout polyval_update wants); polyval_update
   * does acc = (acc ^ X) · H · x^-128 for each of `blocks` blocks X of `data`, each byte-reversed first
   * when `reversed` (GHASH, RFC 8452 Appendix A). Constant time. NULL where the path has none.
   */
  void (*polyval_init)(uint8_t *table, const uint8_t *h);
  void (*polyval_update)(const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t blocks, int reversed);
  /*
   * The SIMD primitives of Adiantum and HPolyC (hbsh.h) on this path: NULL where the path has none, and
   * then the glue's portable C runs them.
   */
  const struct aes_native_hbsh *hbsh;
  /*
   * The SIMD diffuser of BitLocker's AES-CBC + Elephant (elephant.h) on this path: NULL where the path has
   * none, and then the glue's portable C runs it.
   */
  const struct aes_native_elephant *elephant;
  /*
   * Optional (NULL: ctr, then polyval_update): ctr with `counter` AES_NATIVE_CTR_XCTR or
   * AES_NATIVE_CTR_BE32 (other values do nothing), and POLYVAL (this path's `table`, each block
   * byte-reversed first when `reversed`) of the output's whole blocks (len / 16 of them; a partial last
   * block is the caller's) continued into acc, in one pass: each group hashed as it is written (HCTR2's
   * XCTR and second hash; GCM's seal, its keystream and GHASH of the ciphertext).
   */
  void (*ctr_polyval)(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *iv,
                      int counter, const uint8_t *table, uint8_t *acc, int reversed);
} aes_native_path;

/*
 * The two primitives of Adiantum/HPolyC (Crowley and Biggers, ToSC 2018(4)) worth SIMD code; the rest of
 * the construction (HChaCha, Poly1305, the HBSH passes) is the glue's (hbsh.h). Constant time: lengths
 * decide what runs, never keys or data.
 */
typedef struct aes_native_hbsh {
  /* What `Hbsh.core` reports: "avx2", "neon". */
  const char *name;
  /* Whether this CPU and OS can run it; never executes one of its instructions to find out. */
  int (*available)(void);
  /*
   * XORs `len` bytes (any length) of the ChaCha keystream (RFC 8439 §2.3, `rounds` 8, 12 or 20) of the
   * input `state` (16 words; 12 and 13 the 64-bit block counter, whose low word does not wrap within the
   * call) from src into dst, the same bytes or not overlapping.
   */
  void (*chacha_xor)(const uint32_t state[16], int rounds, uint8_t *dst, const uint8_t *src, size_t len);
  /*
   * NH (Adiantum §6: 4 passes, stride 2) of `units` 16-byte units of msg (units ≤ 64), keyed from the
   * words `key` (unit u, pass i: key words 4u + 4i .. 4u + 4i + 3), added to the four sums.
   */
  void (*nh)(const uint32_t *key, const uint8_t *msg, size_t units, uint64_t sums[4]);
  /*
   * Optional (NULL, or poly_available() false: the glue's C): Poly1305's polynomial (RFC 8439 §2.5, no
   * final `+ s`) over `blocks` whole 16-byte blocks of m (each + 2^128), blocks a positive multiple of 8,
   * into h (radix 2^64: h0 + 2^64·h1 + 2^128·h2, h2 a few bits, on entry and exit). pows[k] is r^(k+1)
   * mod 2^130 − 5 (k = 0 .. 7, r clamped) as limbs of 44, 44 and 42 bits (the last two may carry a little
   * more).
   */
  int (*poly_available)(void);
  void (*poly_blocks)(uint64_t h[3], const uint64_t pows[8][3], const uint8_t *m, size_t blocks);
} aes_native_hbsh;

/*
 * The Elephant diffusers of BitLocker (Ferguson 2006; @x/dm-crypt's elephant.ts writes the steps out) on
 * eight sectors side by side, one per 32-bit lane; the rest (sector keys, CBC, sectors left over) is the
 * glue's (elephant.h). Constant time: every step is an add, subtract, xor or rotation by a public amount at
 * public indices.
 */
typedef struct aes_native_elephant {
  /* What `elephantCore` reports: "avx2". */
  const char *name;
  /* Whether this CPU and OS can run it; never executes one of its instructions to find out. */
  int (*available)(void);
  /*
   * Eight consecutive sectors of `words` little-endian 32-bit words each (words a power of two, 128 to
   * 1024) at `data`, in place: decryption (`decrypt` 1) runs diffuser B⁻¹, diffuser A⁻¹, then XORs sector
   * s with its 32-byte key at `keys + 32s` (repeated over the sector); encryption does the inverse, in the
   * inverse order. `scratch` holds 8 × words words, 32-byte aligned; the caller wipes it.
   */
  void (*diffuse8)(uint8_t *data, size_t words, const uint8_t *keys, int decrypt, uint32_t *scratch);
} aes_native_elephant;

#define AES_NATIVE_CTR_BE128 0
#define AES_NATIVE_CTR_BE32 1
#define AES_NATIVE_CTR_XCTR 2

/* Bytes of a POLYVAL key table: enough for H^1 .. H^32 and their Karatsuba halves on every path. */
#define AES_NATIVE_POLYVAL_TABLE_BYTES 1024

/*
 * Overwrites n bytes that held keys, keystream or data: memset, then an empty asm statement that takes the
 * pointer and clobbers memory, so that the compiler must assume the zeros are read and cannot drop the
 * stores as dead. Word-wide (a byte loop of volatile stores cost about 0.3 µs a call in the HBSH core).
 */
static inline void aes_native_wipe(void *p, size_t n) {
  memset(p, 0, n);
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* Defined by the kernel: its paths, best first, ending with NULL (empty where the architecture has none). */
extern const aes_native_path *const aes_native_paths[];
/* Defined by the kernel: the prefix of every message, e.g. "@x/aes-native-x64: ". */
extern const char aes_native_prefix[];

#endif
