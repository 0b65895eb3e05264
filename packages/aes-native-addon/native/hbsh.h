/*
 * Adiantum and HPolyC (Crowley and Biggers, "Adiantum: length-preserving encryption for entry-level
 * processors", ToSC 2018(4)) in the glue, included by addon.c: the HBSH passes of whole messages and of
 * batches of sectors, one native call each, over
 *   - a path's `hbsh` primitives (aes_native.h: ChaCha keystream, NH), or the portable C ones below;
 *   - HChaCha and Poly1305 (the polynomial alone, without its final `+ s`), written here once in C;
 *   - the path's own one-block AES-256 (`encrypt_blocks`/`decrypt_blocks` of a Keyed instance).
 *
 * A message P = P_L ‖ P_R (P_R its last 16 bytes) under tweak T, ⊞/⊟ addition and subtraction of 16-byte
 * little-endian integers mod 2^128 (§2.3); encryption and decryption are one procedure:
 *   X = R_in ⊞ H(T, L_in);  Y = E(X) (D to decrypt);  N = Y (X to decrypt);
 *   L_out = L_in ⊕ XChaCha(N ‖ 1 ‖ 0^7);  R_out = Y ⊟ H(T, L_out).
 * Adiantum: H(T, M) = Poly1305_{K_T}(le128(8·|M|) ‖ T) ⊞ Poly1305_{K_M}(NH_{K_N}(M zero-padded)), NH per
 * 1024 bytes into 32; HPolyC: H(T, M) = Poly1305_{K_H}(le32(8·|T|) ‖ T zero-padded to 16 ‖ M). The subkeys
 * are XChaCha(K, 01 ‖ 0^23): K_E (32), then K_T, K_M, K_N (1072) or K_H.
 *
 * Constant time: ChaCha is add-rotate-xor; NH and Poly1305 are additions and multiplications of fixed
 * width; Poly1305's final reduction selects by a mask. Every branch and index here depends on lengths only.
 */
#ifndef X_AES_NATIVE_HBSH_H
#define X_AES_NATIVE_HBSH_H

#include <stdint.h>
#include <string.h>

#include "aes_native.h"

/* Bytes of subkeys: K_E 32, K_T 16, K_M 16, K_N 1072 (Adiantum); K_E 32, K_H 16 (HPolyC). */
#define HBSH_DERIVED_ADIANTUM (32 + 16 + 16 + 1072)
#define HBSH_DERIVED_HPOLYC (32 + 16)
/* NH: 1024-byte chunks of 64 units; its key is 1072 bytes (268 words: 64 units + 3 more for the passes). */
#define HBSH_NH_UNITS 64
#define HBSH_NH_KEY_WORDS 268

static inline uint32_t hbsh_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t hbsh_le64(const uint8_t *p) { return (uint64_t)hbsh_le32(p) | (uint64_t)hbsh_le32(p + 4) << 32; }
static inline void hbsh_put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#define HBSH_ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define HBSH_QR(a, b, c, d)                                                                                       \
  a += b, d ^= a, d = HBSH_ROTL(d, 16), c += d, b ^= c, b = HBSH_ROTL(b, 12), a += b, d ^= a, d = HBSH_ROTL(d, 8), \
  c += d, b ^= c, b = HBSH_ROTL(b, 7)

/* The ChaCha permutation (RFC 8439 §2.3) of `in`, `rounds` rounds, into `out` (without adding the input). */
static void hbsh_permute(const uint32_t in[16], int rounds, uint32_t out[16]) {
  uint32_t x[16];
  memcpy(x, in, sizeof x);
  for (int r = 0; r < rounds; r += 2) {
    HBSH_QR(x[0], x[4], x[8], x[12]);
    HBSH_QR(x[1], x[5], x[9], x[13]);
    HBSH_QR(x[2], x[6], x[10], x[14]);
    HBSH_QR(x[3], x[7], x[11], x[15]);
    HBSH_QR(x[0], x[5], x[10], x[15]);
    HBSH_QR(x[1], x[6], x[11], x[12]);
    HBSH_QR(x[2], x[7], x[8], x[13]);
    HBSH_QR(x[3], x[4], x[9], x[14]);
  }
  memcpy(out, x, sizeof x);
  wipe(x, sizeof x);
}

