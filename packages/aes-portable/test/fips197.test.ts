import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { portableKernel } from '../src/index.js';
import { hex, toHex } from './helpers.js';

// FIPS 197 Appendix C (C.1, C.2, C.3): key 000102…, plaintext 00112233445566778899aabbccddeeff.
const vectors = [
  { key: '000102030405060708090a0b0c0d0e0f', ct: '69c4e0d86a7b0430d8cdb78070b4c55a' },
  { key: '000102030405060708090a0b0c0d0e0f1011121314151617', ct: 'dda97ca4864cdfe06eaf70a0ec0d7191' },
  { key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', ct: '8ea2b7ca516745bfeafc49904b496089' },
];
const PT = '00112233445566778899aabbccddeeff';

describe('FIPS 197 Appendix C', () => {
  it('reports the kernel contract fields', () => {
    expect(portableKernel.name).toBe('portable');
    expect(portableKernel.isAvailable()).toBe(true);
    expect(portableKernel.parallelBlocks).toBe(32);
  });

  for (const v of vectors) {
    describe(`AES-${4 * v.key.length}`, () => {
      const k = portableKernel.load(expandKey(hex(v.key)));
      const zero = new Uint8Array(16);
      it('has the right number of rounds', () => expect(k.rounds).toBe(v.key.length / 8 + 6));
      it('encryptECB', () => {
        const out = new Uint8Array(16);
        k.encryptECB(out, hex(PT));
        expect(toHex(out)).toBe(v.ct);
      });
      it('decryptECB', () => {
        const out = new Uint8Array(16);
        k.decryptECB(out, hex(v.ct));
        expect(toHex(out)).toBe(PT);
      });
      it('encryptCBC with a zero IV (one block)', () => {
        const out = new Uint8Array(16);
        k.encryptCBC(out, hex(PT), zero);
        expect(toHex(out)).toBe(v.ct);
      });
      it('decryptCBC and decryptSectors with a zero IV (one block)', () => {
        const out = new Uint8Array(16);
        k.decryptCBC(out, hex(v.ct), zero);
        expect(toHex(out)).toBe(PT);
        const out2 = new Uint8Array(16);
        k.decryptSectors(out2, hex(v.ct), 16, zero);
        expect(toHex(out2)).toBe(PT);
      });
      it('the same block in every lane of a full batch, and of a partial one', () => {
        for (const n of [32, 33]) {
          const pt = new Uint8Array(16 * n);
          for (let i = 0; i < n; i++) pt.set(hex(PT), 16 * i);
          const ct = new Uint8Array(16 * n);
          k.encryptECB(ct, pt);
          for (let i = 0; i < n; i++) expect(toHex(ct.subarray(16 * i, 16 * i + 16))).toBe(v.ct);
          k.decryptECB(ct, ct);
          expect(ct).toEqual(pt);
        }
      });
      it('zero-length calls write nothing', () => {
        const dst = new Uint8Array(16).fill(7);
        const empty = new Uint8Array(0);
        k.encryptECB(dst, empty);
        k.decryptECB(dst, empty);
        k.encryptCBC(dst, empty, zero);
        k.decryptCBC(dst, empty, zero);
        k.decryptSectors(dst, empty, 512, empty);
        expect(dst).toEqual(new Uint8Array(16).fill(7));
      });
    });
  }
});
