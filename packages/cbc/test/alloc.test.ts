/**
 * "No allocation per call", shown rather than claimed: 100 000 calls of every hot path allocate
 * nothing on the JS heap and no ArrayBuffer memory, and trigger no garbage collection.
 */
import { randomBytes } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { kernels, newCipher } from '@x/cbc';

const CALLS = 100_000;

for (const kernel of kernels()) {
  describe(`no allocation per call on ${kernel}`, () => {
    const c = newCipher(randomBytes(16), { kernel });
    const src = randomBytes(512);
    const dst = new Uint8Array(512);
    const iv = randomBytes(16);
    const ivs = randomBytes(16 * 4);
    const head = src.subarray(0, 64); // serial CBC: a shorter chain
    const paths: Record<string, () => void> = {
      decrypt: () => c.decrypt(dst, src, iv),
      decryptSectors: () => c.decryptSectors(dst, src, 128, ivs),
      encrypt: () => c.encrypt(dst, head, iv),
      encryptECB: () => c.encryptECB(dst, src),
      decryptECB: () => c.decryptECB(dst, src),
    };
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => {
        for (let i = 0; i < 20_000; i++) call(); // let the JIT settle first
        const gcStarts: number[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) gcStarts.push(e.startTime);
        });
        observer.observe({ entryTypes: ['gc'] });
        const heapBefore = getHeapStatistics().used_heap_size;
        const buffersBefore = process.memoryUsage().arrayBuffers;
        const t0 = performance.now();
        for (let i = 0; i < CALLS; i++) call();
        const t1 = performance.now();
        const heapGrowth = getHeapStatistics().used_heap_size - heapBefore;
        const bufferGrowth = process.memoryUsage().arrayBuffers - buffersBefore;
        await new Promise((r) => setTimeout(r, 20)); // GC entries arrive asynchronously
        observer.disconnect();
        const gcs = gcStarts.filter((t) => t >= t0 && t <= t1).length;
        // A single 16-byte object per call would be 1.6 MB; allow a few KiB of incidental noise.
        expect(gcs).toBe(0);
        expect(heapGrowth).toBeLessThan(32 * 1024);
        expect(bufferGrowth).toBe(0);
      });
    }
  });
}
