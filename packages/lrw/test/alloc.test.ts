// No allocation per call in the sector paths and the data-unit paths, on every kernel and on its block
// primitives alone (see @x/testkit's allocationReport).
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { kernels, type Lrw, newLrw } from '../src/index.js';
import { newLrwOn } from '../src/lrw.js';

const targets: [string, (key: Uint8Array) => Lrw, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/lrw', kernel));
  return [
    [kernel, (key: Uint8Array) => newLrw(key, { kernel }), 50_000],
    [generic.name, (key: Uint8Array) => newLrwOn(generic, key), 20_000],
  ] as [string, (key: Uint8Array) => Lrw, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const x = make(randomBytes(48));
    const src = randomBytes(512);
    const dst = new Uint8Array(512);
    const iv = randomBytes(16);
    const ivs = randomBytes(16 * 4);
    const paths: Record<string, () => void> = {
      encryptSectors: () => x.encryptSectors(dst, src, 128, ivs),
      decryptSectors: () => x.decryptSectors(dst, src, 128, ivs),
      encrypt: () => x.encrypt(dst, src, iv),
      decrypt: () => x.decrypt(dst, src, iv),
    };
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => expect(await allocationReport(call, calls)).toBeUndefined());
    }
  });
}
