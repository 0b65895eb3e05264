/**
 * The field arithmetic of FIPS 197 §4.2 and the S-box from its definition (§5.1.1, §5.3.2), for the code
 * generators: the reference that every circuit and table they emit is checked against, exhaustively,
 * before any code is written. Generator-time only: nothing here reaches a kernel, and none of it is
 * constant time (it needs not be: it never sees a key).
 */

/**
 * Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2).
 *
 * @example
 * ```ts
 * mul(0x57, 0x83); // 0xc1, FIPS 197 §4.2's example
 * ```
 */
export function mul(a: number, b: number): number {
  let p = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) p ^= a;
    a = ((a << 1) ^ (a & 0x80 ? 0x1b : 0)) & 0xff;
    b >>= 1;
  }
  return p;
}

/**
 * a^e in GF(2^8), e ≥ 0.
 *
 * @example
 * ```ts
 * pow(3, 255); // 1: 3 generates GF(2^8)*
 * ```
 */
export function pow(a: number, e: number): number {
  let r = 1;
  for (let i = 0; i < e; i++) r = mul(r, a);
  return r;
}

/**
 * The multiplicative inverse in GF(2^8), with 0 ↦ 0 (FIPS 197 §5.1.1), as a^254.
 *
 * @example
 * ```ts
 * mul(0x53, inv(0x53)); // 1
 * ```
 */
export const inv = (a: number): number => (a === 0 ? 0 : pow(a, 254));

const rotl8 = (x: number, n: number): number => ((x << n) | (x >> (8 - n))) & 0xff;

/**
 * The linear part of the S-box's affine transformation (FIPS 197 §5.1.1, equation 5.2): the S-box is
 * `affine(inv(x)) ^ 0x63`.
 *
 * @example
 * ```ts
 * affine(inv(0x53)) ^ 0x63; // 0xed
 * ```
 */
export const affine = (y: number): number => y ^ rotl8(y, 1) ^ rotl8(y, 2) ^ rotl8(y, 3) ^ rotl8(y, 4);

/**
 * The S-box (FIPS 197 §5.1.1), all 256 entries.
 *
 * @example
 * ```ts
 * SBOX[0x53]; // 0xed, FIPS 197 §5.1.1's example
 * ```
 */
export const SBOX: readonly number[] = Object.freeze(Array.from({ length: 256 }, (_, x) => affine(inv(x)) ^ 0x63));

/**
 * The inverse S-box (FIPS 197 §5.3.2), all 256 entries.
 *
 * @example
 * ```ts
 * INV_SBOX[0xed]; // 0x53
 * ```
 */
export const INV_SBOX: readonly number[] = Object.freeze(Array.from({ length: 256 }, (_, y) => SBOX.indexOf(y)));
