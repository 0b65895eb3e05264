// Real aes-xts-plain64 containers made by cryptsetup in this test run (LUKS2, and LUKS1 conversions of
// the 512-byte-sector ones): @x/xts with @x/disk-iv's plain64 tweaks must decrypt every payload sector
// to the original data on every kernel, and encrypting the data must give cryptsetup's ciphertext.
import { availableParallelism } from 'node:os';
import {
  describeWithCryptsetup,
  convertToLuks1,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  type Container,
} from '@x/containers';
import { newIvGenerator } from '@x/disk-iv';
import { testedKernels } from '@x/testkit';
import { kernels, newXts } from '@x/xts';
import { afterAll, beforeAll, expect, it } from 'vitest';

describeWithCryptsetup('real aes-xts-plain64 containers made by cryptsetup', () => {
  const specs = [256, 512].flatMap((keySize) => [512, 4096].map((sectorSize) => ({ keySize, sectorSize })));
  const containers: Container[] = [];

  beforeAll(async () => {
    const made = await mapLimit(specs, availableParallelism(), async (s) => {
      const luks2 = await makeLuks2Container({ cipher: 'aes-xts-plain64', ...s, dataSize: 128 * 1024 });
      return s.sectorSize === 512 ? [luks2, await convertToLuks1(luks2)] : [luks2];
    });
    containers.push(...made.flat());
  });
  afterAll(removeAllContainers);

  it('made 4 LUKS2 and 2 LUKS1 containers', () => {
    expect(containers.map((c) => c.format).sort()).toEqual(['luks1', 'luks1', 'luks2', 'luks2', 'luks2', 'luks2']);
  });

  for (const kernel of testedKernels(kernels())) {
    it(`decrypts and re-encrypts every sector on ${kernel}`, async () => {
      for (const c of containers) {
        expect(c.cipher).toBe('aes-xts-plain64');
        const disk = await c.readPayload();
        const sectors = disk.length / c.sectorSize;
        const tweaks = new Uint8Array(16 * sectors);
        newIvGenerator('plain64', c.volumeKey, { sectorSize: c.sectorSize }).generate(tweaks, c.ivTweak, sectors);
        const xts = newXts(c.volumeKey, { kernel });
        const plain = new Uint8Array(disk.length);
        xts.decryptSectors(plain, disk, c.sectorSize, tweaks);
        expect(Buffer.from(plain).equals(c.original), `${c.format} ${c.volumeKey.length * 8}-bit ${c.sectorSize}`).toBe(
          true,
        );
        xts.encryptSectors(plain, plain, c.sectorSize, tweaks);
        expect(Buffer.from(plain).equals(disk)).toBe(true);
        xts.dispose();
      }
    });
  }
});