/* The portable ChaCha keystream XOR (aes_native_hbsh.chacha_xor): one 64-byte block at a time. */
static void hbsh_chacha_xor_c(const uint32_t state[16], int rounds, uint8_t *dst, const uint8_t *src, size_t len) {
  uint32_t s[16], o[16];
  uint8_t ks[64];
  memcpy(s, state, sizeof s);
  for (size_t at = 0; at < len; at += 64) {
    hbsh_permute(s, rounds, o);
    for (int i = 0; i < 16; i++) {
      const uint32_t w = o[i] + s[i];
      for (int j = 0; j < 4; j++) ks[4 * i + j] = (uint8_t)(w >> (8 * j));
    }
    const size_t n = len - at < 64 ? len - at : 64;
    for (size_t i = 0; i < n; i++) dst[at + i] = src[at + i] ^ ks[i];
    if (++s[12] == 0) s[13]++;
  }
  wipe(s, sizeof s);
  wipe(o, sizeof o);
  wipe(ks, sizeof ks);
}

/* The portable NH (aes_native_hbsh.nh). */
static void hbsh_nh_c(const uint32_t *key, const uint8_t *msg, size_t units, uint64_t sums[4]) {
  for (size_t u = 0; u < units; u++) {
    const uint32_t m0 = hbsh_le32(msg + 16 * u), m1 = hbsh_le32(msg + 16 * u + 4);
    const uint32_t m2 = hbsh_le32(msg + 16 * u + 8), m3 = hbsh_le32(msg + 16 * u + 12);
    for (int i = 0; i < 4; i++) {
      const uint32_t *k = key + 4 * u + 4 * i;
      sums[i] += (uint64_t)(uint32_t)(m0 + k[0]) * (uint32_t)(m2 + k[2]) +
                 (uint64_t)(uint32_t)(m1 + k[1]) * (uint32_t)(m3 + k[3]);
    }
  }
}

static int hbsh_always(void) { return 1; }

static const aes_native_hbsh hbsh_portable = {"c", hbsh_always, hbsh_chacha_xor_c, hbsh_nh_c, NULL, NULL};

/* The primitives of `path`: its own where it has them and the CPU runs them, else the portable C. */
static const aes_native_hbsh *hbsh_ops(const aes_native_path *path) {
  return path->hbsh != NULL && path->hbsh->available() ? path->hbsh : &hbsh_portable;
}

/*
 * --- Poly1305's polynomial (RFC 8439 §2.5) in radix 2^64: h = h0 + 2^64·h1 + 2^128·h2 (h2 a few bits),
 * h = (h + c + pad)·r mod 2^130 − 5, partly reduced. With r = r0 + 2^64·r1 and r1 a multiple of 4 (the
 * clamp), 2^128·r1 = 2^130·(r1/4) ≡ 5·(r1/4) = s1: the products above 2^128 fold back as multiples of s1.
 */

/* 2^128 in h2. */
#define HBSH_HIBIT 1ULL

/*
 * A clamped key r as two words and s1 = r1 + r1/4 (one block at a time, radix 2^64); and r and r^2 as
 * 44/44/42-bit limbs with 20·limbs 1, 2 (two blocks at a time: 2^132 ≡ 20), for h = (h + m1)·r^2 + m2·r.
 */
typedef struct {
  uint64_t r0, r1, s1;
  uint64_t p[3], ps1, ps2; /* r */
  uint64_t q[3], qs1, qs2; /* r^2 mod 2^130 − 5, partly reduced */
  uint64_t pw[8][3];       /* r^1 .. r^8, as p and q, for the SIMD primitives' poly_blocks */
} hbsh_poly_key;

#define HBSH_M44 0xfffffffffffULL
#define HBSH_M42 0x3ffffffffffULL

typedef unsigned __int128 hbsh_u128;

