// Every AES-only image of the fixtures opens with the options its name asks for, and sector 0 of the volume
// (outer or hidden; for a whole-drive system image the first partition's) is a FAT boot sector whose serial
// is DEAD-BABE (CAFE-BABE in a hidden volume), as cryptsetup's tcrypt-compat-test checks through blkid:
// the XTS images on every kernel this machine runs in turn, the legacy ones (LRW-AES of TrueCrypt 4.1–4.3,
// CBC-AES with whitening of TrueCrypt 1.0–4.0, which cryptsetup refuses to activate) on every kernel each.
// The PRF hint is given (the images' names say it), so that each derivation runs once; search.test.ts runs
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
const legacy = imageNames()
  .filter((n) => /-(lrw|cbc)-aes(-hidden)?$/.test(n))
  .flatMap(casesOf);

/** Opens case `c` on `kernel` and checks its mode, PRF and FAT serial. */
async function opensToSerial(c: Case, kernel: string, mode: string): Promise<void> {
  const image = new Uint8Array(readFileSync(join(dir, c.name.replace(' (hidden)', ''))));
  const v = await openTcrypt(image, { ...c.options(dir), prf: c.prf, kernel });
  try {
    expect(v.kernel).toBe(kernel);
    expect(v.header?.mode).toBe(mode);
    expect(v.header?.kdf.prf).toBe(c.prf === 'blake2s' ? 'blake2s-256' : c.prf);
    const boot = new Uint8Array(512);
    await v.read(boot, fsSector(v, image, c));
    expect([boot[510], boot[511]]).toEqual([0x55, 0xaa]);
    expect(fatSerial(boot)).toBe(c.serial);
  } finally {
    v.close();
  }
}

describe('every AES-only XTS image opens to its FAT serial', () => {
  it('has the 35 cases (31 images, 4 hidden volumes; the 3 Argon2id images are in argon2.test.ts)', () => {
    expect(cases.length).toBe(35);
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await opensToSerial(c, all[turn++ % all.length], 'xts-plain64');
  });
});

describe('every AES-only legacy image (LRW, CBC with whitening) opens to its FAT serial on every kernel', () => {
  it('has the 9 cases (7 images, 2 hidden volumes)', () => {
    expect(legacy.map((c) => c.name)).toEqual([
      'tc_1-ripemd160-cbc-aes',
      'tc_1-sha1-cbc-aes',
      'tc_2-ripemd160-cbc-aes',
      'tc_2-ripemd160-cbc-aes-hidden',
      'tc_2-ripemd160-cbc-aes-hidden (hidden)',
      'tc_2-ripemd160-lrw-aes',
      'tc_2-ripemd160-lrw-aes-hidden',
      'tc_2-ripemd160-lrw-aes-hidden (hidden)',
      'tc_2-whirlpool-cbc-aes',
    ]);
  });
  it.each(legacy.flatMap((c) => all.map((k) => [`${c.name} on ${k}`, c, k] as const)))(
    '%s',
    async (_name, c, kernel) => {
      await opensToSerial(c, kernel, c.mode === 'lrw' ? 'lrw-benbi' : 'cbc-tcw');
    },
  );
});
