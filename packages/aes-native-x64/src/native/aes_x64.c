/*
 * AES kernels for x86-64: two code paths in one object, chosen at run time (aes_native.h is the contract).
 *
 *   "avx512" VAES + AVX-512 (F, VL, BW) on zmm registers: one VAESENC works on four blocks; 32 blocks in
 *            flight (8 zmm) for ECB, CBC decryption, XTS and CTR, whose tails (fewer than 32 blocks) and
 *            the CBC encryptions are the vaes path's. POLYVAL with VPCLMULQDQ on zmm.
 *   "vaes"   VAES + AVX2 on ymm registers: one VAESENC works on two blocks (one per 128-bit lane);
 *            16 blocks in flight (8 ymm); round keys broadcast to both lanes (VBROADCASTI128). POLYVAL
 *            with VPCLMULQDQ on ymm.
 *   "aesni"  AES-NI on xmm registers: 8 blocks in flight. POLYVAL with PCLMULQDQ.
 * Each path's functions carry their own target attribute, so the file compiles with plain -O3 (no -m
 * flags) and the caller picks the first path whose available() says yes. That is decided by CPUID and
 * XGETBV only, never by executing an instruction of the path.
 *
 * The instructions and the FIPS 197 steps they perform:
 *   AESENC      ShiftRows, SubBytes, MixColumns, AddRoundKey           (§5.1.1 - §5.1.4)
 *   AESENCLAST  ShiftRows, SubBytes, AddRoundKey (the final round)
 *   AESDEC      InvShiftRows, InvSubBytes, InvMixColumns, AddRoundKey  (§5.3.1 - §5.3.3, in the order of
 *               the equivalent inverse cipher, §5.3.5)
 *   AESDECLAST  InvShiftRows, InvSubBytes, AddRoundKey
 * so the cipher of Nr rounds is an XOR with round key 0, Nr-1 AESENC with keys 1 .. Nr-1 and an AESENCLAST
 * with key Nr; decryption is the same with AESDEC/AESDECLAST over the equivalent inverse cipher's keys.
 *
 * Key schedule: none is computed here. `rk` is the expanded key of FIPS 197 §5.2 and `dk` the schedule of
 * §5.3.5 in the order applied (InvMixColumns already applied to keys 1 .. Nr-1), both from
 * @x/aes-keyschedule; round key r is the 16 bytes at 16r, in exactly the byte order AESENC/AESDEC take
 * (a plain 128-bit load). Every kernel is instantiated for Nr = 10, 12 and 14, so the round loops unroll.
 * x86-64 has 16 vector registers, too few for 8 blocks and 11-15 keys: a kernel either loads the keys
 * once per call and lets the compiler keep what fits (HOLD), or re-reads each key from the schedule at
 * each group of blocks (REREAD), whichever measured faster (see xkeys).
 *
 * Interleaving: one AES instruction has a latency of several cycles and the cores issue two per cycle,
 * so independent blocks are interleaved round by round, 8 registers of them. Tails run with fewer
 * (4, 2, 1 registers, and one xmm block in the vaes path):
 *   ECB, CBC decryption and XTS: consecutive blocks of a buffer, sector or data unit.
 *   CBC encryption of many sectors: one chain is serial, but block k of 8 (aesni) or 16 (vaes: two chains
 *     per ymm, one per lane) independent chains are encrypted together; the last chains 4/2/1 at a time.
 *   CBC encryption of one chain: serial, one block at a time; the XORs are folded into the round keys so
 *     that the loop-carried dependency is Nr AES instructions and nothing else.
 *
 * XTS tweaks (IEEE 1619 §5.2): a tweak is a 128-bit little-endian integer; as two 64-bit lanes {low, high}
 * it is a plain load. T·α (mul_alpha) and T·α^k for 1 <= k <= 57 (mul_alpha_k) are computed branch-free:
 * both halves shifted left, the bits leaving the low half carried into the high half, the bits leaving
 * the top folded back as their carry-less product with 0x87 (x^128 = x^7 + x^2 + x + 1). aesni: the 8
 * tweaks of a group are T·α^j by doublings, the next group starts from T·α^8. vaes: a register holds the
 * pair {T·α^2j, T·α^(2j+1)}, formed as {T, T·α}·α^2j (independent of each other), the next group starts
 * from {T, T·α}·α^16. In both, the tweaks of the next group are formed while the current group's rounds
 * run (software pipelining), across data units when units are whole groups.
 *
 * CTR (NIST SP 800-38A §6.5; GCM's inc32, SP 800-38D §6.2; HCTR2's XCTR): counter blocks formed in
 * registers from a byte-reversed counter (one add and one PSHUFB per block; on vaes, while an iteration's
 * counters differ in their last byte only, one add per register), 16 blocks per iteration on vaes, 8 on
 * aesni; see "CTR keystreams" below. POLYVAL (RFC 8452 §3) is polyval_x64.h's.
 *
 * Timing: the AES instructions are constant time; nothing here branches on or indexes by secret data
 * (the branches are on lengths, round counts and the public CTR counter).
 *
 * Adiantum/HPolyC: hbsh_x64.h (included below) gives the paths the ChaCha and NH of the native HBSH core of
 * @x/aes-native-addon (its hbsh.h): AVX-512 on the avx512 path, AVX2 on the others, used where CPUID and
 * XGETBV report them; elephant_x64.h gives
 * them BitLocker's Elephant diffusers on eight sectors at a time (the glue's elephant.h), with AVX2 too.
 *
 * breaks/ holds deliberately wrong versions of this file (and of hbsh_x64.h) as patches, which the tests
 * must catch.
 */
#include "aes_native.h"

#if defined(__x86_64__) || defined(_M_X64)

#include <cpuid.h>
#include <immintrin.h>

#include "polyval_x64.h"

#define AESNI_TARGET __attribute__((target("aes,sse4.1,pclmul")))
#define VAES_TARGET __attribute__((target("vaes,avx2,aes,sse4.1,pclmul")))
#define AESNI_INLINE static inline __attribute__((always_inline, target("aes,sse4.1,pclmul")))
#define VAES_INLINE static inline __attribute__((always_inline, target("vaes,avx2,aes,sse4.1,pclmul")))
#define AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,vaes,vpclmulqdq,avx2,aes,sse4.1,pclmul")))
#define AVX512_INLINE \
  static inline __attribute__((always_inline, target("avx512f,avx512vl,avx512bw,vaes,vpclmulqdq,avx2,aes,sse4.1,pclmul")))

#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

/* Blocks in flight: 8 xmm registers (aesni), 8 ymm registers of two blocks (vaes), 8 zmm of four (avx512). */
#define XLANES 8
#define YLANES 8
#define ZLANES 8

/* ---------------------------------------------------------------------------------------------------- */
/* Availability: CPUID and XGETBV                                                                       */
/* ---------------------------------------------------------------------------------------------------- */

/* CPUID.1:ECX bits (Intel SDM vol. 2A, CPUID; AMD APM vol. 3, E.3.2). */
#define CPUID1_ECX_PCLMULQDQ (1u << 1)
#define CPUID1_ECX_SSE41 (1u << 19)
#define CPUID1_ECX_AES (1u << 25)
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_AVX (1u << 28)
/* CPUID.(EAX=7,ECX=0) bits. */
#define CPUID7_EBX_AVX2 (1u << 5)
#define CPUID7_ECX_VAES (1u << 9)
#define CPUID7_ECX_VPCLMULQDQ (1u << 10)
#define CPUID7_EBX_AVX512F (1u << 16)
#define CPUID7_EBX_AVX512IFMA (1u << 21)
#define CPUID7_EBX_AVX512BW (1u << 30)
#define CPUID7_EBX_AVX512VL (1u << 31)
/* XCR0: the OS saves and restores the xmm (bit 1) and upper ymm (bit 2) state; with AVX-512 also the
 * opmask registers (bit 5), the upper halves of zmm0-15 (bit 6) and zmm16-31 (bit 7). */
#define XCR0_SSE_AVX 6u
#define XCR0_AVX512 0xE6u

static int cpu_has_aesni(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const unsigned need = CPUID1_ECX_AES | CPUID1_ECX_SSE41 | CPUID1_ECX_PCLMULQDQ;
  return (c & need) == need;
}

/* XGETBV with ECX = 0 (XCR0); only called once CPUID says OSXSAVE, so the instruction exists. */
static unsigned long long read_xcr0(void) {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

static int cpu_has_vaes(void) {
  unsigned a, b, c, d;
  if (!cpu_has_aesni()) return 0;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if ((c & (CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX)) != (CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX)) return 0;
  if ((read_xcr0() & XCR0_SSE_AVX) != XCR0_SSE_AVX) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & CPUID7_EBX_AVX2) && (c & CPUID7_ECX_VAES) && (c & CPUID7_ECX_VPCLMULQDQ);
}

/* AVX-512 F, VL and BW (byte shuffles and 128-bit-lane shifts on zmm) with AVX2, the zmm state saved by the
 * OS: what the AVX-512 Adiantum primitives need (hbsh_x64.h). */
static int cpu_has_avx512_fvlbw(void) {
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (!(c & CPUID1_ECX_OSXSAVE)) return 0;
  if ((read_xcr0() & XCR0_AVX512) != XCR0_AVX512) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  const unsigned need = CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512F | CPUID7_EBX_AVX512BW | CPUID7_EBX_AVX512VL;
  return (b & need) == need;
}

/* The avx512 path: VAES as above, and AVX-512 F, VL and BW. */
static int cpu_has_avx512(void) { return cpu_has_vaes() && cpu_has_avx512_fvlbw(); }

#include "hbsh_x64.h"
#include "elephant_x64.h"

/* ---------------------------------------------------------------------------------------------------- */
/* xmm building blocks (used by the aesni path, and by the vaes path for single blocks)                  */
/* ---------------------------------------------------------------------------------------------------- */

