/*
 * Node-API glue for the ARMv8 AES kernels (aes_arm64.c).
 *
 * Exports:
 *   hasAes()                 whether the CPU has the AES instructions (never executes one to find out)
 *   Keyed(rounds, ek, dk)    a class; each instance holds a copy of one key's round keys and is a keyed
 *                            kernel of @x/aes-kernels' contract (v2): `rounds`, the block primitives
 *                            (encryptBlocks, decryptBlocks), every fast path (cbcEncrypt, cbcDecryptSectors,
 *                            cbcEncryptSectors, xtsEncrypt, xtsDecrypt) and dispose, each one native call
 *   calls()                  how many kernel methods have been entered (for the call-count test)
 *
 * Zero copy: the kernels run on the caller's Uint8Array bytes (napi_get_typedarray_info). Zero allocation:
 * a call creates no JS value and allocates no memory. The JS side (index.cts, @x/cbc) has already checked
 * the arguments against the contract; the checks here are only those that keep a faulty caller from making
 * native code read or write outside the arrays it passed.
 *
 * ABI-stable: only Node-API (js_native_api.h, node_api.h), version 8.
 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aes_arm64.h"

#if defined(__linux__) && defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_AES
#define HWCAP_AES (1UL << 3) /* Linux arch/arm64/include/uapi/asm/hwcap.h */
#endif
#endif

#define PREFIX "@x/aes-native-arm64: "

/* Whether the CPU implements AESE/AESD/AESMC/AESIMC (FEAT_AES). */
static int cpu_has_aes(void) {
#if defined(__aarch64__) && defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#elif defined(__aarch64__) && defined(__APPLE__)
  return 1; /* every Apple arm64 core has FEAT_AES */
#else
  return 0; /* unknown platform, or not arm64: never run the kernels */
#endif
}

/* Calls into the kernel methods since load; a plain counter, as all calls come from the JS thread. */
static uint64_t call_count;

__attribute__((unused)) static napi_value throw_error(napi_env env, int range, const char *msg) {
  if (range)
    napi_throw_range_error(env, NULL, msg);
  else
    napi_throw_type_error(env, NULL, msg);
  return NULL;
}

#if defined(__aarch64__)

/* The state behind one Keyed instance: both schedules, 16-byte aligned. */
typedef struct {
  uint8_t ek[AES_ARM64_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
  uint8_t dk[AES_ARM64_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
  int rounds; /* 10, 12, 14; 0 once wiped */
} keyed_t;

/* Overwrites n bytes; the volatile stores cannot be elided as dead, and the barrier keeps them in place. */
static void wipe(void *p, size_t n) {
  volatile uint8_t *v = (volatile uint8_t *)p;
  while (n--) *v++ = 0;
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

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
    throw_error(env, 0, PREFIX "expected a Uint8Array");
    return 0;
  }
  *data = p;
  return 1;
}

/* `this` of a kernel method, with its argument list; NULL (and a pending exception) when unusable. */
static keyed_t *enter(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  napi_value self;
  void *data = NULL;
  call_count++;
  if (napi_get_cb_info(env, info, &argc, argv, &self, NULL) != napi_ok ||
      napi_unwrap(env, self, &data) != napi_ok) {
    throw_error(env, 0, PREFIX "not a native-arm64 keyed kernel");
    return NULL;
  }
  keyed_t *s = data;
  if (s->rounds == 0) {
    napi_throw_error(env, NULL, PREFIX "the kernel was disposed");
    return NULL;
  }
  if (argc < want) {
    throw_error(env, 0, PREFIX "missing arguments");
    return NULL;
  }
  return s;
}

/* dst, src: src a whole number of blocks and dst at least as long (the contract's guarantees, re-checked). */
static int get_dst_src(napi_env env, napi_value *argv, uint8_t **dst, uint8_t **src, size_t *blocks) {
  size_t dlen, slen;
  if (!get_bytes(env, argv[0], dst, &dlen) || !get_bytes(env, argv[1], src, &slen)) return 0;
  if (slen % 16 != 0 || dlen < slen) {
    throw_error(env, 1, PREFIX "src must be whole blocks and dst at least as long");
    return 0;
  }
  *blocks = slen / 16;
  return 1;
}

/* encryptBlocks(dst, src): each block on its own (FIPS 197 §5.1). */
static napi_value m_encrypt_blocks(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t *dst, *src;
  size_t n;
  keyed_t *s = enter(env, info, 2, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n)) return NULL;
  aes_arm64_encrypt_blocks(s->ek, s->rounds, dst, src, n);
  return NULL;
}

