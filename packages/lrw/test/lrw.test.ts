// LRW-AES on every kernel this runtime can run: Linux testmgr's lrw(aes) vectors (known answers), then
// fast-check against the plain reference (reference.ts: bigint GF(2^128), node:crypto AES), the input
// rules (typed errors with the package prefix, dst untouched), and dispose.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { blocksOnly, hex, placed, random, testedKernels, toHex } from '@x/testkit';
import { kernels, type Lrw, newLrw } from '../src/index.js';
import { newLrwOn } from '../src/lrw.js';
import { gfMul, refLrw, refLrwSectors } from './reference.js';

interface Vector {
  name: string;
  key: string;
  iv: string;
  plaintext: string;
  ciphertext: string;
}
const TESTMGR: Vector[] = JSON.parse(
  readFileSync(new URL('./vectors/linux_testmgr_lrw_aes.json', import.meta.url), 'utf8'),
).tests;

// Every kernel as the registry has it, and each reduced to its block primitives (the same LRW code over
// another pair of primitives).
const targets: [string, (key: Uint8Array) => Lrw][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/lrw', kernel));
  return [
    [kernel, (key: Uint8Array) => newLrw(key, { kernel })],
    [generic.name, (key: Uint8Array) => newLrwOn(generic, key)],
  ] as [string, (key: Uint8Array) => Lrw][];
});

describe('the reference multiplies as Linux gf128mul_x_bbe doubles', () => {
  it('x · x^127 = x^7 + x^2 + x + 1 (0x87), and 1 is the unit', () => {
    expect(gfMul(2n, 1n << 127n)).toBe(0x87n);
    expect(gfMul(0x1234n, 1n)).toBe(0x1234n);
  });
});

for (const [name, make] of targets) {
  describe(`lrw(aes) on ${name}`, () => {
    it(`testmgr's ${TESTMGR.length} vectors (IEEE P1619 LRW-32-AES 1–7, the 512-byte one), both ways`, () => {
      expect(TESTMGR.length).toBe(8);
      for (const v of TESTMGR) {
        const x = make(hex(v.key));
        const pt = hex(v.plaintext),
          iv = hex(v.iv);
        const ct = new Uint8Array(pt.length);
        x.encrypt(ct, pt, iv);
        expect(toHex(ct), v.name).toBe(v.ciphertext);
        const back = new Uint8Array(pt.length);
        x.decrypt(back, ct, iv);
        expect(toHex(back), v.name).toBe(v.plaintext);
        // the same unit as one sector
        const sector = new Uint8Array(pt.length);
        x.encryptSectors(sector, pt, pt.length, iv);
        expect(toHex(sector), v.name).toBe(v.ciphertext);
        x.dispose();
      }
    });

    it('matches the reference: any key length, sector size and count, IVs random or consecutive, offsets, in place', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(32, 40, 48),
          fc.constantFrom('encrypt', 'decrypt', 'encryptSectors', 'decryptSectors'),
          fc.integer({ min: 1, max: 80 }),
          fc.oneof(
            fc.integer({ min: 1, max: 40 }).map((b) => 16 * b),
            fc.constantFrom(512, 4096),
          ),
          fc.integer({ min: 0, max: 6 }),
          fc.boolean(),
          fc.tuple(fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (keyLength, op, blocks, sectorSize, sectors, consecutive, [so, dso], inPlace) => {
            const key = random(keyLength);
            const whole = op.endsWith('Sectors');
            const data = random(whole ? sectorSize * sectors : 16 * blocks);
            const ivs = whole ? random(16 * sectors) : random(16);
            if (whole && consecutive && sectors > 0) {
              // benbi's: sector s + 1 starts where sector s ended (the incremental path across units)
              const spb = BigInt(sectorSize / 16);
              let start = BigInt(`0x${toHex(ivs.subarray(0, 16))}`) & ((1n << 64n) - 1n);
              for (let s = 0; s < sectors; s++, start += spb) {
                ivs.set(hex(start.toString(16).padStart(32, '0')), 16 * s);
              }
            }
            const src = placed(data, so);
            const dst = inPlace ? src : placed(new Uint8Array(data.length), dso);
            const x = make(key);
            const encrypt = op.startsWith('encrypt');
            if (whole) {
              if (encrypt) x.encryptSectors(dst, src, sectorSize, ivs);
              else x.decryptSectors(dst, src, sectorSize, ivs);
            } else if (encrypt) x.encrypt(dst, src, ivs);
            else x.decrypt(dst, src, ivs);
            x.dispose();
            const want = whole ? refLrwSectors(encrypt, key, data, sectorSize, ivs) : refLrw(encrypt, key, data, ivs);
            expect(toHex(dst.subarray(0, data.length))).toBe(toHex(want));
          },
        ),
        { numRuns: 60 },
      );
    });

    it('carries the index across every word of 128 bits, and wraps from 2^128 − 1 to 0', () => {
      const key = random(48);
      const data = random(16 * 40);
      for (const iv of [
        'ffffffffffffffffffffffffffffffee',
        '00000000000000000000fffffffffff0',
        '000000000000fffffffffffffffffff8',
        '0000000000000000000000000000ffe5',
      ]) {
        const out = new Uint8Array(data.length);
        const x = make(key);
        x.encrypt(out, data, hex(iv));
        expect(toHex(out), iv).toBe(toHex(refLrw(true, key, data, hex(iv))));
        // 40 blocks as 5 sectors of 8 whose IVs continue each other: the same bytes
        const ivs = new Uint8Array(16 * 5);
        for (let s = 0; s < 5; s++) {
          const v = (BigInt(`0x${iv}`) + BigInt(8 * s)) & ((1n << 128n) - 1n);
          ivs.set(hex(v.toString(16).padStart(32, '0')), 16 * s);
        }
        const sectors = new Uint8Array(data.length);
        x.encryptSectors(sectors, data, 128, ivs);
        expect(toHex(sectors), iv).toBe(toHex(out));
        x.dispose();
      }
    });
  });
}

