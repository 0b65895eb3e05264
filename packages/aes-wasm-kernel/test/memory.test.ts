/**
 * The memory contract: one fixed memory that never grows, round keys wiped from WebAssembly memory on
 * dispose() (the active key's or not), nothing left behind in the chunk buffer after a call, nothing
 * allocated per call. (Several keys alive at once, and calls after dispose(), are the kernel suite's.)
 */
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { allocationReport, assertBytes, refEcb } from '@x/testkit';
import { kernel } from '../src/index.js';
import {
  CHUNK,
  DATA,
  IV,
  KEY_BYTES,
  KEY_IN,
  PAGE,
  POLY_ACC,
  POLY_END,
  POLY_POW,
  POLY_POW_BYTES,
  POLY_TABLE,
  POLY_TABLE_BYTES,
} from '../src/layout.js';
import { getInstance } from '../src/module.js';

/** Loads `key` and wipes the schedule, as the modes do. */
function load(key: Uint8Array) {
  const s = expandKey(key);
  const k = kernel.load(s);
  s.wipe();
  return k;
}

const memory = () => {
  const instance = getInstance();
  if (!instance) throw new Error('the module did not instantiate');
  return instance.exports.memory as WebAssembly.Memory;
};
const keyArea = () => new Uint8Array(memory().buffer, KEY_IN, KEY_BYTES);
/** Everything a call may leave data in: IV up to the end of the chunk buffer, and POLYVAL's accumulator and scratch. */
const scratch = () => {
  const m = new Uint8Array(memory().buffer);
  return Uint8Array.from([...m.subarray(IV, DATA + CHUNK), ...m.subarray(POLY_ACC, POLY_END)]);
};
const polyvalKey = () => {
  const m = new Uint8Array(memory().buffer);
  return Uint8Array.from([
    ...m.subarray(POLY_POW, POLY_POW + POLY_POW_BYTES),
    ...m.subarray(POLY_TABLE, POLY_TABLE + POLY_TABLE_BYTES),
  ]);
};
const allZero = (b: Uint8Array) => b.every((x) => x === 0);