AESNI_INLINE __m128i xload(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
AESNI_INLINE void xstore(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }

/*
 * The rounds + 1 round keys of one call, in one of two ways (a constant per kernel, given where the kernel
 * loads them):
 *   HOLD    loaded once per call into k[]; the compiler keeps in registers what fits beside the blocks
 *           (16 xmm/ymm registers: 8 blocks and 11-15 keys do not all fit) and spills the rest to the
 *           stack, where copies of those round keys remain after the call.
 *   REREAD  read again from the schedule `p` at each use (per group of blocks: 11-15 loads per 8 or 16
 *           blocks, cheap next to the AES instructions), which leaves the registers to the blocks and
 *           tweaks and copies no key to the stack.
 * Measured on Zen 4: HOLD is faster for ECB, CBC decryption and the aesni CBC encryption of sectors (2-4%),
 * REREAD for XTS and the vaes CBC encryption of sectors (5-15%); the serial CBC encryption is latency
 * bound and the same either way, so it rereads.
 */
enum { HOLD = 0, REREAD = 1 };

typedef struct {
  const uint8_t *p;
  int reread;
  __m128i k[15];
} xkeys;

AESNI_INLINE void xkeys_load(xkeys *ks, const uint8_t *p, const int rounds, const int reread) {
  ks->p = p;
  ks->reread = reread;
  /* REREAD: k[] zeroed, never read (the compiler drops both), so that no path reads it uninitialized. */
  UNROLL for (int r = 0; r <= rounds; r++) ks->k[r] = reread ? _mm_setzero_si128() : xload(p + 16 * r);
}

AESNI_INLINE __m128i xkey(const xkeys *ks, const int r) { return ks->reread ? xload(ks->p + 16 * r) : ks->k[r]; }

/* One middle round and the final round, of the cipher (§5.1) or of the equivalent inverse cipher (§5.3.5). */
AESNI_INLINE __m128i xround(const int dec, __m128i s, __m128i k) {
  return dec ? _mm_aesdec_si128(s, k) : _mm_aesenc_si128(s, k);
}
AESNI_INLINE __m128i xlast(const int dec, __m128i s, __m128i k) {
  return dec ? _mm_aesdeclast_si128(s, k) : _mm_aesenclast_si128(s, k);
}

/* Rounds 1 .. Nr-1 on w blocks, round by round, so that the w chains overlap in the pipeline. */
AESNI_INLINE void xmiddle(const xkeys *ks, const int rounds, const int dec, __m128i *s, const int w) {
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < w; j++) s[j] = xround(dec, s[j], xkey(ks, r));
  }
}

/* The whole cipher (or inverse cipher) on w blocks. */
AESNI_INLINE void xcrypt(const xkeys *ks, const int rounds, const int dec, __m128i *s, const int w) {
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm_xor_si128(s[j], xkey(ks, 0));
  xmiddle(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = xlast(dec, s[j], xkey(ks, rounds));
}

/*
 * CBC encryption of one chain (NIST SP 800-38A §6.2), C[i] = E(P[i] ^ C[i-1]), serial by definition.
 * With a[i] = P[i] ^ K[0] (off the chain), the state entering round 1 is C[i-1] ^ a[i]; the final round of
 * block i takes K[Nr] ^ a[i+1] as its key, so that it yields C[i] ^ a[i+1], the next block's state, and
 * C[i] is that XOR a[i+1] (also off the chain). The loop-carried path is Nr AES instructions. P[i+1] is
 * loaded before C[i] is stored, so dst == src is safe.
 */
AESNI_INLINE void xcbc_encrypt_chain(const xkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, size_t n,
                                     const __m128i iv) {
  if (n == 0) return;
  __m128i s = _mm_xor_si128(_mm_xor_si128(xload(src), xkey(ks, 0)), iv);
  for (size_t i = 0; i + 1 < n; i++) {
    UNROLL for (int r = 1; r < rounds; r++) s = _mm_aesenc_si128(s, xkey(ks, r));
    const __m128i a = _mm_xor_si128(xload(src + 16 * (i + 1)), xkey(ks, 0));
    s = _mm_aesenclast_si128(s, _mm_xor_si128(xkey(ks, rounds), a));
    xstore(dst + 16 * i, _mm_xor_si128(s, a));
  }
  UNROLL for (int r = 1; r < rounds; r++) s = _mm_aesenc_si128(s, xkey(ks, r));
  xstore(dst + 16 * (n - 1), _mm_aesenclast_si128(s, xkey(ks, rounds)));
}

/*
 * The pointer p, but opaque to the compiler and only once `after` is computed. Loads through it are then
 * neither merged with earlier loads of the same bytes (which would keep 8 ciphertexts live across the
 * rounds, beside the blocks and keys, and spill them) nor hoisted above the rounds.
 */
AESNI_INLINE const uint8_t *opaque_after(const uint8_t *p, __m128i after) {
  __asm__("" : "+r"(p) : "x"(after));
  return p;
}

/* ECB: w consecutive blocks, all loaded before any is stored. */
AESNI_INLINE void xecb_group(const xkeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                             const int w) {
  __m128i s[XLANES];
  UNROLL for (int j = 0; j < w; j++) s[j] = xload(src + 16 * j);
  xcrypt(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) xstore(dst + 16 * j, s[j]);
}

/*
 * CBC decryption (SP 800-38A §6.2) of w consecutive blocks of a chain, P[i] = D(C[i]) ^ C[i-1]: every C is
 * known, so the w blocks are decrypted together. The XOR with C[i-1] is folded into the final round's key
 * (AESDECLAST(s, K[Nr] ^ C[i-1])). C[i-1] comes from `iv` for the first block and is read again from src
 * for the others a few rounds before the end (CBC_RELOAD_ROUNDS, through opaque_after: not kept in
 * registers across all the rounds, and in time for the last one; 3 measured best on Zen 4 for AES-128 and
 * AES-256). Those reads and the group's last C (the next chaining value) all come before the group's
 * stores, so dst == src is safe.
 */
#define CBC_RELOAD_ROUNDS 3
AESNI_INLINE void xcbc_dec_group(const xkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m128i *iv,
                                 const int w) {
  __m128i s[XLANES], ck[XLANES];
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm_xor_si128(xload(src + 16 * j), xkey(ks, 0));
  UNROLL for (int r = 1; r < rounds - CBC_RELOAD_ROUNDS; r++) {
    UNROLL for (int j = 0; j < w; j++) s[j] = _mm_aesdec_si128(s[j], xkey(ks, r));
  }
  const uint8_t *c = opaque_after(src, s[w - 1]);
  ck[0] = _mm_xor_si128(xkey(ks, rounds), *iv);
  UNROLL for (int j = 1; j < w; j++) ck[j] = _mm_xor_si128(xkey(ks, rounds), xload(c + 16 * (j - 1)));
  *iv = xload(c + 16 * (w - 1));
  UNROLL for (int r = rounds - CBC_RELOAD_ROUNDS; r < rounds; r++) {
    UNROLL for (int j = 0; j < w; j++) s[j] = _mm_aesdec_si128(s[j], xkey(ks, r));
  }
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm_aesdeclast_si128(s[j], ck[j]);
  UNROLL for (int j = 0; j < w; j++) xstore(dst + 16 * j, s[j]);
}

/*
 * CBC encryption of w independent chains side by side, chain j at dst/src + j*stride from IV ivs + 16j:
 * step k encrypts block k of every chain, the w AES chains interleaved round by round.
 */
AESNI_INLINE void xcbc_enc_chains(const xkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src,
                                  size_t stride, size_t n, const uint8_t *ivs, const int w) {
  __m128i c[XLANES];
  UNROLL for (int j = 0; j < w; j++) c[j] = xload(ivs + 16 * j);
  for (size_t k = 0; k < n; k++) {
    UNROLL for (int j = 0; j < w; j++) {
      c[j] = _mm_xor_si128(c[j], _mm_xor_si128(xload(src + j * stride + 16 * k), xkey(ks, 0)));
    }
    xmiddle(ks, rounds, 0, c, w);
    UNROLL for (int j = 0; j < w; j++) {
      c[j] = _mm_aesenclast_si128(c[j], xkey(ks, rounds));
      xstore(dst + j * stride + 16 * k, c[j]);
    }
  }
}

/* T·α (IEEE 1619 §5.2): shift left by one bit; bit 127 folds back as 0x87, bit 63 carries into bit 64. */
AESNI_INLINE __m128i xmul_alpha(__m128i t) {
  __m128i m = _mm_srai_epi32(t, 31);                /* each dword's top bit as 0 / all ones */
  m = _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 1, 0, 3)); /* bit 127's mask to dword 0, bit 63's to dword 2 */
  m = _mm_and_si128(m, _mm_set_epi32(0, 1, 0, 0x87));
  return _mm_xor_si128(_mm_add_epi64(t, t), m); /* t + t: each 64-bit half shifted left by one */
}

/*
 * T·α^k for 1 <= k <= 57 in one step: c = the k bits leaving each 64-bit half; the low half's go into the
 * bottom of the high half, the high half's fold back into the low half as c·0x87 (carry-less:
 * c ^ c<<1 ^ c<<2 ^ c<<7, at most k + 7 bits). alignr picks {fold of the high half's c, low half's c}.
 */
AESNI_INLINE __m128i xmul_alpha_k(__m128i t, const int k) {
  const __m128i c = _mm_srli_epi64(t, 64 - k);
  const __m128i fold =
      _mm_xor_si128(_mm_xor_si128(c, _mm_slli_epi64(c, 1)), _mm_xor_si128(_mm_slli_epi64(c, 2), _mm_slli_epi64(c, 7)));
  return _mm_xor_si128(_mm_slli_epi64(t, k), _mm_alignr_epi8(c, fold, 8));
}

/*
 * XTS (IEEE 1619 §5.3.1 / §5.4.1) of w consecutive blocks of a data unit from tweak *t (block j uses
 * T·α^j): C = E(P ^ T) ^ T, with the tweak folded into the first and last round keys (K[0] ^ T,
 * K[Nr] ^ T). *t advances to T·α^w. All w blocks are loaded before any is stored.
 */
AESNI_INLINE void xxts_group(const xkeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                             __m128i *t, const int w) {
  __m128i tw[XLANES], s[XLANES];
  tw[0] = *t;
  UNROLL for (int j = 1; j < w; j++) tw[j] = xmul_alpha(tw[j - 1]);
  *t = w == 1 ? xmul_alpha(*t) : xmul_alpha_k(*t, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm_xor_si128(xload(src + 16 * j), _mm_xor_si128(tw[j], xkey(ks, 0)));
  xmiddle(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = xlast(dec, s[j], _mm_xor_si128(xkey(ks, rounds), tw[j]));
  UNROLL for (int j = 0; j < w; j++) xstore(dst + 16 * j, s[j]);
}

/*
 * XTS of 8 consecutive blocks of a data unit, whose tweaks tw[j] = T·α^j are ready; between the rounds,
 * the next group's tweaks are formed from its first, `next`, by doublings (one per round) and left in tw.
 * The same software pipelining as in yxts_group16.
 */
AESNI_INLINE void xxts_group8(const xkeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                              __m128i *tw, const __m128i next) {
  __m128i s[XLANES], nt[XLANES];
  UNROLL for (int j = 0; j < XLANES; j++) s[j] = _mm_xor_si128(xload(src + 16 * j), _mm_xor_si128(tw[j], xkey(ks, 0)));
  nt[0] = next;
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < XLANES; j++) s[j] = xround(dec, s[j], xkey(ks, r));
    if (r < XLANES) nt[r] = xmul_alpha(nt[r - 1]); /* rounds >= 10 > XLANES */
  }
  UNROLL for (int j = 0; j < XLANES; j++) s[j] = xlast(dec, s[j], _mm_xor_si128(xkey(ks, rounds), tw[j]));
  UNROLL for (int j = 0; j < XLANES; j++) xstore(dst + 16 * j, s[j]);
  UNROLL for (int j = 0; j < XLANES; j++) tw[j] = nt[j];
}

