/*
 * The Node-API glue of @x's native AES kernels, written once for all of them: it is compiled together
 * with one kernel's sources (aes_arm64.c, aes_x64.c), which define the code paths it serves (see
 * aes_native.h).
 *
 * Exports:
 *   paths()                        every path the kernel was built with, best first:
 *                                  [{ name, available, ctr, polyval }] (ctr, polyval: whether the path has
 *                                  those entries; the kernel leaves them NULL where it has not)
 *   keyed(rounds, ek, dk, path)    a new keyed state: a copy of one key's round keys (both schedules), bound
 *                                  to the path at index `path`, as an External whose finalizer wipes and
 *                                  frees it; then, each taking that External first and each one native call:
 *                                  encryptBlocks, decryptBlocks (the block primitives), cbcEncrypt,
 *                                  cbcDecryptSectors, cbcEncryptSectors, xtsEncrypt, xtsDecrypt (every path),
 *                                  ctr(state, dst, src, iv, counter) (the paths with a `ctr` entry),
 *                                  hctr2(state, dst, src, unitSize, tweaks, tweakBytes, hash, start, l,
 *                                  decrypt), gcmSeal(state, dst, src, j0, aad, hash, tagLength) and
 *                                  gcmOpen(state, dst, sealed, j0, aad, hash, tagLength) (those with ctr and
 *                                  POLYVAL: HCTR2 of many messages, a GCM seal and a GCM open, each in one
 *                                  call; `hash` a POLYVAL state), and dispose(state)
 *   polyval(h, path)               a new POLYVAL state: the key table of the hash key `h` (16 bytes) for the
 *                                  path at index `path` (one with polyval entries); polyvalUpdate(state,
 *                                  acc, data, reversed), polyvalDispose(state)
 *   hbsh(key, rounds, hpolyc, path, ke, portable?)
 *                                  a new Adiantum or HPolyC state: XChaCha's key and the hash keys (hbsh.h),
 *                                  K_E (the AES-256 key) written into `ke`; hbshCrypt(state, dst, src,
 *                                  unitSize, tweaks, tweakBytes, aes, decrypt) (whole messages or batches of
 *                                  sectors in one call, the AES block through the keyed state `aes`),
 *                                  hbshDispose(state), hbshCore(state) ("avx512", "avx2", "neon", "c": the
 *                                  primitives that run)
 *   elephant(data, sectorSize, keys, decrypt, path, portable?)
 *                                  BitLocker's Elephant diffusers of many sectors in place (elephant.h), on
 *                                  the path's SIMD diffuser where it has one; elephantCore(path, portable?)
 *                                  names the one that runs ("avx2", "c")
 *   calls()                        how many kernel methods have been entered (for the call-count test)
 *
 * src/index.cts makes the JavaScript classes of these states (the keyed kernel, the POLYVAL key, the
 * Adiantum/HPolyC key), each holding its External in a private field: a method called on any other object
 * throws a TypeError there, and no napi_unwrap runs per call (it cost about 100 ns; napi_get_value_external
 * costs a few). Zero copy: the kernels run on the caller's Uint8Array bytes (napi_get_typedarray_info).
 * Zero allocation: a call creates no JS value and allocates no memory. The JS side (the kernel package, then @x/cbc or
 * @x/xts) has already checked the arguments against the contract; the checks here are only those that keep
 * a faulty caller from making native code read or write outside the arrays it passed.
 *
 * ABI-stable: only Node-API (js_native_api.h, node_api.h), version 8.
 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aes_native.h"

/* A message with the kernel's prefix, in a buffer of the caller's. */
static const char *message(char *buf, size_t size, const char *text) {
  size_t p = strlen(aes_native_prefix), t = strlen(text);
  if (p + t + 1 > size) t = size - p - 1;
  memcpy(buf, aes_native_prefix, p);
  memcpy(buf + p, text, t);
  buf[p + t] = '\0';
  return buf;
}

static napi_value throw_error(napi_env env, int range, const char *text) {
  char buf[160];
  message(buf, sizeof buf, text);
  if (range)
    napi_throw_range_error(env, NULL, buf);
  else
    napi_throw_type_error(env, NULL, buf);
  return NULL;
}

/* Calls into the kernel methods since load; a plain counter, as all calls come from the JS thread. */
static uint64_t call_count;

/*
 * What a wrapped object is: the first field of both native states, checked before a method uses one, so
 * that a method of one class called on an instance of the other (Function.prototype.call) throws instead
 * of reading the wrong struct.
 */
enum { KEYED_TAG = 0x6b657965, POLYVAL_TAG = 0x706f6c79 };

/* The state behind one Keyed instance: both schedules, 16-byte aligned, and the path that runs them. */
typedef struct {
  uint32_t tag; /* KEYED_TAG */
  uint8_t ek[AES_NATIVE_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
  uint8_t dk[AES_NATIVE_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
  const aes_native_path *path;
  int rounds; /* 10, 12, 14; 0 once wiped */
} keyed_t;

/* Overwrites n bytes of keys or data (aes_native.h). */
#define wipe aes_native_wipe

static void keyed_wipe(keyed_t *s) {
  wipe(s->ek, sizeof s->ek);
  wipe(s->dk, sizeof s->dk);
  s->rounds = 0;
}

static void keyed_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  keyed_t *s = data;
  keyed_wipe(s);
  free(s);
}

/* The bytes of a Uint8Array; 0 (and a pending exception) when `v` is not one. */
static int get_bytes(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  napi_typedarray_type type;
  void *p = NULL;
  if (napi_get_typedarray_info(env, v, &type, len, &p, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    throw_error(env, 0, "expected a Uint8Array");
    return 0;
  }
  *data = p;
  return 1;
}

/*
 * The native state behind an External of this addon with tag `tag` (the first field of every state);
 * NULL (and a pending TypeError saying `what`) for anything else. The JavaScript classes of src/index.cts
 * hold each state's External in a private field and pass it as every function's first argument: reading
 * it back costs a few nanoseconds, where napi_unwrap of `this` cost about 100 per call.
 */
static void *state_of(napi_env env, napi_value v, uint32_t tag, const char *what) {
  void *data = NULL;
  if (napi_get_value_external(env, v, &data) != napi_ok || data == NULL || *(const uint32_t *)data != tag) {
    throw_error(env, 0, what);
    return NULL;
  }
  return data;
}

/*
 * The arguments of a function whose first argument is a state's External: the state (tag `tag`) and the
 * `want` arguments after it into argv; NULL (and a pending exception) when it is not one or arguments are
 * missing. Counts the call.
 */
static void *enter_state(napi_env env, napi_callback_info info, uint32_t tag, const char *what, size_t want,
                         napi_value *argv) {
  napi_value all[12];
  size_t argc = want + 1;
  call_count++;
  if (want + 1 > sizeof all / sizeof all[0] || napi_get_cb_info(env, info, &argc, all, NULL, NULL) != napi_ok) {
    throw_error(env, 0, "bad call");
    return NULL;
  }
  void *s = argc >= 1 ? state_of(env, all[0], tag, what) : NULL;
  if (s == NULL) {
    if (argc < 1) throw_error(env, 0, what);
    return NULL;
  }
  if (argc < want + 1) {
    throw_error(env, 0, "missing arguments");
    return NULL;
  }
  for (size_t i = 0; i < want; i++) argv[i] = all[i + 1];
  return s;
}

/* A kernel method (state, ...args): the keyed state, not disposed, with its arguments; NULL when unusable. */
static keyed_t *enter(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  keyed_t *s = enter_state(env, info, KEYED_TAG, "not a native keyed kernel", want, argv);
  if (s != NULL && s->rounds == 0) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "the kernel was disposed"));
    return NULL;
  }
  return s;
}

