// The errors @x/filevault2 throws on purpose. Argument mistakes are TypeError/RangeError; everything about
// the image and the secrets is one of these classes, with a stable message prefixed "@x/filevault2: ".

/**
 * Base class of the errors about a FileVault 2 image or its secrets.
 *
 * @example
 * ```ts
 * import { FileVault2Error, openFileVault2 } from '@x/filevault2';
 * try { await openFileVault2(bytes, { passphrase }); } catch (e) { if (e instanceof FileVault2Error) console.error(e.message); }
 * ```
 */
export class FileVault2Error extends Error {
  override name = 'FileVault2Error';
}

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
export class HeaderError extends FileVault2Error {
  override name = 'HeaderError';
}

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
export class WrongPassphraseError extends FileVault2Error {
  override name = 'WrongPassphraseError';
}

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
export class WrongVolumeKeyError extends FileVault2Error {
  override name = 'WrongVolumeKeyError';
}
