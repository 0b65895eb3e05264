/**
 * Property tests against node:crypto for every contract method and key size: lengths around the
 * interleave width and the chunk size, odd byteOffsets of src and dst, in place and out of place.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK, IVS_BYTES, WIDTH } from '../src/layout.js';
import {
  KEY_SIZES,
  atOffset,
  load,
  refDecryptCBC,
  refDecryptECB,
  refDecryptSectors,
  refEncryptSectors,
  refXTS,
  refEncryptCBC,
  refEncryptECB,
} from './helpers.js';

const CHUNK_BLOCKS = CHUNK / 16;
/** Block counts: edges of the interleave width and of the chunk, plus random ones up to 2.5 chunks. */
const blocks = fc.oneof(
  fc.constantFrom(1, WIDTH - 1, WIDTH, WIDTH + 1, 2 * WIDTH + 3, CHUNK_BLOCKS - 1, CHUNK_BLOCKS, CHUNK_BLOCKS + 1),
  fc.constantFrom(2 * CHUNK_BLOCKS + WIDTH + 1, 2 * CHUNK_BLOCKS + 5),
  fc.integer({ min: 1, max: 64 }),
  fc.integer({ min: 1, max: (5 * CHUNK_BLOCKS) / 2 }),
);
/** n pseudo-random bytes from a generated seed (fast-check would draw large arrays byte by byte). */
const bytes = (n: number) =>
  fc.integer().map((seed) => {
    const b = new Uint8Array(n);
    let x = seed | 1;
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      b[i] = x;
    }
    return b;
  });
/** Byte equality, without a deep-equality walk over large arrays. */
const same = (a: Uint8Array, b: Uint8Array) => expect(Buffer.compare(a, b)).toBe(0);
/** Where dst and src live: the same bytes (in place), or separate buffers at odd offsets. */
const placement = fc.record({
  inPlace: fc.boolean(),
  srcOffset: fc.integer({ min: 0, max: 15 }),
  dstOffset: fc.integer({ min: 0, max: 15 }),
  dstExtra: fc.constantFrom(0, 16, 5),
});

type Placement = { inPlace: boolean; srcOffset: number; dstOffset: number; dstExtra: number };

/** Runs `op` with the placement; returns what it wrote and checks it wrote nothing else. */
function run(p: Placement, input: Uint8Array, op: (dst: Uint8Array, src: Uint8Array) => void): Uint8Array {
  const src = atOffset(input, p.srcOffset);
  if (p.inPlace) {
    op(src, src);
    return src;
  }
  const dst = atOffset(new Uint8Array(input.length), p.dstOffset, p.dstExtra);
  op(dst, src);
  same(src, input); // src untouched
  const around = new Uint8Array(dst.buffer);
  const after = around.subarray(dst.byteOffset + input.length); // nothing written past src.length
  const before = around.subarray(0, dst.byteOffset); // nor before dst
  expect(after.every((b) => b === 0xa5) && before.every((b) => b === 0xa5)).toBe(true);
  return dst.subarray(0, input.length);
}

const RUNS = { numRuns: 40, endOnFailure: true };

