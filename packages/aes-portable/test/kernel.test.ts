// The kernel conformance suite (@x/testkit) on the portable kernel; on the same kernel with calls cut
// every 64 blocks instead of every 2^26 (the split that keeps the generated code's offsets below 2^31,
// too large to reach in a test otherwise); and on its block primitives alone.
import { describe, expect, it } from 'vitest';
import type { AesKernel, FastPath } from '@x/aes-kernel-contract';
import { expandKey } from '@x/aes-keyschedule';
import { blocksOnly, kernelConformance } from '@x/testkit';
import { kernel } from '../src/index.js';
import { loadInternal } from '../src/keyed.js';

it('is the kernel named portable, 32 blocks a batch, with every fast path', () => {
  expect([kernel.name, kernel.parallelBlocks]).toEqual(['portable', 32]);
  const k = kernel.load(expandKey(new Uint8Array(16)));
  for (const m of [
    'cbcEncrypt',
    'cbcDecryptSectors',
    'cbcEncryptSectors',
    'xtsEncrypt',
    'xtsDecrypt',
  ] satisfies FastPath[]) {
    expect(typeof k[m], m).toBe('function');
  }
  k.dispose();
});

kernelConformance(kernel, { describe, it });

const chunked: AesKernel = {
  ...kernel,
  name: 'portable, 64-block chunks',
  load: (schedule) => loadInternal(schedule, 64).keyed,
};
kernelConformance(chunked, { describe, it }, { runs: 40, chunkBlocks: [64] });

kernelConformance(blocksOnly(kernel), { describe, it }, { runs: 40 });