/* ---------------------------------------------------------------------------------------------------- */
/* The aesni path                                                                                        */
/* ---------------------------------------------------------------------------------------------------- */

/* ECB both ways: 8 blocks at a time, then the tail of 4, 2, 1. */
AESNI_INLINE void aesni_ecb(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                            size_t n) {
  xkeys ks;
  xkeys_load(&ks, key, rounds, HOLD);
  size_t i = 0;
  for (; i + XLANES <= n; i += XLANES) xecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, XLANES);
  if (n - i >= 4) xecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 4), i += 4;
  if (n - i >= 2) xecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 2), i += 2;
  if (n - i >= 1) xecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 1);
}

AESNI_INLINE void aesni_cbc_enc(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t n,
                                const uint8_t *iv) {
  xkeys ks;
  xkeys_load(&ks, rk, rounds, REREAD);
  xcbc_encrypt_chain(&ks, rounds, dst, src, n, xload(iv));
}

/* CBC decryption of every sector: within a chain 8 blocks at a time, then the tail of 4, 2, 1. */
AESNI_INLINE void aesni_cbc_dec_sectors(const int rounds, const uint8_t *dk, uint8_t *dst, const uint8_t *src,
                                        size_t sectors, size_t n, const uint8_t *ivs) {
  xkeys ks;
  xkeys_load(&ks, dk, rounds, HOLD);
  for (size_t u = 0; u < sectors; u++, dst += 16 * n, src += 16 * n) {
    __m128i iv = xload(ivs + 16 * u);
    size_t i = 0;
    for (; i + XLANES <= n; i += XLANES) xcbc_dec_group(&ks, rounds, dst + 16 * i, src + 16 * i, &iv, XLANES);
    if (n - i >= 4) xcbc_dec_group(&ks, rounds, dst + 16 * i, src + 16 * i, &iv, 4), i += 4;
    if (n - i >= 2) xcbc_dec_group(&ks, rounds, dst + 16 * i, src + 16 * i, &iv, 2), i += 2;
    if (n - i >= 1) xcbc_dec_group(&ks, rounds, dst + 16 * i, src + 16 * i, &iv, 1);
  }
}

/* CBC encryption of every sector: 8 chains side by side, then the last 4, 2, 1 chains. */
AESNI_INLINE void aesni_cbc_enc_sectors(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                                        size_t sectors, size_t n, const uint8_t *ivs) {
  xkeys ks;
  xkeys_load(&ks, rk, rounds, HOLD);
  const size_t stride = 16 * n;
  size_t u = 0;
  for (; u + XLANES <= sectors; u += XLANES) {
    xcbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, XLANES);
  }
  if (sectors - u >= 4) {
    xcbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, 4);
    u += 4;
  }
  if (sectors - u >= 2) {
    xcbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, 2);
    u += 2;
  }
  if (sectors - u >= 1) xcbc_encrypt_chain(&ks, rounds, dst + u * stride, src + u * stride, n, xload(ivs + 16 * u));
}

/*
 * XTS of every data unit from its tweak: 8 blocks at a time (the next group's tweaks formed during the
 * group before, across units when they are whole groups; see vaes_xts), then the tail of 4, 2, 1.
 */
AESNI_INLINE void aesni_xts(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                            size_t units, size_t n, const uint8_t *tweaks) {
  xkeys ks;
  xkeys_load(&ks, key, rounds, REREAD);
  const int whole = n % XLANES == 0;
  __m128i tw[XLANES];
  int ready = 0; /* tw already holds unit u's first tweaks */
  for (size_t u = 0; u < units; u++, dst += 16 * n, src += 16 * n) {
    size_t i = 0;
    __m128i t = xload(tweaks + 16 * u);
    if (n >= XLANES) {
      if (!ready) {
        tw[0] = t;
        UNROLL for (int j = 1; j < XLANES; j++) tw[j] = xmul_alpha(tw[j - 1]);
      }
      ready = 0;
      for (; i + XLANES <= n; i += XLANES) {
        __m128i next = t; /* after the very last group: not used */
        if (i + 2 * XLANES <= n || !whole) {
          next = xmul_alpha_k(t, XLANES);
        } else if (u + 1 < units) {
          next = xload(tweaks + 16 * (u + 1));
          ready = 1;
        }
        xxts_group8(&ks, rounds, dec, dst + 16 * i, src + 16 * i, tw, next);
        t = next;
      }
    }
    if (n - i >= 4) xxts_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 4), i += 4;
    if (n - i >= 2) xxts_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 2), i += 2;
    if (n - i >= 1) xxts_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 1);
  }
}

/* ---------------------------------------------------------------------------------------------------- */
/* ymm building blocks (the vaes path): two blocks per register, block 2j in the low lane                */
/* ---------------------------------------------------------------------------------------------------- */

VAES_INLINE __m256i yload(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
VAES_INLINE void ystore(uint8_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
/* Two blocks from two places: `lo` into the low lane, `hi` into the high lane. */
VAES_INLINE __m256i yload2(const uint8_t *lo, const uint8_t *hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(xload(lo)), xload(hi), 1);
}
VAES_INLINE void ystore2(uint8_t *lo, uint8_t *hi, __m256i v) {
  xstore(lo, _mm256_castsi256_si128(v));
  xstore(hi, _mm256_extracti128_si256(v, 1));
}

/* The round keys of one call, each broadcast to both lanes (HOLD or REREAD, as xkeys). */
typedef struct {
  const uint8_t *p;
  int reread;
  __m256i k[15];
} ykeys;

VAES_INLINE void ykeys_load(ykeys *ks, const uint8_t *p, const int rounds, const int reread) {
  ks->p = p;
  ks->reread = reread;
  UNROLL for (int r = 0; r <= rounds; r++) {
    ks->k[r] = reread ? _mm256_setzero_si256() : _mm256_broadcastsi128_si256(xload(p + 16 * r));
  }
}

VAES_INLINE __m256i ykey(const ykeys *ks, const int r) {
  return ks->reread ? _mm256_broadcastsi128_si256(xload(ks->p + 16 * r)) : ks->k[r];
}

/* The same keys as xmm, for single blocks (the low lanes: no instruction). */
VAES_INLINE void ykeys_low(xkeys *x, const ykeys *ks, const int rounds) {
  x->p = ks->p;
  x->reread = ks->reread;
  UNROLL for (int r = 0; r <= rounds; r++) x->k[r] = _mm256_castsi256_si128(ks->k[r]);
}

VAES_INLINE __m256i yround(const int dec, __m256i s, __m256i k) {
  return dec ? _mm256_aesdec_epi128(s, k) : _mm256_aesenc_epi128(s, k);
}
VAES_INLINE __m256i ylast(const int dec, __m256i s, __m256i k) {
  return dec ? _mm256_aesdeclast_epi128(s, k) : _mm256_aesenclast_epi128(s, k);
}

VAES_INLINE void ymiddle(const ykeys *ks, const int rounds, const int dec, __m256i *s, const int w) {
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < w; j++) s[j] = yround(dec, s[j], ykey(ks, r));
  }
}

VAES_INLINE void ycrypt(const ykeys *ks, const int rounds, const int dec, __m256i *s, const int w) {
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm256_xor_si256(s[j], ykey(ks, 0));
  ymiddle(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = ylast(dec, s[j], ykey(ks, rounds));
}

/* ECB: 2w consecutive blocks in w registers. */
VAES_INLINE void yecb_group(const ykeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                            const int w) {
  __m256i s[YLANES];
  UNROLL for (int j = 0; j < w; j++) s[j] = yload(src + 32 * j);
  ycrypt(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) ystore(dst + 32 * j, s[j]);
}

/*
 * CBC decryption of 2w consecutive blocks of a chain. Register j holds C[2j], C[2j+1]; the values to XOR
 * are C[2j-1], C[2j]: an unaligned load at src + 32j - 16 for j >= 1, and {iv, C[0]} for j = 0 (C[-1] may
 * already be overwritten in place, or be the sector's IV). All loads come before the stores.
 */
VAES_INLINE void ycbc_dec_group(const ykeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m128i *iv,
                                const int w) {
  __m256i s[YLANES];
  UNROLL for (int j = 0; j < w; j++) s[j] = yload(src + 32 * j);
  ycrypt(ks, rounds, 1, s, w);
  s[0] = _mm256_xor_si256(s[0], _mm256_inserti128_si256(_mm256_castsi128_si256(*iv), xload(src), 1));
  UNROLL for (int j = 1; j < w; j++) s[j] = _mm256_xor_si256(s[j], yload(src + 32 * j - 16));
  *iv = xload(src + 32 * w - 16);
  UNROLL for (int j = 0; j < w; j++) ystore(dst + 32 * j, s[j]);
}

/*
 * CBC encryption of 2w independent chains side by side: register j carries chain 2j in its low lane and
 * chain 2j+1 in its high lane (chain c at dst/src + c*stride, IV at ivs + 16c).
 */
VAES_INLINE void ycbc_enc_chains(const ykeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, size_t stride,
                                 size_t n, const uint8_t *ivs, const int w) {
  __m256i c[YLANES];
  UNROLL for (int j = 0; j < w; j++) c[j] = yload(ivs + 32 * j);
  for (size_t k = 0; k < n; k++) {
    UNROLL for (int j = 0; j < w; j++) {
      const __m256i p = yload2(src + 2 * j * stride + 16 * k, src + (2 * j + 1) * stride + 16 * k);
      c[j] = _mm256_xor_si256(c[j], _mm256_xor_si256(p, ykey(ks, 0)));
    }
    ymiddle(ks, rounds, 0, c, w);
    UNROLL for (int j = 0; j < w; j++) {
      c[j] = _mm256_aesenclast_epi128(c[j], ykey(ks, rounds));
      ystore2(dst + 2 * j * stride + 16 * k, dst + (2 * j + 1) * stride + 16 * k, c[j]);
    }
  }
}

/*
 * T·α^k (1 <= k <= 57) of the tweak in each lane: xmul_alpha_k, lane by lane (alignr works per lane). Why
 * shifts here and carry-less multiplications on zmm (zmul_x): zmul_x's form on ymm (three VPCLMULQDQ,
 * VPSLLDQ and two XORs) made the vaes path's XTS decryptSectors 8% faster on an Intel Xeon (AES-128
 * 12.0 → 13.0 GB/s, three interleaved runs, 2026-12-06: on ymm, VAESDEC issues on ports 0 and 1 and the
 * XORs compete for the same ports, so the shifts cost less there than on zmm), while llvm-mca 19 puts
 * that loop 15% slower on Zen 3 and Zen 4, whose carry-less multiplier shares pipes with AES: too little
 * on one vendor for what it would cost on the other.
 */
VAES_INLINE __m256i ymul_alpha_k(__m256i t, const int k) {
  const __m256i c = _mm256_srli_epi64(t, 64 - k);
  const __m256i fold = _mm256_xor_si256(_mm256_xor_si256(c, _mm256_slli_epi64(c, 1)),
                                        _mm256_xor_si256(_mm256_slli_epi64(c, 2), _mm256_slli_epi64(c, 7)));
  return _mm256_xor_si256(_mm256_slli_epi64(t, k), _mm256_alignr_epi8(c, fold, 8));
}

/* The register of a group's first two tweaks: {T, T·α}. */
VAES_INLINE __m256i ytweak_pair(__m128i t) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(t), xmul_alpha(t), 1);
}

