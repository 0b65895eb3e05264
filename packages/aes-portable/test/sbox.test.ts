import { describe, expect, it } from 'vitest';
import {
  INV_SBOX_C_IN,
  INV_SBOX_C_OUT,
  invSubShift,
  SBOX_C_IN,
  SBOX_C_OUT,
  subShift,
} from '../src/bitsliced.generated.js';

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
SBOX.forEach((y, x) => {
  INV[y] = x;
});

/**
 * Runs a layer of the generated kernel (SubBytes then ShiftRows, or their inverses) on all 256 inputs, 32
 * at a time: block j of batch g holds 32g + j in all 16 byte positions (word 8p + b, bit j = bit b of
 * byte p of block j), so ShiftRows moves nothing that matters and every position must give the S-box of
 * it. The kernel keeps bytes complemented by constants folded into its round keys: in x ^ cIn, out
 * S(x) ^ cOut.
 */
function table(layer: (s: Int32Array, d: Int32Array) => void, cIn: number, cOut: number): number[] {
  const out: number[] = [];
  for (let g = 0; g < 8; g++) {
    const s = new Int32Array(128),
      d = new Int32Array(128);
    for (let j = 0; j < 32; j++) {
      const x = (32 * g + j) ^ cIn;
      for (let p = 0; p < 16; p++) for (let b = 0; b < 8; b++) s[8 * p + b] |= ((x >> b) & 1) << j;
    }
    layer(s, d);
    for (let j = 0; j < 32; j++) {
      const at = (p: number) => {
        let y = 0;
        for (let b = 0; b < 8; b++) y |= ((d[8 * p + b] >>> j) & 1) << b;
        return y ^ cOut;
      };
      for (let p = 1; p < 16; p++) expect(at(p), `input ${32 * g + j}, byte ${p}`).toBe(at(0));
      out.push(at(0));
    }
  }
  return out;
}

describe('the generated S-box layers', () => {
  it('SubBytes (in subShift) matches FIPS 197 §5.1.1 on all 256 inputs', () => {
    expect(table(subShift, SBOX_C_IN, SBOX_C_OUT)).toEqual(SBOX);
    expect(SBOX[0]).toBe(0x63);
    expect(SBOX[0x53]).toBe(0xed); // FIPS 197 Figure 7's example
  });
  it('InvSubBytes (in invSubShift) matches FIPS 197 §5.3.2 on all 256 inputs', () => {
    expect(table(invSubShift, INV_SBOX_C_IN, INV_SBOX_C_OUT)).toEqual(INV);
    expect(INV[0]).toBe(0x52);
  });
});
