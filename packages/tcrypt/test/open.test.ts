// Every AES-only XTS image of the fixtures opens with the options its name asks for, on every kernel this
// machine runs (in turn), and sector 0 of the volume (outer or hidden) is a FAT boot sector whose serial is
// DEAD-BABE (CAFE-BABE in a hidden volume), as cryptsetup's tcrypt-compat-test checks through blkid. The
// PRF hint is given (the images' names say it), so that each derivation runs once; open-errors.test.ts runs
// the search without it. The Argon2id images are in argon2.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { openTcrypt, type TcryptVolume } from '../src/index.js';
import { type Case, casesOf, extractImages, fatSerial, imageNames } from './images.js';

const { dir, remove } = extractImages();
afterAll(remove);

const all = testedKernels(kernels());
let turn = 0;

/** The sector of the volume where the file system starts: 0, or for a whole-drive system image the first MBR partition's. */
function fsSector(v: TcryptVolume, image: Uint8Array, c: Case): number {
  if (!c.name.includes('_full')) return 0;
  const lba = new DataView(image.buffer, image.byteOffset).getUint32(446 + 8, true);
  return (lba * 512 - v.payloadOffset) / 512;
}

const cases = imageNames()
  .filter((n) => /-xts-aes(-hidden)?$/.test(n) && !n.includes('argon2id'))
  .flatMap(casesOf);

describe('every AES-only XTS image opens to its FAT serial', () => {
  it('has the 35 cases (31 images, 4 hidden volumes; the 3 Argon2id images are in argon2.test.ts)', () => {
    expect(cases.length).toBe(35);
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const kernel = all[turn++ % all.length];
    const image = new Uint8Array(readFileSync(join(dir, c.name.replace(' (hidden)', ''))));
    const v = await openTcrypt(image, { ...c.options(dir), prf: c.prf, kernel });
    try {
      expect(v.kernel).toBe(kernel);
      expect(v.header?.mode).toBe('xts-plain64');
      expect(v.header?.kdf.prf).toBe(c.prf === 'blake2s' ? 'blake2s-256' : c.prf);
      const boot = new Uint8Array(512);
      await v.read(boot, fsSector(v, image, c));
      expect([boot[510], boot[511]]).toEqual([0x55, 0xaa]);
      expect(fatSerial(boot)).toBe(c.serial);
    } finally {
      v.close();
    }
  });
});
