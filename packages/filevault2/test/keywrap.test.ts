// AES Key Wrap (RFC 3394) on every AES kernel: the six test vectors of RFC 3394 §4, and random keys and
// key data against node:crypto's id-aes128-wrap / id-aes192-wrap / id-aes256-wrap (OpenSSL's RFC 3394).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import { aesKeyUnwrap, aesKeyWrap, DEFAULT_IV } from '../src/keywrap.js';
import { toHex } from './helpers.js';

const h = (s: string) => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const KEK = '000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F';
const DATA = '00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F';

/** RFC 3394 §4.1 … §4.6: [KEK bytes, key data bytes, ciphertext]. */
const RFC3394: [number, number, string][] = [
  [16, 16, '1FA68B0A8112B447 AEF34BD8FB5A7B82 9D3E862371D2CFE5'],
  [24, 16, '96778B25AE6CA435 F92B5B97C050AED2 468AB8A17AD84E5D'],
  [32, 16, '64E8C3F9CE0F5BA2 63E9777905818A2A 93C8191E7D6E8AE7'],
  [24, 24, '031D33264E15D332 68F24EC260743EDC E1C6C7DDEE725A93 6BA814915C6762D2'],
  [32, 24, 'A8F9BC1612C68B3F F6E6F4FBE30E71E4 769C8B80A32CB895 8CD5D17D6B254DA1'],
  [32, 32, '28C9F404C4B810F4 CBCCB35CFB87F826 3F5786E2D80ED326 CBC7F0E71A99F43B FB988B9B7A02DD21'],
];

function nodeWrap(kek: Uint8Array, data: Uint8Array, iv: Uint8Array = DEFAULT_IV): Uint8Array {
  const c = createCipheriv(`id-aes${kek.length * 8}-wrap`, kek, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

function nodeUnwrap(kek: Uint8Array, wrapped: Uint8Array, iv: Uint8Array = DEFAULT_IV): Uint8Array | undefined {
  const d = createDecipheriv(`id-aes${kek.length * 8}-wrap`, kek, iv);
  try {
    return new Uint8Array(Buffer.concat([d.update(wrapped), d.final()]));
  } catch {
    return undefined;
  }
}

for (const kernel of testedKernels(kernels())) {
  describe(`AES key wrap on ${kernel}`, () => {
    for (const [i, [kekLen, dataLen, ct]] of RFC3394.entries()) {
      it(`RFC 3394 §4.${i + 1}: ${dataLen * 8} bits of key data with a ${kekLen * 8}-bit KEK`, () => {
        const kek = h(KEK).subarray(0, kekLen),
          data = h(DATA).subarray(0, dataLen);
        expect(toHex(aesKeyWrap(kek, data, { kernel }))).toBe(toHex(h(ct)));
        expect(toHex(aesKeyUnwrap(kek, h(ct), { kernel })!)).toBe(toHex(data));
        const bad = h(ct);
        bad[bad.length - 1] ^= 1;
        expect(aesKeyUnwrap(kek, bad, { kernel })).toBeUndefined();
      });
    }

    const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });

    it('wraps and unwraps as node:crypto id-aes*-wrap does: random KEKs, key data of 2 … 16 blocks, IVs', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          fc.integer({ min: 2, max: 16 }),
          bytes(32),
          bytes(128),
          fc.option(bytes(8), { nil: undefined }),
          (kekLen, blocks, k, d, iv) => {
            const kek = k.subarray(0, kekLen),
              data = d.subarray(0, 8 * blocks);
            const wrapped = aesKeyWrap(kek, data, { kernel, iv });
            expect(toHex(wrapped)).toBe(toHex(nodeWrap(kek, data, iv)));
            expect(toHex(aesKeyUnwrap(kek, wrapped, { kernel, iv })!)).toBe(toHex(data));
          },
        ),
        { numRuns: 60 },
      );
    });

    it('refuses what node:crypto refuses: a flipped bit anywhere, another KEK, another IV', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          fc.integer({ min: 2, max: 8 }),
          bytes(32),
          bytes(64),
          fc.nat(),
          (kekLen, blocks, k, d, r) => {
            const kek = k.subarray(0, kekLen),
              data = d.subarray(0, 8 * blocks);
            const wrapped = aesKeyWrap(kek, data, { kernel });
            const bad = Uint8Array.from(wrapped);
            bad[r % bad.length] ^= 1 << (r % 8);
            expect(nodeUnwrap(kek, bad)).toBeUndefined();
            expect(aesKeyUnwrap(kek, bad, { kernel })).toBeUndefined();
            const other = Uint8Array.from(kek);
            other[r % kekLen] ^= 0x80;
            expect(aesKeyUnwrap(other, wrapped, { kernel })).toBeUndefined();
            const iv = Uint8Array.from(DEFAULT_IV);
            iv[r % 8] ^= 1;
            expect(aesKeyUnwrap(kek, wrapped, { kernel, iv })).toBeUndefined();
            expect(toHex(aesKeyUnwrap(kek, wrapped, { kernel })!)).toBe(toHex(data));
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}

describe('AES key wrap: input rules', () => {
  const kek = new Uint8Array(16);
  it('refuses bad KEKs, lengths, IVs and options with TypeError/RangeError', () => {
    expect(() => aesKeyWrap(new Uint8Array(15), new Uint8Array(16))).toThrow(
      new RangeError('@x/filevault2: kek must be 16, 24 or 32 bytes, got 15'),
    );
    expect(() => aesKeyWrap('k' as unknown as Uint8Array, new Uint8Array(16))).toThrow(TypeError);
    expect(() => aesKeyWrap(kek, new Uint8Array(8))).toThrow(
      new RangeError('@x/filevault2: keyData must be a multiple of 8 bytes, at least 16, got 8'),
    );
    expect(() => aesKeyWrap(kek, new Uint8Array(20))).toThrow(RangeError);
    expect(() => aesKeyUnwrap(kek, new Uint8Array(16))).toThrow(
      new RangeError('@x/filevault2: wrapped must be a multiple of 8 bytes, at least 24, got 16'),
    );
    expect(() => aesKeyUnwrap(kek, [] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => aesKeyWrap(kek, new Uint8Array(16), { iv: new Uint8Array(7) })).toThrow(
      new RangeError('@x/filevault2: iv must be 8 bytes'),
    );
    expect(() => aesKeyWrap(kek, new Uint8Array(16), null as unknown as object)).toThrow(TypeError);
    expect(() => aesKeyWrap(kek, new Uint8Array(16), { kernel: 3 as unknown as string })).toThrow(TypeError);
    expect(() => aesKeyWrap(kek, new Uint8Array(16), { kernel: 'no-such-kernel' })).toThrow(RangeError);
  });

  it('leaves its inputs alone', () => {
    const data = new Uint8Array(randomBytes(24));
    const copy = Uint8Array.from(data);
    const wrapped = aesKeyWrap(kek, data);
    const wcopy = Uint8Array.from(wrapped);
    aesKeyUnwrap(kek, wrapped);
    expect(toHex(data)).toBe(toHex(copy));
    expect(toHex(wrapped)).toBe(toHex(wcopy));
  });
});