/*
 * XTS of 16 consecutive blocks of a data unit, whose tweaks tw[j] = {T·α^2j, T·α^(2j+1)} are ready. The
 * tweak is folded into the first and last round keys, as in xxts_group. Meanwhile the next group's tweaks
 * are formed from its pair `next` ({T', T'·α}) as next·α^2j, one register per round, between the AES
 * instructions (software pipelining: formed in a burst before the rounds, the tweak arithmetic and the
 * rounds wait for each other; among the rounds it issues in their shadow), and left in tw.
 */
VAES_INLINE void yxts_group16(const ykeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                              __m256i *tw, const __m256i next) {
  __m256i s[YLANES], nt[YLANES];
  UNROLL for (int j = 0; j < YLANES; j++) {
    s[j] = _mm256_xor_si256(yload(src + 32 * j), _mm256_xor_si256(tw[j], ykey(ks, 0)));
  }
  nt[0] = next;
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < YLANES; j++) s[j] = yround(dec, s[j], ykey(ks, r));
    if (r < YLANES) nt[r] = ymul_alpha_k(next, 2 * r); /* rounds >= 10 > YLANES */
  }
  UNROLL for (int j = 0; j < YLANES; j++) s[j] = ylast(dec, s[j], _mm256_xor_si256(ykey(ks, rounds), tw[j]));
  UNROLL for (int j = 0; j < YLANES; j++) ystore(dst + 32 * j, s[j]);
  UNROLL for (int j = 0; j < YLANES; j++) tw[j] = nt[j];
}

/*
 * XTS of 2w consecutive blocks (2w <= 16: a unit's tail), from tweak *t: register j's pair is
 * {T·α^2j, T·α^(2j+1)} = {T, T·α}·α^2j; *t advances by α^2w.
 */
VAES_INLINE void yxts_group(const ykeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                            __m128i *t, const int w) {
  __m256i tw[YLANES], s[YLANES];
  tw[0] = ytweak_pair(*t);
  UNROLL for (int j = 1; j < w; j++) tw[j] = ymul_alpha_k(tw[0], 2 * j);
  *t = xmul_alpha_k(*t, 2 * w);
  UNROLL for (int j = 0; j < w; j++) {
    s[j] = _mm256_xor_si256(yload(src + 32 * j), _mm256_xor_si256(tw[j], ykey(ks, 0)));
  }
  ymiddle(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = ylast(dec, s[j], _mm256_xor_si256(ykey(ks, rounds), tw[j]));
  UNROLL for (int j = 0; j < w; j++) ystore(dst + 32 * j, s[j]);
}

/* ---------------------------------------------------------------------------------------------------- */
/* The vaes path                                                                                         */
/* ---------------------------------------------------------------------------------------------------- */

/* ECB both ways: 16 blocks at a time, then the tail of 8, 4, 2 (ymm) and 1 (xmm). */
VAES_INLINE void vaes_ecb(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                          size_t n) {
  ykeys ks;
  ykeys_load(&ks, key, rounds, HOLD);
  size_t i = 0;
  for (; i + 2 * YLANES <= n; i += 2 * YLANES) yecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, YLANES);
  if (n - i >= 8) yecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 4), i += 8;
  if (n - i >= 4) yecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 2), i += 4;
  if (n - i >= 2) yecb_group(&ks, rounds, dec, dst + 16 * i, src + 16 * i, 1), i += 2;
  if (n - i >= 1) {
    xkeys xk;
    ykeys_low(&xk, &ks, rounds);
    xecb_group(&xk, rounds, dec, dst + 16 * i, src + 16 * i, 1);
  }
}

/* One CBC chain: serial, so xmm (the VEX encoding of the aesni code; a ymm would carry an idle lane). */
VAES_INLINE void vaes_cbc_enc(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t n,
                              const uint8_t *iv) {
  xkeys ks;
  xkeys_load(&ks, rk, rounds, REREAD);
  xcbc_encrypt_chain(&ks, rounds, dst, src, n, xload(iv));
}

/* CBC decryption of blocks i .. n-1 of a chain, whose previous ciphertext block is *iv: 16 at a time, then
 * 8, 4, 2 and 1 (the whole chain on vaes; the last 31 blocks or fewer on avx512). */
VAES_INLINE void ycbc_dec_rest(const ykeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m128i *iv,
                               size_t i, const size_t n) {
  for (; i + 2 * YLANES <= n; i += 2 * YLANES) ycbc_dec_group(ks, rounds, dst + 16 * i, src + 16 * i, iv, YLANES);
  if (n - i >= 8) ycbc_dec_group(ks, rounds, dst + 16 * i, src + 16 * i, iv, 4), i += 8;
  if (n - i >= 4) ycbc_dec_group(ks, rounds, dst + 16 * i, src + 16 * i, iv, 2), i += 4;
  if (n - i >= 2) ycbc_dec_group(ks, rounds, dst + 16 * i, src + 16 * i, iv, 1), i += 2;
  if (n - i >= 1) {
    xkeys xk;
    ykeys_low(&xk, ks, rounds);
    xcbc_dec_group(&xk, rounds, dst + 16 * i, src + 16 * i, iv, 1);
  }
}

/* CBC decryption of every sector. */
VAES_INLINE void vaes_cbc_dec_sectors(const int rounds, const uint8_t *dk, uint8_t *dst, const uint8_t *src,
                                      size_t sectors, size_t n, const uint8_t *ivs) {
  ykeys ks;
  ykeys_load(&ks, dk, rounds, HOLD);
  for (size_t u = 0; u < sectors; u++, dst += 16 * n, src += 16 * n) {
    __m128i iv = xload(ivs + 16 * u);
    ycbc_dec_rest(&ks, rounds, dst, src, &iv, 0, n);
  }
}

/* CBC encryption of every sector: 16 chains side by side, then the last 8, 4, 2 (ymm) and 1 (xmm). */
VAES_INLINE void vaes_cbc_enc_sectors(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                                      size_t sectors, size_t n, const uint8_t *ivs) {
  ykeys ks;
  ykeys_load(&ks, rk, rounds, REREAD);
  const size_t stride = 16 * n;
  size_t u = 0;
  for (; u + 2 * YLANES <= sectors; u += 2 * YLANES) {
    ycbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, YLANES);
  }
  if (sectors - u >= 8) {
    ycbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, 4);
    u += 8;
  }
  if (sectors - u >= 4) {
    ycbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, 2);
    u += 4;
  }
  if (sectors - u >= 2) {
    ycbc_enc_chains(&ks, rounds, dst + u * stride, src + u * stride, stride, n, ivs + 16 * u, 1);
    u += 2;
  }
  if (sectors - u >= 1) {
    xkeys xk;
    ykeys_low(&xk, &ks, rounds);
    xcbc_encrypt_chain(&xk, rounds, dst + u * stride, src + u * stride, n, xload(ivs + 16 * u));
  }
}

/*
 * XTS of blocks i .. n-1 of a data unit (fewer than 32), block i's tweak t: 16, 8, 4, 2 (ymm) and 1 (xmm).
 */
VAES_INLINE void yxts_rest(const ykeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                           __m128i t, size_t i, const size_t n) {
  if (n - i >= 16) yxts_group(ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 8), i += 16;
  if (n - i >= 8) yxts_group(ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 4), i += 8;
  if (n - i >= 4) yxts_group(ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 2), i += 4;
  if (n - i >= 2) yxts_group(ks, rounds, dec, dst + 16 * i, src + 16 * i, &t, 1), i += 2;
  if (n - i >= 1) {
    xkeys xk;
    ykeys_low(&xk, ks, rounds);
    xxts_group(&xk, rounds, dec, dst + 16 * i, src + 16 * i, &t, 1);
  }
}

/*
 * XTS of every data unit: 16 blocks at a time, then the tail of 8, 4, 2 (ymm) and 1 (xmm). The tweaks of
 * each 16-block group are formed during the group before it (yxts_group16). When units are whole groups
 * (512 or 4096 bytes, say), the last group of a unit forms the first tweaks of the next unit, so the
 * pipeline runs across units; otherwise each unit starts it afresh and its tail takes the tweak on.
 */
VAES_INLINE void vaes_xts(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                          size_t units, size_t n, const uint8_t *tweaks) {
  ykeys ks;
  ykeys_load(&ks, key, rounds, REREAD);
  const int whole = n % (2 * YLANES) == 0;
  __m256i tw[YLANES], pair = _mm256_setzero_si256();
  int ready = 0; /* tw and pair already hold unit u's first tweaks */
  for (size_t u = 0; u < units; u++, dst += 16 * n, src += 16 * n) {
    size_t i = 0;
    if (n >= 2 * YLANES) {
      if (!ready) {
        pair = ytweak_pair(xload(tweaks + 16 * u));
        tw[0] = pair;
        UNROLL for (int j = 1; j < YLANES; j++) tw[j] = ymul_alpha_k(pair, 2 * j);
      }
      ready = 0;
      for (; i + 2 * YLANES <= n; i += 2 * YLANES) {
        __m256i next = pair; /* after the very last group: not used */
        if (i + 4 * YLANES <= n || !whole) {
          next = ymul_alpha_k(pair, 2 * YLANES);
        } else if (u + 1 < units) {
          next = ytweak_pair(xload(tweaks + 16 * (u + 1)));
          ready = 1;
        }
        yxts_group16(&ks, rounds, dec, dst + 16 * i, src + 16 * i, tw, next);
        pair = next;
      }
    }
    if (i == n) continue;
    yxts_rest(&ks, rounds, dec, dst, src, i ? _mm256_castsi256_si128(pair) : xload(tweaks + 16 * u), i, n);
  }
}

/* ---------------------------------------------------------------------------------------------------- */
/* CTR keystreams, both paths (NIST SP 800-38A §6.5; SP 800-38D §6.2 inc32; HCTR2's XCTR)               */
/* ---------------------------------------------------------------------------------------------------- */

