/**
 * `@x/luks`: open LUKS1 and LUKS2 volumes made by cryptsetup, in Node or in a browser. Headers are read
 * from bytes, a Blob/File or any {@link ByteSource} (`@x/luks/file` adds files in Node); keyslots are
 * unlocked with PBKDF2 (WebCrypto, else @noble/hashes) or Argon2 (hash-wasm); the payload is decrypted
 * through `@x/dm-crypt`.
 *
 * @example
 * ```ts
 * import { openLuks, readHeader, WrongPassphraseError } from '@x/luks';
 * const header = await readHeader(blob);                 // LUKS1 or LUKS2
 * const volume = await openLuks(blob, { passphrase });   // WrongPassphraseError if no keyslot opens
 * const buf = new Uint8Array(1 << 20);
 * await volume.read(buf, 0);                             // the first MiB of plaintext
 * volume.close();
 * ```
 *
 * @packageDocumentation
 */
export { HeaderError, LuksError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
export { readHeader, type LuksHeader } from './header.js';
export type { Luks1Header, Luks1Keyslot } from './luks1.js';
export type { Luks2Digest, Luks2Header, Luks2Kdf, Luks2Keyslot, Luks2Segment } from './luks2.js';
export { blobSource, bytesSource, toSource, type ByteSource, type LuksInput } from './source.js';
export { openLuks, type LuksVolume, type OpenOptions, type UnlockedLuks, unlockLuks } from './volume.js';
export { describeHeader, headerToJson } from './describe.js';
export { createLuks, type CreateOptions, type LuksSink } from './create.js';
export type { KdfOptions } from './kdf-cost.js';
export { afSplit } from './af.js';
export { isLuks, luksFormat, luksSummary } from './format.js';
export {
  type AddKeyOptions,
  addKey,
  type RemoveKeyOptions,
  removeKey,
  type WritableLuksImage,
} from './keyslots.js';
