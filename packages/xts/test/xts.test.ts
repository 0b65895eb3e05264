import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { kernels, newXts, type Xts } from '@x/xts';
import { blocksOnly, keyPair, placed, random, testedKernels, toHex } from '@x/testkit';
import { newXtsOn } from '../src/xts.js';
import { onKernel, xtsConformance } from './conformance.js';

// Every conformance test, once per kernel this runtime can run; then again on each kernel's block
// primitives alone, where the whole blocks go through this package's generic code (the input rules,
// the mode's own code whichever path runs, once per kernel).
for (const kernel of testedKernels(kernels())) {
  xtsConformance(onKernel(kernel), { describe, it });
  const generic = blocksOnly(chooseKernel('@x/xts', kernel));
  xtsConformance(
    { name: generic.name, make: (key) => newXtsOn(generic, key) },
    { describe, it },
    { inputRules: false },
  );
}

describe('fast paths and generic paths give the same bytes', () => {
  for (const kernel of testedKernels(kernels())) {
    it(`on ${kernel}: random keys, data units of any length, sector sizes and counts, offsets, in place or not`, () => {
      const generic = blocksOnly(chooseKernel('@x/xts', kernel));
      fc.assert(
        fc.property(
          fc.constantFrom(16, 32),
          fc.constantFrom('encrypt', 'decrypt', 'encryptSectors', 'decryptSectors'),
          fc.integer({ min: 16, max: 4200 }),
          fc.oneof(
            fc.integer({ min: 1, max: 64 }).map((b) => 16 * b),
            fc.constantFrom(512, 4096),
          ),
          fc.integer({ min: 0, max: 40 }),
          fc.tuple(fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (half, op, length, sectorSize, sectors, [so, dso], inPlace) => {
            const [k1, k2] = keyPair(half);
            const key = new Uint8Array(2 * half);
            key.set(k1);
            key.set(k2, half);
            const whole = op.endsWith('Sectors');
            const data = random(whole ? sectorSize * sectors : length),
              tweaks = random(whole ? 16 * sectors : 16);
            const run = (x: Xts) => {
              const src = placed(data, so);
              const dst = inPlace ? src : placed(new Uint8Array(data.length), dso);
              if (op === 'encrypt') x.encrypt(dst, src, tweaks);
              else if (op === 'decrypt') x.decrypt(dst, src, tweaks);
              else if (op === 'encryptSectors') x.encryptSectors(dst, src, sectorSize, tweaks);
              else x.decryptSectors(dst, src, sectorSize, tweaks);
              x.dispose();
              return toHex(dst);
            };
            expect(run(newXtsOn(generic, key))).toBe(run(newXts(key, { kernel })));
          },
        ),
        { numRuns: 80 },
      );
    });
  }
});