/*
 * A counter is kept as a 128-bit integer s in the lanes' byte order, so that "+ j" is a vector add:
 *   be128  s = ByteReverse(iv); block j is ByteReverse(s + j). Within one run (CTR_BE64 below) the add is
 *          a 64-bit add of the low half alone; the one place in a call where that half wraps (a call has
 *          fewer than 2^60 blocks) is found from iv and the call split there: ctr_be128 runs the blocks up
 *          to it, then the rest from iv + that many blocks (the carry into the high half, modulo 2^128,
 *          done once on bytes). That branch is on the counter, a public value, like the lengths.
 *   be32   s = ByteReverse(iv); its low 32 bits are the big-endian last 4 bytes of iv, and "+ j" is a
 *          32-bit add of that word alone (wraps modulo 2^32, bytes 0 .. 11 untouched);
 *   xctr   s = 1 (as 128-bit little-endian); block j is iv ^ (s + j). j + 1 < 2^60 (len is a size_t of
 *          bytes), so the low half never carries.
 * The counter block is then PSHUFB(s, order) ^ x, with order the byte reversal (be128, be32) or identity
 * (xctr), and x = 0 or iv (xctr); x is folded into round key 0. None of this touches key or data.
 */
enum { CTR_BE64 = AES_NATIVE_CTR_BE128, CTR_BE32 = AES_NATIVE_CTR_BE32, CTR_XCTR = AES_NATIVE_CTR_XCTR };

AESNI_INLINE __m128i xrev_mask(void) { return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }

/* s + d (0 <= d < 2^32) for counter kind `kind`: the low 32-bit word (be32) or 64-bit half (the others). */
AESNI_INLINE __m128i xctr_add(const int kind, __m128i s, const int d) {
  const __m128i dv = _mm_set_epi64x(0, d);
  return kind == CTR_BE32 ? _mm_add_epi32(s, dv) : _mm_add_epi64(s, dv);
}

/* The first counter value s of a call from iv (see above), and x, the value XORed into every counter block. */
AESNI_INLINE __m128i xctr_start(const int kind, const uint8_t *iv) {
  return kind == CTR_XCTR ? _mm_set_epi64x(0, 1) : _mm_shuffle_epi8(xload(iv), xrev_mask());
}
AESNI_INLINE __m128i xctr_xor(const int kind, const uint8_t *iv) {
  return kind == CTR_XCTR ? xload(iv) : _mm_setzero_si128();
}
AESNI_INLINE __m128i xctr_block(const int kind, __m128i s) {
  return kind == CTR_XCTR ? s : _mm_shuffle_epi8(s, xrev_mask());
}

/*
 * The keystream of w blocks from counter s (blocks s, s+1, … s+w-1), k0x = round key 0 ^ x. Left in `out`;
 * the caller XORs it with the data.
 */
AESNI_INLINE void xctr_keystream(const xkeys *ks, const int rounds, const int kind, __m128i s, __m128i k0x,
                                 __m128i *out, const int w) {
  UNROLL for (int j = 0; j < w; j++) out[j] = _mm_xor_si128(xctr_block(kind, j ? xctr_add(kind, s, j) : s), k0x);
  xmiddle(ks, rounds, 0, out, w);
  UNROLL for (int j = 0; j < w; j++) out[j] = _mm_aesenclast_si128(out[j], xkey(ks, rounds));
}

/* w whole blocks of dst = src ^ keystream. */
AESNI_INLINE void xctr_group(const xkeys *ks, const int rounds, const int kind, uint8_t *dst, const uint8_t *src,
                             __m128i s, __m128i k0x, const int w) {
  __m128i k[XLANES];
  xctr_keystream(ks, rounds, kind, s, k0x, k, w);
  UNROLL for (int j = 0; j < w; j++) xstore(dst + 16 * j, _mm_xor_si128(k[j], xload(src + 16 * j)));
}

/* The aesni path: 8 blocks at a time, then 4, 2, 1, then a partial block through a wiped stack temporary. */
AESNI_INLINE void aesni_ctr(const int rounds, const int kind, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                            size_t len, const uint8_t *iv) {
  xkeys ks;
  xkeys_load(&ks, rk, rounds, HOLD);
  const __m128i k0x = _mm_xor_si128(xkey(&ks, 0), xctr_xor(kind, iv));
  __m128i s = xctr_start(kind, iv);
  const size_t n = len / 16;
  size_t i = 0;
  for (; i + XLANES <= n; i += XLANES) {
    xctr_group(&ks, rounds, kind, dst + 16 * i, src + 16 * i, s, k0x, XLANES);
    s = xctr_add(kind, s, XLANES);
  }
  if (n - i >= 4) {
    xctr_group(&ks, rounds, kind, dst + 16 * i, src + 16 * i, s, k0x, 4);
    s = xctr_add(kind, s, 4), i += 4;
  }
  if (n - i >= 2) {
    xctr_group(&ks, rounds, kind, dst + 16 * i, src + 16 * i, s, k0x, 2);
    s = xctr_add(kind, s, 2), i += 2;
  }
  if (n - i >= 1) {
    xctr_group(&ks, rounds, kind, dst + 16 * i, src + 16 * i, s, k0x, 1);
    s = xctr_add(kind, s, 1), i += 1;
  }
  const size_t rest = len - 16 * i;
  if (rest != 0) {
    uint8_t tmp[16];
    __m128i k;
    xctr_keystream(&ks, rounds, kind, s, k0x, &k, 1);
    xstore(tmp, k);
    for (size_t b = 0; b < rest; b++) dst[16 * i + b] = src[16 * i + b] ^ tmp[b];
    aes_native_wipe(tmp, sizeof tmp);
  }
}

/* ymm: register j of a group holds blocks 2j (low lane) and 2j+1 (high lane). */
VAES_INLINE __m256i yrev_mask(void) { return _mm256_broadcastsi128_si256(xrev_mask()); }

/* s + d in each lane (0 <= d < 2^32), as xctr_add. */
VAES_INLINE __m256i yctr_add(const int kind, __m256i s, const int d) {
  const __m256i dv = _mm256_set_epi64x(0, d, 0, d);
  return kind == CTR_BE32 ? _mm256_add_epi32(s, dv) : _mm256_add_epi64(s, dv);
}

VAES_INLINE __m256i yctr_block(const int kind, __m256i s) {
  return kind == CTR_XCTR ? s : _mm256_shuffle_epi8(s, yrev_mask());
}

/* The keystream of 2w blocks from the lane pair S = {s, s+1}: register j is {s+2j, s+2j+1}. */
VAES_INLINE void yctr_keystream(const ykeys *ks, const int rounds, const int kind, __m256i S, __m256i k0x,
                                __m256i *out, const int w) {
  UNROLL for (int j = 0; j < w; j++) out[j] = _mm256_xor_si256(yctr_block(kind, j ? yctr_add(kind, S, 2 * j) : S), k0x);
  ymiddle(ks, rounds, 0, out, w);
  UNROLL for (int j = 0; j < w; j++) out[j] = _mm256_aesenclast_epi128(out[j], ykey(ks, rounds));
}

/*
 * dst = src ^ E(counter blocks) for 2w blocks, the counter blocks (already XORed with round key 0) in k.
 * The data is read before the rounds, into registers (with the round keys re-read, REREAD, 8 blocks and
 * 8 data registers fit in 16 without a spill), and folded into the final round's key:
 * AESENCLAST(s, K[Nr] ^ P) = E(s) ^ P. Read late, next to the stores, a src that is not 32-byte aligned
 * (a JS buffer is 16-byte aligned at best) cost up to 20% at 16 KiB on Zen 4; read early, it costs
 * nothing. (XORing K[Nr] into P before the rounds is 4% faster for AES-128 but the compiler then spills
 * some K[Nr] ^ P to the stack, where a known P would give away K[Nr]; this way no key byte reaches the
 * stack.) All of a group is read before any of it is written, so dst == src is safe.
 */
VAES_INLINE void yctr_crypt(const ykeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m256i *k,
                            const int w) {
  __m256i p[YLANES];
  UNROLL for (int j = 0; j < w; j++) p[j] = yload(src + 32 * j);
  ymiddle(ks, rounds, 0, k, w);
  UNROLL for (int j = 0; j < w; j++) {
    ystore(dst + 32 * j, _mm256_aesenclast_epi128(k[j], _mm256_xor_si256(ykey(ks, rounds), p[j])));
  }
}

/* 2w whole blocks from the lane pair S = {s, s+1}: register j is {s+2j, s+2j+1}. */
VAES_INLINE void yctr_group(const ykeys *ks, const int rounds, const int kind, uint8_t *dst, const uint8_t *src,
                            __m256i S, __m256i k0x, const int w) {
  __m256i k[YLANES];
  UNROLL for (int j = 0; j < w; j++) k[j] = _mm256_xor_si256(yctr_block(kind, j ? yctr_add(kind, S, 2 * j) : S), k0x);
  yctr_crypt(ks, rounds, dst, src, k, w);
}

/*
 * be128 / be32, 16 blocks whose counter blocks differ from the first one's in their last byte only (the
 * caller checks that this byte, a public value, is at most 255 - 15): B = {block 0, block 1} is formed
 * once (one PSHUFB), and register j is B with 2j added to byte 15 of each lane, a 32-bit add of 2j << 24
 * to the lanes' last words that cannot carry out of that byte. One add per register instead of an add
 * and a PSHUFB, which leaves the vector ports to the AES instructions.
 */
VAES_INLINE void yctr_group16_be(const ykeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m256i S,
                                 __m256i k0x) {
  __m256i k[YLANES];
  const __m256i B = _mm256_shuffle_epi8(S, yrev_mask());
  UNROLL for (int j = 0; j < YLANES; j++) {
    const int d = (2 * j) << 24;
    k[j] = _mm256_xor_si256(j ? _mm256_add_epi32(B, _mm256_set_epi32(d, 0, 0, 0, d, 0, 0, 0)) : B, k0x);
  }
  yctr_crypt(ks, rounds, dst, src, k, YLANES);
}

/*
 * Whole blocks i .. n-1 (fewer than 32) of a CTR call from S = {s+i, s+i+1}, 16, 8, 4, 2 at a time, and the
 * last whole block with a partial one (at most 31 bytes) from one more register through a wiped stack
 * temporary (the end of the vaes and avx512 calls).
 */
VAES_INLINE void yctr_rest(const ykeys *ks, const int rounds, const int kind, uint8_t *dst, const uint8_t *src,
                           const size_t len, size_t i, __m256i S, const __m256i k0x) {
  const size_t n = len / 16;
  if (n - i >= 16) {
    yctr_group(ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x, YLANES);
    S = yctr_add(kind, S, 16), i += 16;
  }
  if (n - i >= 8) {
    yctr_group(ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x, 4);
    S = yctr_add(kind, S, 8), i += 8;
  }
  if (n - i >= 4) {
    yctr_group(ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x, 2);
    S = yctr_add(kind, S, 4), i += 4;
  }
  if (n - i >= 2) {
    yctr_group(ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x, 1);
    S = yctr_add(kind, S, 2), i += 2;
  }
  const size_t rest = len - 16 * i;
  if (rest != 0) {
    uint8_t tmp[32];
    __m256i k;
    yctr_keystream(ks, rounds, kind, S, k0x, &k, 1);
    ystore(tmp, k);
    for (size_t b = 0; b < rest; b++) dst[16 * i + b] = src[16 * i + b] ^ tmp[b];
    aes_native_wipe(tmp, sizeof tmp);
  }
}

