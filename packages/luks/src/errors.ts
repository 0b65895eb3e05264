// The errors @x/luks throws on purpose. Argument mistakes are TypeError/RangeError; everything about the
// image and the secrets is one of these classes, with a stable message prefixed "@x/luks: ". Each is a
// subclass of @x/disk-format's class of the same name (so a program that reads several formats catches
// `WrongSecretError`, `HeaderError` … once), and every one of them is a LuksError.
import {
  DiskError,
  HeaderError as DiskHeaderError,
  WrongPassphraseError as DiskWrongPassphraseError,
  WrongVolumeKeyError as DiskWrongVolumeKeyError,
} from '@x/disk-format';

/** The `type` of the LUKS DiskFormat, and the `format` of every error of this package. */
const LUKS = 'luks';

/**
 * Base class of the errors about a LUKS image or its secrets.
 *
 * @example
 * ```ts
 * import { LuksError, openLuks } from '@x/luks';
 * try { await openLuks(bytes, { passphrase }); } catch (e) { if (e instanceof LuksError) console.error(e.message); }
 * ```
 */
export class LuksError extends DiskError {
  override name = 'LuksError';
  override readonly format = LUKS;
  static override readonly family = LUKS;
}

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
export class HeaderError extends DiskHeaderError {
  override name = 'HeaderError';
  override readonly format = LUKS;
}

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
export class WrongPassphraseError extends DiskWrongPassphraseError {
  override name = 'WrongPassphraseError';
  override readonly format = LUKS;
}

/**
 * The raw volume key given does not match the header's digest. The `x-luks` command exits with status 2.
 *
 * @example
 * ```ts
 * import { WrongVolumeKeyError, openLuks } from '@x/luks';
 * await openLuks(image, { volumeKey: new Uint8Array(64) }).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export class WrongVolumeKeyError extends DiskWrongVolumeKeyError {
  override name = 'WrongVolumeKeyError';
  override readonly format = LUKS;
}
