// The errors @x/bitlocker throws on purpose. Argument mistakes are TypeError/RangeError; everything about
// the image and the secrets is one of these classes, with a stable message prefixed "@x/bitlocker: ".
// Each is a subclass of @x/disk-format's class of the same name (so a program that reads several formats
// catches `WrongSecretError`, `HeaderError` … once), and every one of them is a BitlockerError.
import {
  type DiskError,
  formatErrors,
  type HeaderError as DiskHeaderError,
  type WrongPassphraseError as DiskWrongPassphraseError,
  type WrongVolumeKeyError as DiskWrongVolumeKeyError,
} from '@x/disk-format';

/** The `type` of the BitLocker DiskFormat, and the `format` of every error of this package. */
const BITLK = 'bitlk';

/** The classes, made once by @x/disk-format (the same for every format but the `format` they carry). */
export const errors = formatErrors(BITLK, 'BitlockerError');

/**
 * Base class of the errors about a BitLocker image or its secrets.
 *
 * @example
 * ```ts
 * import { BitlockerError, openBitlocker } from '@x/bitlocker';
 * try { await openBitlocker(image, { passphrase }); } catch (e) { if (e instanceof BitlockerError) console.error(e.message); }
 * ```
 */
export const BitlockerError = errors.FormatError;
export type BitlockerError = DiskError;

/**
 * The image is not a BitLocker volume this package can read: no BitLocker signature, no FVE metadata
 * block whose CRC-32 and structure are right, metadata that breaks the format or fails its
 * authentication, a truncated image, or a feature not supported (Windows Vista's BitLocker).
 *
 * @example
 * ```ts
 * import { HeaderError, readBitlockerHeader } from '@x/bitlocker';
 * await readBitlockerHeader(new Uint8Array(512)).catch((e) => e instanceof HeaderError); // true
 * ```
 */
export const HeaderError = errors.HeaderError;
export type HeaderError = DiskHeaderError;

/**
 * No protector opens with the secret given: a wrong password, recovery password or startup key (the
 * AES-CCM tag of every protector of that kind failed). The `x-disk` command exits with status 2 for it.
 *
 * @example
 * ```ts
 * import { WrongPassphraseError, openBitlocker } from '@x/bitlocker';
 * await openBitlocker(image, { passphrase: 'guess' }).catch((e) => e instanceof WrongPassphraseError);
 * ```
 */
export const WrongPassphraseError = errors.WrongPassphraseError;
export type WrongPassphraseError = DiskWrongPassphraseError;

/**
 * The raw volume key (FVEK) given does not decrypt the volume's boot sector to a boot record. The
 * `x-disk` command exits with status 2.
 *
 * @example
 * ```ts
 * import { WrongVolumeKeyError, openBitlocker } from '@x/bitlocker';
 * await openBitlocker(image, { fvek: new Uint8Array(32) }).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export const WrongVolumeKeyError = errors.WrongVolumeKeyError;
export type WrongVolumeKeyError = DiskWrongVolumeKeyError;
