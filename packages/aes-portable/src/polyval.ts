/**
 * POLYVAL's multiply-accumulate (RFC 8452 §3) in constant-time TypeScript, for GHASH (GCM) and POLYVAL
 * (HCTR2, AES-GCM-SIV) on every kernel that has no faster one.
 *
 * The field is GF(2)[x] / (x^128 + x^127 + x^126 + x^121 + 1) with little-endian bytes: bit i of byte j is
 * the coefficient of x^(8j+i). `dot(a, b) = a·b·x^-128`, and `update` computes acc = dot(acc ^ X, H) for each
 * block X.
 *
 * - Carry-less products without tables: a 16×16-bit carry-less product is at most 31 bits, so it fits
 *   the exact low 32 bits that `Math.imul` returns. Each operand is split into three words holding every
 *   third bit (`& M0`, `& M1`, `& M2`): in the integer product of two such words every coefficient is a
 *   count of at most 6 pairs, which fits in the two zero bits ("holes") above it, so no carry reaches the
 *   next real coefficient, and its lowest bit is the carry-less coefficient. Nine `Math.imul` give a
 *   16×16 product (BearSSL's `ghash_ctmul` idea, with spacing 3 on 16-bit pieces instead of spacing 4 on
 *   32-bit words: that gives the high half too, with no bit-reversed second product).
 * - Karatsuba three levels deep: 128 → 64 → 32 → 16 bits, 27 small products a block (schoolbook: 64).
 * - Aggregated reduction: blocks go in groups of up to {@link AGG}; block j of a group of n is multiplied
 *   by H_{n-j}, where H_1 = H and H_{k+1} = dot(H_k, H) (so H_k = H^k·x^(-128(k-1))), and the 27 products
 *   of the whole group are summed before one Karatsuba recombination and one reduction.
 * - The reduction multiplies by x^-128 one 32-bit word at a time: for the low word w, adding w·P clears
 *   it (P ≡ 1 mod x^32), which adds w·(x^121 + x^126 + x^127 + x^128) above it; then the word is dropped.
 *
 * Per key, the 27 operands of every power H_1..H_AGG are precomputed, already split into their three
 * masked words. Every array index is a constant, a loop counter or a length; the only branches are on
 * lengths, counters and the `reversed` flag (public).
 */
import type { PolyvalKernel } from '@x/aes-kernel-contract';

/** Blocks per aggregated reduction: H_1 .. H_AGG are precomputed. */
export const AGG = 8;

/** Words per power of H: 9 nodes of 32 bits × 3 pieces of 16 bits × 3 masked words. */
const POWER_WORDS = 81;

/** Every third bit: positions ≡ 0, 1, 2 (mod 3). */
const M0 = 0x49249249;
const M1 = 0x92492492 | 0;
const M2 = 0x24924924;

/**
 * The carry-less product of the 16-bit `a` and the 16-bit piece whose three masked words are
 * `h[o .. o+2]`: 31 bits, exact.
 */
function clmul16(a: number, h: Int32Array, o: number): number {
  const a0 = a & M0;
  const a1 = a & M1;
  const a2 = a & M2;
  const h0 = h[o];
  const h1 = h[o + 1];
  const h2 = h[o + 2];
  return (
    ((Math.imul(a0, h0) ^ Math.imul(a1, h2) ^ Math.imul(a2, h1)) & M0) |
    ((Math.imul(a0, h1) ^ Math.imul(a1, h0) ^ Math.imul(a2, h2)) & M1) |
    ((Math.imul(a0, h2) ^ Math.imul(a1, h1) ^ Math.imul(a2, h0)) & M2)
  );
}

/**
 * Karatsuba's bottom level for the 32-bit `v` against the 32-bit node at `h[o .. o+8]`: the products of the
 * low pieces, the high pieces and the sums of the pieces, XORed into `t[i .. i+2]`.
 */
function node(t: Int32Array, i: number, v: number, h: Int32Array, o: number): void {
  t[i] ^= clmul16(v & 0xffff, h, o);
  t[i + 1] ^= clmul16(v >>> 16, h, o + 3);
  t[i + 2] ^= clmul16((v ^ (v >>> 16)) & 0xffff, h, o + 6);
}

