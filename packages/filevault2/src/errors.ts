// The errors @x/filevault2 throws on purpose. Argument mistakes are TypeError/RangeError; everything about
// the image and the secrets is one of these classes, with a stable message prefixed "@x/filevault2: ".
// Each is a subclass of @x/disk-format's class of the same name (so a program that reads several formats
// catches `WrongSecretError`, `HeaderError` … once), and every one of them is a FileVault2Error.
import {
  type DiskError,
  formatErrors,
  type HeaderError as DiskHeaderError,
  type WrongPassphraseError as DiskWrongPassphraseError,
  type WrongVolumeKeyError as DiskWrongVolumeKeyError,
} from '@x/disk-format';

/** The `type` of the FileVault 2 DiskFormat, and the `format` of every error of this package. */
const FVAULT2 = 'fvault2';

/** The classes, made once by @x/disk-format (the same for every format but the `format` they carry). */
export const errors = formatErrors(FVAULT2, 'FileVault2Error');

/**
 * Base class of the errors about a FileVault 2 image or its secrets.
 *
 * @example
 * ```ts
 * import { FileVault2Error, openFileVault2 } from '@x/filevault2';
 * try { await openFileVault2(bytes, { passphrase }); } catch (e) { if (e instanceof FileVault2Error) console.error(e.message); }
 * ```
 */
export const FileVault2Error = errors.FormatError;
export type FileVault2Error = DiskError;

/**
 * The image is not a Core Storage volume this package can read: no "CS" signature, a checksum that does
 * not match, a truncated image, metadata that breaks the format, or a feature not supported (the message
 * says which).
 *
 * @example
 * ```ts
 * import { HeaderError, readFileVault2Header } from '@x/filevault2';
 * await readFileVault2Header(new Uint8Array(100)).catch((e) => e instanceof HeaderError); // true: too short
 * ```
 */
export const HeaderError = errors.HeaderError;
export type HeaderError = DiskHeaderError;

/**
 * No passphrase-protected user of the volume opens with the passphrase given: the RFC 3394 integrity check
 * of the passphrase-wrapped key-encrypting key failed for every one.
 *
 * @example
 * ```ts
 * import { WrongPassphraseError, openFileVault2 } from '@x/filevault2';
 * try { await openFileVault2(image, { passphrase: 'guess' }); }
 * catch (e) { if (e instanceof WrongPassphraseError) console.error('wrong passphrase'); }
 * ```
 */
export const WrongPassphraseError = errors.WrongPassphraseError;
export type WrongPassphraseError = DiskWrongPassphraseError;

/**
 * The raw volume key given is not this volume's: its tweak half is not the one Core Storage derives from
 * its first half, or the first logical volume block does not decrypt to a file system it knows.
 *
 * @example
 * ```ts
 * import { WrongVolumeKeyError, openFileVault2 } from '@x/filevault2';
 * await openFileVault2(image, { volumeKey: new Uint8Array(32) }).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export const WrongVolumeKeyError = errors.WrongVolumeKeyError;
export type WrongVolumeKeyError = DiskWrongVolumeKeyError;
