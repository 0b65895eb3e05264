// @x/ctr on every kernel this runtime can run, and on each kernel's block primitives alone (the generic
// keystream): NIST SP 800-38A F.5, property tests against node:crypto `aes-*-ctr` (counter wrap
// included), and every input rule.
import { createCipheriv } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { assertBytes, blocksOnly, hex, placed, random, SP800_38A_PLAINTEXT, testedKernels } from '@x/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Ctr, kernels, newCtr } from '../src/index.js';
import { newCtrOn } from '../src/ctr.js';

/** NIST SP 800-38A Appendix F.5.1, F.5.3, F.5.5 (CTR-AES128/192/256.Encrypt; F.5.2/4/6 decrypt them back). */
const SP800_38A_CTR = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    ciphertext:
      '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    ciphertext:
      '1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    ciphertext:
      '601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6',
  },
];
const SP800_38A_CTR_IV = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff';

const node = (key: Uint8Array, iv: Uint8Array, data: Uint8Array) =>
  new Uint8Array(createCipheriv(`aes-${key.length * 8}-ctr`, key, iv).update(data));

/** IVs near where the counter carries or wraps: the last 1..16 bytes all ones, the rest random. */
const ivArb = fc
  .tuple(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 0, max: 16 }))
  .map(([iv, ones]) => {
    iv.fill(0xff, 16 - ones);
    return iv;
  });

const targets: [string, (key: Uint8Array) => Ctr][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/ctr', kernel));
  return [
    [kernel, (key: Uint8Array) => newCtr(key, { kernel })],
    [generic.name, (key: Uint8Array) => newCtrOn(generic, key)],
  ] as [string, (key: Uint8Array) => Ctr][];
});

for (const [name, make] of targets) {
  describe(`@x/ctr on ${name}`, () => {
    it('NIST SP 800-38A F.5.1-F.5.6: CTR-AES128/192/256, both directions', () => {
      for (const v of SP800_38A_CTR) {
        const c = make(hex(v.key));
        expect(c.kernel).toBe(name);
        const out = new Uint8Array(64);
        c.xorKeyStream(out, hex(SP800_38A_PLAINTEXT), hex(SP800_38A_CTR_IV));
        assertBytes(out, hex(v.ciphertext), `AES-${v.key.length * 4} encrypt`);
        c.xorKeyStream(out, out, hex(SP800_38A_CTR_IV));
        assertBytes(out, hex(SP800_38A_PLAINTEXT), `AES-${v.key.length * 4} decrypt, in place`);
        c.dispose();
      }
    });

    it('wraps modulo 2^128 as OpenSSL does, and carries across every byte', () => {
      for (const n of [16, 24, 32]) {
        const key = random(n);
        const c = make(key);
        for (const tail of [16, 8, 9, 4, 1]) {
          const iv = random(16).fill(0xff, 16 - tail);
          iv[16 - tail] = 0xfe;
          const src = random(16 * 70 + 7);
          const dst = new Uint8Array(src.length);
          c.xorKeyStream(dst, src, iv);
          assertBytes(dst, node(key, iv, src), `AES-${8 * n}, iv ${Buffer.from(iv).toString('hex')}`);
        }
        c.dispose();
      }
    });

    it('1 MiB + 5 bytes in one call, and a long message in pieces continued from the next counter block', () => {
      const key = random(32),
        iv = random(16),
        src = random((1 << 20) + 5);
      const c = make(key);
      const dst = new Uint8Array(src.length);
      c.xorKeyStream(dst, src, iv);
      const want = node(key, iv, src);
      assertBytes(dst, want, '1 MiB');
      // Pieces of whole blocks: the next call starts at iv + blocks so far.
      const next = new Uint8Array(16);
      const pieces = new Uint8Array(src.length);
      let off = 0;
      for (const len of [16 * 3, 16 * 1000, 16 * 7, src.length - 16 * 1010]) {
        let carry = off >>> 4;
        for (let i = 15; i >= 0; i--) {
          carry += iv[i];
          next[i] = carry & 0xff;
          carry = Math.floor(carry / 256);
        }
        c.xorKeyStream(pieces.subarray(off, off + len), src.subarray(off, off + len), next);
        off += len;
      }
      assertBytes(pieces, want, 'in pieces');
      c.dispose();
    });

    it('random keys, IVs near the wrap, lengths 0..700, odd offsets, in place or not, against node:crypto', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          ivArb,
          fc.integer({ min: 0, max: 700 }),
          fc.tuple(fc.nat(15), fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (n, iv, len, [so, dso, vo], inPlace) => {
            const key = random(n),
              data = random(len);
            const c = make(key);
            const src = placed(data, so);
            const dst = inPlace ? src : placed(new Uint8Array(len), dso);
            c.xorKeyStream(dst, src, placed(iv, vo));
            c.dispose();
            assertBytes(dst, node(key, iv, data), `AES-${8 * n}, ${len} bytes`);
          },
        ),
        { numRuns: 150 },
      );
    });

    it('dispose() wipes the key: every later call throws', () => {
      const c = make(random(16));
      c.dispose();
      expect(() => c.xorKeyStream(new Uint8Array(16), new Uint8Array(16), new Uint8Array(16))).toThrow(
        '@x/ctr: cipher was disposed',
      );
      c.dispose();
    });
  });
}