/* d0..d2 (column sums of a product at 2^0, 2^44, 2^88) carried into limbs of 44, 44, 42 bits (the first a bit more). */
static inline void hbsh_carry44(hbsh_u128 d0, hbsh_u128 d1, hbsh_u128 d2, uint64_t l[3]) {
  uint64_t c = (uint64_t)(d0 >> 44);
  l[0] = (uint64_t)d0 & HBSH_M44;
  d1 += c;
  c = (uint64_t)(d1 >> 44);
  l[1] = (uint64_t)d1 & HBSH_M44;
  d2 += c;
  c = (uint64_t)(d2 >> 42);
  l[2] = (uint64_t)d2 & HBSH_M42;
  l[0] += c * 5;
  c = l[0] >> 44;
  l[0] &= HBSH_M44;
  l[1] += c;
}

static void hbsh_poly_key_init(hbsh_poly_key *k, const uint8_t r[16]) {
  /* The clamp of RFC 8439 §2.5.1: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff. */
  k->r0 = hbsh_le64(r) & 0x0ffffffc0fffffffULL;
  k->r1 = hbsh_le64(r + 8) & 0x0ffffffc0ffffffcULL;
  k->s1 = k->r1 + (k->r1 >> 2);
  const uint64_t *p = k->p;
  k->p[0] = k->r0 & HBSH_M44;
  k->p[1] = (k->r0 >> 44 | k->r1 << 20) & HBSH_M44;
  k->p[2] = k->r1 >> 24;
  k->ps1 = p[1] * 20;
  k->ps2 = p[2] * 20;
  /*
   * r^1 .. r^8 (r^2 the pair loop's q): r^(j+1) = r^j · r from the schoolbook product's columns, the terms
   * at 2^132 and up folded as 20.
   */
  memcpy(k->pw[0], k->p, sizeof k->pw[0]);
  for (int j = 1; j < 8; j++) {
    const uint64_t *a = k->pw[j - 1];
    hbsh_carry44((hbsh_u128)a[0] * p[0] + (hbsh_u128)a[1] * k->ps2 + (hbsh_u128)a[2] * k->ps1,
                 (hbsh_u128)a[0] * p[1] + (hbsh_u128)a[1] * p[0] + (hbsh_u128)a[2] * k->ps2,
                 (hbsh_u128)a[0] * p[2] + (hbsh_u128)a[1] * p[1] + (hbsh_u128)a[2] * p[0], k->pw[j]);
  }
  memcpy(k->q, k->pw[1], sizeof k->q);
  k->qs1 = k->q[1] * 20;
  k->qs2 = k->q[2] * 20;
}

/*
 * Pairs of whole blocks (pairs ≥ 1) into h (radix 2^64 on entry and exit): h = (h + m1)·r^2 + m2·r, the
 * two products independent of each other, on 44-bit limbs.
 */
static void hbsh_poly_pairs(uint64_t h[3], const hbsh_poly_key *k, const uint8_t *m, size_t pairs) {
  uint64_t a0 = h[0] & HBSH_M44, a1 = (h[0] >> 44 | h[1] << 20) & HBSH_M44, a2 = h[1] >> 24 | h[2] << 40;
  const uint64_t q0 = k->q[0], q1 = k->q[1], q2 = k->q[2], qs1 = k->qs1, qs2 = k->qs2;
  const uint64_t p0 = k->p[0], p1 = k->p[1], p2 = k->p[2], ps1 = k->ps1, ps2 = k->ps2;
  uint64_t l[3];
  for (size_t i = 0; i < pairs; i++, m += 32) {
    const uint64_t t0 = hbsh_le64(m), t1 = hbsh_le64(m + 8), u0 = hbsh_le64(m + 16), u1 = hbsh_le64(m + 24);
    a0 += t0 & HBSH_M44;
    a1 += (t0 >> 44 | t1 << 20) & HBSH_M44;
    a2 += t1 >> 24 | 1ULL << 40;
    const uint64_t b0 = u0 & HBSH_M44, b1 = (u0 >> 44 | u1 << 20) & HBSH_M44, b2 = u1 >> 24 | 1ULL << 40;
    const hbsh_u128 d0 = (hbsh_u128)a0 * q0 + (hbsh_u128)a1 * qs2 + (hbsh_u128)a2 * qs1 + (hbsh_u128)b0 * p0 +
                         (hbsh_u128)b1 * ps2 + (hbsh_u128)b2 * ps1;
    const hbsh_u128 d1 = (hbsh_u128)a0 * q1 + (hbsh_u128)a1 * q0 + (hbsh_u128)a2 * qs2 + (hbsh_u128)b0 * p1 +
                         (hbsh_u128)b1 * p0 + (hbsh_u128)b2 * ps2;
    const hbsh_u128 d2 = (hbsh_u128)a0 * q2 + (hbsh_u128)a1 * q1 + (hbsh_u128)a2 * q0 + (hbsh_u128)b0 * p2 +
                         (hbsh_u128)b1 * p1 + (hbsh_u128)b2 * p0;
    hbsh_carry44(d0, d1, d2, l);
    a0 = l[0], a1 = l[1], a2 = l[2];
  }
  /* Back to radix 2^64, limb 1 carried first so that it fits its 44 bits. */
  a2 += a1 >> 44;
  a1 &= HBSH_M44;
  h[0] = a0 | a1 << 44;
  h[1] = a1 >> 20 | a2 << 24;
  h[2] = a2 >> 40;
  wipe(l, sizeof l);
}

