/**
 * The AES key expansion of FIPS 197 §5.2, and the round keys of the equivalent inverse cipher
 * (FIPS 197 §5.3.5), computed in constant time: the S-box is evaluated arithmetically (inversion in
 * GF(2^8) by a fixed exponentiation, then the affine map), never looked up by a key byte.
 */

/** The key schedule every kernel consumes: round keys as bytes, in the order the cipher uses them. */
export interface KeySchedule {
  /** Number of rounds: 10, 12 or 14 for 16, 24 or 32-byte keys (FIPS 197 §5, Figure 4). */
  readonly rounds: 10 | 12 | 14;
  /**
   * The expanded key w[0 .. 4·(rounds+1)-1] of FIPS 197 §5.2 as 16·(rounds+1) bytes, each word in FIPS
   * byte order (the first key byte first). Round key r is bytes 16r .. 16r+15, as AES-NI's AESENC and
   * ARMv8's AESE take them.
   */
  readonly encryptionKeys: Uint8Array;
  /**
   * The round keys of the equivalent inverse cipher (FIPS 197 §5.3.5), in the order it applies them:
   * block 0 is encryption round key `rounds`, block i (0 < i < rounds) is InvMixColumns of encryption round
   * key `rounds - i`, block `rounds` is encryption round key 0. This is what AES-NI's AESDEC/AESDECLAST and
   * ARMv8's AESD/AESIMC sequences take.
   */
  readonly decryptionKeys: Uint8Array;
  /** Overwrites both key arrays with zeros. The schedule is unusable afterwards. */
  wipe(): void;
}

// The arithmetic works on four bytes at once, one in each byte of a 32-bit word (lane k = bits 8k .. 8k+7),
// so that a SubWord or an InvMixColumns is one pass; every step is a shift, a mask or a multiplication by a
// 0/1 lane mask, none indexed or branching on a byte.

/** Each lane's lowest bit. */
const LO = 0x01010101;

/** Each lane times x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2.1, xtime). */
function xtime4(a: number): number {
  return ((a & 0x7f7f7f7f) << 1) ^ (((a >>> 7) & LO) * 0x1b);
}

/** Each lane of `a` times the same lane of `b` in GF(2^8) (FIPS 197 §4.2), with no branch on either. */
function gmul4(a: number, b: number): number {
  let p = 0;
  for (let i = 0; i < 8; i++) {
    p ^= a & (((b >>> i) & LO) * 0xff);
    a = xtime4(a);
  }
  return p;
}

/** Each lane rotated left by `n` bits inside its byte. */
function rotl4(v: number, n: number): number {
  return ((v << n) & (((0xff << n) & 0xff) * LO)) | ((v >>> (8 - n)) & ((0xff >>> (8 - n)) * LO));
}

/**
 * The AES S-box (FIPS 197 §5.1.1) of each lane, as arithmetic: the inverse b^254 (0 maps to 0) by a fixed
 * chain of squarings and multiplications, then the affine transformation. Only the key schedule uses it.
 */
function subWord4(x: number): number {
  let r = x;
  for (let i = 0; i < 6; i++) r = gmul4(gmul4(r, r), x); // x^3, x^7, …, x^127
  const b = gmul4(r, r); // x^254
  return (b ^ rotl4(b, 1) ^ rotl4(b, 2) ^ rotl4(b, 3) ^ rotl4(b, 4) ^ 0x63636363) >>> 0;
}

/**
 * The AES S-box (FIPS 197 §5.1.1) of one byte, in constant time (see {@link subWord4}).
 *
 * @example
 * ```ts
 * subByte(0x53); // 0xed (FIPS 197 §5.1.1)
 * ```
 */
export function subByte(x: number): number {
  return subWord4(x & 0xff) & 0xff;
}

/** Reads the four bytes at `o` of `v` as lanes 0 .. 3. */
const word = (v: Uint8Array, o: number) => v[o] | (v[o + 1] << 8) | (v[o + 2] << 16) | (v[o + 3] << 24);

