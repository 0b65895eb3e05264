/**
 * CCM's formatting of its inputs (NIST SP 800-38C Appendix A, RFC 3610 §2.2 and §2.3): the first block
 * B0 of the CBC-MAC, the encoding of the AAD's length in front of the AAD, and the counter blocks A_i.
 * Everything here is public (lengths, the nonce); nothing is secret, nothing allocates.
 *
 * With n the nonce's length in bytes, L = 15 − n is the size of the message-length field (q in SP
 * 800-38C) and of the counter: 7 ≤ n ≤ 13 gives 2 ≤ L ≤ 8.
 */

/** The shortest and longest nonces (SP 800-38C §A.1: n from 7 to 13; RFC 3610 §2: L from 2 to 8). */
export const MIN_NONCE = 7;
export const MAX_NONCE = 13;

/**
 * The longest message a nonce of `nonceLength` bytes allows: 2^(8L) − 1 bytes (SP 800-38C §A.1: Q
 * fits in L bytes), and no more than `Number.MAX_SAFE_INTEGER` (what a JavaScript length can say, for
 * L ≥ 7).
 *
 * @example `maxMessageBytes(13) // 65535`; `maxMessageBytes(12) // 16777215`
 */
export function maxMessageBytes(nonceLength: number): number {
  const l = 15 - nonceLength;
  return l >= 7 ? Number.MAX_SAFE_INTEGER : 2 ** (8 * l) - 1;
}

/**
 * Writes `n` big-endian into bytes [from, 16) of `block` (a length or a counter; `n` below 2^53, and
 * below 2^(8·(16 − from)), which the callers' length checks guarantee).
 */
function writeBe(block: Uint8Array, from: number, n: number): void {
  let q = n;
  for (let i = 15; i >= from; i--) {
    block[i] = q % 256;
    q = Math.floor(q / 256);
  }
}

/**
 * B0 (SP 800-38C §A.2.1, RFC 3610 §2.2): the flags byte 64·Adata + 8·((t − 2)/2) + (L − 1), the nonce,
 * and the message length Q in L bytes, big-endian.
 *
 * @example `writeB0(b0, nonce, 16, plaintext.length, aad.length > 0)`
 */
export function writeB0(b0: Uint8Array, nonce: Uint8Array, tagLength: number, n: number, hasAad: boolean): void {
  const l = 15 - nonce.length;
  b0[0] = (hasAad ? 0x40 : 0) | (((tagLength - 2) >>> 1) << 3) | (l - 1);
  for (let i = 0; i < nonce.length; i++) b0[1 + i] = nonce[i]!;
  writeBe(b0, 16 - l, n);
}

/**
 * The counter block A0 (SP 800-38C §A.3, RFC 3610 §2.3): flags L − 1, the nonce, then a counter of L
 * zero bytes. Its encryption S0 masks the tag; A_i, i ≥ 1, give the keystream. The counter never carries
 * out of its L bytes (a message has fewer than 2^(8L) / 16 blocks), so A0 + i as a 128-bit integer is A_i.
 *
 * @example `writeA0(a0, nonce)`
 */
export function writeA0(a0: Uint8Array, nonce: Uint8Array): void {
  const l = 15 - nonce.length;
  a0[0] = l - 1;
  for (let i = 0; i < nonce.length; i++) a0[1 + i] = nonce[i]!;
  a0.fill(0, 16 - l, 16);
}

/** Adds `blocks` to the big-endian counter in the last `l` bytes of the counter block `a` (no carry out). */
export function addToCounter(a: Uint8Array, l: number, blocks: number): void {
  let carry = blocks;
  for (let i = 15; i >= 16 - l; i--) {
    carry += a[i]!;
    a[i] = carry & 0xff;
    carry = Math.floor(carry / 256);
  }
}

/**
 * The encoding of the AAD's length `a` > 0 that precedes the AAD in the CBC-MAC input (SP 800-38C
 * §A.2.2, RFC 3610 §2.2): 2 bytes when a < 2^16 − 2^8; 0xff 0xfe and 4 bytes when a < 2^32; 0xff 0xff
 * and 8 bytes above. Writes it at `out[0 ..]` and returns its length: 2, 6 or 10.
 *
 * @example `aadLengthHeader(out, 20) // 2; out = 00 14`
 */
export function aadLengthHeader(out: Uint8Array, a: number): number {
  if (a < 0xff00) {
    out[0] = a >>> 8;
    out[1] = a & 0xff;
    return 2;
  }
  let q = a;
  const bytes = a < 2 ** 32 ? 4 : 8;
  out[0] = 0xff;
  out[1] = bytes === 4 ? 0xfe : 0xff;
  for (let i = 1 + bytes; i >= 2; i--) {
    out[i] = q % 256;
    q = Math.floor(q / 256);
  }
  return 2 + bytes;
}
