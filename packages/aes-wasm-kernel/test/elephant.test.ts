/**
 * `kernel.loadElephant()`: BitLocker's Elephant diffusers on SIMD128 against a plain reference (Ferguson's
 * pseudo-code, word by word, indices mod n), for every sector size, every remainder of the groups of four
 * and calls larger than a chunk; in place, nothing outside the sectors touched, the module's memory wiped
 * after a call, no allocation per call. (@x/dm-crypt cross-checks the same core against its JavaScript
 * diffusers and a BitLocker volume made by Windows 7.)
 */
import { randomBytes } from 'node:crypto';
import { allocationReport } from '@x/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elephantDiffusers, elephantMemory, initElephant } from '../src/elephant.js';
import { ELEPHANT_CHUNK, ELEPHANT_DATA, ELEPHANT_WORK } from '../src/elephant-layout.js';
import { init, kernel } from '../src/index.js';

const SIZES = [512, 1024, 2048, 4096] as const;

/** Diffuser A (`which` 'A') or B on the words d, in the decryption (`dec`) or encryption direction. */
function refDiffuser(which: 'A' | 'B', dec: boolean, d: Uint32Array): void {
  const n = d.length;
  const [cycles, x, r, rot] = which === 'A' ? [5, -2, -5, [9, 0, 13, 0]] : [3, 2, 5, [0, 10, 0, 25]];
  const rotl = (v: number, k: number) => (k === 0 ? v : ((v << k) | (v >>> (32 - k))) >>> 0);
  for (let c = 0; c < cycles; c++) {
    for (let s = 0; s < n; s++) {
      const i = dec ? s : n - 1 - s;
      const t = d[(i + x + n) % n] ^ rotl(d[(i + r + n) % n], rot[i % 4]);
      d[i] = dec ? d[i] + t : d[i] - t;
    }
  }
}

/** The reference of `decrypt` (dec) or `encrypt` over whole sectors, into a copy. */
function reference(dec: boolean, data: Uint8Array, size: number, keys: Uint8Array): Uint8Array {
  const out = data.slice();
  const view = new DataView(out.buffer);
  for (let s = 0; s < data.length / size; s++) {
    const d = new Uint32Array(size / 4);
    for (let j = 0; j < d.length; j++) d[j] = view.getUint32(s * size + 4 * j, true);
    const xorKey = () => {
      for (let j = 0; j < d.length; j++)
        d[j] ^= new DataView(keys.buffer, keys.byteOffset).getUint32(32 * s + 4 * (j % 8), true);
    };
    if (dec) {
      refDiffuser('B', true, d);
      refDiffuser('A', true, d);
      xorKey();
    } else {
      xorKey();
      refDiffuser('A', false, d);
      refDiffuser('B', false, d);
    }
    for (let j = 0; j < d.length; j++) view.setUint32(s * size + 4 * j, d[j], true);
  }
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

function diffusers() {
  const el = kernel.loadElephant();
  if (!el) throw new Error('the Elephant module did not instantiate');
  return el;
}

describe('kernel.loadElephant()', () => {
  it("is the one shared SIMD128 core (the native kernels' shape), also after init()", async () => {
    await init();
    await initElephant();
    const el = diffusers();
    expect(el.core).toBe('simd128');
    expect(kernel.loadElephant(true)).toBe(el);
    expect(elephantDiffusers()).toBe(el);
  });

  it('equals the reference: every sector size, 1 to 9 sectors, both directions, in place in a larger buffer', () => {
    const el = diffusers();
    const arb = fc.record({
      size: fc.constantFrom(...SIZES),
      count: fc.integer({ min: 1, max: 9 }),
      offset: fc.nat(31),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(arb, ({ size, count, offset }) => {
        const bytes = count * size;
        const data = new Uint8Array(randomBytes(bytes));
        const keyBuf = new Uint8Array(randomBytes(32 * count + 64));
        const keys = keyBuf.subarray(32, 32 + 32 * count);
        const keysBefore = keyBuf.slice();
        for (const dec of [true, false]) {
          const backing = new Uint8Array(randomBytes(bytes + 64));
          const before = backing.slice();
          const view = backing.subarray(offset, offset + bytes);
          view.set(data);
          el[dec ? 'decrypt' : 'encrypt'](view, size, keys);
          expect(same(view, reference(dec, data, size, keys))).toBe(true);
          // the bytes around the sectors and the keys are untouched
          expect(same(backing.subarray(0, offset), before.subarray(0, offset))).toBe(true);
          expect(same(backing.subarray(offset + bytes), before.subarray(offset + bytes))).toBe(true);
          expect(same(keyBuf, keysBefore)).toBe(true);
          // and the other direction undoes it
          el[dec ? 'encrypt' : 'decrypt'](view, size, keys);
          expect(same(view, data)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    [512, ELEPHANT_CHUNK / 512 + 1],
    [4096, ELEPHANT_CHUNK / 4096 + 3],
    [1024, 2 * (ELEPHANT_CHUNK / 1024)],
  ])('equals the reference on calls larger than a chunk (%d-byte sectors, %d of them)', (size, count) => {
    const el = diffusers();
    const data = new Uint8Array(randomBytes(count * size));
    const keys = new Uint8Array(randomBytes(32 * count + 32)).subarray(0, 32 * count);
    for (const dec of [true, false]) {
      const buf = data.slice();
      el[dec ? 'decrypt' : 'encrypt'](buf, size, keys);
      expect(same(buf, reference(dec, data, size, keys))).toBe(true);
    }
  });

  it('wipes the sectors, keys and work area from its memory after a call', () => {
    const el = diffusers();
    el.decrypt(new Uint8Array(randomBytes(4096 * 5)), 4096, new Uint8Array(randomBytes(32 * 5)));
    const memory = elephantMemory();
    if (!memory) throw new Error('no memory');
    const mem = new Uint8Array(memory.buffer);
    expect(mem.subarray(ELEPHANT_WORK, ELEPHANT_DATA + 4096 * 5).every((b) => b === 0)).toBe(true);
  });

  it('refuses other sector sizes, partial sectors and short keys, before touching the data', () => {
    const el = diffusers();
    const data = new Uint8Array(1024).fill(7);
    for (const [d, size, k] of [
      [data, 256, 128],
      [data, 8192, 32],
      [data.subarray(0, 1000), 512, 64],
      [data, 512, 63],
    ] as const) {
      expect(() => el.decrypt(d, size, new Uint8Array(k))).toThrow(RangeError);
      expect(() => el.encrypt(d, size, new Uint8Array(k))).toThrow(RangeError);
    }
    expect(data.every((b) => b === 7)).toBe(true);
    el.decrypt(new Uint8Array(0), 512, new Uint8Array(0)); // no sectors: nothing to do
  });

  it('allocates nothing per call once a size has been seen', async () => {
    const el = diffusers();
    const buf = new Uint8Array(3 * 512);
    const keys = new Uint8Array(3 * 32);
    expect(await allocationReport(() => el.decrypt(buf, 512, keys), 20_000)).toBeUndefined();
    expect(await allocationReport(() => el.encrypt(buf, 512, keys), 20_000)).toBeUndefined();
  });
});
