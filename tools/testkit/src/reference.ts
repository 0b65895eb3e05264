// The reference every test checks against: node:crypto (OpenSSL) AES-ECB, AES-CBC and AES-XTS with
// padding off, plus XTS by its definition over ECB where OpenSSL has none (AES-192). One copy for every
// package's tests; nothing here shares code with the packages under test.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { random } from './bytes.js';

function run(name: string, encrypt: boolean, key: Uint8Array, iv: Uint8Array | null, data: Uint8Array): Uint8Array {
  const c = encrypt ? createCipheriv(name, key, iv) : createDecipheriv(name, key, iv);
  c.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/**
 * AES-ECB (FIPS 197 §5.1, §5.3) of whole blocks: `aes-128/192/256-ecb` from the key length.
 *
 * @example
 * ```ts
 * refEcb(true, hex('000102030405060708090a0b0c0d0e0f'), hex('00112233445566778899aabbccddeeff'));
 * // 69c4e0d86a7b0430d8cdb78070b4c55a (FIPS 197 Appendix C.1)
 * ```
 */
export function refEcb(encrypt: boolean, key: Uint8Array, data: Uint8Array): Uint8Array {
  return run(`aes-${key.length * 8}-ecb`, encrypt, key, null, data);
}

/**
 * AES-CBC (NIST SP 800-38A §6.2) of one chain of whole blocks.
 *
 * @example
 * ```ts
 * const ct = refCbc(true, key, plain, iv);
 * ```
 */
export function refCbc(encrypt: boolean, key: Uint8Array, data: Uint8Array, iv: Uint8Array): Uint8Array {
  return run(`aes-${key.length * 8}-cbc`, encrypt, key, iv, data);
}

/**
 * AES-CBC of sectors of `sectorSize` bytes, sector s its own chain with IV `ivs[16s .. 16s+16)` (ivs may
 * be longer): what a kernel's `cbcDecryptSectors`/`cbcEncryptSectors` and `@x/cbc`'s sector calls give.
 *
 * @example
 * ```ts
 * const plain = refCbcSectors(false, key, disk, 512, ivs);
 * ```
 */
export function refCbcSectors(
  encrypt: boolean,
  key: Uint8Array,
  data: Uint8Array,
  sectorSize: number,
  ivs: Uint8Array,
): Uint8Array {
  return refSectors(data, sectorSize, ivs, (unit, iv) => refCbc(encrypt, key, unit, iv));
}

/**
 * A reference of one data unit applied to sectors of `sectorSize` bytes, sector s with the 16-byte IV
 * `ivs[16s .. 16s+16)` (ivs may be longer): the sector form of any single-unit reference.
 *
 * @example
 * ```ts
 * const want = refSectors(disk, 512, ivs, (unit, iv) => refLrw(true, key, unit, iv));
 * ```
 */
export function refSectors(
  data: Uint8Array,
  sectorSize: number,
  ivs: Uint8Array,
  unit: (data: Uint8Array, iv: Uint8Array) => Uint8Array,
): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let s = 0; s * sectorSize < data.length; s++) {
    const at = s * sectorSize;
    out.set(unit(data.subarray(at, at + sectorSize), ivs.subarray(16 * s, 16 * s + 16)), at);
  }
  return out;
}

/**
 * XTS-AES (IEEE 1619 §5.3, §5.4) of one data unit of any length ≥ 16 bytes (ciphertext stealing
 * included), as `@x/xts` computes it: `key` is key1 ‖ key2 (32 or 64 bytes), `tweak` the 16-byte tweak
 * before encryption. OpenSSL refuses keys whose halves are equal.
 *
 * @example
 * ```ts
 * const ct = refXts(true, key, plain, tweak);   // a 64-byte key: aes-256-xts
 * ```
 */
export function refXts(encrypt: boolean, key: Uint8Array, data: Uint8Array, tweak: Uint8Array): Uint8Array {
  return run(`aes-${key.length * 4}-xts`, encrypt, key, tweak, data);
}

