// encryptSectors: many CBC chains at once (NIST SP 800-38A §6.2), one per sector, against node:crypto.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { portableKernel } from '../src/index.js';
import { refEncrypt, toHex } from './helpers.js';

function placed(length: number, offset: number): Uint8Array {
  const b = randomBytes(length + offset);
  return new Uint8Array(b.buffer, b.byteOffset + offset, length);
}

describe('portable encryptSectors', () => {
  it('matches node:crypto sector by sector: any sector size and count, in place or not', () => {
    const arb = fc.record({
      bytes: fc.constantFrom(16, 24, 32),
      spb: fc.integer({ min: 1, max: 40 }),
      sectors: fc.oneof(fc.integer({ min: 0, max: 70 }), fc.constantFrom(31, 32, 33, 64, 65)),
      so: fc.nat(7),
      dso: fc.nat(7),
      inPlace: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ bytes, spb, sectors, so, dso, inPlace }) => {
        const key = randomBytes(bytes);
        const size = 16 * spb;
        const plain = randomBytes(sectors * size);
        const ivs = randomBytes(16 * sectors);
        const want = new Uint8Array(plain.length);
        for (let s = 0; s < sectors; s++) {
          want.set(refEncrypt('cbc', key, plain.subarray(s * size, (s + 1) * size), ivs.subarray(16 * s, 16 * s + 16)), s * size);
        }
        const k = portableKernel.load(expandKey(key));
        const src = placed(plain.length, so);
        src.set(plain);
        const dst = inPlace ? src : placed(plain.length, dso);
        const ivsBefore = toHex(ivs);
        k.encryptSectors(dst, src, size, ivs);
        expect(toHex(dst)).toBe(toHex(want));
        expect(toHex(ivs)).toBe(ivsBefore);
        k.dispose();
      }),
      { numRuns: 60 },
    );
  });
});