describe('wasm-simd128 memory', () => {
  it('has one page that cannot grow', () => {
    const m = memory();
    expect(m.buffer.byteLength).toBe(PAGE);
    expect(() => m.grow(1)).toThrow(RangeError);
    expect(m.buffer.byteLength).toBe(PAGE);
  });

  it('wipes the round keys in WebAssembly memory on dispose()', () => {
    const k = load(new Uint8Array(32).fill(0x5c));
    k.encryptBlocks(new Uint8Array(16), new Uint8Array(16));
    expect(allZero(keyArea())).toBe(false);
    k.dispose();
    expect(allZero(keyArea())).toBe(true);
  });

  it('wipes when the disposed key is not the active one, and the active one stays', () => {
    const a = load(new Uint8Array(16).fill(1));
    const b = load(new Uint8Array(16).fill(2));
    const before = keyArea().slice();
    a.dispose(); // b is active
    expect(keyArea()).toEqual(before);
    b.dispose();
    expect(allZero(keyArea())).toBe(true);
  });

  it('leaves no plaintext, ciphertext or chaining value behind after a call', () => {
    const k = load(new Uint8Array(16).fill(3));
    const data = new Uint8Array(CHUNK + 48).fill(0x77);
    const out = new Uint8Array(data.length);
    const calls: Record<string, () => void> = {
      encryptBlocks: () => k.encryptBlocks(out, data),
      decryptBlocks: () => k.decryptBlocks(out, data),
      'cbcDecryptSectors, one chain': () => k.cbcDecryptSectors(out, data, data.length, new Uint8Array(16).fill(1)),
      cbcEncrypt: () => k.cbcEncrypt(out, data, new Uint8Array(16).fill(1)),
      cbcDecryptSectors: () => k.cbcDecryptSectors(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4)),
      cbcEncryptSectors: () => k.cbcEncryptSectors(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4)),
      'cbcEncryptSectors, 9 × 4112 bytes': () =>
        k.cbcEncryptSectors(
          new Uint8Array(9 * 4112),
          new Uint8Array(9 * 4112).fill(0x77),
          4112,
          new Uint8Array(9 * 16).fill(4),
        ),
      xtsEncrypt: () => k.xtsEncrypt(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4)),
      xtsDecrypt: () => k.xtsDecrypt(out, data, data.length, new Uint8Array(16).fill(4)),
      'ctr, be128': () => k.ctr(out, data.subarray(0, 1000), new Uint8Array(16).fill(5), 'be128'),
      'ctr, be32, two chunks': () => k.ctr(out, data.subarray(0, CHUNK + 37), new Uint8Array(16).fill(5), 'be32'),
      'ctr, xctr': () => k.ctr(out, data.subarray(0, 77), new Uint8Array(16).fill(5), 'xctr'),
      'POLYVAL update, two chunks and a partial batch': () =>
        p.update(new Uint8Array(16).fill(6), data.subarray(0, CHUNK + 48), true),
    };
    const p = kernel.loadPolyval(new Uint8Array(16).fill(9));
    for (const [name, call] of Object.entries(calls)) {
      call();
      expect(allZero(scratch()), name).toBe(true);
    }
    p.dispose();
    k.dispose();
  });

  it('wipes the POLYVAL key powers and their expansion on dispose(), the active one or not', () => {
    const a = kernel.loadPolyval(new Uint8Array(16).fill(1));
    const b = kernel.loadPolyval(new Uint8Array(16).fill(2));
    b.update(new Uint8Array(16), new Uint8Array(32), false);
    const before = polyvalKey();
    expect(allZero(before)).toBe(false);
    a.dispose(); // b is active
    expect(polyvalKey()).toEqual(before);
    b.dispose();
    expect(allZero(polyvalKey())).toBe(true);
  });

  it('leaves the staging area for the schedule zeroed after load()', () => {
    const s = expandKey(new Uint8Array(24).fill(0xee));
    const k = kernel.load(s);
    expect(allZero(new Uint8Array(memory().buffer, KEY_IN, 256))).toBe(true);
    // The schedule may be wiped by the caller; the kernel keeps its own converted copy.
    s.wipe();
    const out = new Uint8Array(16);
    k.encryptBlocks(out, new Uint8Array(16));
    assertBytes(out, refEcb(true, new Uint8Array(24).fill(0xee), new Uint8Array(16)));
    k.dispose();
  });

  it('never grows memory, whatever the input size', () => {
    const k = load(new Uint8Array(16).fill(8));
    const big = new Uint8Array(5 * CHUNK + 16);
    k.encryptBlocks(big, big);
    k.cbcEncrypt(big, big, new Uint8Array(16));
    k.cbcDecryptSectors(big, big, big.length, new Uint8Array(16));
    k.cbcEncryptSectors(big, big, big.length, new Uint8Array(16));
    k.xtsEncrypt(big, big, big.length, new Uint8Array(16));
    k.ctr(big, big, new Uint8Array(16), 'be128');
    const p = kernel.loadPolyval(new Uint8Array(16).fill(8));
    p.update(new Uint8Array(16), big, false);
    p.dispose();
    expect(memory().buffer.byteLength).toBe(PAGE);
    k.dispose();
  });
});

describe("wasm-simd128 allocation (see @x/testkit's allocationReport)", () => {
  const k = load(new Uint8Array(16).fill(1));
  const src = new Uint8Array(512).fill(2),
    dst = new Uint8Array(512),
    iv = new Uint8Array(16),
    ivs = new Uint8Array(64),
    acc = new Uint8Array(16),
    odd = src.subarray(0, 501),
    thirteen = src.subarray(0, 16 * 13);
  const p = kernel.loadPolyval(new Uint8Array(16).fill(3));
  const q = kernel.loadPolyval(new Uint8Array(16).fill(4));
  const calls: Record<string, () => void> = {
    encryptBlocks: () => k.encryptBlocks(dst, src),
    decryptBlocks: () => k.decryptBlocks(dst, src),
    cbcEncrypt: () => k.cbcEncrypt(dst, src, iv),
    'cbcDecryptSectors, one chain': () => k.cbcDecryptSectors(dst, src, src.length, iv),
    cbcDecryptSectors: () => k.cbcDecryptSectors(dst, src, 128, ivs),
    cbcEncryptSectors: () => k.cbcEncryptSectors(dst, src, 128, ivs),
    xtsEncrypt: () => k.xtsEncrypt(dst, src, 128, ivs),
    xtsDecrypt: () => k.xtsDecrypt(dst, src, 128, ivs),
    'ctr, be128, a partial block': () => k.ctr(dst, odd, iv, 'be128'),
    'ctr, be32': () => k.ctr(dst, src, iv, 'be32'),
    'ctr, xctr': () => k.ctr(dst, src, iv, 'xctr'),
    'POLYVAL update': () => p.update(acc, thirteen, true),
    'POLYVAL update, two keys alternating': () => {
      p.update(acc, src, false);
      q.update(acc, src, false);
    },
  };
  for (const [name, call] of Object.entries(calls)) {
    it(`${name} allocates nothing per call`, async () => expect(await allocationReport(call)).toBeUndefined());
  }
});
