// The errors @x/luks throws on purpose. Argument mistakes are TypeError/RangeError; everything about the
// image and the secrets is one of these classes, with a stable message prefixed "@x/luks: ". Each is a
// subclass of @x/disk-format's class of the same name (so a program that reads several formats catches
// `WrongSecretError`, `HeaderError` … once), and every one of them is a LuksError.
import {
  type DiskError,
  formatErrors,
  type HeaderError as DiskHeaderError,
  type WrongPassphraseError as DiskWrongPassphraseError,
  type WrongVolumeKeyError as DiskWrongVolumeKeyError,
} from '@x/disk-format';

/** The `type` of the LUKS DiskFormat, and the `format` of every error of this package. */
const LUKS = 'luks';

/** The classes, made once by @x/disk-format (the same for every format but the `format` they carry). */
export const errors = formatErrors(LUKS, 'LuksError');

/**
 * Base class of the errors about a LUKS image or its secrets.
 *
 * @example
 * ```ts
 * import { LuksError, openLuks } from '@x/luks';
 * try { await openLuks(bytes, { passphrase }); } catch (e) { if (e instanceof LuksError) console.error(e.message); }
 * ```
 */
export const LuksError = errors.FormatError;
export type LuksError = DiskError;

/**
 * The image is not a LUKS volume this package can read: bad magic, a truncated or corrupt header (a
 * LUKS2 checksum mismatch on both copies), JSON metadata that breaks the format, or a feature not supported.
 *
 * @example
 * ```ts
 * import { HeaderError, readHeader } from '@x/luks';
 * await readHeader(new Uint8Array(100)).catch((e) => e instanceof HeaderError); // true: too short
 * ```
 */
export const HeaderError = errors.HeaderError;
export type HeaderError = DiskHeaderError;

/**
 * No keyslot opens with the passphrase given (every active keyslot was tried, or the one asked for).
 * The `x-luks` command exits with status 2 for it.
 *
 * @example
 * ```ts
 * import { WrongPassphraseError, openLuks } from '@x/luks';
 * try { await openLuks(image, { passphrase: 'guess' }); }
 * catch (e) { if (e instanceof WrongPassphraseError) console.error('wrong passphrase'); }
 * ```
 */
export const WrongPassphraseError = errors.WrongPassphraseError;
export type WrongPassphraseError = DiskWrongPassphraseError;

/**
 * The raw volume key given does not match the header's digest. The `x-luks` command exits with status 2.
 *
 * @example
 * ```ts
 * import { WrongVolumeKeyError, openLuks } from '@x/luks';
 * await openLuks(image, { volumeKey: new Uint8Array(64) }).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export const WrongVolumeKeyError = errors.WrongVolumeKeyError;
export type WrongVolumeKeyError = DiskWrongVolumeKeyError;
