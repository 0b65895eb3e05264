// Every bad input gets a TypeError or RangeError with the package prefix, and `ivs` is left untouched.
import { describe, expect, it } from 'vitest';
import { newIvGenerator, type IvGeneratorOptions } from '../src/index.js';

const key16 = new Uint8Array(16).fill(1);
const key32 = new Uint8Array(32).fill(2);

function throwsPrefixed(fn: () => unknown, type: typeof TypeError | typeof RangeError, pattern?: RegExp) {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(type);
  expect((caught as Error).message).toMatch(/^@x\/disk-iv: /);
  if (pattern) expect((caught as Error).message).toMatch(pattern);
}

describe('newIvGenerator rejects', () => {
  const bad: [string, () => unknown, typeof TypeError | typeof RangeError, RegExp?][] = [
    ['an unknown mode', () => newIvGenerator('plain32', key16), RangeError, /unknown IV mode/],
    ['a mode in the wrong case (dm-crypt compares exactly)', () => newIvGenerator('PLAIN64', key16), RangeError],
    [
      'lmk, tcw, random, elephant (not AES-CBC IV generators here)',
      () => newIvGenerator('elephant', key32),
      RangeError,
    ],
    ['essiv without a hash', () => newIvGenerator('essiv', key16), RangeError, /needs a hash/],
    [
      'essiv:sha1 (20-byte digest is no AES key)',
      () => newIvGenerator('essiv:sha1', key16),
      RangeError,
      /not supported/,
    ],
    ['essiv:sha224 (28 bytes)', () => newIvGenerator('essiv:sha224', key16), RangeError],
    ['essiv:sha384 (48 bytes)', () => newIvGenerator('essiv:sha384', key16), RangeError],
    ['essiv:sha512 (64 bytes)', () => newIvGenerator('essiv:sha512', key16), RangeError],
    ['essiv:rmd160', () => newIvGenerator('essiv:rmd160', key16), RangeError],
    ['essiv:blake2b-512', () => newIvGenerator('essiv:blake2b-512', key16), RangeError],
    ['a mode that is not a string', () => newIvGenerator(42 as unknown as string, key16), TypeError],
    ['a key that is not a Uint8Array', () => newIvGenerator('plain64', [1, 2, 3] as unknown as Uint8Array), TypeError],
    ['eboiv with an XTS-length key', () => newIvGenerator('eboiv', new Uint8Array(64)), RangeError, /volume key/],
    ['essiv with a 20-byte key', () => newIvGenerator('essiv:sha256', new Uint8Array(20)), RangeError, /volume key/],
    ['essiv with a 64-byte key', () => newIvGenerator('essiv:sha256', new Uint8Array(64)), RangeError],
    ['plain64 with a 20-byte key', () => newIvGenerator('plain64', new Uint8Array(20)), RangeError],
    ['null with an empty key', () => newIvGenerator('null', new Uint8Array(0)), RangeError],
    [
      'options that are not an object',
      () => newIvGenerator('plain', key16, 512 as unknown as IvGeneratorOptions),
      TypeError,
    ],
    ['sector size 256', () => newIvGenerator('plain', key16, { sectorSize: 256 }), RangeError, /sector size/],
    ['sector size 8192', () => newIvGenerator('plain', key16, { sectorSize: 8192 }), RangeError],
    ['sector size 3072 (not a power of two)', () => newIvGenerator('plain', key16, { sectorSize: 3072 }), RangeError],
    ['sector size 512.5', () => newIvGenerator('plain', key16, { sectorSize: 512.5 }), RangeError],
    ['sector size NaN', () => newIvGenerator('plain', key16, { sectorSize: NaN }), RangeError],
    [
      'sector size as a string',
      () => newIvGenerator('plain', key16, { sectorSize: '512' as unknown as number }),
      TypeError,
    ],
    [
      'ivLargeSectors that is not a boolean',
      () => newIvGenerator('plain', key16, { ivLargeSectors: 1 as unknown as boolean }),
      TypeError,
    ],
  ];
  for (const [what, fn, type, pattern] of bad) it(what, () => throwsPrefixed(fn, type, pattern));

  it('accepts every documented key length', () => {
    for (const len of [16, 24, 32, 48, 64])
      for (const m of ['plain', 'plain64', 'plain64be', 'benbi', 'null']) newIvGenerator(m, new Uint8Array(len));
    for (const len of [16, 24, 32])
      for (const m of ['eboiv', 'essiv:sha256', 'essiv:md5', 'essiv:sha3-256', 'essiv:blake2b-256'])
        newIvGenerator(m, new Uint8Array(len));
    for (const sectorSize of [512, 1024, 2048, 4096])
      newIvGenerator('plain', key16, { sectorSize, ivLargeSectors: true });
  });
});