/* decryptBlocks(dst, src): each block on its own (FIPS 197 §5.3.5). */
static napi_value m_decrypt_blocks(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t *dst, *src;
  size_t n;
  keyed_t *s = enter(env, info, 2, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n)) return NULL;
  aes_arm64_decrypt_blocks(s->dk, s->rounds, dst, src, n);
  return NULL;
}

static int get_iv(napi_env env, napi_value v, uint8_t **iv) {
  size_t len;
  if (!get_bytes(env, v, iv, &len)) return 0;
  if (len < 16) {
    throw_error(env, 1, PREFIX "iv must be 16 bytes");
    return 0;
  }
  return 1;
}

/* cbcEncrypt(dst, src, iv): one CBC chain (NIST SP 800-38A §6.2). */
static napi_value m_cbc_encrypt(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint8_t *dst, *src, *iv;
  size_t n;
  keyed_t *s = enter(env, info, 3, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n) || !get_iv(env, argv[2], &iv)) return NULL;
  aes_arm64_cbc_encrypt(s->ek, s->rounds, dst, src, n, iv);
  return NULL;
}

/* The four kernels that take many units (sectors, XTS data units) with 16 bytes of IV or tweak each. */
typedef void (*units_fn)(const uint8_t *keys, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                         size_t unit_blocks, const uint8_t *ivs);

/*
 * cbcDecryptSectors/cbcEncryptSectors(dst, src, sectorSize, ivs) and xtsEncrypt/xtsDecrypt(dst, src,
 * unitSize, tweaks): every unit in this one native call. The size a positive multiple of 16 that divides
 * src.length, and at least 16 bytes of IV (or encrypted tweak) per unit: the mode may pass a reused buffer
 * longer than that (only the first 16 x units bytes are read). An empty src reads and writes nothing,
 * whatever the size (one CBC chain is one sector of src.length bytes, 0 for an empty src). `decrypt`
 * picks the equivalent inverse cipher's keys.
 */
static napi_value units_method(napi_env env, napi_callback_info info, units_fn fn, int decrypt,
                               const char *size_error, const char *units_error) {
  napi_value argv[4];
  uint8_t *dst, *src, *ivs;
  size_t n, ivs_len;
  uint32_t unit_size;
  keyed_t *s = enter(env, info, 4, argv);
  if (s == NULL || !get_dst_src(env, argv, &dst, &src, &n)) return NULL;
  if (napi_get_value_uint32(env, argv[2], &unit_size) != napi_ok) return throw_error(env, 0, size_error);
  if (!get_bytes(env, argv[3], &ivs, &ivs_len)) return NULL;
  if (n == 0) return NULL;
  const size_t unit_blocks = unit_size / 16;
  if (unit_size == 0 || unit_size % 16 != 0 || n % unit_blocks != 0 || ivs_len / 16 < n / unit_blocks) {
    return throw_error(env, 1, units_error);
  }
  fn(decrypt ? s->dk : s->ek, s->rounds, dst, src, n / unit_blocks, unit_blocks, ivs);
  return NULL;
}

#define SECTORS_ERRORS PREFIX "sectorSize must be a number", PREFIX "src must be whole sectors with one 16-byte IV each"
#define XTS_ERRORS PREFIX "unitSize must be a number", PREFIX "src must be whole data units with one 16-byte tweak each"

static napi_value m_cbc_decrypt_sectors(napi_env env, napi_callback_info info) {
  return units_method(env, info, aes_arm64_cbc_decrypt_sectors, 1, SECTORS_ERRORS);
}

static napi_value m_cbc_encrypt_sectors(napi_env env, napi_callback_info info) {
  return units_method(env, info, aes_arm64_cbc_encrypt_sectors, 0, SECTORS_ERRORS);
}

static napi_value m_xts_encrypt(napi_env env, napi_callback_info info) {
  return units_method(env, info, aes_arm64_xts_encrypt, 0, XTS_ERRORS);
}

static napi_value m_xts_decrypt(napi_env env, napi_callback_info info) {
  return units_method(env, info, aes_arm64_xts_decrypt, 1, XTS_ERRORS);
}

