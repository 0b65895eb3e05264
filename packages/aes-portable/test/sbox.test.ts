import { describe, expect, it } from 'vitest';
import { invSubBytesSliced, subBytesSliced } from '../src/bitsliced.generated.js';

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2). */
function gmul(a: number, b: number): number {
  let p = 0;
  for (; b; b >>= 1, a = ((a << 1) ^ (a & 0x80 ? 0x11b : 0)) & 0xff) if (b & 1) p ^= a;
  return p;
}

/** FIPS 197 §5.1.1 from its definition: the inverse in GF(2^8) (0 ↦ 0), then the affine map. */
function subByte(x: number): number {
  let inv = 0;
  for (let y = 1; y < 256; y++) if (gmul(x, y) === 1) inv = y;
  const rot = (v: number, n: number) => ((v << n) | (v >>> (8 - n))) & 0xff;
  return inv ^ rot(inv, 1) ^ rot(inv, 2) ^ rot(inv, 3) ^ rot(inv, 4) ^ 0x63;
}

const SBOX = Array.from({ length: 256 }, (_, x) => subByte(x));
const INV = new Array<number>(256);
SBOX.forEach((y, x) => (INV[y] = x));

/** Runs a bitsliced S-box on all 256 inputs, 32 at a time (bit j of word b = bit b of input 32g + j). */
function table(f: (x: Int32Array) => void): number[] {
  const out: number[] = [];
  for (let g = 0; g < 8; g++) {
    const x = new Int32Array(8);
    for (let j = 0; j < 32; j++) for (let b = 0; b < 8; b++) x[b] |= (((32 * g + j) >> b) & 1) << j;
    f(x);
    for (let j = 0; j < 32; j++) {
      let y = 0;
      for (let b = 0; b < 8; b++) y |= ((x[b] >>> j) & 1) << b;
      out.push(y);
    }
  }
  return out;
}

describe('bitsliced S-boxes', () => {
  it('SubBytes matches FIPS 197 §5.1.1 on all 256 inputs', () => {
    expect(table(subBytesSliced)).toEqual(SBOX);
    expect(SBOX[0]).toBe(0x63);
    expect(SBOX[0x53]).toBe(0xed); // FIPS 197 Figure 7's example
  });
  it('InvSubBytes matches FIPS 197 §5.3.2 on all 256 inputs', () => {
    expect(table(invSubBytesSliced)).toEqual(INV);
    expect(INV[0]).toBe(0x52);
  });
});