/* `blocks` 16-byte blocks of m into h, each + hibit·2^128 (HBSH_HIBIT for whole blocks, 0 for a padded one). */
static void hbsh_poly_blocks(uint64_t h[3], const hbsh_poly_key *k, const uint8_t *m, size_t blocks, uint64_t hibit) {
  if (hibit != 0 && blocks >= 2) {
    hbsh_poly_pairs(h, k, m, blocks / 2);
    m += 32 * (blocks / 2);
    blocks %= 2;
  }
  uint64_t h0 = h[0], h1 = h[1], h2 = h[2];
  const uint64_t r0 = k->r0, r1 = k->r1, s1 = k->s1;
  for (size_t b = 0; b < blocks; b++, m += 16) {
    hbsh_u128 t = (hbsh_u128)h0 + hbsh_le64(m);
    h0 = (uint64_t)t;
    t = (hbsh_u128)h1 + hbsh_le64(m + 8) + (uint64_t)(t >> 64);
    h1 = (uint64_t)t;
    h2 += (uint64_t)(t >> 64) + hibit;
    /* h·r: d0 + 2^64·d1 + 2^128·d2, the terms at 2^128 and 2^192 of h1·r1, h2·r1 folded by s1. */
    const hbsh_u128 d0 = (hbsh_u128)h0 * r0 + (hbsh_u128)h1 * s1;
    const hbsh_u128 d1 = (hbsh_u128)h0 * r1 + (hbsh_u128)h1 * r0 + (hbsh_u128)h2 * s1 + (uint64_t)(d0 >> 64);
    const uint64_t d2 = h2 * r0 + (uint64_t)(d1 >> 64);
    /* 2^128·d2 = 2^130·(d2 >> 2) + 2^128·(d2 & 3), and 2^130 ≡ 5: add 5·(d2 >> 2) = (d2 & ~3) + (d2 >> 2). */
    const uint64_t c = (d2 & ~3ULL) + (d2 >> 2);
    t = (hbsh_u128)(uint64_t)d0 + c;
    h0 = (uint64_t)t;
    t = (hbsh_u128)(uint64_t)d1 + (uint64_t)(t >> 64);
    h1 = (uint64_t)t;
    h2 = (d2 & 3) + (uint64_t)(t >> 64);
  }
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
}

/* n bytes of m into h: whole blocks, then a last partial one padded with 1 and zeros through tmp (16). */
static void hbsh_poly_bytes(uint64_t h[3], const hbsh_poly_key *k, const uint8_t *m, size_t n, uint8_t *tmp) {
  hbsh_poly_blocks(h, k, m, n / 16, HBSH_HIBIT);
  const size_t rem = n % 16;
  if (rem != 0) {
    memset(tmp, 0, 16);
    memcpy(tmp, m + n - rem, rem);
    tmp[rem] = 1;
    hbsh_poly_blocks(h, k, tmp, 1, 0);
  }
}