/**
 * T·α in GF(2^128) (IEEE 1619 §5.2: little-endian, reduced by x^128 + x^7 + x^2 + x + 1), on a copy,
 * byte by byte: an independent statement of the doubling.
 *
 * @example
 * ```ts
 * mulAlpha(hex('80'.padStart(32, '0')));  // 87000000000000000000000000000000
 * ```
 */
export function mulAlpha(t: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  let carry = 0;
  for (let i = 0; i < 16; i++) {
    out[i] = ((t[i] << 1) | carry) & 0xff;
    carry = t[i] >> 7;
  }
  if (carry) out[0] ^= 0x87;
  return out;
}

/**
 * What a kernel's `xtsEncrypt`/`xtsDecrypt` give: XTS of the whole blocks of data units of `unitSize`
 * bytes, unit u from its tweak already encrypted, `tweaks[16u .. 16u+16)` = T = E_K2(i) (tweaks may be
 * longer). For AES-128 and AES-256 that is node:crypto's `aes-*-xts` with key1 ‖ key2 and i = D_K2(T)
 * (any T, chosen or random, is the encryption of some i). For AES-192, which OpenSSL has no XTS for, or
 * when `byDefinition` is set, the definition itself: C = E_K1(P ^ T·α^j) ^ T·α^j (IEEE 1619 §5.3.1) over
 * node:crypto's ECB.
 *
 * @example
 * ```ts
 * const [key1, key2] = keyPair(32);
 * const want = refXtsBlocks(true, key1, key2, plain, 512, encryptedTweaks);
 * ```
 */
export function refXtsBlocks(
  encrypt: boolean,
  key1: Uint8Array,
  key2: Uint8Array,
  data: Uint8Array,
  unitSize: number,
  tweaks: Uint8Array,
  byDefinition = false,
): Uint8Array {
  const out = new Uint8Array(data.length);
  if (key1.length === 24 || byDefinition) {
    // The masks T·α^j of every block, then one ECB call over all the blocks.
    const masks = new Uint8Array(data.length);
    for (let u = 0; u * unitSize < data.length; u++) {
      let t: Uint8Array = tweaks.slice(16 * u, 16 * u + 16);
      for (let o = u * unitSize; o < (u + 1) * unitSize; o += 16) {
        masks.set(t, o);
        t = mulAlpha(t);
      }
    }
    const x = data.map((b, i) => b ^ masks[i]);
    const y = refEcb(encrypt, key1, x);
    for (let i = 0; i < out.length; i++) out[i] = y[i] ^ masks[i];
    return out;
  }
  const key = new Uint8Array(2 * key1.length);
  key.set(key1);
  key.set(key2, key1.length);
  for (let u = 0; u * unitSize < data.length; u++) {
    const at = u * unitSize;
    const i = refEcb(false, key2, tweaks.subarray(16 * u, 16 * u + 16));
    out.set(refXts(encrypt, key, data.subarray(at, at + unitSize), i), at);
  }
  return out;
}

/**
 * Two different random keys of `n` bytes each: XTS's key1 and key2 (OpenSSL refuses equal halves).
 *
 * @example
 * ```ts
 * const [key1, key2] = keyPair(16);   // XTS-AES-128
 * ```
 */
export function keyPair(n: number): [Uint8Array, Uint8Array] {
  const k1 = random(n);
  let k2 = random(n);
  while (Buffer.from(k2).equals(Buffer.from(k1))) k2 = random(n);
  return [k1, k2];
}

/** The counter kinds of the kernel contract's `ctr` (`CtrCounter` of `@x/aes-kernels/hazmat`). */
export const CTR_COUNTERS = ['be128', 'be32', 'xctr'] as const;