/* The vaes path: 16 blocks at a time (8 ymm), then yctr_rest. */
VAES_INLINE void vaes_ctr(const int rounds, const int kind, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                          size_t len, const uint8_t *iv) {
  ykeys ks;
  ykeys_load(&ks, rk, rounds, REREAD);
  const __m256i k0x = _mm256_xor_si256(ykey(&ks, 0), _mm256_broadcastsi128_si256(xctr_xor(kind, iv)));
  const __m128i s = xctr_start(kind, iv);
  __m256i S = _mm256_inserti128_si256(_mm256_castsi128_si256(s), xctr_add(kind, s, 1), 1);
  const size_t n = len / 16;
  size_t i = 0;
  const unsigned last = kind == CTR_XCTR ? 0 : iv[15]; /* the first counter block's byte 15 (public) */
  while (i + 2 * YLANES <= n) {
    if (kind != CTR_XCTR) {
      for (; i + 2 * YLANES <= n && ((last + i) & 0xff) <= 255 - (2 * YLANES - 1); i += 2 * YLANES) {
        yctr_group16_be(&ks, rounds, dst + 16 * i, src + 16 * i, S, k0x);
        S = yctr_add(kind, S, 2 * YLANES);
      }
      if (i + 2 * YLANES > n) break;
    }
    yctr_group(&ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x, YLANES);
    S = yctr_add(kind, S, 2 * YLANES), i += 2 * YLANES;
  }
  yctr_rest(&ks, rounds, kind, dst, src, len, i, S, k0x);
}

/* ---------------------------------------------------------------------------------------------------- */
/* zmm building blocks and the avx512 path: four blocks per register, block 4j + l in lane l             */
/* ---------------------------------------------------------------------------------------------------- */

/*
 * The path runs 32 blocks at a time (8 zmm) and hands what is left of a buffer, chain or data unit (fewer
 * than 32 blocks) to the ymm code above, which the AVX-512 instruction set includes; the CBC encryptions
 * (serial per chain) are the vaes path's. The ymm tails take the zmm round keys' low halves (no
 * instruction) or their own.
 */
AVX512_INLINE __m512i zload(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
AVX512_INLINE void zstore(uint8_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }

/* The round keys of one call, each broadcast to the four lanes (HOLD or REREAD, as xkeys). With 32
 * registers, 8 blocks and 15 keys fit (HOLD) where nothing else is live; XTS and CTR keep tweaks or data
 * beside them and re-read. */
typedef struct {
  const uint8_t *p;
  int reread;
  __m512i k[15];
} zkeys;

AVX512_INLINE void zkeys_load(zkeys *ks, const uint8_t *p, const int rounds, const int reread) {
  ks->p = p;
  ks->reread = reread;
  UNROLL for (int r = 0; r <= rounds; r++) {
    ks->k[r] = reread ? _mm512_setzero_si512() : _mm512_broadcast_i32x4(xload(p + 16 * r));
  }
}

AVX512_INLINE __m512i zkey(const zkeys *ks, const int r) {
  return ks->reread ? _mm512_broadcast_i32x4(xload(ks->p + 16 * r)) : ks->k[r];
}

/* The same keys as ymm, for the tails. */
AVX512_INLINE void zkeys_low(ykeys *y, const zkeys *ks, const int rounds) {
  y->p = ks->p;
  y->reread = ks->reread;
  UNROLL for (int r = 0; r <= rounds; r++) y->k[r] = _mm512_castsi512_si256(ks->k[r]);
}

AVX512_INLINE __m512i zround(const int dec, __m512i s, __m512i k) {
  return dec ? _mm512_aesdec_epi128(s, k) : _mm512_aesenc_epi128(s, k);
}
AVX512_INLINE __m512i zlast(const int dec, __m512i s, __m512i k) {
  return dec ? _mm512_aesdeclast_epi128(s, k) : _mm512_aesenclast_epi128(s, k);
}

AVX512_INLINE void zmiddle(const zkeys *ks, const int rounds, const int dec, __m512i *s, const int w) {
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < w; j++) s[j] = zround(dec, s[j], zkey(ks, r));
  }
}

AVX512_INLINE void zcrypt(const zkeys *ks, const int rounds, const int dec, __m512i *s, const int w) {
  UNROLL for (int j = 0; j < w; j++) s[j] = _mm512_xor_si512(s[j], zkey(ks, 0));
  zmiddle(ks, rounds, dec, s, w);
  UNROLL for (int j = 0; j < w; j++) s[j] = zlast(dec, s[j], zkey(ks, rounds));
}

/* ECB both ways: 32 blocks at a time, then vaes_ecb on the rest. */
AVX512_INLINE void avx512_ecb(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                              size_t n) {
  zkeys ks;
  zkeys_load(&ks, key, rounds, HOLD);
  size_t i = 0;
  for (; i + 4 * ZLANES <= n; i += 4 * ZLANES) {
    __m512i s[ZLANES];
    UNROLL for (int j = 0; j < ZLANES; j++) s[j] = zload(src + 16 * i + 64 * j);
    zcrypt(&ks, rounds, dec, s, ZLANES);
    UNROLL for (int j = 0; j < ZLANES; j++) zstore(dst + 16 * i + 64 * j, s[j]);
  }
  if (i < n) vaes_ecb(rounds, dec, key, dst + 16 * i, src + 16 * i, n - i);
}

/*
 * CBC decryption of 32 consecutive blocks of a chain, the block before them *iv. Register j holds
 * C[4j .. 4j+3]; the values to XOR are C[4j-1 .. 4j+2]: an unaligned load at src + 64j - 16 for j >= 1, and
 * for j = 0 {iv, C[0], C[1], C[2]}, register 0 shifted up one lane with iv below (VALIGNQ of it over a
 * broadcast iv), formed before the rounds. All loads come before the stores (dst == src is safe).
 */
AVX512_INLINE void zcbc_dec_group32(const zkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src,
                                    __m128i *iv) {
  __m512i s[ZLANES];
  UNROLL for (int j = 0; j < ZLANES; j++) s[j] = zload(src + 64 * j);
  const __m512i prev0 = _mm512_alignr_epi64(s[0], _mm512_broadcast_i32x4(*iv), 6);
  zcrypt(ks, rounds, 1, s, ZLANES);
  s[0] = _mm512_xor_si512(s[0], prev0);
  UNROLL for (int j = 1; j < ZLANES; j++) s[j] = _mm512_xor_si512(s[j], zload(src + 64 * j - 16));
  *iv = xload(src + 64 * ZLANES - 16);
  UNROLL for (int j = 0; j < ZLANES; j++) zstore(dst + 64 * j, s[j]);
}

/* CBC decryption of every sector: 32 blocks at a time, then ycbc_dec_rest. */
AVX512_INLINE void avx512_cbc_dec_sectors(const int rounds, const uint8_t *dk, uint8_t *dst, const uint8_t *src,
                                          size_t sectors, size_t n, const uint8_t *ivs) {
  zkeys ks;
  zkeys_load(&ks, dk, rounds, HOLD);
  ykeys yk;
  zkeys_low(&yk, &ks, rounds);
  for (size_t u = 0; u < sectors; u++, dst += 16 * n, src += 16 * n) {
    __m128i iv = xload(ivs + 16 * u);
    size_t i = 0;
    for (; i + 4 * ZLANES <= n; i += 4 * ZLANES) zcbc_dec_group32(&ks, rounds, dst + 16 * i, src + 16 * i, &iv);
    if (i < n) ycbc_dec_rest(&yk, rounds, dst, src, &iv, i, n);
  }
}

/*
 * T_i·x^k_i of the tweak T_i in each lane i, where lane i of c is {x^k_i, 0x87} and 0 <= k_i <= 57, in three
 * carry-less multiplications and no shift: lo·x^k is the low half's product (its top k bits already in the
 * high half), hi·x^k moves up by 64 bits, and what leaves bit 127 (that product's high half) folds back
 * as ·0x87 (at most k + 7 bits). Why not the shifts of ymul_alpha_k: on Intel a zmm shift issues on
 * port 0 only, as zmm VAESENC does, and five of them per register of four blocks made XTS about a third
 * slower than CBC decryption there (AES-128 decryptSectors 14.4 against 21.0 GB/s; 19.0 with this);
 * VPCLMULQDQ and VPSLLDQ issue on port 5.
 */
AVX512_INLINE __m512i zmul_x(__m512i t, const __m512i c) {
  const __m512i lo = _mm512_clmulepi64_epi128(t, c, 0x00);    /* t.lo · x^k */
  const __m512i hi = _mm512_clmulepi64_epi128(t, c, 0x01);    /* t.hi · x^k */
  const __m512i fold = _mm512_clmulepi64_epi128(hi, c, 0x11); /* the bits past 127, · 0x87 */
  return _mm512_ternarylogic_epi64(lo, _mm512_bslli_epi128(hi, 8), fold, 0x96); /* lo ^ hi << 64 ^ fold */
}

/* T·α^k (1 <= k <= 57) of the tweak in each lane. */
AVX512_INLINE __m512i zmul_alpha_k(__m512i t, const int k) {
  return zmul_x(t, _mm512_set_epi64(0x87, 1LL << k, 0x87, 1LL << k, 0x87, 1LL << k, 0x87, 1LL << k));
}

/* The register of a group's first four tweaks: {T, T·α, T·α^2, T·α^3}, T broadcast and lane i times x^i. */
AVX512_INLINE __m512i ztweak_quad(__m128i t) {
  return zmul_x(_mm512_broadcast_i32x4(t), _mm512_set_epi64(0x87, 8, 0x87, 4, 0x87, 2, 0x87, 1));
}

/*
 * XTS of 32 consecutive blocks of a data unit, whose tweaks tw[j] = {T·α^4j .. T·α^(4j+3)} are ready; as
 * yxts_group16, the tweak folded into the first and last round keys, and the next group's tweaks formed
 * from its quad `next` as next·α^4j among the rounds, left in tw.
 */
AVX512_INLINE void zxts_group32(const zkeys *ks, const int rounds, const int dec, uint8_t *dst, const uint8_t *src,
                                __m512i *tw, const __m512i next) {
  __m512i s[ZLANES], nt[ZLANES];
  UNROLL for (int j = 0; j < ZLANES; j++) {
    s[j] = _mm512_xor_si512(zload(src + 64 * j), _mm512_xor_si512(tw[j], zkey(ks, 0)));
  }
  nt[0] = next;
  UNROLL for (int r = 1; r < rounds; r++) {
    UNROLL for (int j = 0; j < ZLANES; j++) s[j] = zround(dec, s[j], zkey(ks, r));
    if (r < ZLANES) nt[r] = zmul_alpha_k(next, 4 * r); /* rounds >= 10 > ZLANES */
  }
  UNROLL for (int j = 0; j < ZLANES; j++) s[j] = zlast(dec, s[j], _mm512_xor_si512(zkey(ks, rounds), tw[j]));
  UNROLL for (int j = 0; j < ZLANES; j++) zstore(dst + 64 * j, s[j]);
  UNROLL for (int j = 0; j < ZLANES; j++) tw[j] = nt[j];
}