/* Wraps a new native state in an External whose finalizer wipes and frees it; NULL (and an error) if that fails. */
static napi_value new_state(napi_env env, void *s, napi_finalize finalize) {
  napi_value out;
  if (napi_create_external(env, s, finalize, NULL, &out) != napi_ok) {
    finalize(env, s, NULL);
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "napi_create_external failed"));
    return NULL;
  }
  return out;
}

/* dst, src: src a whole number of blocks and dst at least as long (the contract's guarantees, re-checked). */
static int get_dst_src(napi_env env, napi_value *argv, uint8_t **dst, uint8_t **src, size_t *blocks) {
  size_t dlen, slen;
  if (!get_bytes(env, argv[0], dst, &dlen) || !get_bytes(env, argv[1], src, &slen)) return 0;
  if (slen % 16 != 0 || dlen < slen) {
    throw_error(env, 1, "src must be whole blocks and dst at least as long");
    return 0;
  }
  *blocks = slen / 16;
  return 1;
}

/* encryptBlocks(dst, src) and decryptBlocks(dst, src): each block on its own (FIPS 197 §5.1, §5.3.5). */
static napi_value blocks_method(napi_env env, napi_callback_info info, int decrypt) {
  napi_value argv[2];
  uint8_t *dst, *src;
  size_t n;
  keyed_t *s = enter(env, info, 2, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n)) return NULL;
  if (decrypt)
    s->path->decrypt_blocks(s->dk, s->rounds, dst, src, n);
  else
    s->path->encrypt_blocks(s->ek, s->rounds, dst, src, n);
  return NULL;
}

static napi_value m_encrypt_blocks(napi_env env, napi_callback_info info) { return blocks_method(env, info, 0); }
static napi_value m_decrypt_blocks(napi_env env, napi_callback_info info) { return blocks_method(env, info, 1); }

/* cbcEncrypt(dst, src, iv): one CBC chain (NIST SP 800-38A §6.2). */
static napi_value m_cbc_encrypt(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint8_t *dst, *src, *iv;
  size_t n, iv_len;
  keyed_t *s = enter(env, info, 3, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n) || !get_bytes(env, argv[2], &iv, &iv_len)) return NULL;
  if (iv_len < 16) return throw_error(env, 1, "iv must be 16 bytes");
  s->path->cbc_encrypt(s->ek, s->rounds, dst, src, n, iv);
  return NULL;
}

/* Which of a path's four many-unit operations a method runs. */
enum units_op { CBC_DECRYPT_SECTORS, CBC_ENCRYPT_SECTORS, XTS_ENCRYPT, XTS_DECRYPT };

/*
 * cbcDecryptSectors/cbcEncryptSectors(dst, src, sectorSize, ivs) and xtsEncrypt/xtsDecrypt(dst, src,
 * unitSize, tweaks): every unit in this one native call. The size a positive multiple of 16 that divides
 * src.length, and at least 16 bytes of IV (or encrypted tweak) per unit: the mode may pass a reused buffer
 * longer than that (only the first 16 x units bytes are read). An empty src reads and writes nothing,
 * whatever the size (one CBC chain is one sector of src.length bytes, 0 for an empty src).
 */
static napi_value units_method(napi_env env, napi_callback_info info, enum units_op op) {
  const int xts = op == XTS_ENCRYPT || op == XTS_DECRYPT;
  napi_value argv[4];
  uint8_t *dst, *src, *ivs;
  size_t n, ivs_len;
  uint32_t unit_size;
  keyed_t *s = enter(env, info, 4, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n)) return NULL;
  if (napi_get_value_uint32(env, argv[2], &unit_size) != napi_ok)
    return throw_error(env, 0, xts ? "unitSize must be a number" : "sectorSize must be a number");
  if (!get_bytes(env, argv[3], &ivs, &ivs_len)) return NULL;
  if (n == 0) return NULL;
  const size_t unit_blocks = unit_size / 16;
  if (unit_size == 0 || unit_size % 16 != 0 || n % unit_blocks != 0 || ivs_len / 16 < n / unit_blocks) {
    return throw_error(env, 1, xts ? "src must be whole data units with one 16-byte tweak each"
                                   : "src must be whole sectors with one 16-byte IV each");
  }
  const aes_native_path *p = s->path;
  const size_t units = n / unit_blocks;
  switch (op) {
    case CBC_DECRYPT_SECTORS: p->cbc_decrypt_sectors(s->dk, s->rounds, dst, src, units, unit_blocks, ivs); break;
    case CBC_ENCRYPT_SECTORS: p->cbc_encrypt_sectors(s->ek, s->rounds, dst, src, units, unit_blocks, ivs); break;
    case XTS_ENCRYPT: p->xts_encrypt(s->ek, s->rounds, dst, src, units, unit_blocks, ivs); break;
    case XTS_DECRYPT: p->xts_decrypt(s->dk, s->rounds, dst, src, units, unit_blocks, ivs); break;
  }
  return NULL;
}

