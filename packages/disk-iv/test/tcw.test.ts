// tcw (TrueCrypt 1.0–4.0's CBC IVs, dm-crypt's crypt_iv_tcw_gen): the IV is the seed, key[len − 32 ..
// len − 16), with both of its 8-byte halves ⊕ le64(sector); checked against a bigint model of that and a
// hand-written case. The whitening of the data is @x/dm-crypt's (its tests).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newIvGenerator } from '../src/index.js';
import { hex, toHex } from './reference.js';

function modelIv(key: Uint8Array, sector: bigint): Uint8Array {
  const seed = key.subarray(key.length - 32, key.length - 16);
  const iv = new Uint8Array(16);
  for (let i = 0; i < 16; i++) iv[i] = seed[i] ^ Number((sector >> BigInt(8 * (i % 8))) & 0xffn);
  return iv;
}

describe('tcw', () => {
  it('is the seed ⊕ (le64(sector) ‖ le64(sector)): a hand-written case', () => {
    const key = new Uint8Array(64);
    key.set(hex('00112233445566778899aabbccddeeff'), 32); // the seed; the whitening (last 16) plays no part
    key.fill(0xee, 48);
    const ivs = new Uint8Array(32);
    newIvGenerator('tcw', key).generate(ivs, 0x0102030405n, 2);
    expect(toHex(ivs)).toBe('0515213145556677' + '8d9da9b9cdddeeff' + '0615213145556677' + '8e9da9b9cdddeeff');
  });

  it('matches the model for any 64-bit sector and every key length, in one batch', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(48, 56, 64),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 65n }),
        fc.integer({ min: 0, max: 64 }),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        (n, first, count, bytes) => {
          const key = bytes.subarray(0, n);
          const ivs = new Uint8Array(16 * count);
          newIvGenerator('tcw', key).generate(ivs, first, count);
          const want = new Uint8Array(16 * count);
          for (let i = 0; i < count; i++) want.set(modelIv(key, first + BigInt(i)), 16 * i);
          expect(toHex(ivs)).toBe(toHex(want));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses other key lengths and sector sizes, as dm-crypt does, and wipes its seed on dispose', () => {
    expect(() => newIvGenerator('tcw', new Uint8Array(32))).toThrow(/^@x\/disk-iv: tcw takes a 48, 56, 64-byte/);
    expect(() => newIvGenerator('tcw', new Uint8Array(64), { sectorSize: 4096 })).toThrow(
      /^@x\/disk-iv: tcw takes 512-byte sectors only/,
    );
    const g = newIvGenerator('tcw', new Uint8Array(64).fill(7));
    g.dispose();
    expect(() => g.generate(new Uint8Array(16), 0, 1)).toThrow(/disposed/);
  });
});