describe('generate rejects, writing nothing', () => {
  const modes = ['plain', 'plain64', 'plain64be', 'benbi', 'null', 'essiv:sha256', 'eboiv'];
  const cases: [
    string,
    (g: ReturnType<typeof newIvGenerator>, ivs: Uint8Array) => unknown,
    typeof TypeError | typeof RangeError,
  ][] = [
    ['a negative number', (g, ivs) => g.generate(ivs, -1, 2), RangeError],
    ['a negative bigint', (g, ivs) => g.generate(ivs, -1n, 2), RangeError],
    ['a fractional sector', (g, ivs) => g.generate(ivs, 1.5, 2), RangeError],
    ['NaN', (g, ivs) => g.generate(ivs, NaN, 2), RangeError],
    ['Infinity', (g, ivs) => g.generate(ivs, Infinity, 2), RangeError],
    ['a number past 2^53 − 1 (use a bigint)', (g, ivs) => g.generate(ivs, 2 ** 53, 2), RangeError],
    ['a bigint of 2^64', (g, ivs) => g.generate(ivs, 1n << 64n, 1), RangeError],
    ['a run that ends past 2^64 − 1', (g, ivs) => g.generate(ivs, (1n << 64n) - 1n, 2), RangeError],
    ['4096-byte sectors whose 512-byte IV number passes 2^64', (g, ivs) => g.generate(ivs, 1n << 61n, 1), RangeError],
    ['a sector as a string', (g, ivs) => g.generate(ivs, '3' as unknown as number, 2), TypeError],
    ['ivs shorter than 16 × count', (g, ivs) => g.generate(ivs.subarray(0, 31), 0, 2), RangeError],
    ['more IVs than ivs holds', (g, ivs) => g.generate(ivs, 0, 5), RangeError],
    ['ivs that is not a Uint8Array', (g) => g.generate(new Uint16Array(64) as unknown as Uint8Array, 0, 2), TypeError],
    ['a negative count', (g, ivs) => g.generate(ivs, 0, -1), RangeError],
    ['a fractional count', (g, ivs) => g.generate(ivs, 0, 1.5), RangeError],
    ['a count that is not a number', (g, ivs) => g.generate(ivs, 0, 2n as unknown as number), TypeError],
  ];
  for (const mode of modes) {
    describe(mode, () => {
      const g = newIvGenerator(mode, key32, { sectorSize: 4096 });
      for (const [what, fn, type] of cases) {
        it(what, () => {
          const ivs = new Uint8Array(64).fill(0xee);
          throwsPrefixed(() => fn(g, ivs), type);
          expect(ivs.every((b) => b === 0xee)).toBe(true);
        });
      }
      it('count 0 writes nothing and is fine', () => {
        const ivs = new Uint8Array(16).fill(0xee);
        g.generate(ivs, 0, 0);
        g.generate(new Uint8Array(0), (1n << 61n) - 1n, 0);
        expect(ivs.every((b) => b === 0xee)).toBe(true);
      });
    });
  }
});

describe('dispose', () => {
  it('wipes and makes later calls throw, for every kind of mode', () => {
    for (const mode of ['plain64', 'essiv:sha256', 'eboiv']) {
      const g = newIvGenerator(mode, new Uint8Array(32).fill(1));
      const ivs = new Uint8Array(16);
      g.generate(ivs, 1, 1);
      g.dispose();
      g.dispose();
      expect(() => g.generate(ivs, 1, 1)).toThrow('@x/disk-iv: generator was disposed');
    }
  });
});
