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
  const out = new Uint8Array(data.length);
  for (let s = 0; s * sectorSize < data.length; s++) {
    const at = s * sectorSize;
    out.set(refCbc(encrypt, key, data.subarray(at, at + sectorSize), ivs.subarray(16 * s, 16 * s + 16)), at);
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
