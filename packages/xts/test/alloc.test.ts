// No allocation per call in the sector paths and whole-block data units, on every kernel (see @x/testkit's
// allocationReport). A data unit that is not whole blocks takes views for ciphertext stealing: not a hot
// path on disks.
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { kernels, newXts, type Xts } from '@x/xts';
import { newXtsOn } from '../src/xts.js';

// On every kernel, and on its block primitives alone (the generic paths, whose scratch the cipher owns).
// The generic paths: 20 000 calls, enough to show a 16-byte allocation per call (320 KB).
const targets: [string, (key: Uint8Array) => Xts, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/xts', kernel));
  return [
    [kernel, (key: Uint8Array) => newXts(key, { kernel }), 100_000],
    [generic.name, (key: Uint8Array) => newXtsOn(generic, key), 20_000],
  ] as [string, (key: Uint8Array) => Xts, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const x = make(randomBytes(32));
    const src = randomBytes(512);
    const dst = new Uint8Array(512);
    const tweak = randomBytes(16);
    const tweaks = randomBytes(16 * 4);
    const paths: Record<string, () => void> = {
      encryptSectors: () => x.encryptSectors(dst, src, 128, tweaks),
      decryptSectors: () => x.decryptSectors(dst, src, 128, tweaks),
      encrypt: () => x.encrypt(dst, src, tweak),
      decrypt: () => x.decrypt(dst, src, tweak),
    };
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => expect(await allocationReport(call, calls)).toBeUndefined());
    }
  });
}
