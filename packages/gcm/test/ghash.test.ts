// The GHASH layer of src/ghash.ts on its own: the POLYVAL key of RFC 8452 Appendix A, the length block,
// and the staging of pieces through the scratch (across its 256-byte boundary, mixed with blocks hashed in
// place), against GHASH written out from SP 800-38D (test/reference.ts), on every kernel's POLYVAL.
import { chooseKernel, polyvalOn } from '@x/aes-kernels/hazmat';
import { kernels } from '@x/gcm';
import { random, testedKernels, toHex } from '@x/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ghash, polyvalKeyOfGhash, STAGE_BYTES, writeLengths } from '../src/ghash.js';
import { ghashBlocks } from './reference.js';

/** mulX_POLYVAL(ByteReverse(h)) with BigInt: RFC 8452 Appendix A, as an integer (little-endian bytes). */
function polyvalKeyRef(h: Uint8Array): string {
  let v = BigInt(`0x${toHex(h)}`) << 1n; // ByteReverse then little-endian = h read big-endian
  if (v >> 128n) v = v ^ (1n << 128n) ^ 0xc2000000000000000000000000000001n;
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return toHex(out);
}

describe('ghash.ts', () => {
  it('the POLYVAL key of a GHASH key (RFC 8452 Appendix A), top bit set or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.boolean(), (h, top) => {
        h[0] = top ? h[0]! | 0x80 : h[0]! & 0x7f;
        const k = new Uint8Array(16);
        polyvalKeyOfGhash(k, h);
        expect(toHex(k)).toBe(polyvalKeyRef(h));
      }),
      { numRuns: 500 },
    );
  });

  it('the length block is exact past 2^32 bytes', () => {
    const b = new Uint8Array(16);
    writeLengths(b, 0, 2 ** 36 - 32, 2 ** 53 - 1);
    const v = new DataView(b.buffer);
    expect(v.getBigUint64(0)).toBe(BigInt(2 ** 36 - 32) * 8n);
    expect(v.getBigUint64(8)).toBe(BigInt(2 ** 53 - 1) * 8n);
    writeLengths(b, 0, 13, 0);
    expect(toHex(b)).toBe(`${'00'.repeat(7)}68${'00'.repeat(8)}`);
  });

  for (const kernel of testedKernels(kernels())) {
    it(`pieces staged and hashed in place give GHASH of their padded concatenation, on ${kernel}'s POLYVAL`, () => {
      const piece = fc.oneof(
        fc.record({ kind: fc.constant('stage' as const), length: fc.integer({ min: 0, max: 2 * STAGE_BYTES + 40 }) }),
        fc.record({ kind: fc.constant('direct' as const), length: fc.integer({ min: 0, max: 40 }).map((n) => 16 * n) }),
        fc.record({ kind: fc.constant('lengths' as const), length: fc.constant(16) }),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
          const h = random(16);
          const key = new Uint8Array(16);
          polyvalKeyOfGhash(key, h);
          const g = new Ghash(polyvalOn(chooseKernel('@x/gcm', kernel), key));
          g.reset();
          const blocks: number[] = [];
          for (const p of pieces) {
            const data = random(p.length);
            if (p.kind === 'stage') g.stage(data, 0, data.length);
            else if (p.kind === 'direct') g.direct(data);
            else {
              const a = data[0]! * 1000 + data[1]!,
                c = data[2]! * 2 ** 30 + data[3]!;
              g.lengths(a, c);
              writeLengths(data, 0, a, c);
            }
            blocks.push(...data, ...new Array((16 - (data.length % 16)) % 16).fill(0));
          }
          const out = new Uint8Array(16);
          g.digest(out, new Uint8Array(16), 16);
          expect(toHex(out)).toBe(toHex(ghashBlocks(h, Uint8Array.from(blocks))));
          g.dispose();
        }),
        { numRuns: 60 },
      );
    });
  }
});