static napi_value m_cbc_decrypt_sectors(napi_env env, napi_callback_info info) {
  return units_method(env, info, CBC_DECRYPT_SECTORS);
}
static napi_value m_cbc_encrypt_sectors(napi_env env, napi_callback_info info) {
  return units_method(env, info, CBC_ENCRYPT_SECTORS);
}
static napi_value m_xts_encrypt(napi_env env, napi_callback_info info) { return units_method(env, info, XTS_ENCRYPT); }
static napi_value m_xts_decrypt(napi_env env, napi_callback_info info) { return units_method(env, info, XTS_DECRYPT); }

/*
 * The counter kind as a number: src/index.cts wraps `ctr` and passes AES_NATIVE_CTR_* for the contract's
 * 'be128', 'be32', 'xctr' (and -1 for anything else), because reading a JS string through Node-API costs
 * more than a 16-byte call. -1 (and a pending exception) for anything but 0, 1, 2.
 */
static int get_counter(napi_env env, napi_value v) {
  int32_t kind = -1;
  if (napi_get_value_int32(env, v, &kind) == napi_ok &&
      (kind == AES_NATIVE_CTR_BE128 || kind == AES_NATIVE_CTR_BE32 || kind == AES_NATIVE_CTR_XCTR)) {
    return kind;
  }
  throw_error(env, 0, "counter must be 'be128', 'be32' or 'xctr'");
  return -1;
}

/*
 * ctr(dst, src, iv, counter): the CTR keystream XORed into dst for src.length bytes, any length (NIST SP
 * 800-38A §6.5, SP 800-38D §6.2 inc32, HCTR2's XCTR), one native call.
 */
static napi_value m_ctr(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint8_t *dst, *src, *iv;
  size_t dlen, slen, iv_len;
  keyed_t *s = enter(env, info, 4, argv);
  if (s == NULL || !get_bytes(env, argv[0], &dst, &dlen) || !get_bytes(env, argv[1], &src, &slen) ||
      !get_bytes(env, argv[2], &iv, &iv_len)) {
    return NULL;
  }
  const int counter = get_counter(env, argv[3]);
  if (counter < 0) return NULL;
  if (dlen < slen) return throw_error(env, 1, "dst must be at least as long as src");
  if (iv_len < 16) return throw_error(env, 1, "iv must be 16 bytes");
  if (s->path->ctr == NULL) return throw_error(env, 0, "this path has no ctr");
  if (slen != 0) s->path->ctr(s->ek, s->rounds, dst, src, slen, iv, counter);
  return NULL;
}

/* The state behind one Polyval instance: the path's key table (aes_native.h), and the path. */
typedef struct {
  uint32_t tag; /* POLYVAL_TAG */
  int live;     /* 0 once wiped */
  const aes_native_path *path;
  uint8_t table[AES_NATIVE_POLYVAL_TABLE_BYTES] __attribute__((aligned(64)));
} polyval_t;

/*
 * The Polyval state of a `hash` argument: a Polyval instance of this addon (by its tag), not disposed;
 * NULL (and a pending exception) otherwise.
 */
static const polyval_t *get_polyval(napi_env env, napi_value v) {
  const polyval_t *h = state_of(env, v, POLYVAL_TAG, "hash must be a native POLYVAL key of this kernel");
  if (h == NULL) return NULL;
  if (!h->live) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "the POLYVAL key was disposed"));
    return NULL;
  }
  return h;
}

/* GHASH (SP 800-38D §6.4) on a POLYVAL table of GHASH's key: `n` bytes of data, zero-padded to whole blocks. */
static void ghash_padded(const aes_native_path *hp, const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t n,
                         uint8_t *tmp) {
  const size_t whole = n / 16, rem = n % 16;
  if (whole != 0) hp->polyval_update(table, acc, data, whole, 1);
  if (rem != 0) {
    memset(tmp, 0, 16);
    memcpy(tmp, data + 16 * whole, rem);
    hp->polyval_update(table, acc, tmp, 1, 1);
  }
}

/* inc32(J0) (§6.2) into iv: the last four bytes a big-endian counter modulo 2^32. */
static void gcm_counter(uint8_t iv[16], const uint8_t *j0) {
  memcpy(iv, j0, 12);
  const uint32_t c = ((uint32_t)j0[12] << 24 | (uint32_t)j0[13] << 16 | (uint32_t)j0[14] << 8 | j0[15]) + 1;
  iv[12] = (uint8_t)(c >> 24), iv[13] = (uint8_t)(c >> 16), iv[14] = (uint8_t)(c >> 8), iv[15] = (uint8_t)c;
}

/*
 * The end of GCM's GHASH: C's partial block (`rem` bytes at `last`) zero-padded, then the length block
 * [8·a]_64 ‖ [8·n]_64, in one update (through `tmp`, 32 bytes).
 */
static void gcm_finish(const aes_native_path *hp, const uint8_t *table, uint8_t *acc, const uint8_t *last, size_t rem,
                       size_t a, size_t n, uint8_t *tmp) {
  memset(tmp, 0, 32);
  uint8_t *lengths = tmp + (rem != 0 ? 16 : 0);
  memcpy(tmp, last, rem);
  const uint64_t abits = (uint64_t)a * 8, cbits = (uint64_t)n * 8;
  for (int i = 0; i < 8; i++) {
    lengths[i] = (uint8_t)(abits >> (56 - 8 * i));
    lengths[8 + i] = (uint8_t)(cbits >> (56 - 8 * i));
  }
  hp->polyval_update(table, acc, tmp, rem != 0 ? 2 : 1, 1);
}

/*
 * gcmSeal(dst, src, j0, aad, hash, tagLength): AES-GCM encryption of one message (SP 800-38D §7.1 steps
 * 3-6) from its pre-counter block J0, in one native call: C = GCTR_K(inc32(J0), src) into dst[0, n);
 * S = GHASH_H(A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64); T = MSB_t(GCTR_K(J0, S)) into dst[n, n + t).
 * `hash` is a Polyval instance of the POLYVAL key of H (RFC 8452 Appendix A: GHASH through `reversed`
 * updates). Where the path has the ctr_polyval entry and `hash` is its own path's, the keystream and the
 * hash of C are one pass; else ctr, then the hash's path's update: the same bytes. In place (src the first
 * bytes of dst) works; aad does not overlap dst (the caller checks). Lengths decide what runs, never key or
 * data; every stack temporary is wiped.
 */