/** The word rotated right by `n` bits: lane k + n/8 moves to lane k. */
const rotr = (v: number, n: number) => (v >>> n) | (v << (32 - n));

/** InvMixColumns (FIPS 197 §5.3.3) of the column at bytes o .. o+3 of v, in place: b_i = 14a_i ⊕ 11a_i+1 ⊕ 13a_i+2 ⊕ 9a_i+3. */
function invMixColumn(v: Uint8Array, o: number): void {
  const a = word(v, o);
  const a2 = xtime4(a);
  const a4 = xtime4(a2);
  const a8 = xtime4(a4);
  const c = a8 ^ a4 ^ a2 ^ rotr(a8 ^ a2 ^ a, 8) ^ rotr(a8 ^ a4 ^ a, 16) ^ rotr(a8 ^ a, 24);
  v[o] = c;
  v[o + 1] = c >>> 8;
  v[o + 2] = c >>> 16;
  v[o + 3] = c >>> 24;
}

const PREFIX = '@x/aes-keyschedule';

/**
 * Expands a 16, 24 or 32-byte AES key (FIPS 197 §5.2) into the round keys of the cipher and of the
 * equivalent inverse cipher (§5.3.5). The key is read, never kept.
 *
 * @throws TypeError when `key` is not a Uint8Array; RangeError when it is not 16, 24 or 32 bytes long.
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * const ks = expandKey(new Uint8Array(16));
 * ks.rounds;                // 10
 * ks.encryptionKeys.length; // 176
 * ks.wipe();
 * ```
 */
export function expandKey(key: Uint8Array): KeySchedule {
  if (!(key instanceof Uint8Array)) throw new TypeError(`${PREFIX}: key must be a Uint8Array`);
  const nk = key.length >>> 2;
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) {
    throw new RangeError(`${PREFIX}: key must be 16, 24 or 32 bytes, got ${key.length}`);
  }
  const rounds = (nk + 6) as 10 | 12 | 14;
  const words = 4 * (rounds + 1);
  const ek = new Uint8Array(4 * words);
  ek.set(key);
  let rcon = 1;
  for (let i = nk; i < words; i++) {
    const p = 4 * (i - 1);
    let t0 = ek[p],
      t1 = ek[p + 1],
      t2 = ek[p + 2],
      t3 = ek[p + 3];
    if (i % nk === 0) {
      // SubWord(RotWord(temp)) xor Rcon[i/Nk]; i is public, so this branch is on public data only.
      const s = subWord4(t1 | (t2 << 8) | (t3 << 16) | (t0 << 24));
      t0 = (s & 0xff) ^ rcon;
      t1 = (s >>> 8) & 0xff;
      t2 = (s >>> 16) & 0xff;
      t3 = s >>> 24;
      rcon = ((rcon << 1) ^ (0x1b & -(rcon >>> 7))) & 0xff;
    } else if (nk > 6 && i % nk === 4) {
      const s = subWord4(t0 | (t1 << 8) | (t2 << 16) | (t3 << 24));
      t0 = s & 0xff;
      t1 = (s >>> 8) & 0xff;
      t2 = (s >>> 16) & 0xff;
      t3 = s >>> 24;
    }
    const q = 4 * (i - nk),
      o = 4 * i;
    ek[o] = ek[q] ^ t0;
    ek[o + 1] = ek[q + 1] ^ t1;
    ek[o + 2] = ek[q + 2] ^ t2;
    ek[o + 3] = ek[q + 3] ^ t3;
  }

  const dk = new Uint8Array(ek.length);
  for (let r = 0; r <= rounds; r++) dk.set(ek.subarray(16 * (rounds - r), 16 * (rounds - r + 1)), 16 * r);
  for (let o = 16; o < 16 * rounds; o += 4) invMixColumn(dk, o);

  return {
    rounds,
    encryptionKeys: ek,
    decryptionKeys: dk,
    wipe() {
      ek.fill(0);
      dk.fill(0);
    },
  };
}
