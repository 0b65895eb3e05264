/*
 * The constant-time check of this binary's C (test/ct.test.ts builds and runs it under valgrind's
 * memcheck): every key, round key, IV, tweak and data byte (not CTR's counter block, a public nonce) is
 * marked undefined with
 * VALGRIND_MAKE_MEM_UNDEFINED ("secret"), then every entry of every path this CPU runs is called on them,
 * and the glue's Adiantum/HPolyC (with the path's SIMD Poly1305 where it has one: AVX2's under valgrind)
 * and Elephant code on top (SIMD and portable C). Memcheck reports each
 * conditional jump or move, and each memory address, computed from an undefined value: a branch or a
 * table lookup on a secret. Outputs are computed from secrets too, so they stay undefined; nothing here
 * branches on them. With -DCT_CONTROL the program also branches on a secret byte once, which memcheck must
 * report: the proof that the check sees what it is looking for.
 *
 * The sources are included, not linked, so that the static functions are reachable; `wipe` is the glue's
 * name (addon.c) for aes_native_wipe.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#define wipe aes_native_wipe

#include "../../src/native/aes_x64.c"
#include "elephant.h"
#include "hbsh.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED(p, n)

static uint8_t rk[AES_NATIVE_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
static uint8_t dk[AES_NATIVE_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
static uint8_t src[9 * 4096], dst[9 * 4096], ivs[16 * 16], keys[9 * 32];
static uint8_t table[AES_NATIVE_POLYVAL_TABLE_BYTES] __attribute__((aligned(16)));

/* Fresh secrets: defined bytes first (so that nothing stays undefined from before), then marked. */
static void secrets(void) {
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 7 + 3);
  for (size_t i = 0; i < sizeof rk; i++) rk[i] = dk[i] = (uint8_t)(i * 13 + 1);
  for (size_t i = 0; i < sizeof ivs; i++) ivs[i] = (uint8_t)(i * 5);
  for (size_t i = 0; i < sizeof keys; i++) keys[i] = (uint8_t)(i * 11);
  SECRET(src, sizeof src);
  SECRET(rk, sizeof rk);
  SECRET(dk, sizeof dk);
  SECRET(ivs, sizeof ivs);
  SECRET(keys, sizeof keys);
}

static void aes_entries(const aes_native_path *p) {
  for (int rounds = 10; rounds <= 14; rounds += 2) {
    secrets();
    /* lengths around the paths' groups: 1, 7, 17 and 33 blocks */
    for (size_t blocks = 1; blocks <= 33; blocks = blocks * 2 + 3) {
      p->encrypt_blocks(rk, rounds, dst, src, blocks);
      p->decrypt_blocks(dk, rounds, dst, src, blocks);
      p->cbc_encrypt(rk, rounds, dst, src, blocks, ivs);
    }
    p->cbc_decrypt_sectors(dk, rounds, dst, src, 9, 32, ivs);
    p->cbc_encrypt_sectors(rk, rounds, dst, src, 9, 32, ivs);
    p->xts_encrypt(rk, rounds, dst, src, 9, 32, ivs);
    p->xts_decrypt(dk, rounds, dst, src, 9, 32, ivs);
    if (p->ctr != NULL) {
      /* the counter block is public (a nonce): the paths branch on it where a carry leaves the low bytes */
      static const uint8_t counters[3][16] = {{0}, {[15] = 0xf0}, {[8] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}};
      for (int c = 0; c < 3; c++) {
        for (int kind = AES_NATIVE_CTR_BE128; kind <= AES_NATIVE_CTR_XCTR; kind++) {
          p->ctr(rk, rounds, dst, src, 16 * 33 + 5, counters[c], kind);
        }
      }
    }
  }
  if (p->polyval_init != NULL && p->polyval_update != NULL) {
    secrets();
    p->polyval_init(table, keys);
    p->polyval_update(table, ivs, src, 33, 0);
    p->polyval_update(table, ivs, src, 33, 1);
    if (p->ctr_polyval != NULL) {
      for (int rounds = 10; rounds <= 14; rounds += 2) {
        p->ctr_polyval(rk, rounds, dst, src, 16 * 65 + 5, keys, AES_NATIVE_CTR_XCTR, table, ivs, 0);
        p->ctr_polyval(rk, rounds, dst, src, 16 * 65 + 5, keys, AES_NATIVE_CTR_BE32, table, ivs, 1);
      }
    }
  }
}

static void hbsh_entries(const aes_native_path *p, const aes_native_hbsh *ops) {
  static hbsh_t s __attribute__((aligned(32)));
  uint8_t ke[32];
  for (int hpolyc = 0; hpolyc <= 1; hpolyc++) {
    secrets();
    memset(&s, 0, sizeof s);
    s.rounds = 12;
    s.hpolyc = hpolyc;
    hbsh_use(&s, ops);
    hbsh_derive(&s, keys, ke);
    /* one 4 KiB sector, three sectors, and a 100-byte message with a 13-byte tweak (partial blocks) */
    hbsh_crypt(&s, p, rk, dk, dst, src, 1, 4096, ivs, 32, 0);
    hbsh_crypt(&s, p, rk, dk, dst, src, 3, 4096, ivs, 32, 1);
    hbsh_crypt(&s, p, rk, dk, dst, src, 1, 100, ivs, 13, 0);
  }
  /* The SIMD Poly1305 (HPolyC's hash above runs it too) on its own: a secret h and 8, 16 and 24 blocks. */
  if (s.poly != NULL) {
    for (size_t blocks = 8; blocks <= 24; blocks += 8) {
      uint64_t h[3];
      memcpy(h, keys, 16);
      h[2] = keys[16] & 3;
      s.poly(h, s.kt.pw, src, blocks);
      memcpy(dst, h, sizeof h);
    }
  }
}

int main(void) {
  size_t runs = 0;
  for (size_t i = 0; aes_native_paths[i] != NULL; i++) {
    const aes_native_path *p = aes_native_paths[i];
    if (!p->available()) continue;
    aes_entries(p);
    hbsh_entries(p, hbsh_ops(p));
    hbsh_entries(p, &hbsh_portable);
    for (size_t words = 128; words <= 1024; words *= 8) {
      for (int decrypt = 0; decrypt <= 1; decrypt++) {
        secrets();
        elephant_run(elephant_ops(p, 0), src, 9, words, keys, decrypt);
        elephant_run(elephant_ops(p, 1), src, 9, words, keys, decrypt);
      }
    }
    const aes_native_hbsh *ops = hbsh_ops(p);
    printf("path %s: checked (hbsh %s, its Poly1305 %s, elephant %s)\n", p->name, ops->name,
           ops->poly_blocks != NULL && ops->poly_available() ? ops->name : "c",
           elephant_ops(p, 0) != NULL ? elephant_ops(p, 0)->name : "c");
    runs++;
  }
#ifdef CT_CONTROL
  secrets();
  if (src[0] & 1) printf("control: a branch on a secret byte\n");
#endif
  printf("%zu paths\n", runs);
  return 0;
}