/* h fully reduced mod 2^130 − 5, its low 128 bits as two words; the choice by a mask, not a branch. */
static void hbsh_poly_emit(const uint64_t hin[3], uint64_t out[2]) {
  /* Fold h2's bits above 2^130 (h < 2^130 + 2^66 after), then h ≥ p exactly when h + 5 reaches 2^130. */
  const uint64_t c = (hin[2] & ~3ULL) + (hin[2] >> 2);
  hbsh_u128 t = (hbsh_u128)hin[0] + c;
  const uint64_t h0 = (uint64_t)t;
  t = (hbsh_u128)hin[1] + (uint64_t)(t >> 64);
  const uint64_t h1 = (uint64_t)t;
  const uint64_t h2 = (hin[2] & 3) + (uint64_t)(t >> 64);
  t = (hbsh_u128)h0 + 5;
  const uint64_t g0 = (uint64_t)t;
  t = (hbsh_u128)h1 + (uint64_t)(t >> 64);
  const uint64_t g1 = (uint64_t)t;
  const uint64_t g2 = h2 + (uint64_t)(t >> 64);
  const uint64_t take_g = 0 - (g2 >> 2); /* all ones when h + 5 ≥ 2^130 */
  out[0] = (h0 & ~take_g) | (g0 & take_g);
  out[1] = (h1 & ~take_g) | (g1 & take_g);
}

/* --- The cipher's state: the subkeys, in memory wiped on dispose and at garbage collection. --- */

enum { HBSH_TAG = 0x68627368 };

typedef struct {
  uint32_t tag; /* HBSH_TAG */
  int live;     /* 0 once wiped */
  int rounds;   /* XChaCha's: 8, 12, 20 */
  int hpolyc;
  const aes_native_hbsh *ops;
  /* ops->poly_blocks where this CPU runs it, else NULL (the C here); decided once, at construction. */
  void (*poly)(uint64_t h[3], const uint64_t pows[8][3], const uint8_t *m, size_t blocks);
  uint32_t key[8];         /* K, XChaCha's key */
  hbsh_poly_key kt, km;    /* Adiantum K_T and K_M; HPolyC K_H in kt */
  uint32_t nh_key[HBSH_NH_KEY_WORDS] __attribute__((aligned(32)));
} hbsh_t;

/* s's primitives: `ops`, and ops' Poly1305 where this CPU runs it (decided once, when the key is made). */
static void hbsh_use(hbsh_t *s, const aes_native_hbsh *ops) {
  s->ops = ops;
  s->poly = ops->poly_blocks != NULL && ops->poly_available() ? ops->poly_blocks : NULL;
}

static const uint32_t hbsh_sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

/*
 * The XChaCha input state (draft-irtf-cfrg-xchacha-03 §2.3, ChaCha with `rounds` rounds) for the key and
 * the 24-byte nonce `n`: HChaCha's subkey, the counter 0, the nonce's last 8 bytes.
 */
static void hbsh_xchacha_state(const uint32_t key[8], int rounds, const uint8_t n[24], uint32_t st[16]) {
  uint32_t in[16], o[16];
  memcpy(in, hbsh_sigma, 16);
  memcpy(in + 4, key, 32);
  for (int i = 0; i < 4; i++) in[12 + i] = hbsh_le32(n + 4 * i);
  hbsh_permute(in, rounds, o);
  memcpy(st, hbsh_sigma, 16);
  memcpy(st + 4, o, 16);
  memcpy(st + 8, o + 12, 16);
  st[12] = 0;
  st[13] = 0;
  st[14] = hbsh_le32(n + 16);
  st[15] = hbsh_le32(n + 20);
  wipe(in, sizeof in);
  wipe(o, sizeof o);
}

/*
 * The header's hash state of a message whose left part is n bytes, under the tweak t (tlen bytes), into
 * a (3 limbs, from 0). Adiantum: Poly1305_{K_T} over le128(8n) ‖ T (a partial last block padded with 1);
 * HPolyC: Poly1305_{K_H} over le32(8·tlen) ‖ T zero-padded to whole blocks.
 */
