// "No allocation per call", shown rather than claimed (see @x/testkit's allocationReport): 100 000 calls
// of every hot path, on every kernel, allocate nothing and start no garbage collection.
import { randomBytes } from 'node:crypto';
import { allocationReport } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { kernels, newCipher } from '@x/cbc';

for (const kernel of kernels()) {
  describe(`no allocation per call on ${kernel}`, () => {
    const c = newCipher(randomBytes(16), { kernel });
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
      it(name, async () => expect(await allocationReport(call)).toBeUndefined());
    }
  });
}