static napi_value m_gcm_seal(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  uint8_t *dst, *src, *j0, *aad;
  size_t dlen, n, j0_len, a;
  uint32_t t;
  keyed_t *s = enter(env, info, 6, argv);
  if (s == NULL || !get_bytes(env, argv[0], &dst, &dlen) || !get_bytes(env, argv[1], &src, &n) ||
      !get_bytes(env, argv[2], &j0, &j0_len) || !get_bytes(env, argv[3], &aad, &a)) {
    return NULL;
  }
  const polyval_t *hash = get_polyval(env, argv[4]);
  if (hash == NULL) return NULL;
  if (napi_get_value_uint32(env, argv[5], &t) != napi_ok || t < 1 || t > 16) {
    return throw_error(env, 1, "tagLength must be 1 to 16");
  }
  if (dlen < n || dlen - n < t) return throw_error(env, 1, "dst must hold src and the tag");
  if (j0_len < 16) return throw_error(env, 1, "j0 must be 16 bytes");
  const aes_native_path *p = s->path, *hp = hash->path;
  if (p->ctr == NULL) return throw_error(env, 0, "this path has no ctr");
  const uint8_t *table = hash->table;
  uint8_t acc[16] __attribute__((aligned(16))) = {0};
  uint8_t mask[16] __attribute__((aligned(16)));
  uint8_t iv[16] __attribute__((aligned(16)));
  uint8_t tmp[32] __attribute__((aligned(16)));
  ghash_padded(hp, table, acc, aad, a, tmp);
  p->encrypt_blocks(s->ek, s->rounds, mask, j0, 1);
  gcm_counter(iv, j0);
  const size_t whole = n / 16;
  if (n != 0) {
    if (p->ctr_polyval != NULL && hp == p) {
      p->ctr_polyval(s->ek, s->rounds, dst, src, n, iv, AES_NATIVE_CTR_BE32, table, acc, 1);
    } else {
      p->ctr(s->ek, s->rounds, dst, src, n, iv, AES_NATIVE_CTR_BE32);
      if (whole != 0) hp->polyval_update(table, acc, dst, whole, 1);
    }
  }
  gcm_finish(hp, table, acc, dst + 16 * whole, n % 16, a, n, tmp);
  /* T: GHASH's output is the accumulator byte-reversed (RFC 8452 Appendix A). */
  for (uint32_t i = 0; i < t; i++) dst[n + i] = acc[15 - i] ^ mask[i];
  wipe(acc, sizeof acc);
  wipe(mask, sizeof mask);
  wipe(iv, sizeof iv);
  wipe(tmp, sizeof tmp);
  return NULL;
}

/*
 * gcmOpen(dst, sealed, j0, aad, hash, tagLength): AES-GCM decryption of one message (SP 800-38D §7.2)
 * from its pre-counter block J0, in one native call: with n = sealed.length - tagLength, C = sealed[0, n)
 * and T = sealed[n, n + t), S = GHASH_H(A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64) and T' = MSB_t(E_K(J0)
 * ⊕ S) are computed first and compared with T in constant time (every byte, one branch on the outcome);
 * only when they match is P = GCTR_K(inc32(J0), C) written to dst[0, n). Returns whether they matched:
 * false leaves dst untouched. In place (dst the first n bytes of sealed) works; aad does not overlap dst.
 */
static napi_value m_gcm_open(napi_env env, napi_callback_info info) {
  napi_value argv[6], out;
  uint8_t *dst, *sealed, *j0, *aad;
  size_t dlen, slen, j0_len, a;
  uint32_t t;
  keyed_t *s = enter(env, info, 6, argv);
  if (s == NULL || !get_bytes(env, argv[0], &dst, &dlen) || !get_bytes(env, argv[1], &sealed, &slen) ||
      !get_bytes(env, argv[2], &j0, &j0_len) || !get_bytes(env, argv[3], &aad, &a)) {
    return NULL;
  }
  const polyval_t *hash = get_polyval(env, argv[4]);
  if (hash == NULL) return NULL;
  if (napi_get_value_uint32(env, argv[5], &t) != napi_ok || t < 1 || t > 16) {
    return throw_error(env, 1, "tagLength must be 1 to 16");
  }
  if (slen < t) return throw_error(env, 1, "sealed must hold the tag");
  const size_t n = slen - t;
  if (dlen < n) return throw_error(env, 1, "dst must hold the plaintext");
  if (j0_len < 16) return throw_error(env, 1, "j0 must be 16 bytes");
  const aes_native_path *p = s->path, *hp = hash->path;
  if (p->ctr == NULL) return throw_error(env, 0, "this path has no ctr");
  const uint8_t *table = hash->table;
  uint8_t acc[16] __attribute__((aligned(16))) = {0};
  uint8_t mask[16] __attribute__((aligned(16)));
  uint8_t iv[16] __attribute__((aligned(16)));
  uint8_t tmp[32] __attribute__((aligned(16)));
  ghash_padded(hp, table, acc, aad, a, tmp);
  const size_t whole = n / 16;
  if (whole != 0) hp->polyval_update(table, acc, sealed, whole, 1);
  gcm_finish(hp, table, acc, sealed + 16 * whole, n % 16, a, n, tmp);
  p->encrypt_blocks(s->ek, s->rounds, mask, j0, 1);
  uint8_t diff = 0;
  for (uint32_t i = 0; i < t; i++) diff |= (uint8_t)(acc[15 - i] ^ mask[i] ^ sealed[n + i]);
  const bool ok = diff == 0;
  if (ok && n != 0) {
    gcm_counter(iv, j0);
    p->ctr(s->ek, s->rounds, dst, sealed, n, iv, AES_NATIVE_CTR_BE32);
  }
  wipe(acc, sizeof acc);
  wipe(mask, sizeof mask);
  wipe(iv, sizeof iv);
  wipe(tmp, sizeof tmp);
  napi_get_boolean(env, ok, &out);
  return out;
}

/*
 * POLYVAL (RFC 8452 §3) continued over `n` bytes of `data`: its whole blocks in place, then a last partial
 * block through `tmp` (16 bytes), padded with `pad` and zeros (HCTR2 §3: 0 for pad(T), 0x01 for
 * pad(M ‖ 0x01)). Lengths only decide what runs.
 */
