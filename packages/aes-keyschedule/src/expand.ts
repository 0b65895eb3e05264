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

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2), with no branch on a or b. */
function gmul(a: number, b: number): number {
  let p = 0;
  for (let i = 0; i < 8; i++) {
    p ^= a & -(b & 1);
    a = ((a << 1) ^ (0x1b & -(a >>> 7))) & 0xff;
    b >>>= 1;
  }
  return p;
}

/**
 * The AES S-box (FIPS 197 §5.1.1) as arithmetic: the inverse b^254 (0 maps to 0) by a fixed chain of
 * squarings and multiplications, then the affine transformation. Only the key schedule uses it, on
 * 40 to 60 bytes per key, so its cost does not matter; its constant time does.
 */
export function subByte(x: number): number {
  let r = x;
  for (let i = 0; i < 6; i++) r = gmul(gmul(r, r), x); // x^3, x^7, …, x^127
  const b = gmul(r, r); // x^254
  const rot = (v: number, n: number) => ((v << n) | (v >>> (8 - n))) & 0xff;
  return b ^ rot(b, 1) ^ rot(b, 2) ^ rot(b, 3) ^ rot(b, 4) ^ 0x63;
}

/** InvMixColumns (FIPS 197 §5.3.3) of the column at bytes o .. o+3 of v, in place. */
function invMixColumn(v: Uint8Array, o: number): void {
  const a0 = v[o],
    a1 = v[o + 1],
    a2 = v[o + 2],
    a3 = v[o + 3];
  v[o] = gmul(a0, 14) ^ gmul(a1, 11) ^ gmul(a2, 13) ^ gmul(a3, 9);
  v[o + 1] = gmul(a0, 9) ^ gmul(a1, 14) ^ gmul(a2, 11) ^ gmul(a3, 13);
  v[o + 2] = gmul(a0, 13) ^ gmul(a1, 9) ^ gmul(a2, 14) ^ gmul(a3, 11);
  v[o + 3] = gmul(a0, 11) ^ gmul(a1, 13) ^ gmul(a2, 9) ^ gmul(a3, 14);
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
      const r0 = t0;
      t0 = subByte(t1) ^ rcon;
      t1 = subByte(t2);
      t2 = subByte(t3);
      t3 = subByte(r0);
      rcon = ((rcon << 1) ^ (0x1b & -(rcon >>> 7))) & 0xff;
    } else if (nk > 6 && i % nk === 4) {
      t0 = subByte(t0);
      t1 = subByte(t1);
      t2 = subByte(t2);
      t3 = subByte(t3);
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