/* dispose(): wipes the round keys now rather than at garbage collection. */
static napi_value m_dispose(napi_env env, napi_callback_info info) {
  napi_value self;
  void *data = NULL;
  size_t argc = 0;
  if (napi_get_cb_info(env, info, &argc, NULL, &self, NULL) != napi_ok || napi_unwrap(env, self, &data) != napi_ok) {
    return throw_error(env, 0, PREFIX "not a native-arm64 keyed kernel");
  }
  keyed_wipe(data);
  return NULL;
}

static napi_value m_rounds(napi_env env, napi_callback_info info) {
  napi_value self, out;
  void *data = NULL;
  size_t argc = 0;
  if (napi_get_cb_info(env, info, &argc, NULL, &self, NULL) != napi_ok || napi_unwrap(env, self, &data) != napi_ok) {
    return throw_error(env, 0, PREFIX "not a native-arm64 keyed kernel");
  }
  napi_create_int32(env, ((keyed_t *)data)->rounds, &out);
  return out;
}

/* new Keyed(rounds, encryptionKeys, decryptionKeys): copies both schedules out of the caller's arrays. */
static napi_value keyed_construct(napi_env env, napi_callback_info info) {
  napi_value argv[3], self;
  size_t argc = 3;
  int32_t rounds;
  uint8_t *ek, *dk;
  size_t ek_len, dk_len;
  if (napi_get_cb_info(env, info, &argc, argv, &self, NULL) != napi_ok || argc < 3) {
    return throw_error(env, 0, PREFIX "Keyed(rounds, encryptionKeys, decryptionKeys)");
  }
  if (napi_get_value_int32(env, argv[0], &rounds) != napi_ok || (rounds != 10 && rounds != 12 && rounds != 14)) {
    return throw_error(env, 1, PREFIX "rounds must be 10, 12 or 14");
  }
  if (!get_bytes(env, argv[1], &ek, &ek_len) || !get_bytes(env, argv[2], &dk, &dk_len)) return NULL;
  const size_t need = 16 * (size_t)(rounds + 1);
  if (ek_len != need || dk_len != need) return throw_error(env, 1, PREFIX "schedule length does not match rounds");
  keyed_t *s = aligned_alloc(16, sizeof(keyed_t));
  if (s == NULL) {
    napi_throw_error(env, NULL, PREFIX "out of memory");
    return NULL;
  }
  memset(s, 0, sizeof *s);
  memcpy(s->ek, ek, need);
  memcpy(s->dk, dk, need);
  s->rounds = rounds;
  if (napi_wrap(env, self, s, keyed_finalize, NULL, NULL) != napi_ok) {
    keyed_finalize(env, s, NULL);
    napi_throw_error(env, NULL, PREFIX "napi_wrap failed");
    return NULL;
  }
  return self;
}

#endif /* __aarch64__ */

static napi_value has_aes(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_get_boolean(env, cpu_has_aes(), &out);
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
  napi_create_function(env, "hasAes", NAPI_AUTO_LENGTH, has_aes, NULL, &fn);
  napi_set_named_property(env, exports, "hasAes", fn);
  napi_create_function(env, "calls", NAPI_AUTO_LENGTH, calls, NULL, &fn);
  napi_set_named_property(env, exports, "calls", fn);
#if defined(__aarch64__)
  const napi_property_descriptor methods[] = {
      {"rounds", NULL, NULL, m_rounds, NULL, NULL, napi_enumerable, NULL},
      {"encryptBlocks", NULL, m_encrypt_blocks, NULL, NULL, NULL, napi_default, NULL},
      {"decryptBlocks", NULL, m_decrypt_blocks, NULL, NULL, NULL, napi_default, NULL},
      {"cbcEncrypt", NULL, m_cbc_encrypt, NULL, NULL, NULL, napi_default, NULL},
      {"cbcDecryptSectors", NULL, m_cbc_decrypt_sectors, NULL, NULL, NULL, napi_default, NULL},
      {"cbcEncryptSectors", NULL, m_cbc_encrypt_sectors, NULL, NULL, NULL, napi_default, NULL},
      {"xtsEncrypt", NULL, m_xts_encrypt, NULL, NULL, NULL, napi_default, NULL},
      {"xtsDecrypt", NULL, m_xts_decrypt, NULL, NULL, NULL, napi_default, NULL},
      {"dispose", NULL, m_dispose, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  if (napi_define_class(env, "NativeArm64KeyedKernel", NAPI_AUTO_LENGTH, keyed_construct, NULL,
                        sizeof methods / sizeof methods[0], methods, &cls) != napi_ok) {
    return NULL;
  }
  napi_set_named_property(env, exports, "Keyed", cls);
#endif
  return exports;
}