static void hbsh_header(const hbsh_t *s, uint64_t a[3], size_t n, const uint8_t *t, size_t tlen, uint8_t *tmp) {
  a[0] = a[1] = a[2] = 0;
  if (!s->hpolyc) {
    hbsh_put64(tmp, (uint64_t)n << 3);
    hbsh_put64(tmp + 8, (uint64_t)n >> 61);
    hbsh_poly_blocks(a, &s->kt, tmp, 1, HBSH_HIBIT);
    hbsh_poly_bytes(a, &s->kt, t, tlen, tmp);
    return;
  }
  const uint32_t bits = (uint32_t)(8 * tlen);
  const size_t first = tlen < 12 ? tlen : 12;
  memset(tmp, 0, 16);
  for (int i = 0; i < 4; i++) tmp[i] = (uint8_t)(bits >> (8 * i));
  memcpy(tmp + 4, t, first);
  hbsh_poly_blocks(a, &s->kt, tmp, 1, HBSH_HIBIT);
  const size_t rest = tlen - first;
  hbsh_poly_blocks(a, &s->kt, t + first, rest / 16, HBSH_HIBIT);
  if (rest % 16 != 0) {
    memset(tmp, 0, 16);
    memcpy(tmp, t + tlen - rest % 16, rest % 16);
    hbsh_poly_blocks(a, &s->kt, tmp, 1, HBSH_HIBIT);
  }
}

/*
 * out = H(T, M) for the n bytes of m, from the header's state `a` (kept as it is). Adiantum: NH of m
 * zero-padded to whole units, per 64 units, each output (32 bytes) two blocks of Poly1305_{K_M};
 * reduce(A) ⊞ reduce(B). HPolyC: m continues A; reduce(A).
 */
static void hbsh_hash(const hbsh_t *s, const uint64_t a[3], const uint8_t *m, size_t n, uint64_t out[2],
                      uint8_t *tmp) {
  uint64_t acc[3] = {a[0], a[1], a[2]};
  if (s->hpolyc) {
    const size_t bulk = (n / 16) & ~(size_t)7; /* whole groups of 8 blocks for the SIMD primitive */
    if (s->poly != NULL && bulk != 0) {
      s->poly(acc, s->kt.pw, m, bulk);
      m += 16 * bulk;
      n -= 16 * bulk;
    }
    hbsh_poly_bytes(acc, &s->kt, m, n, tmp);
    hbsh_poly_emit(acc, out);
    wipe(acc, sizeof acc);
    return;
  }
  uint64_t b[3] = {0, 0, 0}, ha[2], hb[2], sums[4];
  const size_t units = n / 16, padded = (n + 15) / 16;
  for (size_t at = 0; at < padded; at += HBSH_NH_UNITS) {
    const size_t end = padded - at < HBSH_NH_UNITS ? padded : at + HBSH_NH_UNITS;
    const size_t whole = (end < units ? end : units) - at;
    sums[0] = sums[1] = sums[2] = sums[3] = 0;
    s->ops->nh(s->nh_key, m + 16 * at, whole, sums);
    if (at + whole < end) {
      memset(tmp, 0, 16);
      memcpy(tmp, m + 16 * units, n % 16);
      s->ops->nh(s->nh_key + 4 * whole, tmp, 1, sums);
    }
    uint8_t nh_out[32];
    for (int i = 0; i < 4; i++) hbsh_put64(nh_out + 8 * i, sums[i]);
    hbsh_poly_blocks(b, &s->km, nh_out, 2, HBSH_HIBIT);
    wipe(nh_out, sizeof nh_out);
  }
  hbsh_poly_emit(acc, ha);
  hbsh_poly_emit(b, hb);
  out[0] = ha[0] + hb[0];
  out[1] = ha[1] + hb[1] + (out[0] < ha[0]);
  wipe(acc, sizeof acc);
  wipe(b, sizeof b);
  wipe(ha, sizeof ha);
  wipe(hb, sizeof hb);
  wipe(sums, sizeof sums);
}

/* dst = base ⊞ h (sign 0) or base ⊟ h (sign 1), 16-byte little-endian integers mod 2^128; dst may be base. */
static void hbsh_add128(uint8_t *dst, const uint8_t *base, const uint64_t h[2], int sign) {
  const uint64_t b0 = hbsh_le64(base), b1 = hbsh_le64(base + 8);
  uint64_t lo, hi;
  if (sign) {
    lo = b0 - h[0];
    hi = b1 - h[1] - (b0 < h[0]);
  } else {
    lo = b0 + h[0];
    hi = b1 + h[1] + (lo < b0);
  }
  hbsh_put64(dst, lo);
  hbsh_put64(dst + 8, hi);
}