/**
 * A CTR keystream XORed into `data` (any length): `be128` is node:crypto `aes-*-ctr` itself; `be32` (GCM's
 * inc32, SP 800-38D §6.2) and `xctr` (HCTR2's XCTR: block j uses iv ^ le128(j + 1)) build their counter
 * blocks here, bit by bit from their definitions, and encrypt them with node:crypto's ECB.
 *
 * @example
 * ```ts
 * refCtr(key, plain, iv, 'be128'); // = createCipheriv('aes-128-ctr', key, iv).update(plain)
 * ```
 */
export function refCtr(
  key: Uint8Array,
  data: Uint8Array,
  iv: Uint8Array,
  counter: (typeof CTR_COUNTERS)[number],
): Uint8Array {
  if (counter === 'be128') {
    return new Uint8Array(createCipheriv(`aes-${key.length * 8}-ctr`, key, iv).update(data));
  }
  const blocks = Math.ceil(data.length / 16);
  const counters = new Uint8Array(16 * blocks);
  const ivInt = BigInt(`0x${Buffer.from(iv).toString('hex')}`);
  for (let j = 0; j < blocks; j++) {
    let block: bigint;
    if (counter === 'be32') {
      const low = (ivInt + BigInt(j)) & 0xffffffffn;
      block = (ivInt & ~0xffffffffn) | low;
    } else {
      // iv ^ le128(j + 1): the little-endian counter is the big-endian integer of its reversed bytes.
      const le = Buffer.from(
        BigInt(j + 1)
          .toString(16)
          .padStart(32, '0'),
        'hex',
      ).reverse();
      block = ivInt ^ BigInt(`0x${le.toString('hex')}`);
    }
    counters.set(Buffer.from(block.toString(16).padStart(32, '0'), 'hex'), 16 * j);
  }
  const ks = refEcb(true, key, counters);
  return data.map((b, i) => b ^ ks[i]);
}

/** POLYVAL's field polynomial x^128 + x^127 + x^126 + x^121 + 1 (RFC 8452 §3), bit i = coefficient of x^i. */
const POLYVAL_P = (1n << 128n) | (1n << 127n) | (1n << 126n) | (1n << 121n) | 1n;

