// No allocation per call in the sector paths and whole-block data units, on every kernel (see @x/testkit's
// allocationReport). A data unit that is not whole blocks takes views for ciphertext stealing: not a hot
// path on disks.
import { randomBytes } from 'node:crypto';
import { allocationReport } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { kernels, newXts } from '@x/xts';

for (const kernel of kernels()) {
  describe(`no allocation per call on ${kernel}`, () => {
    const x = newXts(randomBytes(32), { kernel });
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
      it(name, async () => expect(await allocationReport(call)).toBeUndefined());
    }
  });
}
