// @x/ctr on every kernel this runtime can run, and on each kernel's block primitives alone (the generic
// keystream): @x/testkit's stream suite (NIST SP 800-38A F.5, property tests against node:crypto
// `aes-*-ctr`, counter wrap included), and every input rule.
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { blocksOnly, streamInputRules, testedKernels } from '@x/testkit';
import { describe, it } from 'vitest';
import { type Ctr, kernels, newCtr } from '../src/index.js';
import { newCtrOn } from '../src/ctr.js';
import { CTR, ctrConformance } from './conformance.js';

const targets: [string, (key: Uint8Array) => Ctr][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/ctr', kernel));
  return [
    [kernel, (key: Uint8Array) => newCtr(key, { kernel })],
    [generic.name, (key: Uint8Array) => newCtrOn(generic, key)],
  ] as [string, (key: Uint8Array) => Ctr][];
});

for (const [name, make] of targets) ctrConformance({ name, make }, { describe, it });

streamInputRules({ describe, it }, CTR);
