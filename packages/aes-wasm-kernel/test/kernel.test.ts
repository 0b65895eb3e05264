// The kernel conformance suite (@x/testkit) on the wasm-simd128 kernel, with lengths and sector counts
// around its chunk (32 KiB of data and 128 IVs per call into WebAssembly); and on its block primitives
// alone.
import { describe, expect, it } from 'vitest';
import { blocksOnly, kernelConformance } from '@x/testkit';
import { kernel } from '../src/index.js';
import { CHUNK, IVS_BYTES, WIDTH } from '../src/layout.js';

it('is available on Node 20, named wasm-simd128, 8 blocks a batch', () => {
  expect([kernel.isAvailable(), kernel.name, kernel.parallelBlocks]).toEqual([true, 'wasm-simd128', WIDTH]);
});

kernelConformance(
  kernel,
  { describe, it },
  { runs: 60, chunkBlocks: [CHUNK / 16], chunkUnits: [IVS_BYTES / 16], throwsAfterDispose: true },
);

kernelConformance(
  blocksOnly(kernel),
  { describe, it },
  { runs: 40, chunkBlocks: [CHUNK / 16], throwsAfterDispose: true },
);
