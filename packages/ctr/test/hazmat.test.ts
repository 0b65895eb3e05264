// `ctrXor` of @x/ctr/hazmat, the keystream @x/gcm (be32) and @x/hctr2 (xctr) use: every counter kind, on
// every kernel's fast path and on its block primitives alone (the generic keystream), against the
// references of @x/testkit (node:crypto for be128; ECB over counter blocks built from the definitions
// for be32 and xctr).
import { type AesKernel, chooseKernel } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, blocksOnly, CTR_COUNTERS, random, refCtr, testedKernels } from '@x/testkit';
import { describe, it } from 'vitest';
import { kernels } from '../src/index.js';
import { ctrXor, CtrScratch } from '../src/hazmat.js';

const targets: AesKernel[] = testedKernels(kernels()).flatMap((name) => {
  const k = chooseKernel('@x/ctr', name);
  return [k, blocksOnly(k)];
});

/** IV tails where a counter carries or wraps. */
const TAILS: Record<(typeof CTR_COUNTERS)[number], number[][]> = {
  be128: [[], new Array(16).fill(0xff), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]],
  be32: [[], [0xff, 0xff, 0xff, 0xfd], [0x00, 0x00, 0xff, 0xff]],
  xctr: [[], new Array(16).fill(0xff)],
};

for (const kernel of targets) {
  describe(`ctrXor on ${kernel.name}`, () => {
    for (const counter of CTR_COUNTERS) {
      it(`${counter}: lengths 0..40 blocks and partial blocks, 300 blocks, carries and wraps, in place`, () => {
        for (const n of [16, 24, 32]) {
          const key = random(n);
          const schedule = expandKey(key);
          const k = kernel.load(schedule);
          schedule.wipe();
          const scratch = new CtrScratch(kernel.parallelBlocks);
          const lengths = [...Array.from({ length: 41 }, (_, b) => [16 * b, 16 * b + 7]).flat(), 16 * 300 + 1];
          for (const [i, len] of lengths.entries()) {
            const iv = random(16);
            const tail = TAILS[counter][i % TAILS[counter].length];
            iv.set(tail, 16 - tail.length);
            const src = random(len);
            const want = refCtr(key, src, iv, counter);
            const dst = new Uint8Array(len);
            ctrXor(k, scratch, dst, src, iv, counter);
            assertBytes(dst, want, `AES-${8 * n} ${counter}, ${len} bytes`);
            ctrXor(k, scratch, src, src, iv, counter);
            assertBytes(src, want, `AES-${8 * n} ${counter}, ${len} bytes in place`);
          }
          k.dispose();
        }
      });
    }
  });
}