describe.each(KEY_SIZES)('wasm-simd128 against node:crypto, %i-byte keys', (keySize) => {
  it('encryptECB and decryptECB', () => {
    fc.assert(
      fc.property(bytes(keySize), blocks.chain((n) => bytes(16 * n)), placement, (key, pt, p) => {
        const k = load(key);
        const ct = run(p, pt, (d, s) => k.encryptECB(d, s));
        same(ct, refEncryptECB(key, pt));
        const back = run(p, ct, (d, s) => k.decryptECB(d, s));
        same(back, pt);
        same(run(p, pt, (d, s) => k.decryptECB(d, s)), refDecryptECB(key, pt));
        k.dispose();
      }),
      RUNS,
    );
  });

  it('encryptCBC and decryptCBC', () => {
    fc.assert(
      fc.property(bytes(keySize), bytes(16), blocks.chain((n) => bytes(16 * n)), placement, (key, iv, pt, p) => {
        const k = load(key);
        const ivCopy = iv.slice();
        const ct = run(p, pt, (d, s) => k.encryptCBC(d, s, iv));
        same(ct, refEncryptCBC(key, pt, iv));
        same(run(p, ct, (d, s) => k.decryptCBC(d, s, iv)), pt);
        same(run(p, pt, (d, s) => k.decryptCBC(d, s, iv)), refDecryptCBC(key, pt, iv));
        same(iv, ivCopy);
        k.dispose();
      }),
      RUNS,
    );
  });

  it('decryptSectors', () => {
    // Sector sizes: one block, odd block counts, 512 and 4096 bytes, and larger than a chunk.
    const sector = fc.constantFrom(16, 48, 512, 4096, 2 * CHUNK + 32);
    const input = sector.chain((size) =>
      fc.tuple(
        fc.constant(size),
        fc
          .integer({ min: 0, max: Math.max(1, Math.min(3 * (IVS_BYTES / 16) + 3, Math.floor((3 * CHUNK) / size))) })
          .chain((count) => fc.tuple(bytes(count * size), bytes(16 * count))),
      ),
    );
    fc.assert(
      fc.property(bytes(keySize), input, placement, fc.integer({ min: 0, max: 15 }), (key, [size, [ct, ivs]], p, ivOff) => {
        const k = load(key);
        const ivv = atOffset(ivs, ivOff);
        const pt = run(p, ct, (d, s) => k.decryptSectors(d, s, size, ivv));
        same(pt, refDecryptSectors(key, ct, size, ivs));
        same(ivv, ivs);
        k.dispose();
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('encryptSectors', () => {
    // Every sector size from one block to 4096 bytes (groups of 8 sectors in a chunk, with 0..7 left
    // over), and larger than WIDTH of them fit in a chunk (groups go through in pieces): 5 KiB, 48 KiB.
    const sector = fc.oneof(
      fc.integer({ min: 1, max: 256 }).map((b) => 16 * b),
      fc.constantFrom(16, 48, 512, 4096, 5120, 48 * 1024, 2 * CHUNK + 32),
    );
    const input = sector.chain((size) =>
      fc.tuple(
        fc.constant(size),
        fc
          .oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: Math.max(1, Math.min(3 * (IVS_BYTES / 16) + 3, Math.floor((3 * CHUNK) / size))) }))
          .chain((count) => fc.tuple(bytes(count * size), bytes(16 * count))),
      ),
    );
    fc.assert(
      fc.property(bytes(keySize), input, placement, fc.integer({ min: 0, max: 15 }), (key, [size, [pt, ivs]], p, ivOff) => {
        const k = load(key);
        const ivv = atOffset(ivs, ivOff);
        const ct = run(p, pt, (d, s) => k.encryptSectors(d, s, size, ivv));
        same(ct, refEncryptSectors(key, pt, size, ivs));
        same(ivv, ivs);
        same(run(p, ct, (d, s) => k.decryptSectors(d, s, size, ivv)), pt);
        k.dispose();
      }),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it.each([
    [4096, 70],
    [48 * 1024, 3],
    [512, 2048],
    [8192, 9],
    [CHUNK + 16, 9],
  ])('encryptSectors of %i-byte sectors × %i, in place and not, at odd offsets', (size, count) => {
    const key = new Uint8Array(keySize).map((_, i) => 7 * i + size);
    const pt = new Uint8Array(size * count).map((_, i) => (i * 131 + (i >>> 9)) & 0xff);
    const ivs = new Uint8Array(16 * count).map((_, i) => i * 17 + 3);
    const want = refEncryptSectors(key, pt, size, ivs);
    const k = load(key);
    same(run({ inPlace: false, srcOffset: 3, dstOffset: 5, dstExtra: 16 }, pt, (d, s) => k.encryptSectors(d, s, size, ivs)), want);
    same(run({ inPlace: true, srcOffset: 1, dstOffset: 0, dstExtra: 0 }, pt, (d, s) => k.encryptSectors(d, s, size, ivs)), want);
    k.dispose();
  });

  it('encryptXTS and decryptXTS', () => {
    // Unit sizes: one block, odd block counts, 512 and 4096 bytes (8-block groups and tails), and larger
    // than a chunk (the tweak carries over between chunks).
    const unit = fc.constantFrom(16, 48, 144, 512, 4096, 2 * CHUNK + 48);
    const input = unit.chain((size) =>
      fc.tuple(
        fc.constant(size),
        fc
          .integer({ min: 0, max: Math.max(1, Math.min(2 * (IVS_BYTES / 16) + 3, Math.floor((3 * CHUNK) / size))) })
          .chain((count) => fc.tuple(bytes(count * size), bytes(16 * count))),
      ),
    );
    fc.assert(
      fc.property(bytes(keySize), input, placement, (key, [size, [pt, tweaks]], p) => {
        const k = load(key);
        const ct = run(p, pt, (d, s) => k.encryptXTS(d, s, size, tweaks));
        same(ct, refXTS(key, pt, size, tweaks, false));
        same(run(p, ct, (d, s) => k.decryptXTS(d, s, size, tweaks)), pt);
        same(run(p, pt, (d, s) => k.decryptXTS(d, s, size, tweaks)), refXTS(key, pt, size, tweaks, true));
        k.dispose();
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });
});

it('decryptSectors and encryptSectors read only the IVs they need from a longer ivs array', () => {
  const key = new Uint8Array(16).fill(3);
  const k = load(key);
  const ct = new Uint8Array(4 * 512).map((_, i) => i * 31);
  const ivs = new Uint8Array(16 * 6).map((_, i) => i);
  const out = new Uint8Array(ct.length);
  k.decryptSectors(out, ct, 512, ivs);
  same(out, refDecryptSectors(key, ct, 512, ivs));
  k.encryptSectors(out, ct, 512, ivs);
  same(out, refEncryptSectors(key, ct, 512, ivs));
  k.dispose();
});
