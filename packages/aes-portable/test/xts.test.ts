// The XTS entry points (IEEE 1619 §5.3.1, §5.4.1) against node:crypto aes-*-xts: whole-block data units,
// several per call, batches that cross unit boundaries, in place, odd offsets, and the >chunk split.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { PortableKeyedKernel, portableKernel } from '../src/index.js';
import { refEncrypt, toHex } from './helpers.js';

function reference(encrypt: boolean, k1: Uint8Array, k2: Uint8Array, data: Uint8Array, tweak: Uint8Array) {
  const key = Buffer.concat([k1, k2]);
  const c = (encrypt ? createCipheriv : createDecipheriv)(`aes-${k1.length * 8}-xts`, key, tweak);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

function placed(length: number, offset: number): Uint8Array {
  const b = randomBytes(length + offset);
  return new Uint8Array(b.buffer, b.byteOffset + offset, length);
}

const arb = fc.record({
  bytes: fc.constantFrom(16, 32),
  spb: fc.integer({ min: 1, max: 70 }),
  units: fc.integer({ min: 0, max: 6 }),
  so: fc.nat(7),
  dso: fc.nat(7),
  inPlace: fc.boolean(),
});

describe('portable encryptXTS / decryptXTS', () => {
  it('match node:crypto over many units per call', () => {
    fc.assert(
      fc.property(arb, ({ bytes, spb, units, so, dso, inPlace }) => {
        const k1 = randomBytes(bytes), k2 = randomBytes(bytes);
        const unitSize = 16 * spb;
        const plain = randomBytes(units * unitSize);
        const raw = randomBytes(16 * units);
        const tweaks = refEncrypt('ecb', k2, raw); // T = E_K2(i), as the mode computes it
        const want = new Uint8Array(plain.length);
        for (let u = 0; u < units; u++) {
          const r = [u * unitSize, (u + 1) * unitSize] as const;
          want.set(reference(true, k1, k2, plain.subarray(...r), raw.subarray(16 * u, 16 * u + 16)), r[0]);
        }
        const k = portableKernel.load(expandKey(k1));
        const src = placed(plain.length, so);
        src.set(plain);
        const dst = inPlace ? src : placed(plain.length, dso);
        const tweaksBefore = toHex(tweaks);
        k.encryptXTS(dst, src, unitSize, tweaks);
        expect(toHex(dst)).toBe(toHex(want));
        k.decryptXTS(dst, dst, unitSize, tweaks);
        expect(toHex(dst)).toBe(toHex(plain));
        expect(toHex(tweaks)).toBe(tweaksBefore);
        k.dispose();
      }),
      { numRuns: 80 },
    );
  });

  it('splits calls past the chunk size on unit boundaries', () => {
    const saved = PortableKeyedKernel.chunkBlocks;
    PortableKeyedKernel.chunkBlocks = 64;
    try {
      for (const spb of [1, 32, 48, 100]) {
        const k1 = randomBytes(16), k2 = randomBytes(16);
        const units = 7, unitSize = 16 * spb;
        const plain = randomBytes(units * unitSize);
        const raw = randomBytes(16 * units);
        const k = portableKernel.load(expandKey(k1));
        const out = new Uint8Array(plain.length);
        k.encryptXTS(out, plain, unitSize, refEncrypt('ecb', k2, raw));
        for (let u = 0; u < units; u++) {
          const r = [u * unitSize, (u + 1) * unitSize] as const;
          expect(toHex(out.subarray(...r))).toBe(toHex(reference(true, k1, k2, plain.subarray(...r), raw.subarray(16 * u, 16 * u + 16))));
        }
        k.decryptXTS(out, out, unitSize, refEncrypt('ecb', k2, raw));
        expect(toHex(out)).toBe(toHex(plain));
        k.dispose();
      }
    } finally {
      PortableKeyedKernel.chunkBlocks = saved;
    }
  });
});
