/**
 * GF(2^128) as LRW uses it (Linux `gf128mul_*_bbe`, the "bbe" convention of include/crypto/gf128mul.h): a
 * block of 16 bytes is a big-endian 128-bit number whose bit i is the coefficient of x^i, reduced by
 * x^128 + x^7 + x^2 + x + 1 (0x87 in the last byte). Elements are held as four 32-bit words, word 0 the
 * most significant (bytes 0..3).
 *
 * Constant time: nothing here branches on, or indexes memory by, the tweak key K2 or a product with it.
 * The one table lookup in the data path, {@link LrwTables.mulinc}, is indexed by a count taken from the
 * block index, which is public (the sector number); the full product K2 ⊗ I is a masked sum over all
 * 128 bits of I, the same work for every I.
 */

/** The 128 multiples of K2 that LRW needs, made once per key. */
export class LrwTables {
  /** `pow[4j .. 4j+4)` = K2 · x^j, j = 0 … 127. */
  readonly pow = new Int32Array(512);
  /**
   * `mulinc[4k .. 4k+4)` = K2 · (x^0 + … + x^k): what T = K2 ⊗ I changes by when I, whose k lowest bits
   * are ones and bit k a zero, becomes I + 1 (I ⊕ (I + 1) = 2^(k+1) − 1; LRW is linear in I).
   */
  readonly mulinc = new Int32Array(512);

  /** Fills both tables from the 16-byte tweak key `k2` (big-endian bytes, read at `at`). */
  constructor(k2: Uint8Array, at: number) {
    const pow = this.pow,
      inc = this.mulinc;
    let w0 = word(k2, at),
      w1 = word(k2, at + 4),
      w2 = word(k2, at + 8),
      w3 = word(k2, at + 12);
    for (let j = 0; j < 128; j++) {
      const o = 4 * j;
      pow[o] = w0;
      pow[o + 1] = w1;
      pow[o + 2] = w2;
      pow[o + 3] = w3;
      if (j === 0) {
        inc[0] = w0;
        inc[1] = w1;
        inc[2] = w2;
        inc[3] = w3;
      } else {
        inc[o] = inc[o - 4] ^ w0;
        inc[o + 1] = inc[o - 3] ^ w1;
        inc[o + 2] = inc[o - 2] ^ w2;
        inc[o + 3] = inc[o - 1] ^ w3;
      }
      // · x: shift left by one, the bit shifted out of x^127 folded back as 0x87 through a mask
      const carry = w0 >>> 31;
      w0 = (w0 << 1) | (w1 >>> 31);
      w1 = (w1 << 1) | (w2 >>> 31);
      w2 = (w2 << 1) | (w3 >>> 31);
      w3 = (w3 << 1) ^ (0x87 & -carry);
    }
    w0 = w1 = w2 = w3 = 0;
  }

  /**
   * `out[0 .. 4)` = K2 ⊗ I for the 16-byte block index I at `iv[at ..]`: the sum of K2 · x^j over the
   * set bits j of I, every bit taken through a mask (128 masked additions whatever I is).
   */
  multiply(out: Int32Array, iv: Uint8Array, at: number): void {
    const pow = this.pow;
    let t0 = 0,
      t1 = 0,
      t2 = 0,
      t3 = 0;
    for (let w = 0; w < 4; w++) {
      const bits = word(iv, at + 12 - 4 * w); // w = 0: bits 0..31 (the last four bytes)
      for (let b = 0; b < 32; b++) {
        const m = -((bits >>> b) & 1);
        const o = 4 * (32 * w + b);
        t0 ^= pow[o] & m;
        t1 ^= pow[o + 1] & m;
        t2 ^= pow[o + 2] & m;
        t3 ^= pow[o + 3] & m;
      }
    }
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
    out[3] = t3;
  }

  /** Zeroes both tables. */
  wipe(): void {
    this.pow.fill(0);
    this.mulinc.fill(0);
  }
}

/** The big-endian 32-bit word at `b[o ..]`, as a signed int32. */
export function word(b: Uint8Array, o: number): number {
  return (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
}

/**
 * The number of trailing one bits of the 128-bit index (i0 most significant … i3 least), 0 … 128; the
 * index is public (a block number), so the branches here leak nothing secret.
 */
export function trailingOnes(i0: number, i1: number, i2: number, i3: number): number {
  if (i3 !== -1) return ctz(~i3);
  if (i2 !== -1) return 32 + ctz(~i2);
  if (i1 !== -1) return 64 + ctz(~i1);
  if (i0 !== -1) return 96 + ctz(~i0);
  return 128;
}

/** Trailing zero bits of a non-zero int32. */
function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}