/*
 * XTS of every data unit: 32 blocks at a time, the tweaks pipelined as in vaes_xts (across units when units
 * are whole groups: 512 or 4096 bytes), then yxts_rest.
 */
AVX512_INLINE void avx512_xts(const int rounds, const int dec, const uint8_t *key, uint8_t *dst, const uint8_t *src,
                              size_t units, size_t n, const uint8_t *tweaks) {
  zkeys ks;
  zkeys_load(&ks, key, rounds, REREAD);
  ykeys yk;
  zkeys_low(&yk, &ks, rounds);
  const int whole = n % (4 * ZLANES) == 0;
  __m512i tw[ZLANES], quad = _mm512_setzero_si512();
  int ready = 0; /* tw and quad already hold unit u's first tweaks */
  for (size_t u = 0; u < units; u++, dst += 16 * n, src += 16 * n) {
    size_t i = 0;
    if (n >= 4 * ZLANES) {
      if (!ready) {
        quad = ztweak_quad(xload(tweaks + 16 * u));
        tw[0] = quad;
        UNROLL for (int j = 1; j < ZLANES; j++) tw[j] = zmul_alpha_k(quad, 4 * j);
      }
      ready = 0;
      for (; i + 4 * ZLANES <= n; i += 4 * ZLANES) {
        __m512i next = quad; /* after the very last group: not used */
        if (i + 8 * ZLANES <= n || !whole) {
          next = zmul_alpha_k(quad, 4 * ZLANES);
        } else if (u + 1 < units) {
          next = ztweak_quad(xload(tweaks + 16 * (u + 1)));
          ready = 1;
        }
        zxts_group32(&ks, rounds, dec, dst + 16 * i, src + 16 * i, tw, next);
        quad = next;
      }
    }
    if (i == n) continue;
    yxts_rest(&yk, rounds, dec, dst, src, i ? _mm512_castsi512_si128(quad) : xload(tweaks + 16 * u), i, n);
  }
}

/* CTR on zmm: register j of a group holds blocks 4j .. 4j+3, one per lane. */
AVX512_INLINE __m512i zrev_mask(void) { return _mm512_broadcast_i32x4(xrev_mask()); }

/* s + d in each lane (0 <= d < 2^32), as xctr_add. */
AVX512_INLINE __m512i zctr_add(const int kind, __m512i s, const int d) {
  const __m512i dv = _mm512_set_epi64(0, d, 0, d, 0, d, 0, d);
  return kind == CTR_BE32 ? _mm512_add_epi32(s, dv) : _mm512_add_epi64(s, dv);
}

AVX512_INLINE __m512i zctr_block(const int kind, __m512i s) {
  return kind == CTR_XCTR ? s : _mm512_shuffle_epi8(s, zrev_mask());
}

/* dst = src ^ E(counter blocks) for 32 blocks, the counter blocks (XORed with round key 0) in k; the data
 * read first and folded into the final round's key, as yctr_crypt. */
AVX512_INLINE void zctr_crypt(const zkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m512i *k) {
  __m512i p[ZLANES];
  UNROLL for (int j = 0; j < ZLANES; j++) p[j] = zload(src + 64 * j);
  zmiddle(ks, rounds, 0, k, ZLANES);
  UNROLL for (int j = 0; j < ZLANES; j++) {
    zstore(dst + 64 * j, _mm512_aesenclast_epi128(k[j], _mm512_xor_si512(zkey(ks, rounds), p[j])));
  }
}

/* 32 whole blocks from the quad S = {s, s+1, s+2, s+3}: register j is S + 4j. */
AVX512_INLINE void zctr_group32(const zkeys *ks, const int rounds, const int kind, uint8_t *dst, const uint8_t *src,
                                __m512i S, __m512i k0x) {
  __m512i k[ZLANES];
  UNROLL for (int j = 0; j < ZLANES; j++) {
    k[j] = _mm512_xor_si512(zctr_block(kind, j ? zctr_add(kind, S, 4 * j) : S), k0x);
  }
  zctr_crypt(ks, rounds, dst, src, k);
}

/* be128 / be32, 32 blocks whose counter blocks differ from the first one's in their last byte only, as
 * yctr_group16_be: one PSHUFB, then 4j added to byte 15 of each lane of register j. */
AVX512_INLINE void zctr_group32_be(const zkeys *ks, const int rounds, uint8_t *dst, const uint8_t *src, __m512i S,
                                   __m512i k0x) {
  __m512i k[ZLANES];
  const __m512i B = _mm512_shuffle_epi8(S, zrev_mask());
  UNROLL for (int j = 0; j < ZLANES; j++) {
    const int d = (4 * j) << 24;
    k[j] = _mm512_xor_si512(j ? _mm512_add_epi32(B, _mm512_set_epi32(d, 0, 0, 0, d, 0, 0, 0, d, 0, 0, 0, d, 0, 0, 0))
                              : B,
                            k0x);
  }
  zctr_crypt(ks, rounds, dst, src, k);
}

/* The avx512 path: 32 blocks at a time (8 zmm), then yctr_rest. */
/*
 * The avx512 path: 32 blocks at a time (8 zmm), then yctr_rest. With `hash` (ctr_polyval), each group's 32
 * output blocks are also hashed into acc (POLYVAL with `table`, 32 blocks per reduction) right after they
 * are written, while they are in L1 and while the next group's AES rounds can run beside the carry-less
 * multiplications; the whole blocks of the rest are hashed at the end.
 */
AVX512_INLINE void avx512_ctr_hash(const int rounds, const int kind, const uint8_t *rk, uint8_t *dst,
                                   const uint8_t *src, size_t len, const uint8_t *iv, const int hash,
                                   const uint8_t *table, uint8_t *acc, const int reversed) {
  zkeys ks;
  zkeys_load(&ks, rk, rounds, REREAD);
  const __m512i k0x = _mm512_xor_si512(zkey(&ks, 0), _mm512_broadcast_i32x4(xctr_xor(kind, iv)));
  const __m128i s = xctr_start(kind, iv);
  const __m256i S01 = _mm256_inserti128_si256(_mm256_castsi128_si256(s), xctr_add(kind, s, 1), 1);
  __m512i S = _mm512_inserti64x4(_mm512_castsi256_si512(S01), yctr_add(kind, S01, 2), 1);
  const size_t n = len / 16;
  size_t i = 0;
  const unsigned last = kind == CTR_XCTR ? 0 : iv[15]; /* the first counter block's byte 15 (public) */
  const __m512i order = _mm512_broadcast_i32x4(pv_order(reversed));
  __m128i a = hash ? pv_load(acc) : _mm_setzero_si128();
  while (i + 4 * ZLANES <= n) {
    if (kind != CTR_XCTR) {
      for (; i + 4 * ZLANES <= n && ((last + i) & 0xff) <= 255 - (4 * ZLANES - 1); i += 4 * ZLANES) {
        zctr_group32_be(&ks, rounds, dst + 16 * i, src + 16 * i, S, k0x);
        if (hash) a = pv_group_zmm(table, a, dst + 16 * i, 8, reversed, order);
        S = zctr_add(kind, S, 4 * ZLANES);
      }
      if (i + 4 * ZLANES > n) break;
    }
    zctr_group32(&ks, rounds, kind, dst + 16 * i, src + 16 * i, S, k0x);
    if (hash) a = pv_group_zmm(table, a, dst + 16 * i, 8, reversed, order);
    S = zctr_add(kind, S, 4 * ZLANES), i += 4 * ZLANES;
  }
  ykeys yk;
  zkeys_low(&yk, &ks, rounds);
  yctr_rest(&yk, rounds, kind, dst, src, len, i, _mm512_castsi512_si256(S), _mm512_castsi512_si256(k0x));
  if (hash) pv_store(acc, pv_update_zmm(table, a, dst + 16 * i, n - i, reversed, order));
}

AVX512_INLINE void avx512_ctr(const int rounds, const int kind, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                              size_t len, const uint8_t *iv) {
  avx512_ctr_hash(rounds, kind, rk, dst, src, len, iv, 0, NULL, NULL, 0);
}

/* The CBC encryptions: serial per chain, the vaes path's. */
AVX512_INLINE void avx512_cbc_enc(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t n,
                                  const uint8_t *iv) {
  vaes_cbc_enc(rounds, rk, dst, src, n, iv);
}
AVX512_INLINE void avx512_cbc_enc_sectors(const int rounds, const uint8_t *rk, uint8_t *dst, const uint8_t *src,
                                          size_t sectors, size_t n, const uint8_t *ivs) {
  vaes_cbc_enc_sectors(rounds, rk, dst, src, sectors, n, ivs);
}

/*
 * be128 (SP 800-38A §6.5, B.1: the whole block one big-endian integer, modulo 2^128) over a CTR_BE64 run
 * `run`: the low 64 bits of the counter (bytes 8 .. 15 of iv) wrap after 2^64 - lo blocks; when that is
 * within the call, the blocks before it run from iv and the rest from iv + (2^64 - lo) = (high half + 1
 * mod 2^64, 0). The branch is on the counter and the length, never on key or data.
 */
typedef void (*ctr_run)(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t len, const uint8_t *iv);

static void ctr_be128(ctr_run run, const uint8_t *k, uint8_t *dst, const uint8_t *src, size_t len,
                      const uint8_t *iv) {
  uint64_t hi = 0, lo = 0;
  for (int b = 0; b < 8; b++) hi = hi << 8 | iv[b], lo = lo << 8 | iv[8 + b];
  const uint64_t before_wrap = 0 - lo; /* blocks until the low half wraps; 0 means 2^64: never in a call */
  const uint64_t blocks = len / 16 + (len % 16 != 0);
  if (lo == 0 || before_wrap >= blocks) {
    run(k, dst, src, len, iv);
    return;
  }
  run(k, dst, src, 16 * (size_t)before_wrap, iv);
  uint8_t next[16] = {0};
  hi += 1;
  for (int b = 0; b < 8; b++) next[b] = (uint8_t)(hi >> (56 - 8 * b));
  const size_t done = 16 * (size_t)before_wrap;
  run(k, dst + done, src + done, len - done, next);
}

/* ---------------------------------------------------------------------------------------------------- */
/* One out-of-line copy per key size (FIPS 197 §5, Figure 4: Nr = 10, 12, 14) and the path tables         */
/* ---------------------------------------------------------------------------------------------------- */

