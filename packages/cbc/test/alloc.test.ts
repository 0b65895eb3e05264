// "No allocation per call", shown rather than claimed (see @x/testkit's allocationReport): 100 000 calls
// of every hot path, on every kernel and on its block primitives alone (the generic paths, whose scratch
// the cipher owns), allocate nothing and start no garbage collection.
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { kernels, newCipher, type Cipher } from '@x/cbc';
import { newCipherOn } from '../src/cipher.js';

// The generic paths of a 32-lane kernel run one batch per block of serial CBC: 20 000 calls, enough to
// show a 16-byte allocation per call (320 KB), keep them quick.
const targets: [string, (key: Uint8Array) => Cipher, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/cbc', kernel));
  return [
    [kernel, (key: Uint8Array) => newCipher(key, { kernel }), 100_000],
    [generic.name, (key: Uint8Array) => newCipherOn(generic, key), 20_000],
  ] as [string, (key: Uint8Array) => Cipher, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const c = make(randomBytes(16));
    const src = randomBytes(512);
    const dst = new Uint8Array(512);
    const iv = randomBytes(16);
    const ivs = randomBytes(16 * 4);
    const head = src.subarray(0, 64); // serial CBC: a shorter chain
    const paths: Record<string, () => void> = {
      decrypt: () => c.decrypt(dst, src, iv),
      decryptSectors: () => c.decryptSectors(dst, src, 128, ivs),
      encryptSectors: () => c.encryptSectors(dst, src, 128, ivs),
      encrypt: () => c.encrypt(dst, head, iv),
      encryptECB: () => c.encryptECB(dst, src),
      decryptECB: () => c.decryptECB(dst, src),
    };
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => expect(await allocationReport(call, calls)).toBeUndefined());
    }
  });
}
