// Property tests against the plain model in reference.ts: 64-bit sector numbers (bigint past 2^53), batches
// that cross 2^32 (plain wraps, plain64 carries) and 2^64 − 1 at the very end, every sector size with and
// without iv_large_sectors, and essiv/eboiv batches of every length against one-IV-at-a-time OpenSSL.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newIvGenerator } from '../src/index.js';
import { KERNELS, withKernel } from './kernels.js';
import { refEcb } from '@x/testkit';
import { hex, referenceIv, referenceIvs, toHex } from './reference.js';

const COUNTER_MODES = ['plain', 'plain64', 'plain64be', 'benbi', 'null'];
const ENCRYPTED_MODES = ['essiv:sha256', 'essiv:md5', 'essiv:sha3-256', 'eboiv'];
const SECTOR_SIZES = [512, 1024, 2048, 4096];
const U64 = 1n << 64n;

/** Largest first sector (in sectorSize units) for `count` sectors whose 64-bit IV sector numbers fit. */
const maxFirst = (sectorSize: number, large: boolean, count: number) =>
  (large ? U64 : U64 / BigInt(sectorSize / 512)) - BigInt(Math.max(count, 1));

const geometry = fc.record({
  sectorSize: fc.constantFrom(...SECTOR_SIZES),
  ivLargeSectors: fc.boolean(),
});

function generated(
  mode: string,
  key: Uint8Array,
  g: { sectorSize: number; ivLargeSectors: boolean },
  first: number | bigint,
  count: number,
) {
  const ivs = new Uint8Array(16 * count + 16).fill(0xa5); // one spare IV that must stay untouched
  newIvGenerator(mode, key, g).generate(ivs, first, count);
  expect(toHex(ivs.subarray(16 * count))).toBe('a5'.repeat(16));
  return ivs.subarray(0, 16 * count);
}

