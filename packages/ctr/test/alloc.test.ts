// No allocation per call of xorKeyStream, on every kernel and on its block primitives alone (the generic
// keystream, whose scratch the cipher owns); whole blocks and a partial last block.
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { type Ctr, kernels, newCtr } from '../src/index.js';
import { newCtrOn } from '../src/ctr.js';

const targets: [string, (key: Uint8Array) => Ctr, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/ctr', kernel));
  return [
    [kernel, (key: Uint8Array) => newCtr(key, { kernel }), 100_000],
    [generic.name, (key: Uint8Array) => newCtrOn(generic, key), 20_000],
  ] as [string, (key: Uint8Array) => Ctr, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const c = make(randomBytes(16));
    const iv = randomBytes(16);
    for (const n of [512, 100]) {
      const src = randomBytes(n);
      const dst = new Uint8Array(n);
      it(`xorKeyStream of ${n} bytes`, async () =>
        expect(await allocationReport(() => c.xorKeyStream(dst, src, iv), calls)).toBeUndefined());
    }
  });
}
