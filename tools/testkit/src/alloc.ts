// "No allocation per call", shown rather than claimed.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/** How many measured runs {@link allocationReport} makes at most before it reports growth. */
export const ATTEMPTS = 6;

/**
 * `allocationReport`: "no allocation per call" shown rather than claimed. After a warm-up (so the JIT has
 * settled), `calls` calls must allocate nothing on the JS heap and no ArrayBuffer memory, and start no
 * garbage collection. Noise only adds: the test runner's own work can allocate, and so does V8 itself
 * while a function waits for its optimized code (on a busy machine the background compiler is starved, and
 * until the code is installed the calls run in a lower tier that boxes numbers: megabytes of young
 * objects that are V8's, not the path's). So a run that sees growth is followed by a pause that hands the
 * CPU to the compiler, a fresh warm-up and another run, up to {@link ATTEMPTS} runs: one clean run proves
 * the path allocates nothing, while a path that allocates a single 16-byte object per call fails every
 * one (1.6 MB per 100 000 calls). Load can only delay the clean run, never fake it.
 *
 * @returns undefined when a run was clean, else what each run saw.
 * @example
 * ```ts
 * expect(await allocationReport(() => cipher.decrypt(dst, src, iv))).toBeUndefined();
 * ```
 */
export async function allocationReport(call: () => void, calls = 100_000): Promise<string | undefined> {
  const seen: string[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * attempt)); // the compiler's turn
    for (let i = 0; i < 20_000; i++) call();
    const gcStarts: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcStarts.push(e.startTime);
    });
    observer.observe({ entryTypes: ['gc'] });
    const heapBefore = getHeapStatistics().used_heap_size;
    const buffersBefore = process.memoryUsage().arrayBuffers;
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) call();
    const t1 = performance.now();
    const heapGrowth = getHeapStatistics().used_heap_size - heapBefore;
    const bufferGrowth = process.memoryUsage().arrayBuffers - buffersBefore;
    await new Promise((r) => setTimeout(r, 20)); // GC entries arrive asynchronously
    observer.disconnect();
    const gcs = gcStarts.filter((t) => t >= t0 && t <= t1).length;
    if (gcs === 0 && heapGrowth < 32 * 1024 && bufferGrowth === 0) return undefined;
    seen.push(`${gcs} GCs, heap +${heapGrowth} B, ArrayBuffers +${bufferGrowth} B`);
  }
  return seen.join('; ');
}