describe('counter modes (plain, plain64, plain64be, benbi, null)', () => {
  const key = randomBytes(32);

  it('match dm-crypt for any 64-bit sector, every sector size, with and without iv_large_sectors', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COUNTER_MODES),
        geometry,
        fc.integer({ min: 0, max: 300 }),
        fc.bigInt({ min: 0n, max: U64 - 1n }),
        (mode, g, count, raw) => {
          const first = raw % (maxFirst(g.sectorSize, g.ivLargeSectors, count) + 1n);
          const want = referenceIvs(mode, key, g.sectorSize, g.ivLargeSectors, first, count);
          expect(toHex(generated(mode, key, g, first, count))).toBe(toHex(want));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('give the same IVs for a sector as a number and as a bigint (up to 2^53 − 1)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COUNTER_MODES),
        geometry,
        fc.maxSafeNat(),
        fc.integer({ min: 1, max: 40 }),
        (mode, g, first, count) => {
          expect(toHex(generated(mode, key, g, first, count))).toBe(
            toHex(generated(mode, key, g, BigInt(first), count)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cross 2^32 in one batch: plain wraps to 0, plain64 carries into the high word', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COUNTER_MODES),
        geometry,
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        (mode, g, before, after) => {
          // first sector whose IV sector number is 2^32 (the boundary in IV units)
          const perSector = g.ivLargeSectors ? 1 : g.sectorSize / 512;
          const boundary = 2 ** 32 / perSector;
          const first = boundary - before;
          const want = referenceIvs(mode, key, g.sectorSize, g.ivLargeSectors, BigInt(first), before + after);
          expect(toHex(generated(mode, key, g, first, before + after))).toBe(toHex(want));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('spell out the 2^32 boundary for 512-byte sectors', () => {
    const ivs = (mode: string) =>
      toHex(generated(mode, key, { sectorSize: 512, ivLargeSectors: false }, 2 ** 32 - 1, 2));
    expect(ivs('plain')).toBe(`ffffffff${'00'.repeat(12)}${'00'.repeat(16)}`);
    expect(ivs('plain64')).toBe(`ffffffff${'00'.repeat(12)}0000000001${'00'.repeat(11)}`);
    expect(ivs('plain64be')).toBe(`${'00'.repeat(12)}ffffffff${'00'.repeat(11)}0100000000`);
    // benbi: (s << 5) + 1 as be64
    expect(ivs('benbi')).toBe(`${'00'.repeat(11)}1fffffffe1${'00'.repeat(11)}2000000001`);
  });

  it('reach the last 64-bit sector and wrap like dm-crypt u64 arithmetic', () => {
    const g = { sectorSize: 4096, ivLargeSectors: true };
    const last = U64 - 1n;
    expect(toHex(generated('plain64', key, g, last, 1))).toBe('ff'.repeat(8) + '00'.repeat(8));
    expect(toHex(generated('plain64be', key, g, last - 1n, 2))).toBe(
      `${'00'.repeat(8) + 'ff'.repeat(7)}fe${'00'.repeat(8)}${'ff'.repeat(8)}`,
    );
    // benbi: (2^64 − 1) << 5 wraps to ...ffe0, + 1
    expect(toHex(generated('benbi', key, g, last, 1))).toBe(`${'00'.repeat(8) + 'ff'.repeat(7)}e1`);
    // 512-byte IV units: a 4096-byte sector n has IV sector 8n, so the last one is (2^64 − 8) / 8
    const g512 = { sectorSize: 4096, ivLargeSectors: false };
    expect(toHex(generated('plain64', key, g512, U64 / 8n - 1n, 1))).toBe(`f8${'ff'.repeat(7)}${'00'.repeat(8)}`);
  });

  it('count 512-byte units by default and sectorSize units with ivLargeSectors', () => {
    for (const sectorSize of SECTOR_SIZES) {
      const units = toHex(generated('plain64', key, { sectorSize, ivLargeSectors: false }, 3, 1));
      const large = toHex(generated('plain64', key, { sectorSize, ivLargeSectors: true }, 3, 1));
      expect(units.slice(0, 2)).toBe((3 * (sectorSize / 512)).toString(16).padStart(2, '0'));
      expect(large.slice(0, 2)).toBe('03');
    }
  });
});

describe('encrypted modes (essiv, eboiv)', () => {
  it('match one-IV-at-a-time OpenSSL for batches of every length around the internal batch size', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENCRYPTED_MODES),
        fc.constantFrom(16, 24, 32),
        geometry,
        fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 60, max: 70 }), fc.integer({ min: 124, max: 200 })),
        fc.bigInt({ min: 0n, max: U64 - 1n }),
        (mode, keyLen, g, count, raw) => {
          const key = randomBytes(keyLen);
          const first = raw % (maxFirst(g.sectorSize, g.ivLargeSectors, count) + 1n);
          const want = referenceIvs(mode, key, g.sectorSize, g.ivLargeSectors, first, count);
          expect(toHex(generated(mode, key, g, first, count))).toBe(toHex(want));
        },
      ),
      { numRuns: 150 },
    );
  });

  it.each(KERNELS)('cross 2^32 and keep going across calls (kernel %s)', (kernel) =>
    withKernel(kernel, () => {
      for (const mode of ENCRYPTED_MODES) {
        for (const g of [
          { sectorSize: 512, ivLargeSectors: false },
          { sectorSize: 4096, ivLargeSectors: false },
          { sectorSize: 4096, ivLargeSectors: true },
        ]) {
          const key = randomBytes(32);
          const perSector = g.ivLargeSectors ? 1 : g.sectorSize / 512;
          const first = 2 ** 32 / perSector - 70;
          const gen = newIvGenerator(mode, key, g);
          const whole = new Uint8Array(16 * 140);
          gen.generate(whole, first, 140);
          expect(toHex(whole)).toBe(toHex(referenceIvs(mode, key, g.sectorSize, g.ivLargeSectors, BigInt(first), 140)));
          // the same generator, one sector at a time
          const one = new Uint8Array(16);
          for (let i = 0; i < 140; i += 13) {
            gen.generate(one, first + i, 1);
            expect(toHex(one)).toBe(toHex(whole.subarray(16 * i, 16 * i + 16)));
          }
        }
      }
    }),
  );

  it('eboiv encrypts the byte offset: sector × sectorSize, wrapping at 2^64', () => {
    const key = randomBytes(16);
    const g = { sectorSize: 4096, ivLargeSectors: true };
    const last = U64 - 1n;
    expect(toHex(generated('eboiv', key, g, last, 1))).toBe(toHex(referenceIv('eboiv', key, 4096, true, last)));
    // sector 1 of 4096 bytes: byte offset 4096 = le64 00 10 00 …
    expect(toHex(generated('eboiv', key, g, 1, 1))).toBe(toHex(refEcb(true, key, hex(`0010${'00'.repeat(14)}`))));
  });
});

describe('essiv:blake2b-256 (cryptsetup cannot make it here: no blake2b-256 in its OpenSSL backend)', () => {
  // BLAKE2b with a 32-byte digest, unkeyed (the kernel's blake2b-256), computed with Python's hashlib:
  // hashlib.blake2b(key, digest_size=32).hexdigest()
  const salts: [string, string][] = [
    [
      '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
      'cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6',
    ],
    ['000102030405060708090a0b0c0d0e0f', 'c7cb5d1a1a214f1d833a21fe6c7b2420e417c2f220784cbe90072975131bc367'],
  ];
  for (const [key, salt] of salts) {
    it(`key ${key.length / 2} bytes`, () => {
      const k = hex(key);
      for (const g of [
        { sectorSize: 512, ivLargeSectors: false },
        { sectorSize: 4096, ivLargeSectors: false },
      ]) {
        for (const first of [0n, 1n, 2n ** 40n + 3n]) {
          const want = referenceIvs('essiv:blake2b-256', k, g.sectorSize, g.ivLargeSectors, first, 70, hex(salt));
          expect(toHex(generated('essiv:blake2b-256', k, g, first, 70))).toBe(toHex(want));
        }
      }
    });
  }
});
