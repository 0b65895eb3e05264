// The errors @x/tcrypt throws on purpose. Argument mistakes are TypeError/RangeError; everything about the
// image and the secrets is one of these classes, with a stable message prefixed "@x/tcrypt: ". Each is a
// subclass of @x/disk-format's class of the same name, and every one of them is a TcryptError.
import {
  type DiskError,
  formatErrors,
  type HeaderError as DiskHeaderError,
  type WrongPassphraseError as DiskWrongPassphraseError,
  type WrongVolumeKeyError as DiskWrongVolumeKeyError,
} from '@x/disk-format';

/** The `type` of the TrueCrypt/VeraCrypt DiskFormat (cryptsetup's `--type tcrypt`), and the `format` of every error. */
export const TCRYPT = 'tcrypt';

/** The classes, made once by @x/disk-format. */
export const errors = formatErrors(TCRYPT, 'TcryptError');

/**
 * Base class of the errors about a TrueCrypt or VeraCrypt image or its secrets.
 *
 * @example
 * ```ts
 * import { TcryptError, openTcrypt } from '@x/tcrypt';
 * try { await openTcrypt(bytes, { passphrase }); } catch (e) { if (e instanceof TcryptError) console.error(e.message); }
 * ```
 */
export const TcryptError = errors.FormatError;
export type TcryptError = DiskError;

/**
 * A header decrypted (its magic and its key area's CRC-32 are right) but not one this package reads: a
 * field that breaks the format or points outside the image, or an image too short to hold the header.
 *
 * @example
 * ```ts
 * import { HeaderError, openTcrypt } from '@x/tcrypt';
 * await openTcrypt(new Uint8Array(100), { passphrase: 'x' }).catch((e) => e instanceof HeaderError); // true
 * ```
 */
export const HeaderError = errors.HeaderError;
export type HeaderError = DiskHeaderError;

/**
 * No header decrypts with the passphrase, keyfiles and PIM given, under any PRF and AES mode tried: the
 * secret is wrong, or the volume uses a cipher this package does not open (the message says both).
 *
 * @example
 * ```ts
 * import { WrongPassphraseError, openTcrypt } from '@x/tcrypt';
 * await openTcrypt(image, { passphrase: 'guess' }).catch((e) => e instanceof WrongPassphraseError);
 * ```
 */
export const WrongPassphraseError = errors.WrongPassphraseError;
export type WrongPassphraseError = DiskWrongPassphraseError;

/**
 * The raw volume key given does not decrypt the volume to a file system (no boot sector or superblock
 * where one must be).
 *
 * @example
 * ```ts
 * import { WrongVolumeKeyError, openTcrypt } from '@x/tcrypt';
 * await openTcrypt(image, { volumeKey: new Uint8Array(64).fill(1) }).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export const WrongVolumeKeyError = errors.WrongVolumeKeyError;
export type WrongVolumeKeyError = DiskWrongVolumeKeyError;
