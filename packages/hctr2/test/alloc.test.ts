// No allocation per call in the sector paths and whole-block messages, on every kernel and on its block
// primitives alone (see @x/testkit's allocationReport). The views of the caller's buffers that the kernels
// need are made when the buffers change, not per call (ViewCache of @x/aes-kernels/hazmat).
import { randomBytes } from 'node:crypto';
import { chooseKernel, polyvalOn } from '@x/aes-kernels/hazmat';
import { kernels, newHctr2, type Hctr2 } from '@x/hctr2';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newHctr2On } from '../src/hctr2.js';

const targets: [string, (key: Uint8Array) => Hctr2, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/hctr2', kernel));
  return [
    [kernel, (key: Uint8Array) => newHctr2(key, { kernel }), 5_000],
    [generic.name, (key: Uint8Array) => newHctr2On(generic, key, polyvalOn), 3_000],
  ] as [string, (key: Uint8Array) => Hctr2, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const h = make(randomBytes(32));
    const src = randomBytes(512);
    const dst = new Uint8Array(512);
    const tweak = randomBytes(32);
    const tweaks = randomBytes(32 * 4);
    const tweak16 = randomBytes(16);
    const odd = src.subarray(0, 500);
    const oddDst = dst.subarray(0, 500);
    const paths: Record<string, () => void> = {
      encryptSectors: () => h.encryptSectors(dst, src, 128, tweaks),
      decryptSectors: () => h.decryptSectors(dst, src, 128, tweaks),
      'encryptSectors, in place': () => h.encryptSectors(dst, dst, 128, tweaks),
      encrypt: () => h.encrypt(dst, src, tweak),
      decrypt: () => h.decrypt(dst, src, tweak),
      'encrypt, 16-byte tweak': () => h.encrypt(dst, src, tweak16),
      'decrypt, 500 bytes (a partial last block)': () => h.decrypt(oddDst, odd, tweak),
    };
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => expect(await allocationReport(call, calls)).toBeUndefined());
    }
  });
}
