// No allocation per call in the sector paths and in messages that fit the core's memory, on every kernel
// (see @x/testkit's allocationReport): the views of the caller's buffers and of the core's memory are made
// when the buffers change, not per call.
import { randomBytes } from 'node:crypto';
import { type Adiantum, kernels, newAdiantum, newHpolyc } from '@x/adiantum';
import { allocationReport, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';

for (const kernel of testedKernels(kernels())) {
  for (const [name, make] of [
    ['Adiantum', newAdiantum],
    ['HPolyC', newHpolyc],
  ] as const) {
    describe(`no allocation per call: ${name} on ${kernel}`, () => {
      const h: Adiantum = make(randomBytes(32), { kernel });
      const src = randomBytes(4096);
      const dst = new Uint8Array(4096);
      const tweak = randomBytes(32);
      const tweaks = randomBytes(32 * 8);
      const odd = src.subarray(0, 500);
      const oddDst = dst.subarray(0, 500);
      const tweak17 = tweak.subarray(0, 17);
      const calls = kernel === 'portable' ? 300 : 3_000;
      const paths: Record<string, () => void> = {
        encryptSectors: () => h.encryptSectors(dst, src, 512, tweaks),
        decryptSectors: () => h.decryptSectors(dst, src, 512, tweaks),
        'encryptSectors, in place': () => h.encryptSectors(dst, dst, 512, tweaks),
        encrypt: () => h.encrypt(dst, src, tweak),
        decrypt: () => h.decrypt(dst, src, tweak),
        'decrypt, 500 bytes, a 17-byte tweak': () => h.decrypt(oddDst, odd, tweak17),
      };
      for (const [path, call] of Object.entries(paths)) {
        it(path, async () => expect(await allocationReport(call, calls)).toBeUndefined());
      }
    });
  }
}