static void hctr2_hash(const aes_native_path *p, const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t n,
                       uint8_t pad, uint8_t *tmp) {
  const size_t whole = n / 16, rem = n % 16;
  if (whole != 0) p->polyval_update(table, acc, data, whole, 0);
  if (rem != 0) {
    memset(tmp, 0, 16);
    memcpy(tmp, data + 16 * whole, rem);
    tmp[rem] = pad;
    p->polyval_update(table, acc, tmp, 1, 0);
  }
}

/* Messages whose one-block AES calls run as one batch: the stack holds X, Y and the tweak state of each. */
#define HCTR2_GROUP 8

/*
 * hctr2(dst, src, unitSize, tweaks, tweakBytes, hash, start, l, decrypt): HCTR2 (Crowley, Huckleberry,
 * Biggers, ePrint 2021/1441 §3) of src.length / unitSize messages, message u under the tweak
 * tweaks[u·tweakBytes ..], in one native call over the path's own ctr, polyval_update and block entries.
 * `hash` is the Polyval instance of hbar = E_K(0), `start` POLYVAL's state after the length block, `l` =
 * E_K(bin(1)). Per message, with R its bytes after the first block and H(X) POLYVAL from `start` over
 * pad(tweak) ‖ X (X padded with 0x01 then zeros when not whole blocks):
 *   Xf = first ^ H(R);  Y = E_K(Xf) (D_K to decrypt);  R' = R ^ XCTR_K(Xf ^ Y ^ l);  first' = Y ^ H(R').
 * Messages go HCTR2_GROUP at a time: the first hash of each, one batched E_K (or D_K) of their Xf, then
 * XCTR, the second hash (from the tweak state kept on the stack) and the first block of each. In place
 * works: a message's first block and R are read (hashed) before anything of it is written, and ctr reads
 * each block before it writes it. Every stack temporary is wiped before returning.
 */
static napi_value m_hctr2(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  uint8_t *dst, *src, *tweaks, *start, *l;
  size_t dlen, slen, tweaks_len, start_len, l_len;
  uint32_t unit, tweak_bytes;
  bool decrypt;
  keyed_t *s = enter(env, info, 9, argv);
  if (s == NULL || !get_bytes(env, argv[0], &dst, &dlen) || !get_bytes(env, argv[1], &src, &slen)) return NULL;
  if (napi_get_value_uint32(env, argv[2], &unit) != napi_ok) return throw_error(env, 0, "unitSize must be a number");
  if (!get_bytes(env, argv[3], &tweaks, &tweaks_len)) return NULL;
  if (napi_get_value_uint32(env, argv[4], &tweak_bytes) != napi_ok) {
    return throw_error(env, 0, "tweakBytes must be a number");
  }
  const polyval_t *hash = get_polyval(env, argv[5]);
  if (hash == NULL || !get_bytes(env, argv[6], &start, &start_len) || !get_bytes(env, argv[7], &l, &l_len)) {
    return NULL;
  }
  if (napi_get_value_bool(env, argv[8], &decrypt) != napi_ok) return throw_error(env, 0, "decrypt must be a boolean");
  if (dlen < slen) return throw_error(env, 1, "dst must be at least as long as src");
  if (unit < 16 || slen % unit != 0) return throw_error(env, 1, "src must be whole messages of at least 16 bytes");
  const size_t count = slen / unit;
  if (tweak_bytes != 0 && tweaks_len / tweak_bytes < count) {
    return throw_error(env, 1, "tweaks must hold tweakBytes bytes per message");
  }
  if (start_len < 16 || l_len < 16) return throw_error(env, 1, "start and l must be 16 bytes");
  const aes_native_path *p = s->path;
  if (p->ctr == NULL) return throw_error(env, 0, "this path has no ctr");
  /* The table's layout is its own path's: hash it with that path's update. */
  const aes_native_path *hp = hash->path;
  const uint8_t *table = hash->table;
  const size_t n = unit - 16;
  uint8_t x[16 * HCTR2_GROUP] __attribute__((aligned(16)));
  uint8_t y[16 * HCTR2_GROUP] __attribute__((aligned(16)));
  uint8_t ts[16 * HCTR2_GROUP] __attribute__((aligned(16)));
  uint8_t acc[16] __attribute__((aligned(16)));
  uint8_t tmp[16] __attribute__((aligned(16)));
  uint8_t iv[16] __attribute__((aligned(16)));
  for (size_t g = 0; g < count; g += HCTR2_GROUP) {
    const size_t m = count - g < HCTR2_GROUP ? count - g : HCTR2_GROUP;
    /* Xf = first ^ H(R), keeping POLYVAL's state after pad(tweak) for the second hash. */
    for (size_t j = 0; j < m; j++) {
      const uint8_t *in = src + (g + j) * unit;
      memcpy(acc, start, 16);
      hctr2_hash(hp, table, acc, tweaks + (g + j) * tweak_bytes, tweak_bytes, 0, tmp);
      memcpy(ts + 16 * j, acc, 16);
      hctr2_hash(hp, table, acc, in + 16, n, 1, tmp);
      for (size_t i = 0; i < 16; i++) x[16 * j + i] = in[i] ^ acc[i];
    }
    /* Y = E_K(Xf), or D_K(Xf) to decrypt: one call for the group. */
    if (decrypt)
      p->decrypt_blocks(s->dk, s->rounds, y, x, m);
    else
      p->encrypt_blocks(s->ek, s->rounds, y, x, m);
    /* R' = R ^ XCTR_K(Xf ^ Y ^ l); first' = Y ^ H(R'). */
    for (size_t j = 0; j < m; j++) {
      const uint8_t *in = src + (g + j) * unit;
      uint8_t *out = dst + (g + j) * unit;
      for (size_t i = 0; i < 16; i++) iv[i] = x[16 * j + i] ^ y[16 * j + i] ^ l[i];
      memcpy(acc, ts + 16 * j, 16);
      if (n >= 16 && p->ctr_polyval != NULL && hp == p) {
        /* XCTR and the hash of its whole output blocks in one pass; the partial block as hctr2_hash. */
        p->ctr_polyval(s->ek, s->rounds, out + 16, in + 16, n, iv, AES_NATIVE_CTR_XCTR, table, acc, 0);
        hctr2_hash(hp, table, acc, out + 16 + 16 * (n / 16), n % 16, 1, tmp);
      } else {
        if (n != 0) p->ctr(s->ek, s->rounds, out + 16, in + 16, n, iv, AES_NATIVE_CTR_XCTR);
        hctr2_hash(hp, table, acc, out + 16, n, 1, tmp);
      }
      for (size_t i = 0; i < 16; i++) out[i] = y[16 * j + i] ^ acc[i];
    }
  }
  /* The groups used only the first `used` bytes of x, y and ts (a short call: fewer stores to wipe). */
  const size_t used = 16 * (count < HCTR2_GROUP ? count : HCTR2_GROUP);
  wipe(x, used);
  wipe(y, used);
  wipe(ts, used);
  wipe(acc, sizeof acc);
  wipe(tmp, sizeof tmp);
  wipe(iv, sizeof iv);
  return NULL;
}

