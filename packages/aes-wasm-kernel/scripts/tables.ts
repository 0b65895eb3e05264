/**
 * Derives the constant nibble tables of the vector-permutation AES from first principles, in the style of
 * Hamburg, "Accelerating AES with Vector Permute Instructions" (CHES 2009): every table below is computed
 * here from field arithmetic and checked exhaustively against the FIPS 197 S-box before it is emitted.
 *
 * Field view. GF(2^8) (FIPS 197 §4.2) contains GF(2^4) = { x : x^16 = x }. Pick β in GF(2^8) with
 * β + β^16 = 1 (its trace to GF(2^4) is 1); then every x is uniquely x = p + q·β with p, q in GF(2^4), and
 * its norm is N(x) = x·x^16 = p² + pq + νq² where ν = β^17. A GF(2^4) element is stored as a nibble in the
 * GF(2)-basis 1, ω, ω², ω³ (ω = 3^17 generates GF(2^4)*), so nibble XOR is field addition. A state byte in
 * "tower form" is (p << 4) | q: the map T from the FIPS byte to it is GF(2)-linear, so it commutes with
 * AddRoundKey and with any byte permutation.
 *
 * Inversion with five lookups. With i = p, k = q, j = i + k and a = 1/ν:
 *   io = 1/(1/i + a/k) + j = a·N(x)/(k + a·i),   jo = 1/(1/j + a/k) + i = a·N(x)/(k + a·i + a·k),
 * and x^-1 = x^16 / N(x) = γ1/io + γ2/jo with γ2 = β^16 + ν, γ1 = 1 + γ2 (match the coefficients of p
 * and q). 1/0 is represented by 0x80 ("infinity"): infinity + nibble stays ≥ 16, i8x16.swizzle turns any
 * index ≥ 16 into 0 (= 1/infinity), and infinity + infinity = 0, which makes x = 0 come out as 0.
 * Any GF(2)-linear map L after the inversion (the S-box's affine part, a MixColumns coefficient, the basis
 * change back) is folded into two output tables: L(x^-1) = U[io] ^ V[jo].
 */

import { SBOX, affine, inv, mul, pow } from '@x/circuits';

/** A byte map as a 256-entry table. */
type ByteMap = (x: number) => number;

/** Inverse of a bijective byte map, by table. */
function inverseMap(f: ByteMap): ByteMap {
  const t = new Array<number>(256).fill(-1);
  for (let x = 0; x < 256; x++) t[f(x)] = x;
  if (t.includes(-1)) throw new Error('map is not a bijection');
  return (y) => t[y];
}

/** The inverse of {@link affine}'s linear part. */
export const affineInv = inverseMap(affine);

/** ω, a generator of GF(2^4)* inside GF(2^8). */
const OMEGA = pow(3, 17);
/** Nibble → GF(2^4) element of GF(2^8), in the basis 1, ω, ω², ω³. */
const nib = (n: number): number => {
  let e = 0;
  for (let b = 0; b < 4; b++) if ((n >> b) & 1) e ^= pow(OMEGA, b);
  return e;
};
const unnib = inverseMapPartial(nib);

function inverseMapPartial(f: ByteMap): ByteMap {
  const t = new Map<number, number>();
  for (let n = 0; n < 16; n++) t.set(f(n), n);
  if (t.size !== 16) throw new Error('nibble basis is not independent');
  return (y) => {
    const n = t.get(y);
    if (n === undefined) throw new Error(`${y} is not in GF(16)`);
    return n;
  };
}

/** β: the smallest byte with β + β^16 = 1. */
const BETA = (() => {
  for (let b = 2; b < 256; b++) if ((b ^ pow(b, 16)) === 1) return b;
  throw new Error('no β');
})();
const NU = pow(BETA, 17);
const A = inv(NU);
const GAMMA2 = pow(BETA, 16) ^ NU;
const GAMMA1 = 1 ^ GAMMA2;

/** T^-1: tower-form byte → FIPS byte. */
const fromTower: ByteMap = (w) => nib(w >> 4) ^ mul(nib(w & 15), BETA);
/** T: FIPS byte → tower-form byte. */
export const toTower = inverseMap(fromTower);

/** Nibble table (16 entries) of the inversion in GF(2^4), 1/0 = infinity = 0x80. */
const INF = 0x80;
const nibbleTable = (f: (e: number) => number): number[] =>
  Array.from({ length: 16 }, (_, n) => (n === 0 ? INF : unnib(f(nib(n)))));

/** TINV[n] = 1/n, TA[n] = a/n. */
export const TINV = nibbleTable((e) => inv(e));
export const TA = nibbleTable((e) => mul(A, inv(e)));

