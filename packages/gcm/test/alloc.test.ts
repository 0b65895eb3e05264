// No allocation per call on the hot paths (seal and open with a 12-byte nonce, the same buffers call after
// call), on every kernel and on its block primitives alone (see @x/testkit's allocationReport). The
// views a call needs of caller buffers (the ciphertext's whole blocks) are made when the buffer changes,
// not per call.
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { type Gcm, kernels, newGcm } from '@x/gcm';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newGcmOn } from '../src/gcm.js';

// The generic paths: 20 000 calls, enough to show a 16-byte allocation per call (320 KB).
const targets: [string, (key: Uint8Array) => Gcm, number][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/gcm', kernel));
  return [
    [kernel, (key: Uint8Array) => newGcm(key, { kernel }), 100_000],
    [generic.name, (key: Uint8Array) => newGcmOn(generic, key), 20_000],
  ] as [string, (key: Uint8Array) => Gcm, number][];
});

for (const [kernel, make, calls] of targets) {
  describe(`no allocation per call on ${kernel}`, () => {
    const g = make(randomBytes(16));
    const nonce = randomBytes(12);
    const aad = randomBytes(13);
    const longAad = randomBytes(300);
    const paths: Record<string, () => void> = {};
    // 512 bytes (C and the length block in one call), 100 (whole blocks plus a partial one), 40 (all
    // staged with the AAD), 0 (GMAC).
    for (const n of [512, 100, 40, 0]) {
      const plain = randomBytes(n);
      const sealed = new Uint8Array(n + 16);
      const opened = new Uint8Array(n);
      g.seal(sealed, nonce, plain, aad);
      paths[`seal ${n} bytes`] = () => g.seal(sealed, nonce, plain, aad);
      paths[`open ${n} bytes`] = () => g.open(opened, nonce, sealed, aad);
    }
    {
      const plain = randomBytes(100);
      const sealed = new Uint8Array(116);
      const opened = new Uint8Array(100);
      g.seal(sealed, nonce, plain, longAad);
      paths['seal, 300 bytes of AAD'] = () => g.seal(sealed, nonce, plain, longAad);
      paths['open, 300 bytes of AAD'] = () => g.open(opened, nonce, sealed, longAad);
      paths['seal and open in turn'] = () => {
        g.seal(sealed, nonce, plain, longAad);
        g.open(opened, nonce, sealed, longAad);
      };
    }
    for (const [name, call] of Object.entries(paths)) {
      it(name, async () => expect(await allocationReport(call, calls)).toBeUndefined());
    }
  });
}