static size_t path_count(void);
#include "hbsh.h"

static void hbsh_wipe(hbsh_t *s) {
  wipe(s->key, sizeof s->key);
  wipe(&s->kt, sizeof s->kt);
  wipe(&s->km, sizeof s->km);
  wipe(s->nh_key, sizeof s->nh_key);
  s->live = 0;
}

static void hbsh_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  hbsh_t *s = data;
  hbsh_wipe(s);
  free(s);
}

#define NOT_HBSH "not a native Adiantum/HPolyC key"

/*
 * hbshCrypt(state, dst, src, unitSize, tweaks, tweakBytes, aes, decrypt): Adiantum or HPolyC (hbsh.h) of
 * src.length / unitSize messages, message u under tweaks[u·tweakBytes ..], in one native call; `aes` a
 * keyed kernel of this binary holding the AES-256 key K_E (not disposed). The caller (@x/adiantum) has
 * checked the arguments; these checks only keep native code inside the arrays it was given.
 */
static napi_value m_hbsh_crypt(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  size_t dlen, slen, tweaks_len;
  uint8_t *dst, *src, *tweaks;
  uint32_t unit, tweak_bytes;
  bool decrypt;
  hbsh_t *s = enter_state(env, info, HBSH_TAG, NOT_HBSH, 7, argv);
  if (s == NULL) return NULL;
  if (!s->live) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "the Adiantum/HPolyC key was disposed"));
    return NULL;
  }
  if (!get_bytes(env, argv[0], &dst, &dlen) || !get_bytes(env, argv[1], &src, &slen)) return NULL;
  if (napi_get_value_uint32(env, argv[2], &unit) != napi_ok) return throw_error(env, 0, "unitSize must be a number");
  if (!get_bytes(env, argv[3], &tweaks, &tweaks_len)) return NULL;
  if (napi_get_value_uint32(env, argv[4], &tweak_bytes) != napi_ok) {
    return throw_error(env, 0, "tweakBytes must be a number");
  }
  const keyed_t *aes = state_of(env, argv[5], KEYED_TAG, "aes must be a native keyed kernel of this binary");
  if (aes == NULL) return NULL;
  if (aes->rounds != 14) return throw_error(env, 1, "aes must hold an AES-256 key, not disposed");
  if (napi_get_value_bool(env, argv[6], &decrypt) != napi_ok) return throw_error(env, 0, "decrypt must be a boolean");
  if (dlen < slen) return throw_error(env, 1, "dst must be at least as long as src");
  if (slen == 0) return NULL;
  if (unit < 16 || slen % unit != 0) return throw_error(env, 1, "src must be whole messages of at least 16 bytes");
  const size_t count = slen / unit;
  if (tweak_bytes != 0 && tweaks_len / tweak_bytes < count) {
    return throw_error(env, 1, "tweaks must hold tweakBytes bytes per message");
  }
  hbsh_crypt(s, aes->path, aes->ek, aes->dk, dst, src, count, unit, tweaks, tweak_bytes, decrypt);
  return NULL;
}

/* hbshDispose(state): wipes the subkeys now rather than at garbage collection. */
static napi_value m_hbsh_dispose(napi_env env, napi_callback_info info) {
  hbsh_t *s = enter_state(env, info, HBSH_TAG, NOT_HBSH, 0, NULL);
  if (s != NULL) hbsh_wipe(s);
  return NULL;
}

/* hbshCore(state): which primitives run ("avx512", "avx2", "neon", "c"). */
static napi_value m_hbsh_core(napi_env env, napi_callback_info info) {
  napi_value out;
  hbsh_t *s = enter_state(env, info, HBSH_TAG, NOT_HBSH, 0, NULL);
  if (s == NULL) return NULL;
  napi_create_string_utf8(env, s->ops->name, NAPI_AUTO_LENGTH, &out);
  return out;
}

/*
 * hbsh(key, rounds, hpolyc, path, ke, portable?) → the state's External: an Adiantum (hpolyc false) or HPolyC key of 32 bytes
 * with XChaCha `rounds` (8, 12, 20), on the primitives of the path at `path` (the glue's portable C ones
 * when `portable` is true, so that tests run those on any CPU); writes K_E (32 bytes) into `ke` for the
 * caller's AES key schedule, and keeps the other subkeys.
 */
static napi_value hbsh_construct(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  size_t argc = 6, key_len, ke_len;
  uint8_t *key, *ke;
  int32_t rounds;
  bool hpolyc, portable = false;
  uint32_t path;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    return throw_error(env, 0, "hbsh(key, rounds, hpolyc, path, ke)");
  }
  if (!get_bytes(env, argv[0], &key, &key_len)) return NULL;
  if (key_len != 32) return throw_error(env, 1, "key must be 32 bytes");
  if (napi_get_value_int32(env, argv[1], &rounds) != napi_ok || (rounds != 8 && rounds != 12 && rounds != 20)) {
    return throw_error(env, 1, "rounds must be 8, 12 or 20");
  }
  if (napi_get_value_bool(env, argv[2], &hpolyc) != napi_ok) return throw_error(env, 0, "hpolyc must be a boolean");
  if (napi_get_value_uint32(env, argv[3], &path) != napi_ok || path >= path_count()) {
    return throw_error(env, 1, "no such path");
  }
  if (!get_bytes(env, argv[4], &ke, &ke_len)) return NULL;
  if (ke_len < 32) return throw_error(env, 1, "ke must be 32 bytes");
  napi_valuetype t6 = napi_undefined;
  if (argc >= 6 && napi_typeof(env, argv[5], &t6) == napi_ok && t6 != napi_undefined &&
      napi_get_value_bool(env, argv[5], &portable) != napi_ok) {
    return throw_error(env, 0, "portable must be a boolean");
  }
  const aes_native_path *p = aes_native_paths[path];
  if (!p->available()) return throw_error(env, 1, "this path is not available on this CPU");
  hbsh_t *s = aligned_alloc(32, sizeof(hbsh_t));
  if (s == NULL) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "out of memory"));
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->tag = HBSH_TAG;
  s->rounds = rounds;
  s->hpolyc = hpolyc;
  hbsh_use(s, portable ? &hbsh_portable : hbsh_ops(p));
  hbsh_derive(s, key, ke);
  s->live = 1;
  return new_state(env, s, hbsh_finalize);
}

