/*
 * The core clock while the machine runs, for the benchmark's cycles-per-byte column: a chain of dependent
 * additions of a register to itself takes one cycle each on every x86-64 and arm64 core, so the chain's
 * rate is the clock rate (turbo included, which the TSC and /proc/cpuinfo do not show). Not additions of
 * a constant: Intel's Golden Cove cores fold chains of those at register renaming, and on a Sapphire
 * Rapids Xeon the chain of `add $1` read 21 GHz. Prints the best of 7 runs of about
 * 0.1 s, in Hz. Compiled and run by src/modes.ts.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__)
#define ADD1 "add %0, %0\n\t"
#elif defined(__aarch64__)
#define ADD1 "add %0, %0, %0\n\t"
#else
#error "clock.c: x86-64 or arm64 only"
#endif
#define ADD10 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  double best = 0;
  uint64_t x = 0;
  for (int run = 0; run < 7; run++) {
    const long n = 40000000; /* additions: 10 per iteration, 100 per 10 iterations */
    double t0 = now();
    for (long i = 0; i < n; i += 100) {
      __asm__ volatile(ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 : "+r"(x));
    }
    double hz = (double)n / (now() - t0);
    if (hz > best) best = hz;
  }
  printf("%.0f %llu\n", best, (unsigned long long)x);
  return 0;
}
