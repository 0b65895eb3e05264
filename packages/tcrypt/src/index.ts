/**
 * `@x/tcrypt`: open TrueCrypt and VeraCrypt volumes in Node or a browser. The image comes as bytes, a
 * Blob/File or any `ByteSource` (`@x/tcrypt/file` adds files in Node); the header key is derived from the
 * passphrase, the keyfiles and the PIM under every PRF TrueCrypt and VeraCrypt use (PBKDF2 with SHA-512,
 * SHA-256, SHA-1 on WebCrypto; RIPEMD-160, Whirlpool and BLAKE2s-256 on hash-wasm; Streebog-512 of its own;
 * Argon2id), the header is
 * decrypted and checked, and the AES volume (the outer one, the hidden one, or system encryption's, from a
 * whole drive or from its system partition alone with the drive as `header`) is decrypted through
 * `@x/dm-crypt` on this project's AES kernels: XTS (TrueCrypt 5.0 and later, VeraCrypt), LRW (TrueCrypt
 * 4.1–4.3) or CBC with TrueCrypt's whitening (TrueCrypt 1.0–4.0).
 *
 * @example
 * ```ts
 * import { describeTcrypt, openTcrypt } from '@x/tcrypt';
 * const volume = await openTcrypt(blob, { passphrase: 'secret', prf: 'sha512' });
 * console.log(describeTcrypt(volume.header!));
 * const boot = new Uint8Array(512);
 * await volume.read(boot, 0);
 * volume.close();
 * ```
 *
 * @packageDocumentation
 */
export { HeaderError, TcryptError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
export { tcryptFormat, tcryptFormatWith, type TcryptFormatOptions } from './format.js';
export { HEADER_OFFSETS, type HeaderLocation, type TcryptHeader, type TcryptKdf } from './header.js';
export { argon2Cost, type KdfCandidate, kdfCandidates, PRFS, prfOf, type TcryptPrf } from './kdf.js';
export { KEYFILE_BYTES, tcryptPassword, TRUECRYPT_MAX_PASSPHRASE, VERACRYPT_MAX_PASSPHRASE } from './keyfiles.js';
export { describeTcrypt, tcryptToJson } from './describe.js';
export {
  type AreaContext,
  openTcrypt,
  type TcryptOpenOptions,
  type TcryptVolume,
  unlockTcrypt,
  type VolumeArea,
  volumeArea,
} from './volume.js';
export { setKdfWorkerFactory, type KdfWorkerLike } from './kdf-threads.js';
export { crc32 } from './crc32.js';
export { newStreebog512 } from './streebog.js';
export { blobSource, bytesSource, toSource, type ByteSource, type ImageInput } from '@x/byte-source';