/** The little-endian 32-bit word at `b[o .. o+3]`. */
function word(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

/** The word at `b[o .. o+3]` of a block that is byte-reversed: bytes o+3, o+2, o+1, o as little-endian. */
function wordReversed(b: Uint8Array, o: number): number {
  return b[o + 3] | (b[o + 2] << 8) | (b[o + 1] << 16) | (b[o] << 24);
}

/** Stores `v` as the little-endian bytes `b[o .. o+3]`. */
function putWord(b: Uint8Array, o: number, v: number): void {
  b[o] = v;
  b[o + 1] = v >>> 8;
  b[o + 2] = v >>> 16;
  b[o + 3] = v >>> 24;
}

/**
 * Everything one POLYVAL key holds, as views of one allocation. Internal: the package exports neither this
 * nor a way to reach it; this package's tests reach it through {@link loadPolyvalInternal}.
 */
export interface PolyvalState {
  /** All of the memory below; `dispose()` zeroes it. */
  memory: Int32Array;
  /** The operands of H_1 .. H_AGG: power k at 81·(k-1), node n at +9n, piece q at +3q, masked words. */
  powers: Int32Array;
  /** The 27 products of a group, summed; all zero between groups. */
  sums: Int32Array;
  /** The accumulator as 4 little-endian words, between a group's reduction and the next group. */
  acc: Int32Array;
}

/** Writes the 81 operand words of the field element `e0..e3` at `p[o ..]` (the layout of {@link PolyvalState.powers}). */
function splitPower(p: Int32Array, o: number, e: Int32Array): void {
  const e0 = e[0];
  const e1 = e[1];
  const e2 = e[2];
  const e3 = e[3];
  // The nine 32-bit nodes of Karatsuba's top two levels: (lo, hi, lo^hi) of the 64-bit halves lo, hi and lo^hi.
  const nodes = [e0, e1, e0 ^ e1, e2, e3, e2 ^ e3, e0 ^ e2, e1 ^ e3, e0 ^ e1 ^ e2 ^ e3];
  for (let n = 0; n < 9; n++) {
    const v = nodes[n];
    const pieces = [v & 0xffff, v >>> 16, (v ^ (v >>> 16)) & 0xffff];
    for (let q = 0; q < 3; q++) {
      p[o + 9 * n + 3 * q] = pieces[q] & M0;
      p[o + 9 * n + 3 * q + 1] = pieces[q] & M1;
      p[o + 9 * n + 3 * q + 2] = pieces[q] & M2;
    }
    pieces.fill(0);
  }
  nodes.fill(0);
}

/**
 * Adds the 27 products of the block `w0..w3` and the power whose operands start at `p[o]` into `t`.
 * Karatsuba's top levels: the nodes w0, w1, w0^w1 (low half), w2, w3, w2^w3 (high half), and those of
 * the sum of the halves.
 */
function products(t: Int32Array, p: Int32Array, o: number, w0: number, w1: number, w2: number, w3: number): void {
  const s0 = w0 ^ w2;
  const s1 = w1 ^ w3;
  node(t, 0, w0, p, o);
  node(t, 3, w1, p, o + 9);
  node(t, 6, w0 ^ w1, p, o + 18);
  node(t, 9, w2, p, o + 27);
  node(t, 12, w3, p, o + 36);
  node(t, 15, w2 ^ w3, p, o + 45);
  node(t, 18, s0, p, o + 54);
  node(t, 21, s1, p, o + 63);
  node(t, 24, s0 ^ s1, p, o + 72);
}

/**
 * Recombines the 27 sums of `t` into the 256-bit product (Karatsuba), multiplies it by x^-128 modulo
 * POLYVAL's polynomial and leaves the result in `acc`; zeroes `t`.
 */
function reduce(t: Int32Array, acc: Int32Array): void {
  // Bottom level: node n's 64-bit product from its pieces' products p0, p1, p2 (x^16 apart).
  // Middle level: a 64-bit half's 128-bit product from its nodes lo, hi, mid (x^32 apart).
  // Top level: 256 bits from the halves' products (x^64 apart). Each m is (lo ^ hi ^ mid), the middle term.
  let p0 = t[0];
  let p1 = t[1];
  let m = p0 ^ p1 ^ t[2];
  const a0 = p0 ^ (m << 16);
  const a1 = p1 ^ (m >>> 16);
  p0 = t[3];
  p1 = t[4];
  m = p0 ^ p1 ^ t[5];
  const b0 = p0 ^ (m << 16);
  const b1 = p1 ^ (m >>> 16);
  p0 = t[6];
  p1 = t[7];
  m = p0 ^ p1 ^ t[8];
  const c0 = p0 ^ (m << 16) ^ a0 ^ b0;
  const c1 = p1 ^ (m >>> 16) ^ a1 ^ b1;
  // The low half's product L = a + c·x^32 + b·x^64.
  const l0 = a0;
  const l1 = a1 ^ c0;
  const l2 = b0 ^ c1;
  const l3 = b1;

  p0 = t[9];
  p1 = t[10];
  m = p0 ^ p1 ^ t[11];
  const d0 = p0 ^ (m << 16);
  const d1 = p1 ^ (m >>> 16);
  p0 = t[12];
  p1 = t[13];
  m = p0 ^ p1 ^ t[14];
  const e0 = p0 ^ (m << 16);
  const e1 = p1 ^ (m >>> 16);
  p0 = t[15];
  p1 = t[16];
  m = p0 ^ p1 ^ t[17];
  const f0 = p0 ^ (m << 16) ^ d0 ^ e0;
  const f1 = p1 ^ (m >>> 16) ^ d1 ^ e1;
  // The high half's product.
  const h0 = d0;
  const h1 = d1 ^ f0;
  const h2 = e0 ^ f1;
  const h3 = e1;

  p0 = t[18];
  p1 = t[19];
  m = p0 ^ p1 ^ t[20];
  const g0 = p0 ^ (m << 16);
  const g1 = p1 ^ (m >>> 16);
  p0 = t[21];
  p1 = t[22];
  m = p0 ^ p1 ^ t[23];
  const k0 = p0 ^ (m << 16);
  const k1 = p1 ^ (m >>> 16);
  p0 = t[24];
  p1 = t[25];
  m = p0 ^ p1 ^ t[26];
  const n0 = p0 ^ (m << 16) ^ g0 ^ k0;
  const n1 = p1 ^ (m >>> 16) ^ g1 ^ k1;
  // The middle term of the top level: (product of the sum of the halves) ^ L ^ H.
  const x0 = g0 ^ l0 ^ h0;
  const x1 = g1 ^ n0 ^ l1 ^ h1;
  const x2 = k0 ^ n1 ^ l2 ^ h2;
  const x3 = k1 ^ l3 ^ h3;

  // The 256-bit product v0..v7 = L + x·x^64 + H·x^128.
  const v0 = l0;
  const v1 = l1;
  const v2 = l2 ^ x0;
  let v3 = l3 ^ x1;
  let v4 = h0 ^ x2;
  let v5 = h1 ^ x3;
  let v6 = h2;
  let v7 = h3;
  // Montgomery reduction by x^-128 (RFC 8452 §3), a word at a time: the low word w times P = x^128 +
  // x^127 + x^126 + x^121 + 1 cancels itself and adds w·x^121, w·x^126, w·x^127 (word 3, 4) and w·x^128.
  v3 ^= (v0 << 25) ^ (v0 << 30) ^ (v0 << 31);
  v4 ^= v0 ^ (v0 >>> 7) ^ (v0 >>> 2) ^ (v0 >>> 1);
  v4 ^= (v1 << 25) ^ (v1 << 30) ^ (v1 << 31);
  v5 ^= v1 ^ (v1 >>> 7) ^ (v1 >>> 2) ^ (v1 >>> 1);
  v5 ^= (v2 << 25) ^ (v2 << 30) ^ (v2 << 31);
  v6 ^= v2 ^ (v2 >>> 7) ^ (v2 >>> 2) ^ (v2 >>> 1);
  v6 ^= (v3 << 25) ^ (v3 << 30) ^ (v3 << 31);
  v7 ^= v3 ^ (v3 >>> 7) ^ (v3 >>> 2) ^ (v3 >>> 1);
  acc[0] = v4;
  acc[1] = v5;
  acc[2] = v6;
  acc[3] = v7;
  for (let i = 0; i < 27; i++) t[i] = 0;
}

/** acc = dot(acc ^ X_0, …) over `n` blocks of `data` from byte `o`: one group, H_n .. H_1. */
function group(st: PolyvalState, data: Uint8Array, o: number, n: number, reversed: boolean): void {
  const t = st.sums;
  const p = st.powers;
  const acc = st.acc;
  for (let j = 0; j < n; j++) {
    const b = o + 16 * j;
    const k = POWER_WORDS * (n - 1 - j);
    let w0: number;
    let w1: number;
    let w2: number;
    let w3: number;
    if (reversed) {
      w0 = wordReversed(data, b + 12);
      w1 = wordReversed(data, b + 8);
      w2 = wordReversed(data, b + 4);
      w3 = wordReversed(data, b);
    } else {
      w0 = word(data, b);
      w1 = word(data, b + 4);
      w2 = word(data, b + 8);
      w3 = word(data, b + 12);
    }
    if (j === 0) {
      w0 ^= acc[0];
      w1 ^= acc[1];
      w2 ^= acc[2];
      w3 ^= acc[3];
    }
    products(t, p, k, w0, w1, w2, w3);
  }
  reduce(t, acc);
}

/** Lays out the state and precomputes H_1 .. H_AGG from `h` (16 bytes). */
function newPolyvalState(h: Uint8Array): PolyvalState {
  const memory = new Int32Array(POWER_WORDS * AGG + 27 + 4);
  const powers = memory.subarray(0, POWER_WORDS * AGG);
  const sums = memory.subarray(POWER_WORDS * AGG, POWER_WORDS * AGG + 27);
  const acc = memory.subarray(POWER_WORDS * AGG + 27);
  const st: PolyvalState = { memory, powers, sums, acc };
  for (let i = 0; i < 4; i++) acc[i] = word(h, 4 * i);
  splitPower(powers, 0, acc);
  // H_{k+1} = dot(H_k, H): one group of one block, the block zero and the accumulator H_k.
  const zero = new Uint8Array(16);
  for (let k = 1; k < AGG; k++) {
    group(st, zero, 0, 1, false);
    splitPower(powers, POWER_WORDS * k, acc);
  }
  acc.fill(0);
  return st;
}

/**
 * The portable POLYVAL multiply-accumulate bound to one hash key: `PolyvalKernel` of the kernel contract
 * (`@x/aes-kernel-contract`), which every other kernel's must equal. Constant time: no branch and no array index
 * depends on H, the accumulator or the data. Reached through `kernel.loadPolyval(h)` (or `polyvalOn` of
 * `@x/aes-kernels/hazmat`, which falls back to it).
 *
 * @example
 * ```ts
 * import { kernel } from '@x/aes-portable';
 * const hash = kernel.loadPolyval(h);      // h: 16 bytes, POLYVAL's byte order; may be wiped now
 * const acc = new Uint8Array(16);
 * hash.update(acc, blocks, false);         // acc = POLYVAL(H, blocks) (RFC 8452 §3)
 * hash.update(acc, more, false);           // continues over more blocks
 * hash.dispose();                          // zeroes H's powers
 * ```
 */
export class PortablePolyval implements PolyvalKernel {
  readonly #st: PolyvalState;

  /** Use `kernel.loadPolyval(h)`. */
  constructor(st: PolyvalState) {
    this.#st = st;
  }

  /**
   * For each 16-byte block X of `data`: acc = dot(acc ^ X, H), X byte-reversed first when `reversed`
   * (GHASH, RFC 8452 Appendix A). `data` is whole blocks; nothing is checked.
   *
   * @example `hash.update(acc, aadAndCiphertext, true)`
   */
  update(acc: Uint8Array, data: Uint8Array, reversed: boolean): void {
    const st = this.#st;
    const a = st.acc;
    for (let i = 0; i < 4; i++) a[i] = word(acc, 4 * i);
    const len = data.length - (data.length % 16);
    for (let o = 0; o < len; o += 16 * AGG) {
      group(st, data, o, Math.min(AGG, (len - o) / 16), reversed);
    }
    for (let i = 0; i < 4; i++) {
      putWord(acc, 4 * i, a[i]);
      a[i] = 0;
    }
  }

  /**
   * Zeroes H's powers and all scratch. Nothing may be called afterwards.
   *
   * @example `hash.dispose()`
   */
  dispose(): void {
    this.#st.memory.fill(0);
  }
}

/** Binds the POLYVAL key `h` (16 bytes, RFC 8452 §3 byte order); `h` may be wiped afterwards. */
export function loadPolyval(h: Uint8Array): PortablePolyval {
  return new PortablePolyval(newPolyvalState(h));
}

/**
 * Like {@link loadPolyval}, but also returns the state, for this package's tests (dispose, access traces).
 * Not exported by the package.
 */
export function loadPolyvalInternal(h: Uint8Array): { hash: PortablePolyval; state: PolyvalState } {
  const state = newPolyvalState(h);
  return { hash: new PortablePolyval(state), state };
}