/* dispose(state): wipes the round keys now rather than at garbage collection. */
static napi_value m_dispose(napi_env env, napi_callback_info info) {
  keyed_t *s = enter_state(env, info, KEYED_TAG, "not a native keyed kernel", 0, NULL);
  if (s != NULL) keyed_wipe(s);
  return NULL;
}

static size_t path_count(void) {
  size_t n = 0;
  while (aes_native_paths[n] != NULL) n++;
  return n;
}

/*
 * keyed(rounds, encryptionKeys, decryptionKeys, path) → the state's External: copies both schedules out of
 * the caller's arrays, for the path at index `path`.
 */
static napi_value keyed_construct(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t argc = 4;
  int32_t rounds;
  uint32_t path;
  uint8_t *ek, *dk;
  size_t ek_len, dk_len;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4) {
    return throw_error(env, 0, "keyed(rounds, encryptionKeys, decryptionKeys, path)");
  }
  if (napi_get_value_int32(env, argv[0], &rounds) != napi_ok || (rounds != 10 && rounds != 12 && rounds != 14)) {
    return throw_error(env, 1, "rounds must be 10, 12 or 14");
  }
  if (!get_bytes(env, argv[1], &ek, &ek_len) || !get_bytes(env, argv[2], &dk, &dk_len)) return NULL;
  const size_t need = 16 * (size_t)(rounds + 1);
  if (ek_len != need || dk_len != need) return throw_error(env, 1, "schedule length does not match rounds");
  if (napi_get_value_uint32(env, argv[3], &path) != napi_ok || path >= path_count()) {
    return throw_error(env, 1, "no such path");
  }
  /* Never run instructions this CPU lacks: a path that is not available here cannot be keyed. */
  if (!aes_native_paths[path]->available()) return throw_error(env, 1, "this path is not available on this CPU");
  keyed_t *s = aligned_alloc(16, sizeof(keyed_t));
  if (s == NULL) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "out of memory"));
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->tag = KEYED_TAG;
  memcpy(s->ek, ek, need);
  memcpy(s->dk, dk, need);
  s->rounds = rounds;
  s->path = aes_native_paths[path];
  return new_state(env, s, keyed_finalize);
}

static void polyval_wipe(polyval_t *s) {
  wipe(s->table, sizeof s->table);
  s->live = 0;
}

static void polyval_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  polyval_t *s = data;
  polyval_wipe(s);
  free(s);
}

#define NOT_POLYVAL "not a native POLYVAL key"

/*
 * polyvalUpdate(state, acc, data, reversed): for each 16-byte block X of data, acc = (acc ^ X)·H·x^-128 (RFC 8452 §3),
 * X byte-reversed first when reversed (GHASH, RFC 8452 Appendix A); one native call, on the caller's bytes.
 */
static napi_value m_polyval_update(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  size_t acc_len, data_len;
  uint8_t *acc, *data;
  bool reversed;
  polyval_t *s = enter_state(env, info, POLYVAL_TAG, NOT_POLYVAL, 3, argv);
  if (s == NULL) return NULL;
  if (!s->live) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "the POLYVAL key was disposed"));
    return NULL;
  }
  if (!get_bytes(env, argv[0], &acc, &acc_len) || !get_bytes(env, argv[1], &data, &data_len)) return NULL;
  if (napi_get_value_bool(env, argv[2], &reversed) != napi_ok) return throw_error(env, 0, "reversed must be a boolean");
  if (acc_len < 16) return throw_error(env, 1, "acc must be 16 bytes");
  if (data_len % 16 != 0) return throw_error(env, 1, "data must be whole blocks");
  if (data_len != 0) s->path->polyval_update(s->table, acc, data, data_len / 16, reversed);
  return NULL;
}

/* polyvalDispose(state): wipes the key table now rather than at garbage collection. */
static napi_value m_polyval_dispose(napi_env env, napi_callback_info info) {
  polyval_t *s = enter_state(env, info, POLYVAL_TAG, NOT_POLYVAL, 0, NULL);
  if (s != NULL) polyval_wipe(s);
  return NULL;
}

/* polyval(h, path) → the state's External: the key table of H (16 bytes, POLYVAL's byte order) for the path at `path`. */
static napi_value polyval_construct(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 2, h_len;
  uint32_t path;
  uint8_t *h;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) {
    return throw_error(env, 0, "polyval(h, path)");
  }
  if (!get_bytes(env, argv[0], &h, &h_len)) return NULL;
  if (h_len != 16) return throw_error(env, 1, "h must be 16 bytes");
  if (napi_get_value_uint32(env, argv[1], &path) != napi_ok || path >= path_count()) {
    return throw_error(env, 1, "no such path");
  }
  const aes_native_path *p = aes_native_paths[path];
  if (!p->available()) return throw_error(env, 1, "this path is not available on this CPU");
  if (p->polyval_init == NULL || p->polyval_update == NULL) return throw_error(env, 1, "this path has no POLYVAL");
  polyval_t *s = aligned_alloc(64, sizeof(polyval_t));
  if (s == NULL) {
    char buf[160];
    napi_throw_error(env, NULL, message(buf, sizeof buf, "out of memory"));
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->tag = POLYVAL_TAG;
  s->path = p;
  p->polyval_init(s->table, h);
  s->live = 1;
  return new_state(env, s, polyval_finalize);
}

#include "elephant.h"

/* The path at index argv[i] (and whether argv[i + 1] asks for the portable C); 0 and a pending exception if not one. */
static const aes_native_path *get_path(napi_env env, napi_value *argv, size_t argc, size_t i, bool *portable) {
  uint32_t path;
  if (napi_get_value_uint32(env, argv[i], &path) != napi_ok || path >= path_count()) {
    throw_error(env, 1, "no such path");
    return NULL;
  }
  napi_valuetype t = napi_undefined;
  *portable = false;
  if (argc > i + 1 && napi_typeof(env, argv[i + 1], &t) == napi_ok && t != napi_undefined &&
      napi_get_value_bool(env, argv[i + 1], portable) != napi_ok) {
    throw_error(env, 0, "portable must be a boolean");
    return NULL;
  }
  const aes_native_path *p = aes_native_paths[path];
  if (!p->available()) {
    throw_error(env, 1, "this path is not available on this CPU");
    return NULL;
  }
  return p;
}