/** Models i8x16.swizzle on one lane: indices ≥ 16 give 0. */
export const swz = (t: readonly number[], i: number): number => (i < 16 ? t[i] : 0);

/** The front end on one tower-form byte: the two nibbles that index the output tables. */
export function frontEnd(w: number): [io: number, jo: number] {
  const k = w & 15,
    i = w >> 4,
    j = i ^ k;
  const ak = swz(TA, k);
  const t1 = swz(TINV, i) ^ ak,
    t2 = swz(TINV, j) ^ ak;
  const io = swz(TINV, t1) ^ j,
    jo = swz(TINV, t2) ^ i;
  // Every swizzle index is a nibble or "infinity + nibble": where i8x16.relaxed_swizzle is exact too.
  for (const x of [k, i, j, t1, t2, io, jo]) if (!(x < 16 || (x >= 0x80 && x < 0x90))) throw new Error('index range');
  return [io, jo];
}

/** Output tables U, V with L(x^-1) = U[io] ^ V[jo] for the linear map L. */
export function outputTables(L: ByteMap): [number[], number[]] {
  const u = Array.from({ length: 16 }, (_, n) => L(mul(GAMMA1, inv(nib(n)))));
  const v = Array.from({ length: 16 }, (_, n) => L(mul(GAMMA2, inv(nib(n)))));
  return [u, v];
}

/** Input tables lo, hi with M(x) = lo[x & 15] ^ hi[x >> 4] for the linear map M. */
export function inputTables(M: ByteMap): [number[], number[]] {
  return [Array.from({ length: 16 }, (_, n) => M(n)), Array.from({ length: 16 }, (_, n) => M(n << 4))];
}

/** R = T ∘ affine^-1: the form of the decryption state (inverse S-box input, FIPS 197 §5.3.2). */
export const decForm: ByteMap = (x) => toTower(affineInv(x));
/** The constant of the decryption form: the state s is stored as R(s) ^ DEC_C (= T(0x05)). */
export const DEC_C = toTower(affineInv(0x63));

/** Every table the module needs, by name, 16 bytes each. */
export function allTables(): Map<string, number[]> {
  const t = new Map<string, number[]>();
  t.set('m0f', new Array(16).fill(0x0f));
  t.set('s63', new Array(16).fill(0x63));
  t.set('dc', new Array(16).fill(DEC_C));
  t.set('tinv', TINV);
  t.set('ta', TA);
  const put = (name: string, pair: [number[], number[]]) => {
    t.set(`${name}u`, pair[0]);
    t.set(`${name}v`, pair[1]);
  };
  // Encryption (FIPS 197 §5.1): state in tower form; the S-box output times 1 and 2 for MixColumns.
  const [el, eh] = inputTables(toTower);
  t.set('einl', el);
  t.set('einh', eh);
  put(
    'e1',
    outputTables((y) => toTower(affine(y))),
  );
  put(
    'e2',
    outputTables((y) => toTower(mul(2, affine(y)))),
  );
  put(
    'ef',
    outputTables((y) => affine(y)),
  );
  // Decryption (FIPS 197 §5.3.5, equivalent inverse cipher): state in form R; InvMixColumns coefficients.
  const [dl, dh] = inputTables(decForm);
  t.set('dinl', dl);
  t.set('dinh', dh);
  for (const m of [14, 11, 13, 9])
    put(
      `d${m}`,
      outputTables((y) => decForm(mul(m, y))),
    );
  put(
    'df',
    outputTables((y) => y),
  );
  return t;
}

/** Checks the construction exhaustively: S-box and inverse S-box through the table path, all 256 bytes. */
export function selfCheck(): void {
  const [e1u, e1v] = outputTables((y) => toTower(affine(y)));
  const [dfu, dfv] = outputTables((y) => y);
  const [el, eh] = inputTables(toTower);
  const [dl, dh] = inputTables(decForm);
  for (let x = 0; x < 256; x++) {
    const w = el[x & 15] ^ eh[x >> 4];
    if (w !== toTower(x)) throw new Error('input tables');
    const [io, jo] = frontEnd(w);
    const s = swz(e1u, io) ^ swz(e1v, jo);
    if ((s ^ toTower(0x63)) !== toTower(SBOX[x])) throw new Error(`S-box mismatch at ${x}`);
    const wd = dl[x & 15] ^ dh[x >> 4] ^ DEC_C;
    const [dio, djo] = frontEnd(wd);
    if (SBOX[swz(dfu, dio) ^ swz(dfv, djo)] !== x) throw new Error(`inverse S-box mismatch at ${x}`);
  }
}