describe('input rules', () => {
  const key = random(48);
  const expectRefused = (call: () => void, type: typeof TypeError | typeof RangeError, pattern: RegExp) => {
    let caught: unknown;
    try {
      call();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(type);
    expect((caught as Error).message).toMatch(/^@x\/lrw: /);
    expect((caught as Error).message).toMatch(pattern);
  };

  it('keys of 32, 40 and 48 bytes only, Uint8Arrays only; options an object', () => {
    for (const n of [0, 16, 24, 31, 33, 64]) expectRefused(() => newLrw(new Uint8Array(n)), RangeError, /32, 40 or 48/);
    expectRefused(() => newLrw([1, 2] as unknown as Uint8Array), TypeError, /key must be a Uint8Array/);
    expectRefused(() => newLrw(key, 5 as never), TypeError, /options must be an object/);
    expectRefused(() => newLrw(key, { kernel: 'nope' }), RangeError, /unknown kernel/);
  });

  it('refuses bad calls with dst untouched', () => {
    const x = newLrw(key);
    const src = random(64);
    const dst = random(64);
    const before = toHex(dst);
    const bad: [() => void, typeof TypeError | typeof RangeError, RegExp][] = [
      [() => x.encrypt(dst, src.subarray(0, 40), random(16)), RangeError, /whole number of 16-byte blocks/],
      [() => x.encrypt(dst, src, random(15)), RangeError, /iv must be 16 bytes/],
      [() => x.encrypt(dst, src, dst.subarray(0, 16)), RangeError, /iv overlaps dst/],
      [() => x.decrypt(dst.subarray(0, 32), src, random(16)), RangeError, /dst is shorter/],
      [() => x.decrypt(dst.subarray(8, 40), dst.subarray(0, 32), random(16)), RangeError, /overlap/],
      [() => x.encryptSectors(dst, src, 24, random(64)), RangeError, /sectorSize/],
      [() => x.encryptSectors(dst, src, 32, random(16)), RangeError, /ivs/],
      [() => x.decryptSectors(dst, src, 32, 'x' as never), TypeError, /ivs must be a Uint8Array/],
      [() => x.decryptSectors(dst, 'x' as never, 32, random(32)), TypeError, /src must be a Uint8Array/],
    ];
    for (const [call, type, pattern] of bad) {
      expectRefused(call, type, pattern);
      expect(toHex(dst)).toBe(before);
    }
    x.dispose();
  });

  it('dispose wipes the tables and the round keys; every later call throws', () => {
    const x = newLrw(key);
    x.dispose();
    x.dispose();
    const dst = new Uint8Array(16);
    expect(() => x.encrypt(dst, new Uint8Array(16), new Uint8Array(16))).toThrow(/^@x\/lrw: cipher was disposed/);
    expect(() => x.decryptSectors(dst, new Uint8Array(16), 16, new Uint8Array(16))).toThrow(/disposed/);
    expect(toHex(dst)).toBe('00'.repeat(16));
  });
});