describe('@x/ctr input rules: a clear error, and dst untouched', () => {
  const key = random(16);
  const c = newCtr(key);
  const iv = random(16);
  const cases: [string, () => void, string | RegExp, ErrorConstructor][] = [
    ['key of 15 bytes', () => newCtr(random(15)), '@x/ctr: key must be 16, 24 or 32 bytes, got 15', RangeError],
    ['key not bytes', () => newCtr([1, 2] as never), '@x/ctr: key must be a Uint8Array', TypeError],
    ['options not an object', () => newCtr(key, 5 as never), '@x/ctr: options must be an object', TypeError],
    ['unknown kernel', () => newCtr(key, { kernel: 'nope' }), /^@x\/ctr: unknown kernel "nope"/, RangeError],
  ];
  for (const [what, call, message, type] of cases) {
    it(what, () => {
      expect(call).toThrow(type);
      expect(call).toThrow(message);
    });
  }
  const dst = random(64);
  const before = dst.slice();
  const calls: [string, () => void, string, ErrorConstructor][] = [
    [
      'dst shorter than src',
      () => c.xorKeyStream(dst.subarray(0, 31), random(32), iv),
      '@x/ctr: dst is shorter than src (31 < 32 bytes)',
      RangeError,
    ],
    ['src not bytes', () => c.xorKeyStream(dst, 'abc' as never, iv), '@x/ctr: src must be a Uint8Array', TypeError],
    [
      'dst not bytes',
      () => c.xorKeyStream(null as never, random(3), iv),
      '@x/ctr: dst must be a Uint8Array',
      TypeError,
    ],
    [
      'iv of 12 bytes',
      () => c.xorKeyStream(dst, random(5), random(12)),
      '@x/ctr: iv must be 16 bytes, got 12',
      RangeError,
    ],
    ['iv not bytes', () => c.xorKeyStream(dst, random(5), 7 as never), '@x/ctr: iv must be a Uint8Array', TypeError],
    [
      'iv overlapping dst',
      () => c.xorKeyStream(dst, random(20), dst.subarray(4, 20)),
      '@x/ctr: iv overlaps dst',
      RangeError,
    ],
    [
      'src overlapping dst, not in place',
      () => c.xorKeyStream(dst.subarray(1, 33), dst.subarray(0, 32), iv),
      '@x/ctr: dst and src overlap without being the same bytes',
      RangeError,
    ],
  ];
  for (const [what, call, message, type] of calls) {
    it(what, () => {
      expect(call).toThrow(type);
      expect(call).toThrow(message);
      expect(dst).toEqual(before);
    });
  }
  it('an empty message writes nothing', () => {
    c.xorKeyStream(dst.subarray(0, 0), new Uint8Array(0), iv);
    expect(dst).toEqual(before);
  });
});
