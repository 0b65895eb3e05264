/*
 * The kernel alone, for the call-cost table (src/call-cost.ts): the native kernel's C entry points, called
 * straight from C in a loop, with no Node-API around them. Compiled by call-cost.ts with the kernel's own
 * compiler flags and linked with its sources (aes_x64.c, through aes_native.h's table of paths), so the
 * loop runs exactly the machine code the addon runs.
 *
 *   call-cost PATH ROUNDS    e.g. `call-cost aesni 10`
 *
 * Prints one line per operation, `name bytes ns`: the median of 9 runs of about 10 ms, each in ns per call,
 * timed with clock_gettime(CLOCK_MONOTONIC) around the whole run. The round keys are arbitrary bytes (the
 * kernels never look at what they are), dst and src are disjoint 4 KiB buffers, as in the JS rows.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aes_native.h"

#define KIB4 4096
#define RUNS 9

static uint8_t rk[AES_NATIVE_MAX_SCHEDULE_BYTES] __attribute__((aligned(16)));
static uint8_t src[KIB4] __attribute__((aligned(64)));
static uint8_t dst[KIB4] __attribute__((aligned(64)));
static uint8_t iv[16] __attribute__((aligned(16)));

static const aes_native_path *path;
static int rounds;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The operations of the JS rows, each one call of the kernel on `bytes` bytes. */
static void cbc_decrypt(size_t bytes) { path->cbc_decrypt_sectors(rk, rounds, dst, src, 1, bytes / 16, iv); }
static void ecb_encrypt(size_t bytes) { path->encrypt_blocks(rk, rounds, dst, src, bytes / 16); }
static void cbc_encrypt(size_t bytes) { path->cbc_encrypt(rk, rounds, dst, src, bytes / 16, iv); }

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ns per call of `op` on `bytes` bytes: the median of RUNS runs, each sized to about 10 ms. */
static double time_op(void (*op)(size_t), size_t bytes) {
  long n = 1000;
  for (;;) { /* calibrate (and warm up): double n until a run takes 10 ms */
    double t0 = now();
    for (long i = 0; i < n; i++) op(bytes);
    if (now() - t0 >= 1e7) break;
    n *= 2;
  }
  double ns[RUNS];
  for (int r = 0; r < RUNS; r++) {
    double t0 = now();
    for (long i = 0; i < n; i++) op(bytes);
    ns[r] = (now() - t0) / (double)n;
  }
  qsort(ns, RUNS, sizeof ns[0], by_value);
  return ns[RUNS / 2];
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: call-cost PATH ROUNDS\n");
    return 2;
  }
  for (size_t i = 0; aes_native_paths[i] != NULL; i++) {
    if (strcmp(aes_native_paths[i]->name, argv[1]) == 0) path = aes_native_paths[i];
  }
  rounds = atoi(argv[2]);
  if (path == NULL || !path->available() || (rounds != 10 && rounds != 12 && rounds != 14)) {
    fprintf(stderr, "call-cost: no path %s with %s rounds on this CPU\n", argv[1], argv[2]);
    return 1;
  }
  for (size_t i = 0; i < sizeof rk; i++) rk[i] = (uint8_t)(i * 37 + 11);
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 101 + 7);
  for (size_t i = 0; i < sizeof iv; i++) iv[i] = (uint8_t)(i * 13 + 5);
  printf("cbc-decrypt %d %.2f\n", KIB4, time_op(cbc_decrypt, KIB4));
  printf("cbc-decrypt 16 %.2f\n", time_op(cbc_decrypt, 16));
  printf("ecb-encrypt %d %.2f\n", KIB4, time_op(ecb_encrypt, KIB4));
  printf("cbc-encrypt %d %.2f\n", KIB4, time_op(cbc_encrypt, KIB4));
  return 0;
}