/*
 * elephant(data, sectorSize, keys, decrypt, path, portable?): BitLocker's Elephant diffusers (elephant.h)
 * of data.length / sectorSize sectors in place, sector s with the 32-byte key at keys[32s ..], on the SIMD
 * diffuser of the path at `path` (the portable C when it has none, or when `portable` is true). The caller
 * (@x/dm-crypt) has checked the arguments; these checks only keep native code inside its arrays.
 */
static napi_value elephant(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  size_t argc = 6, len, keys_len;
  uint8_t *data, *keys;
  uint32_t sector;
  bool decrypt, portable;
  call_count++;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    return throw_error(env, 0, "elephant(data, sectorSize, keys, decrypt, path)");
  }
  if (!get_bytes(env, argv[0], &data, &len)) return NULL;
  if (napi_get_value_uint32(env, argv[1], &sector) != napi_ok) return throw_error(env, 0, "sectorSize must be a number");
  if (!get_bytes(env, argv[2], &keys, &keys_len)) return NULL;
  if (napi_get_value_bool(env, argv[3], &decrypt) != napi_ok) return throw_error(env, 0, "decrypt must be a boolean");
  const aes_native_path *p = get_path(env, argv, argc, 4, &portable);
  if (p == NULL) return NULL;
  const size_t words = sector / 4;
  if (sector % 4 != 0 || words < ELEPHANT_MIN_WORDS || words > ELEPHANT_MAX_WORDS || (words & (words - 1)) != 0) {
    return throw_error(env, 1, "sectorSize must be 512, 1024, 2048 or 4096");
  }
  if (len % sector != 0) return throw_error(env, 1, "data must be whole sectors");
  const size_t count = len / sector;
  if (keys_len / 32 < count) return throw_error(env, 1, "keys must hold 32 bytes per sector");
  elephant_run(elephant_ops(p, portable), data, count, words, keys, decrypt);
  return NULL;
}

/* elephantCore(path, portable?): which diffuser `elephant` runs there ("avx2", "c"). */
static napi_value elephant_core(napi_env env, napi_callback_info info) {
  napi_value argv[2], out;
  size_t argc = 2;
  bool portable;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) {
    return throw_error(env, 0, "elephantCore(path)");
  }
  const aes_native_path *p = get_path(env, argv, argc, 0, &portable);
  if (p == NULL) return NULL;
  const aes_native_elephant *simd = elephant_ops(p, portable);
  napi_create_string_utf8(env, simd != NULL ? simd->name : "c", NAPI_AUTO_LENGTH, &out);
  return out;
}

/* paths(): [{ name, available, ctr, polyval }] for every path built in, best first. */
static napi_value paths(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out, item, v;
  const size_t n = path_count();
  napi_create_array_with_length(env, n, &out);
  for (size_t i = 0; i < n; i++) {
    napi_create_object(env, &item);
    napi_create_string_utf8(env, aes_native_paths[i]->name, NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, item, "name", v);
    napi_get_boolean(env, aes_native_paths[i]->available(), &v);
    napi_set_named_property(env, item, "available", v);
    napi_get_boolean(env, aes_native_paths[i]->ctr != NULL, &v);
    napi_set_named_property(env, item, "ctr", v);
    napi_get_boolean(env,
                     aes_native_paths[i]->polyval_init != NULL && aes_native_paths[i]->polyval_update != NULL, &v);
    napi_set_named_property(env, item, "polyval", v);
    napi_set_element(env, out, (uint32_t)i, item);
  }
  return out;
}

static napi_value calls(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_create_double(env, (double)call_count, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "paths", NAPI_AUTO_LENGTH, paths, NULL, &fn);
  napi_set_named_property(env, exports, "paths", fn);
  napi_create_function(env, "calls", NAPI_AUTO_LENGTH, calls, NULL, &fn);
  napi_set_named_property(env, exports, "calls", fn);
  napi_create_function(env, "elephant", NAPI_AUTO_LENGTH, elephant, NULL, &fn);
  napi_set_named_property(env, exports, "elephant", fn);
  napi_create_function(env, "elephantCore", NAPI_AUTO_LENGTH, elephant_core, NULL, &fn);
  napi_set_named_property(env, exports, "elephantCore", fn);
  /*
   * Every state is an External (keyed, polyval, hbsh) that src/index.cts keeps in a private field of its
   * JavaScript class and passes as the first argument of these functions. A path without a `ctr` entry
   * makes a class without `ctr`, `hctr2`, `gcmSeal` and `gcmOpen`; one without POLYVAL, a class without
   * the last three (src/index.cts), so that a path's objects have exactly the methods it can run.
   */
  const struct {
    const char *name;
    napi_callback cb;
  } functions[] = {
      {"keyed", keyed_construct},
      {"encryptBlocks", m_encrypt_blocks},
      {"decryptBlocks", m_decrypt_blocks},
      {"cbcEncrypt", m_cbc_encrypt},
      {"cbcDecryptSectors", m_cbc_decrypt_sectors},
      {"cbcEncryptSectors", m_cbc_encrypt_sectors},
      {"xtsEncrypt", m_xts_encrypt},
      {"xtsDecrypt", m_xts_decrypt},
      {"ctr", m_ctr},
      {"hctr2", m_hctr2},
      {"gcmSeal", m_gcm_seal},
      {"gcmOpen", m_gcm_open},
      {"dispose", m_dispose},
      {"polyval", polyval_construct},
      {"polyvalUpdate", m_polyval_update},
      {"polyvalDispose", m_polyval_dispose},
      {"hbsh", hbsh_construct},
      {"hbshCrypt", m_hbsh_crypt},
      {"hbshDispose", m_hbsh_dispose},
      {"hbshCore", m_hbsh_core},
  };
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    if (napi_create_function(env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].cb, NULL, &fn) != napi_ok) {
      return NULL;
    }
    napi_set_named_property(env, exports, functions[i].name, fn);
  }
  return exports;
}
