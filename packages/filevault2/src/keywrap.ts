// The AES Key Wrap algorithm of RFC 3394 (NIST SP 800-38F §6.2, KW): a key of n 64-bit blocks (n ≥ 2) is
// wrapped into n + 1 blocks under a key-encrypting key of 128, 192 or 256 bits, the first block carrying
// the integrity check value (default IV A6A6A6A6A6A6A6A6, RFC 3394 §2.2.3.1). FileVault 2 wraps its
// key-encrypting key under the passphrase-derived key, and the volume key under the KEK, this way
// (libfvde, "WrappedKEK": the first 8 bytes unwrap to A6…A6).
//
// Written on the AES kernels through @x/cbc's independent-block calls (encryptECB/decryptECB): one block
// per step, in the index form of RFC 3394 §2.2.1 and §2.2.2 (6n steps).
import { newCipher } from '@x/cbc';

const PREFIX = '@x/filevault2';

/** The default initial value of RFC 3394 §2.2.3.1. */
export const DEFAULT_IV: Readonly<Uint8Array> = new Uint8Array(8).fill(0xa6);

/**
 * Options of {@link aesKeyWrap} and {@link aesKeyUnwrap}.
 *
 * @example
 * ```ts
 * const options: KeyWrapOptions = { kernel: 'portable' };
 * ```
 */
export interface KeyWrapOptions {
  /** The 8-byte initial value (RFC 3394 §2.2.3); default A6A6A6A6A6A6A6A6. */
  iv?: Uint8Array;
  /** Forces an AES kernel (see `@x/cbc`'s `kernels()`). */
  kernel?: string;
}

function checkArgs(kek: unknown, data: unknown, min: number, what: string, options: unknown): Uint8Array {
  if (!(kek instanceof Uint8Array)) throw new TypeError(`${PREFIX}: kek must be a Uint8Array`);
  if (kek.length !== 16 && kek.length !== 24 && kek.length !== 32)
    throw new RangeError(`${PREFIX}: kek must be 16, 24 or 32 bytes, got ${kek.length}`);
  if (!(data instanceof Uint8Array)) throw new TypeError(`${PREFIX}: ${what} must be a Uint8Array`);
  if (data.length < min || data.length % 8 !== 0)
    throw new RangeError(`${PREFIX}: ${what} must be a multiple of 8 bytes, at least ${min}, got ${data.length}`);
  if (options !== undefined && (options === null || typeof options !== 'object'))
    throw new TypeError(`${PREFIX}: options must be an object`);
  const { iv = DEFAULT_IV, kernel } = (options ?? {}) as KeyWrapOptions;
  if (kernel !== undefined && typeof kernel !== 'string') throw new TypeError(`${PREFIX}: kernel must be a string`);
  if (!(iv instanceof Uint8Array) || iv.length !== 8) throw new RangeError(`${PREFIX}: iv must be 8 bytes`);
  return iv;
}

/** A[0..8) ^= t as a 64-bit big-endian integer (RFC 3394 §2.2.1 step 2, "MSB(64, B) ^ t"). */
function xorT(b: Uint8Array, t: number): void {
  const hi = Math.floor(t / 0x1_0000_0000),
    lo = t >>> 0;
  b[0] ^= hi >>> 24;
  b[1] ^= (hi >>> 16) & 0xff;
  b[2] ^= (hi >>> 8) & 0xff;
  b[3] ^= hi & 0xff;
  b[4] ^= lo >>> 24;
  b[5] ^= (lo >>> 16) & 0xff;
  b[6] ^= (lo >>> 8) & 0xff;
  b[7] ^= lo & 0xff;
}

/**
 * Wraps `keyData` (a multiple of 8 bytes, at least 16) under `kek` (RFC 3394 §2.2.1): returns
 * `keyData.length + 8` bytes.
 *
 * @throws TypeError/RangeError for bad arguments.
 * @example
 * ```ts
 * const wrapped = aesKeyWrap(kek, volumeKey); // 24 bytes for a 16-byte key
 * ```
 */
export function aesKeyWrap(kek: Uint8Array, keyData: Uint8Array, options?: KeyWrapOptions): Uint8Array {
  const iv = checkArgs(kek, keyData, 16, 'keyData', options);
  const n = keyData.length / 8;
  const out = new Uint8Array(keyData.length + 8);
  out.set(iv, 0);
  out.set(keyData, 8);
  const b = new Uint8Array(16);
  const aes = newCipher(kek, { kernel: options?.kernel });
  try {
    for (let j = 0; j <= 5; j++) {
      for (let i = 1; i <= n; i++) {
        // B = AES(K, A | R[i]); A = MSB(64, B) ^ t; R[i] = LSB(64, B)
        b.set(out.subarray(0, 8), 0);
        b.set(out.subarray(8 * i, 8 * i + 8), 8);
        aes.encryptECB(b, b);
        xorT(b, n * j + i);
        out.set(b.subarray(0, 8), 0);
        out.set(b.subarray(8, 16), 8 * i);
      }
    }
  } finally {
    aes.dispose();
    b.fill(0);
  }
  return out;
}

/**
 * Unwraps `wrapped` (a multiple of 8 bytes, at least 24) under `kek` (RFC 3394 §2.2.2) and checks the
 * integrity value (§2.2.3) in constant time: returns the `wrapped.length - 8` key bytes, or `undefined`
 * when the check fails (a wrong KEK or damaged data; nothing of the result is kept).
 *
 * @throws TypeError/RangeError for bad arguments.
 * @example
 * ```ts
 * const key = aesKeyUnwrap(kek, wrapped);
 * if (key === undefined) throw new Error('wrong key-encrypting key');
 * ```
 */
export function aesKeyUnwrap(kek: Uint8Array, wrapped: Uint8Array, options?: KeyWrapOptions): Uint8Array | undefined {
  const iv = checkArgs(kek, wrapped, 24, 'wrapped', options);
  const n = wrapped.length / 8 - 1;
  const a = Uint8Array.from(wrapped.subarray(0, 8));
  const r = Uint8Array.from(wrapped.subarray(8));
  const b = new Uint8Array(16);
  const aes = newCipher(kek, { kernel: options?.kernel });
  try {
    for (let j = 5; j >= 0; j--) {
      for (let i = n; i >= 1; i--) {
        // B = AES-1(K, (A ^ t) | R[i]); A = MSB(64, B); R[i] = LSB(64, B)
        b.set(a, 0);
        xorT(b, n * j + i);
        b.set(r.subarray(8 * (i - 1), 8 * i), 8);
        aes.decryptECB(b, b);
        a.set(b.subarray(0, 8));
        r.set(b.subarray(8, 16), 8 * (i - 1));
      }
    }
    let d = 0;
    for (let k = 0; k < 8; k++) d |= a[k] ^ iv[k];
    if (d !== 0) {
      r.fill(0);
      return undefined;
    }
    return r;
  } finally {
    aes.dispose();
    b.fill(0);
    a.fill(0);
  }
}
