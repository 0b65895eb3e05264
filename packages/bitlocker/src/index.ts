/**
 * `@x/bitlocker`: open BitLocker volumes made by Windows 7, 8, 10 and 11 (and BitLocker To Go) in Node or a
 * browser: the FVE metadata, every protector a user can hold (password, 48-digit recovery password,
 * startup key file, clear key) and the data as `cryptsetup open --type bitlk` maps it: AES-XTS, AES-CBC
 * with BitLocker's IVs, AES-CBC with the Elephant diffuser, 512- or 4096-byte sectors, through
 * `@x/dm-crypt` on this project's constant-time AES kernels. Keys are unwrapped with AES-CCM (`@x/ccm`).
 *
 * @example
 * ```ts
 * import { openBitlocker, readBitlockerHeader } from '@x/bitlocker';
 * const header = await readBitlockerHeader(blob);
 * const volume = await openBitlocker(blob, { recoveryPassword: '042647-302313-…' });
 * const buf = new Uint8Array(1 << 20);
 * await volume.read(buf, 0);
 * volume.close();
 * ```
 *
 * @packageDocumentation
 */
export { BitlockerError, HeaderError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
export {
  readBitlockerHeader,
  type BitlockerHeader,
  type Encryption,
  type Metadata,
  type MetadataCopy,
  type Protection,
  type Protector,
} from './metadata.js';
export { openBitlocker, type BitlockerSecret, type BitlockerVolume, type Extent } from './volume.js';
export { describeBitlocker, bitlockerToJson } from './describe.js';
export { parseStartupKey, type StartupKey } from './keys.js';
export { bitlockerFormat, detectBitlocker, isBitlocker } from './format.js';
export type { ByteSource, ImageInput } from '@x/byte-source';
