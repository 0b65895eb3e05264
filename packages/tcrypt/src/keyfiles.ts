// The password the key derivation gets, from the passphrase and the keyfiles, as TrueCrypt and VeraCrypt
// make it (cryptsetup lib/tcrypt/tcrypt.c, TCRYPT_pool_keyfile and TCRYPT_init_hdr; VeraCrypt's
// Keyfiles.c): with no keyfile, the passphrase's bytes as they are; with keyfiles, a pool of 64 bytes
// (128 when VeraCrypt's passphrase is longer than 64 bytes) that starts at zero, into which every keyfile in
// turn adds, byte by byte modulo 256, the four bytes (most significant first) of the CRC-32 register after
// each of its first 1 MiB of bytes, wrapping around the pool; then the passphrase's bytes are added to the
// pool's first bytes. The whole pool is the password, so an empty passphrase with keyfiles is a password
// too. Each keyfile starts again at the pool's first byte with a fresh CRC register, and additions
// commute: the keyfiles' order does not change the pool (the same keyfile twice does).
import { type ImageInput, toSource } from '@x/byte-source';
import { crc32Update } from './crc32.js';

/** TrueCrypt's password length, and the keyfile pool's (TCRYPT_KEY_POOL_LEN). */
export const TRUECRYPT_MAX_PASSPHRASE = 64;
/** VeraCrypt's longest password (since 1.26: MAX_LEGACY_PASSWORD 64, MAX_PASSWORD 128), and its pool for one (VCRYPT_KEY_POOL_LEN). */
export const VERACRYPT_MAX_PASSPHRASE = 128;
/** Bytes of a keyfile that count: the first 1 MiB (TCRYPT_KEYFILE_LEN). */
export const KEYFILE_BYTES = 1 << 20;

/** Adds one keyfile's CRC stream into `pool`. */
function mixKeyfile(pool: Uint8Array, data: Uint8Array): void {
  let crc = 0xffffffff;
  let j = 0;
  for (let i = 0; i < data.length; i++) {
    crc = crc32Update(crc, data, i, i + 1);
    pool[j++] += crc >>> 24;
    pool[j++] += crc >>> 16;
    pool[j++] += crc >>> 8;
    pool[j++] += crc;
    j %= pool.length;
  }
}

/** The first {@link KEYFILE_BYTES} of a keyfile. */
async function keyfileBytes(input: ImageInput, index: number): Promise<Uint8Array> {
  if (!(input instanceof Uint8Array) && !(typeof Blob !== 'undefined' && input instanceof Blob)) {
    const s = input as { read?: unknown; size?: unknown } | null;
    if (s === null || typeof s !== 'object' || typeof s.read !== 'function' || typeof s.size !== 'number')
      throw new TypeError(`@x/tcrypt: keyfiles[${index}] must be a Uint8Array, a Blob or a ByteSource`);
  }
  const source = toSource(input);
  const data = new Uint8Array(Math.min(source.size, KEYFILE_BYTES));
  await source.read(0, data);
  return data;
}

/**
 * The password bytes of the key derivation (a new array the caller wipes).
 *
 * @throws RangeError for a passphrase longer than VeraCrypt takes (128 bytes; 64 with `veracrypt: false`).
 * @example
 * ```ts
 * const pw = await tcryptPassword(new TextEncoder().encode('secret'), [keyfile1, keyfile2], true); // 64 bytes
 * ```
 */
export async function tcryptPassword(
  passphrase: Uint8Array,
  keyfiles: readonly ImageInput[],
  veracrypt: boolean,
): Promise<Uint8Array> {
  const long = veracrypt && passphrase.length > TRUECRYPT_MAX_PASSPHRASE;
  const max = long ? VERACRYPT_MAX_PASSPHRASE : TRUECRYPT_MAX_PASSPHRASE;
  if (passphrase.length > max)
    throw new RangeError(
      `@x/tcrypt: the passphrase is ${passphrase.length} bytes; ${veracrypt ? 'VeraCrypt takes at most 128' : 'TrueCrypt takes at most 64'}`,
    );
  if (keyfiles.length === 0) return Uint8Array.from(passphrase);
  const pool = new Uint8Array(max);
  for (let k = 0; k < keyfiles.length; k++) {
    const data = await keyfileBytes(keyfiles[k], k);
    try {
      mixKeyfile(pool, data);
    } finally {
      data.fill(0);
    }
  }
  for (let i = 0; i < passphrase.length; i++) pool[i] += passphrase[i];
  return pool;
}
