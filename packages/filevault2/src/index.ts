/**
 * `@x/filevault2`: open Apple FileVault 2 volumes — Core Storage logical volumes protected by a
 * passphrase — in Node or in a browser. The image comes as bytes, a Blob/File or any `ByteSource`
 * (`@x/filevault2/file` adds files in Node); the passphrase goes through PBKDF2-HMAC-SHA256 (WebCrypto,
 * else @noble/hashes) and RFC 3394 key unwrapping; the logical volume is decrypted (XTS-AES-128) through
 * `@x/dm-crypt` on this project's AES kernels.
 *
 * @example
 * ```ts
 * import { openFileVault2, readFileVault2Header, describeFileVault2 } from '@x/filevault2';
 * console.log(describeFileVault2(await readFileVault2Header(blob)));
 * const volume = await openFileVault2(blob, { passphrase });   // WrongPassphraseError if no user opens
 * const buf = new Uint8Array(1 << 20);
 * await volume.read(buf, 0);                                    // the first MiB of the logical volume
 * volume.close();
 * ```
 *
 * @packageDocumentation
 */
export { FileVault2Error, HeaderError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
export { isFileVault2 } from './detect.js';
export { fileVault2Format } from './format.js';
export {
  readFileVault2Header,
  type FileVault2CryptoUser,
  type FileVault2Header,
  type FileVault2Pbkdf2,
  type FileVault2WrappedVolumeKey,
} from './header.js';
export { describeFileVault2, fileVault2ToJson } from './describe.js';
export {
  deriveFileVault2VolumeKey,
  openFileVault2,
  type FileVault2OpenOptions,
  type FileVault2Volume,
} from './volume.js';
export { blobSource, bytesSource, toSource, type ByteSource, type ImageInput } from '@x/byte-source';