/** A 16-byte block as POLYVAL's field element: little-endian, bit i of the integer is the coefficient of x^i. */
const element = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).reverse().toString('hex') || '0'}`);
const block = (e: bigint): Uint8Array => new Uint8Array(Buffer.from(e.toString(16).padStart(32, '0'), 'hex').reverse());

/** a · b · x^-128 in POLYVAL's field (RFC 8452 §3 "dot"), bit by bit. */
function dot(a: bigint, b: bigint): bigint {
  let r = 0n;
  for (let i = 0n; i < 128n; i++) if ((b >> i) & 1n) r ^= a << i;
  for (let i = 254n; i >= 128n; i--) if ((r >> i) & 1n) r ^= POLYVAL_P << (i - 128n);
  for (let i = 0; i < 128; i++) r = (r & 1n ? r ^ POLYVAL_P : r) >> 1n; // · x^-1, 128 times
  return r;
}

/**
 * POLYVAL's multiply-accumulate (RFC 8452 §3) from its definition, bit by bit: for each 16-byte block X
 * of `data`, acc = (acc ^ X) · H · x^-128, X byte-reversed first when `reversed` (GHASH's order, RFC 8452
 * Appendix A). Returns the new accumulator.
 *
 * @example
 * ```ts
 * // RFC 8452 Appendix A: POLYVAL(H, X_1, X_2)
 * refPolyval(hex('25629347589242761d31f826ba4b757b'), new Uint8Array(16), hex('4f4f…62d1a2…62'), false);
 * ```
 */
export function refPolyval(h: Uint8Array, acc: Uint8Array, data: Uint8Array, reversed: boolean): Uint8Array {
  const hh = element(h);
  let s = element(acc);
  for (let o = 0; o < data.length; o += 16) {
    const x = data.slice(o, o + 16);
    if (reversed) x.reverse();
    s = dot(s ^ element(x), hh);
  }
  return block(s);
}

/**
 * The POLYVAL key whose reversed multiply-accumulate is GHASH with key `h` (RFC 8452 Appendix A):
 * mulX_POLYVAL(ByteReverse(H)).
 *
 * @example `ghashKey(hex('66e94bd4ef8a2c3b884cfa59ca342b2e'))`
 */
export function ghashKey(h: Uint8Array): Uint8Array {
  let e = element(h.slice().reverse()) << 1n;
  if (e >> 128n) e ^= POLYVAL_P;
  return block(e);
}

/** x as 16 bytes little-endian (HCTR2's bin(x), ePrint 2021/1441 §2). */
function le128(x: bigint): Uint8Array {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = Number((x >> BigInt(8 * i)) & 0xffn);
  return b;
}

const xor16 = (a: Uint8Array, b: Uint8Array) => a.map((v, i) => v ^ b[i]);

/** `b` zero-padded to whole 16-byte blocks. */
function pad16(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(b.length / 16) * 16);
  out.set(b);
  return out;
}

/**
 * XCTR_K(S) truncated to `n` bytes (HCTR2's keystream, ePrint 2021/1441 §3): block i, from 1, is
 * E_K(S ^ bin(i)), built block by block and encrypted with node:crypto's ECB.
 *
 * @example
 * ```ts
 * const ks = refXctr(key, s, 40); // 40 bytes of keystream
 * ```
 */
export function refXctr(key: Uint8Array, s: Uint8Array, n: number): Uint8Array {
  const blocks = Math.ceil(n / 16);
  const counters = new Uint8Array(16 * blocks);
  for (let i = 0; i < blocks; i++) counters.set(xor16(s, le128(BigInt(i + 1))), 16 * i);
  return refEcb(true, key, counters).subarray(0, n);
}

/** H_hbar(T, M) of HCTR2 §3: POLYVAL over bin(2|T| + 2 or 3) ‖ pad(T) ‖ M or pad(M ‖ 0x01), |T| in bits. */
function hctr2Hash(hbar: Uint8Array, tweak: Uint8Array, m: Uint8Array): Uint8Array {
  const whole = m.length % 16 === 0;
  const len = le128(BigInt(8 * tweak.length) * 2n + (whole ? 2n : 3n));
  const tail = whole ? m : pad16(Uint8Array.from([...m, 1]));
  return refPolyval(hbar, new Uint8Array(16), Uint8Array.from([...len, ...pad16(tweak), ...tail]), false);
}

/**
 * HCTR2 (Crowley, Huckleberry, Biggers, ePrint 2021/1441 §3) of one message of at least 16 bytes, the
 * paper's pseudocode line by line over the slow references here: AES from node:crypto, POLYVAL bit by
 * bit ({@link refPolyval}), XCTR block by block ({@link refXctr}). Encrypts, or decrypts when `decrypt`.
 *
 * @example
 * ```ts
 * const c = refHctr2(key, tweak, plain, false);
 * refHctr2(key, tweak, c, true); // = plain
 * ```
 */
export function refHctr2(key: Uint8Array, tweak: Uint8Array, data: Uint8Array, decrypt: boolean): Uint8Array {
  const hl = refEcb(true, key, Uint8Array.from([...le128(0n), ...le128(1n)]));
  const hbar = hl.subarray(0, 16);
  const l = hl.subarray(16);
  const rest = data.subarray(16);
  const x = xor16(data.subarray(0, 16), hctr2Hash(hbar, tweak, rest));
  const y = refEcb(!decrypt, key, x);
  const s = xor16(xor16(x, y), l);
  const out = new Uint8Array(data.length);
  out.set(xor16(rest, refXctr(key, s, rest.length)), 16);
  out.set(xor16(y, hctr2Hash(hbar, tweak, out.subarray(16))), 0);
  return out;
}
