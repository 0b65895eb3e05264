// BitLocker's key stretching (libbde "Keys": "Recovery key", "User key"; cryptsetup lib/bitlk/bitlk.c):
// a structure { last: 32 bytes, initial: 32 bytes, salt: 16 bytes, count: u64 little-endian } is hashed
// with SHA-256 2^20 times, each digest becoming `last` and `count` counting up; the last digest is the key
// that unwraps the protector's AES-CCM encrypted VMK. `initial` is SHA-256(SHA-256(UTF-16LE(password)))
// for a password, SHA-256(the 16-byte key of a recovery password) for a recovery password.
//
// The loop runs here on SHA-256's compression function directly (FIPS 180-4 §6.2.2), on 32-bit words:
// the 88-byte structure is exactly two blocks, the first `last ‖ initial` (so the previous digest's state
// words are the next message's first words as they are, no bytes in between), the second `salt ‖ count ‖
// padding ‖ length 704`, all of it constant but the count. That is 2^21 compressions with no allocation:
// 1.0 s on the machine of the README's tables, where hashing the structure 2^20 times through a general
// SHA-256 API takes 2.0 s (node:crypto's createHash, SHA-NI but a call's overhead per hash) and 2.7 s
// (@noble/hashes). The general SHA-256 of the other steps comes from @noble/hashes.
import { sha256 } from '@noble/hashes/sha2.js';

/** SHA-256 round constants (FIPS 180-4 §4.2.2). */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
/** SHA-256 initial hash value (FIPS 180-4 §5.3.3). */
const IV = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** One SHA-256 compression of the 16 words in w[0..15] into h; w[16..63] is scratch. */
function compress(h: Int32Array, w: Int32Array): void {
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15],
      y = w[t - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
  }
  let a = h[0],
    b = h[1],
    c = h[2],
    d = h[3],
    e = h[4],
    f = h[5],
    g = h[6],
    k = h[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0;
  h[1] = (h[1] + b) | 0;
  h[2] = (h[2] + c) | 0;
  h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0;
  h[5] = (h[5] + f) | 0;
  h[6] = (h[6] + g) | 0;
  h[7] = (h[7] + k) | 0;
}

const be32 = (b: Uint8Array, o: number) => (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
const bswap = (x: number) => ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);

/** BitLocker's iteration count (0x100000), fixed by the format. */
export const STRETCH_ROUNDS = 0x100000;

/**
 * The stretched key of `initial` (32 bytes) and `salt` (16 bytes): `rounds` SHA-256 hashes of the
 * structure above (2^20 in BitLocker; tests pass fewer). Returns a new 32-byte array; the scratch is wiped.
 */
export function stretchKey(initial: Uint8Array, salt: Uint8Array, rounds = STRETCH_ROUNDS): Uint8Array {
  if (initial.length !== 32 || salt.length !== 16) throw new RangeError('@x/bitlocker: stretch takes 32 + 16 bytes');
  const w = new Int32Array(64);
  const h = new Int32Array(8);
  const last = new Int32Array(8); // the all-zero digest of round 0
  const init = new Int32Array(8);
  for (let i = 0; i < 8; i++) init[i] = be32(initial, 4 * i);
  const s0 = be32(salt, 0),
    s1 = be32(salt, 4),
    s2 = be32(salt, 8),
    s3 = be32(salt, 12);
  for (let count = 0; count < rounds; count++) {
    h.set(IV);
    w.set(last, 0);
    w.set(init, 8);
    compress(h, w);
    w[0] = s0;
    w[1] = s1;
    w[2] = s2;
    w[3] = s3;
    w[4] = bswap(count); // the u64 count, little-endian bytes, read as big-endian words
    w[5] = 0; // count < 2^32
    w[6] = 0x80000000 | 0; // the padding bit
    w.fill(0, 7, 15);
    w[15] = 88 * 8; // the message length in bits
    compress(h, w);
    last.set(h);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[4 * i] = last[i] >>> 24;
    out[4 * i + 1] = last[i] >>> 16;
    out[4 * i + 2] = last[i] >>> 8;
    out[4 * i + 3] = last[i];
  }
  w.fill(0);
  h.fill(0);
  last.fill(0);
  init.fill(0);
  return out;
}

/** SHA-256(SHA-256(UTF-16LE(password))): a password's initial value. */
export function passwordInitial(password: string): Uint8Array {
  const utf16 = new Uint8Array(2 * password.length);
  for (let i = 0; i < password.length; i++) {
    const c = password.charCodeAt(i);
    utf16[2 * i] = c & 0xff;
    utf16[2 * i + 1] = c >>> 8;
  }
  const once = sha256(utf16);
  const twice = sha256(once);
  utf16.fill(0);
  once.fill(0);
  return twice;
}

/**
 * The 16-byte key of a 48-digit recovery password: 8 groups of 6 digits, each divisible by 11 with a
 * quotient below 2^16 (libbde "Recovery key"), the quotients as little-endian u16. Groups are separated
 * by `-` (as Windows shows them) or given as 48 digits; surrounding whitespace is ignored. Returns
 * undefined for a string that is not a recovery password.
 */
export function recoveryKey(text: string): Uint8Array | undefined {
  const t = text.trim();
  let groups: string[];
  if (/^\d{6}(?:-\d{6}){7}$/.test(t)) groups = t.split('-');
  else if (/^\d{48}$/.test(t)) groups = t.match(/\d{6}/g)!;
  else return undefined;
  const key = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const n = Number(groups[i]);
    if (n % 11 !== 0 || n / 11 >= 0x10000) {
      key.fill(0);
      return undefined;
    }
    key[2 * i] = (n / 11) & 0xff;
    key[2 * i + 1] = (n / 11) >>> 8;
  }
  return key;
}

/** SHA-256(recovery key): a recovery password's initial value. */
export function recoveryInitial(key: Uint8Array): Uint8Array {
  return sha256(key);
}