/*
 * Derives the subkeys of the 32-byte key k: XChaCha_rounds(K, 01 ‖ 0^23) over zeros, K_E into ke (32
 * bytes, for the caller's AES key schedule), the hash keys into s.
 */
static void hbsh_derive(hbsh_t *s, const uint8_t k[32], uint8_t ke[32]) {
  uint8_t nonce[24] = {1};
  uint8_t d[HBSH_DERIVED_ADIANTUM];
  uint32_t st[16];
  const size_t bytes = s->hpolyc ? HBSH_DERIVED_HPOLYC : HBSH_DERIVED_ADIANTUM;
  for (int i = 0; i < 8; i++) s->key[i] = hbsh_le32(k + 4 * i);
  memset(d, 0, bytes);
  hbsh_xchacha_state(s->key, s->rounds, nonce, st);
  s->ops->chacha_xor(st, s->rounds, d, d, bytes);
  memcpy(ke, d, 32);
  hbsh_poly_key_init(&s->kt, d + 32);
  if (!s->hpolyc) {
    hbsh_poly_key_init(&s->km, d + 48);
    for (int i = 0; i < HBSH_NH_KEY_WORDS; i++) s->nh_key[i] = hbsh_le32(d + 64 + 4 * i);
  }
  wipe(d, sizeof d);
  wipe(st, sizeof st);
}

/* Messages whose one-block AES calls run as one batch: the stack holds X, Y and the header state of each. */
#define HBSH_GROUP 8

/*
 * HBSH of `count` messages of `unit` bytes (≥ 16), message u at src + u·unit under the tweak
 * tweaks + u·tweak_bytes, into dst (the same bytes as src, or not overlapping it; the tweaks not
 * overlapping dst), with the AES-256 round keys of `aes` on `aes_path`. Per group: X of each message
 * (reading all of it before anything is written), one batched E (or D), then the stream and the second
 * hash of each. Every stack temporary is wiped before returning.
 */
static void hbsh_crypt(const hbsh_t *s, const aes_native_path *aes_path, const uint8_t *ek, const uint8_t *dk,
                       uint8_t *dst, const uint8_t *src, size_t count, size_t unit, const uint8_t *tweaks,
                       size_t tweak_bytes, int decrypt) {
  uint8_t x[16 * HBSH_GROUP] __attribute__((aligned(16)));
  uint8_t y[16 * HBSH_GROUP] __attribute__((aligned(16)));
  uint64_t states[3 * HBSH_GROUP];
  uint64_t h[2];
  uint8_t tmp[16], nonce[24];
  uint32_t st[16];
  const size_t n = unit - 16;
  for (size_t g = 0; g < count; g += HBSH_GROUP) {
    const size_t m = count - g < HBSH_GROUP ? count - g : HBSH_GROUP;
    for (size_t j = 0; j < m; j++) {
      const uint8_t *in = src + (g + j) * unit;
      hbsh_header(s, states + 3 * j, n, tweaks + (g + j) * tweak_bytes, tweak_bytes, tmp);
      hbsh_hash(s, states + 3 * j, in, n, h, tmp);
      hbsh_add128(x + 16 * j, in + n, h, 0);
    }
    if (decrypt)
      aes_path->decrypt_blocks(dk, 14, y, x, m);
    else
      aes_path->encrypt_blocks(ek, 14, y, x, m);
    for (size_t j = 0; j < m; j++) {
      const uint8_t *in = src + (g + j) * unit;
      uint8_t *out = dst + (g + j) * unit;
      memcpy(nonce, (decrypt ? x : y) + 16 * j, 16);
      nonce[16] = 1;
      memset(nonce + 17, 0, 7);
      hbsh_xchacha_state(s->key, s->rounds, nonce, st);
      s->ops->chacha_xor(st, s->rounds, out, in, n);
      hbsh_hash(s, states + 3 * j, out, n, h, tmp);
      hbsh_add128(out + n, y + 16 * j, h, 1);
    }
  }
  wipe(x, sizeof x);
  wipe(y, sizeof y);
  wipe(states, sizeof states);
  wipe(h, sizeof h);
  wipe(tmp, sizeof tmp);
  wipe(nonce, sizeof nonce);
  wipe(st, sizeof st);
}

#endif
