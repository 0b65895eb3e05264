import { describe, it } from 'vitest';
import { chooseKernel, polyvalOn } from '@x/aes-kernels/hazmat';
import { kernels } from '@x/hctr2';
import { blocksOnly, testedKernels } from '@x/testkit';
import { newHctr2On } from '../src/hctr2.js';
import { hctr2Conformance, onKernel } from './conformance.js';

// Every conformance test, once per kernel this runtime can run; then again on each kernel's block
// primitives alone: XCTR through @x/ctr's generic keystream over encryptBlocks, and POLYVAL through the
// portable kernel's (polyvalOn's fallback for a kernel without loadPolyval).
for (const kernel of testedKernels(kernels())) {
  hctr2Conformance(onKernel(kernel), { describe, it });
  const generic = blocksOnly(chooseKernel('@x/hctr2', kernel));
  hctr2Conformance(
    { name: generic.name, make: (key) => newHctr2On(generic, key, polyvalOn) },
    { describe, it },
    { inputRules: false, runs: 30 },
  );
}
