import { chooseKernel } from '@x/aes-kernels/hazmat';
import { kernels, newGcm } from '@x/gcm';
import { blocksOnly, testedKernels, toHex } from '@x/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newGcmOn } from '../src/gcm.js';
import { gcmConformance } from './conformance.js';
import { refSeal, refSealSpec } from './reference.js';

// Every conformance test, once per kernel this runtime can run (its `ctr` and `loadPolyval` fast paths
// where it has them); then again on each kernel's block primitives alone, where the keystream is
// @x/ctr's generic one and GHASH runs on the portable kernel's POLYVAL (the input rules, the mode's own
// code whichever path runs, once per kernel). The suite is @x/testkit's AEAD suite, shared with @x/ccm.
for (const kernel of testedKernels(kernels())) {
  const parallelBlocks = chooseKernel('@x/gcm', kernel).parallelBlocks;
  gcmConformance(
    { name: kernel, parallelBlocks, make: (key, options) => newGcm(key, { ...options, kernel }) },
    { describe, it },
  );
  const generic = blocksOnly(chooseKernel('@x/gcm', kernel));
  gcmConformance(
    { name: generic.name, parallelBlocks, make: (key, options) => newGcmOn(generic, key, options) },
    { describe, it },
    { inputRules: false, runs: 50 },
  );
}

describe('the test reference', () => {
  it('GCM written out from SP 800-38D agrees with node:crypto (what long nonces are checked against)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        fc.uint8Array({ minLength: 1, maxLength: 128 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.integer({ min: 12, max: 16 }),
        (key, nonce, plain, aad, t) => {
          expect(toHex(refSealSpec(key, nonce, plain, aad, t))).toBe(toHex(refSeal(key, nonce, plain, aad, t)));
        },
      ),
      { numRuns: 200 },
    );
  });
});
