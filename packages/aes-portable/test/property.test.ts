// Property tests against node:crypto (OpenSSL): every method, every key size, lengths from 0 to a few
// hundred blocks (crossing the 32-block batch), odd byteOffsets, in place and not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { portableKernel, PortableKeyedKernel } from '../src/index.js';
import { refDecrypt, refEncrypt } from './helpers.js';

const RUNS = 40;
const CANARY = 0xa5;

const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const layoutArb = fc.record({
  blocks: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 300 })),
  srcOff: fc.integer({ min: 0, max: 7 }),
  dstOff: fc.integer({ min: 0, max: 7 }),
  inPlace: fc.boolean(),
  seed: fc.integer(),
});

function bytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    b[i] = x;
  }
  return b;
}

/** `data` at `srcOff` inside a larger buffer, and a `dst` (the same view when in place) with canaries around it. */
function setup(data: Uint8Array, l: { srcOff: number; dstOff: number; inPlace: boolean }) {
  const sbuf = new Uint8Array(data.length + 16).fill(CANARY);
  const src = sbuf.subarray(l.srcOff, l.srcOff + data.length);
  src.set(data);
  if (l.inPlace) return { src, dst: src, dbuf: sbuf, dOff: l.srcOff };
  const dbuf = new Uint8Array(data.length + 16).fill(CANARY);
  return { src, dst: dbuf.subarray(l.dstOff, l.dstOff + data.length), dbuf, dOff: l.dstOff };
}

function checkCanaries(dbuf: Uint8Array, dOff: number, len: number): void {
  for (let i = 0; i < dOff; i++) expect(dbuf[i]).toBe(CANARY);
  for (let i = dOff + len; i < dbuf.length; i++) expect(dbuf[i]).toBe(CANARY);
}

type Method = 'encryptECB' | 'decryptECB' | 'encryptCBC' | 'decryptCBC';
const cases: { method: Method; ref: (key: Uint8Array, d: Uint8Array, iv: Uint8Array) => Uint8Array }[] = [
  { method: 'encryptECB', ref: (k, d) => refEncrypt('ecb', k, d) },
  { method: 'decryptECB', ref: (k, d) => refDecrypt('ecb', k, d) },
  { method: 'encryptCBC', ref: (k, d, iv) => refEncrypt('cbc', k, d, iv) },
  { method: 'decryptCBC', ref: (k, d, iv) => refDecrypt('cbc', k, d, iv) },
];

describe('against node:crypto', () => {
  for (const { method, ref } of cases) {
    it(method, () => {
      fc.assert(
        fc.property(keyArb, layoutArb, (key, l) => {
          const data = bytes(16 * l.blocks, l.seed);
          const iv = bytes(16, ~l.seed);
          const ivCopy = iv.slice();
          const expected = ref(key, data, iv);
          const { src, dst, dbuf, dOff } = setup(data, l);
          const k = portableKernel.load(expandKey(key));
          if (method === 'encryptCBC' || method === 'decryptCBC') k[method](dst, src, iv);
          else k[method](dst, src);
          expect(Buffer.from(dst).equals(Buffer.from(expected))).toBe(true);
          if (!l.inPlace) expect(Buffer.from(src).equals(Buffer.from(data))).toBe(true);
          expect(iv).toEqual(ivCopy);
          checkCanaries(dbuf, dOff, data.length);
          k.dispose();
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('decryptSectors: many CBC chains, one IV each, batched across sector boundaries', () => {
    fc.assert(
      fc.property(
        keyArb,
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 0, max: 12 }),
        layoutArb,
        (key, sectorBlocks, count, l) => {
          // keep the total to a few hundred blocks
          const sectors = Math.min(count, Math.max(1, Math.floor(320 / sectorBlocks)));
          const sectorSize = 16 * sectorBlocks;
          const data = bytes(sectorSize * sectors, l.seed);
          const ivs = bytes(16 * sectors, ~l.seed);
          const ivsCopy = ivs.slice();
          const expected = new Uint8Array(data.length);
          for (let s = 0; s < sectors; s++) {
            const o = s * sectorSize;
            expected.set(refDecrypt('cbc', key, data.subarray(o, o + sectorSize), ivs.subarray(16 * s, 16 * s + 16)), o);
          }
          const { src, dst, dbuf, dOff } = setup(data, l);
          const k = portableKernel.load(expandKey(key));
          k.decryptSectors(dst, src, sectorSize, ivs);
          expect(Buffer.from(dst).equals(Buffer.from(expected))).toBe(true);
          if (!l.inPlace) expect(Buffer.from(src).equals(Buffer.from(data))).toBe(true);
          expect(ivs).toEqual(ivsCopy);
          checkCanaries(dbuf, dOff, data.length);
          k.dispose();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a keyed kernel is reusable across calls of every kind (scratch is reset)', () => {
    const key = bytes(32, 99);
    const k = portableKernel.load(expandKey(key));
    const iv = bytes(16, 5);
    for (const n of [70, 3, 32, 0, 65]) {
      const data = bytes(16 * n, n);
      const out = new Uint8Array(data.length);
      k.decryptCBC(out, data, iv);
      expect(out).toEqual(refDecrypt('cbc', key, data, iv));
      k.encryptCBC(out, data, iv);
      expect(out).toEqual(refEncrypt('cbc', key, data, iv));
      k.encryptECB(out, data);
      expect(out).toEqual(refEncrypt('ecb', key, data));
    }
  });
});

describe('calls longer than one chunk (offsets stay below 2^31 in the generated code)', () => {
  it('split into chunks, every method still matches node:crypto, in place and not', () => {
    const saved = PortableKeyedKernel.chunkBlocks;
    PortableKeyedKernel.chunkBlocks = 64;
    try {
      fc.assert(
        fc.property(keyArb, fc.integer({ min: 60, max: 300 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), fc.integer(), (key, blocks, sectorBlocks, inPlace, seed) => {
          const spb = Math.min(sectorBlocks, blocks);
          const n = blocks - (blocks % spb);
          const data = bytes(16 * n, seed), iv = bytes(16, ~seed), ivs = bytes((16 * n) / spb, seed ^ 7);
          const k = portableKernel.load(expandKey(key));
          const run = (f: (d: Uint8Array, s: Uint8Array) => void) => {
            const src = data.slice();
            const dst = inPlace ? src : new Uint8Array(data.length);
            f(dst, src);
            return dst;
          };
          expect(run((d, s) => k.encryptECB(d, s))).toEqual(refEncrypt('ecb', key, data));
          expect(run((d, s) => k.decryptECB(d, s))).toEqual(refDecrypt('ecb', key, data));
          expect(run((d, s) => k.decryptCBC(d, s, iv))).toEqual(refDecrypt('cbc', key, data, iv));
          const sectors = new Uint8Array(data.length);
          for (let s = 0; s < n / spb; s++) {
            const o = 16 * spb * s;
            sectors.set(refDecrypt('cbc', key, data.subarray(o, o + 16 * spb), ivs.subarray(16 * s, 16 * s + 16)), o);
          }
          expect(run((d, s) => k.decryptSectors(d, s, 16 * spb, ivs))).toEqual(sectors);
          k.dispose();
        }),
        { numRuns: 15 },
      );
    } finally {
      PortableKeyedKernel.chunkBlocks = saved;
    }
  });
});
