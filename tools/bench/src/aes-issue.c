/*
 * The peak rate of this core's AES decryption rounds at each register width it has: 12 independent
 * registers, each taken through AESDEC (xmm: AES-NI, VEX-encoded; ymm and zmm: VAES) with one round key,
 * over and over, so that nothing but the instruction's issue rate bounds the loop (12 cover its latency at
 * two per cycle). Prints one line per width, "<width> <block-rounds per ns>" (a block-round is one AES round of one
 * 16-byte block: 1 per xmm instruction, 2 per ymm, 4 per zmm), the best of 7 runs of about 0.1 s.
 * Compiled and run by src/aes-issue.ts (`npm run bench -- --aes-issue`). x86-64 only.
 */
#include <stdio.h>
#include <time.h>

#define ITERS 4000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * 12 registers through one AESDEC each per iteration, the round key in register 0; written in assembly so
 * that the loop is those 12 instructions, a decrement and a branch, whatever the compiler would make of it.
 */
#define DEC12(I, W)                                                                                          \
  I " %%" W "0, %%" W "1, %%" W "1\n\t" I " %%" W "0, %%" W "2, %%" W "2\n\t" I " %%" W "0, %%" W "3, %%" W   \
    "3\n\t" I " %%" W "0, %%" W "4, %%" W "4\n\t" I " %%" W "0, %%" W "5, %%" W "5\n\t" I " %%" W "0, %%" W   \
    "6, %%" W "6\n\t" I " %%" W "0, %%" W "7, %%" W "7\n\t" I " %%" W "0, %%" W "8, %%" W "8\n\t" I " %%" W   \
    "0, %%" W "9, %%" W "9\n\t" I " %%" W "0, %%" W "10, %%" W "10\n\t" I " %%" W "0, %%" W "11, %%" W         \
    "11\n\t" I " %%" W "0, %%" W "12, %%" W "12\n\t"
#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12"

#define PEAK(NAME, ATTR, I, W)                                          \
  static ATTR double NAME(void) {                                       \
    long n = ITERS;                                                     \
    const double t0 = now();                                            \
    __asm__ volatile("1:\n\t" DEC12(I, W) "dec %0\n\tjnz 1b" : "+r"(n) : : "cc", CLOBBERS); \
    return now() - t0;                                                  \
  }

PEAK(peak_xmm, __attribute__((target("avx,aes"))), "vaesdec", "xmm")
PEAK(peak_ymm, __attribute__((target("vaes,avx2"))), "vaesdec", "ymm")
PEAK(peak_zmm, __attribute__((target("vaes,avx512f"))), "vaesdec", "zmm")

static void report(const char *width, double (*peak)(void), int blocks) {
  double best = 0;
  for (int run = 0; run < 7; run++) {
    const double rate = (double)ITERS * 12 * blocks / peak() * 1e-9;
    if (rate > best) best = rate;
  }
  printf("%s %.3f\n", width, best);
}

int main(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("aes")) report("xmm", peak_xmm, 1);
  if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2")) report("ymm", peak_ymm, 2);
  if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f")) report("zmm", peak_zmm, 4);
  return 0;
}