#define INSTANTIATE(P, ATTR, NR, END)                                                                             \
  static ATTR void P##_ecb_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t n) {                   \
    P##_ecb(NR, 0, k, d, s, n);                                                                                   \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_ecb_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t n) {                   \
    P##_ecb(NR, 1, k, d, s, n);                                                                                   \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_cbc_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t n, const uint8_t *iv) { \
    P##_cbc_enc(NR, k, d, s, n, iv);                                                                              \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_sectors_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t ns, size_t sb,     \
                                        const uint8_t *ivs) {                                                     \
    P##_cbc_dec_sectors(NR, k, d, s, ns, sb, ivs);                                                                \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_sectors_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t ns, size_t sb,     \
                                        const uint8_t *ivs) {                                                     \
    P##_cbc_enc_sectors(NR, k, d, s, ns, sb, ivs);                                                                \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_xts_enc_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t nu, size_t ub,         \
                                    const uint8_t *tw) {                                                          \
    P##_xts(NR, 0, k, d, s, nu, ub, tw);                                                                          \
    END;                                                                                                          \
  }                                                                                                               \
  static ATTR void P##_xts_dec_##NR(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t nu, size_t ub,         \
                                    const uint8_t *tw) {                                                          \
    P##_xts(NR, 1, k, d, s, nu, ub, tw);                                                                          \
    END;                                                                                                          \
  }

#define NOTHING ((void)0)
#define ZEROUPPER _mm256_zeroupper()

/* CTR: one copy per key size and counter kind (so that the counter arithmetic is straight-line code). */
#define CTR_INSTANTIATE(P, ATTR, NR, KIND, END)                                                                   \
  static ATTR void P##_ctr_##NR##_##KIND(const uint8_t *k, uint8_t *d, const uint8_t *s, size_t len,              \
                                         const uint8_t *iv) {                                                     \
    P##_ctr(NR, KIND, k, d, s, len, iv);                                                                          \
    END;                                                                                                          \
  }
#define CTR_KINDS(P, ATTR, NR, END)                 \
  CTR_INSTANTIATE(P, ATTR, NR, CTR_BE64, END)       \
  CTR_INSTANTIATE(P, ATTR, NR, CTR_BE32, END)       \
  CTR_INSTANTIATE(P, ATTR, NR, CTR_XCTR, END)

INSTANTIATE(aesni, AESNI_TARGET, 10, NOTHING)
INSTANTIATE(aesni, AESNI_TARGET, 12, NOTHING)
INSTANTIATE(aesni, AESNI_TARGET, 14, NOTHING)
INSTANTIATE(vaes, VAES_TARGET, 10, ZEROUPPER)
INSTANTIATE(vaes, VAES_TARGET, 12, ZEROUPPER)
INSTANTIATE(vaes, VAES_TARGET, 14, ZEROUPPER)
INSTANTIATE(avx512, AVX512_TARGET, 10, ZEROUPPER)
INSTANTIATE(avx512, AVX512_TARGET, 12, ZEROUPPER)
INSTANTIATE(avx512, AVX512_TARGET, 14, ZEROUPPER)
CTR_KINDS(aesni, AESNI_TARGET, 10, NOTHING)
CTR_KINDS(aesni, AESNI_TARGET, 12, NOTHING)
CTR_KINDS(aesni, AESNI_TARGET, 14, NOTHING)
CTR_KINDS(vaes, VAES_TARGET, 10, ZEROUPPER)
CTR_KINDS(vaes, VAES_TARGET, 12, ZEROUPPER)
CTR_KINDS(vaes, VAES_TARGET, 14, ZEROUPPER)
CTR_KINDS(avx512, AVX512_TARGET, 10, ZEROUPPER)
CTR_KINDS(avx512, AVX512_TARGET, 12, ZEROUPPER)
CTR_KINDS(avx512, AVX512_TARGET, 14, ZEROUPPER)

/* ctr_polyval (avx512 only): xctr (HCTR2's) and be32 (GCM's seal), per key size. */
#define CTR_POLYVAL_INSTANTIATE(NR, KIND)                                                                        \
  static AVX512_TARGET void avx512_ctr_polyval_##NR##_##KIND(const uint8_t *k, uint8_t *d, const uint8_t *s,      \
                                                             size_t len, const uint8_t *iv, const uint8_t *table, \
                                                             uint8_t *acc, int reversed) {                        \
    if (reversed)                                                                                               \
      avx512_ctr_hash(NR, KIND, k, d, s, len, iv, 1, table, acc, 1);                                            \
    else                                                                                                        \
      avx512_ctr_hash(NR, KIND, k, d, s, len, iv, 1, table, acc, 0);                                            \
    ZEROUPPER;                                                                                                  \
  }
CTR_POLYVAL_INSTANTIATE(10, CTR_XCTR)
CTR_POLYVAL_INSTANTIATE(12, CTR_XCTR)
CTR_POLYVAL_INSTANTIATE(14, CTR_XCTR)
CTR_POLYVAL_INSTANTIATE(10, CTR_BE32)
CTR_POLYVAL_INSTANTIATE(12, CTR_BE32)
CTR_POLYVAL_INSTANTIATE(14, CTR_BE32)

#define CTR_POLYVAL_KIND(NR, ...)                                           \
  switch (counter) {                                                       \
    case CTR_XCTR: avx512_ctr_polyval_##NR##_CTR_XCTR(__VA_ARGS__); break; \
    case CTR_BE32: avx512_ctr_polyval_##NR##_CTR_BE32(__VA_ARGS__); break; \
    default: break;                                                        \
  }

static void avx512_ctr_polyval(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len,
                               const uint8_t *iv, int counter, const uint8_t *table, uint8_t *acc, int reversed) {
  switch (rounds) {
    case 10: CTR_POLYVAL_KIND(10, rk, dst, src, len, iv, table, acc, reversed) break;
    case 12: CTR_POLYVAL_KIND(12, rk, dst, src, len, iv, table, acc, reversed) break;
    case 14: CTR_POLYVAL_KIND(14, rk, dst, src, len, iv, table, acc, reversed) break;
    default: break;
  }
}

/* The contract's entry points: one switch on the round count per call (other counts do nothing). */
#define DISPATCH(NAME, ...)                \
  switch (rounds) {                        \
    case 10: NAME##_10(__VA_ARGS__); break; \
    case 12: NAME##_12(__VA_ARGS__); break; \
    case 14: NAME##_14(__VA_ARGS__); break; \
    default: break;                        \
  }

/* The CTR entry: one switch on the round count, one on the counter kind (other values do nothing). */
#define CTR_DISPATCH_KIND(NAME, NR, ...)                        \
  switch (counter) {                                            \
    case AES_NATIVE_CTR_BE128: ctr_be128(NAME##_##NR##_CTR_BE64, __VA_ARGS__); break; \
    case CTR_BE32: NAME##_##NR##_CTR_BE32(__VA_ARGS__); break;   \
    case CTR_XCTR: NAME##_##NR##_CTR_XCTR(__VA_ARGS__); break;   \
    default: break;                                             \
  }
#define CTR_DISPATCH(NAME, ...)                                     \
  switch (rounds) {                                                 \
    case 10: CTR_DISPATCH_KIND(NAME, 10, __VA_ARGS__) break;         \
    case 12: CTR_DISPATCH_KIND(NAME, 12, __VA_ARGS__) break;         \
    case 14: CTR_DISPATCH_KIND(NAME, 14, __VA_ARGS__) break;         \
    default: break;                                                 \
  }

#define ENTRY_POINTS(P, POLYVAL_UPDATE, HBSH, CTR_POLYVAL)                                                                           \
  static void P##_encrypt_blocks(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks) { \
    DISPATCH(P##_ecb_enc, rk, dst, src, blocks)                                                                   \
  }                                                                                                               \
  static void P##_decrypt_blocks(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks) { \
    DISPATCH(P##_ecb_dec, dk, dst, src, blocks)                                                                   \
  }                                                                                                               \
  static void P##_cbc_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks,     \
                              const uint8_t *iv) {                                                                \
    DISPATCH(P##_cbc_enc, rk, dst, src, blocks, iv)                                                               \
  }                                                                                                               \
  static void P##_cbc_decrypt_sectors(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src,            \
                                      size_t sectors, size_t sector_blocks, const uint8_t *ivs) {                 \
    DISPATCH(P##_sectors_dec, dk, dst, src, sectors, sector_blocks, ivs)                                          \
  }                                                                                                               \
  static void P##_cbc_encrypt_sectors(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src,            \
                                      size_t sectors, size_t sector_blocks, const uint8_t *ivs) {                 \
    DISPATCH(P##_sectors_enc, rk, dst, src, sectors, sector_blocks, ivs)                                          \
  }                                                                                                               \
  static void P##_xts_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,      \
                              size_t unit_blocks, const uint8_t *tweaks) {                                        \
    DISPATCH(P##_xts_enc, rk, dst, src, units, unit_blocks, tweaks)                                               \
  }                                                                                                               \
  static void P##_xts_decrypt(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,      \
                              size_t unit_blocks, const uint8_t *tweaks) {                                        \
    DISPATCH(P##_xts_dec, dk, dst, src, units, unit_blocks, tweaks)                                               \
  }                                                                                                               \
  static void P##_ctr_entry(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len,          \
                            const uint8_t *iv, int counter) {                                                     \
    CTR_DISPATCH(P##_ctr, rk, dst, src, len, iv)                                                                  \
  }                                                                                                               \
  static const aes_native_path P##_path = {                                                                       \
      #P,                                                                                                         \
      cpu_has_##P,                                                                                                \
      P##_encrypt_blocks,                                                                                         \
      P##_decrypt_blocks,                                                                                         \
      P##_cbc_encrypt,                                                                                            \
      P##_cbc_decrypt_sectors,                                                                                    \
      P##_cbc_encrypt_sectors,                                                                                    \
      P##_xts_encrypt,                                                                                            \
      P##_xts_decrypt,                                                                                            \
      P##_ctr_entry,                                                                                              \
      x64_polyval_init,                                                                                           \
      POLYVAL_UPDATE,                                                                                             \
      &HBSH,                                                                                                      \
      &x64_elephant_avx2,                                                                                         \
      CTR_POLYVAL,                                                                                                \
  };

ENTRY_POINTS(aesni, x64_polyval_update_clmul, x64_hbsh_avx2, NULL)
ENTRY_POINTS(vaes, x64_polyval_update_vclmul, x64_hbsh_avx2, NULL)
ENTRY_POINTS(avx512, x64_polyval_update_v512, x64_hbsh_avx512, avx512_ctr_polyval)

const aes_native_path *const aes_native_paths[] = {&avx512_path, &vaes_path, &aesni_path, NULL};

#else /* not x86-64: no paths */

const aes_native_path *const aes_native_paths[] = {NULL};

#endif

const char aes_native_prefix[] = "@x/aes-native-x64: ";
