// The errors every disk format package throws on purpose, one hierarchy with stable codes. Argument mistakes
// stay TypeError/RangeError; everything about an image and its secrets is a DiskError. A format package
// subclasses these (its HeaderError extends this HeaderError) and adds a base class of its own (LuksError)
// that every error of that package is an instance of: a subclass of DiskError that sets `family`.

/**
 * The stable code of a {@link DiskError}, for programs (the message is for people and may be reworded).
 *
 * @example
 * ```ts
 * if (e instanceof DiskError && e.code === 'WRONG_PASSPHRASE') askAgain();
 * ```
 */
export type DiskErrorCode = 'DISK_ERROR' | 'HEADER_ERROR' | 'WRONG_SECRET' | 'WRONG_PASSPHRASE' | 'WRONG_VOLUME_KEY';

/**
 * Base class of the errors about a disk image or its secrets, whatever the format.
 *
 * @example
 * ```ts
 * import { DiskError } from '@x/disk-format';
 * try { await format.open(source, secret); } catch (e) { if (e instanceof DiskError) console.error(e.code, e.message); }
 * ```
 */
export class DiskError extends Error {
  override name = 'DiskError';
  readonly code: DiskErrorCode = 'DISK_ERROR';
  /** The `type` of the format whose package threw it (`luks`, `bitlk`, `fvault2`), if one did. */
  readonly format: string | undefined = undefined;

  /**
   * Set by a format package's own base class (`LuksError`) to its format's `type`: every DiskError of that
   * `format` is then an instance of that class, whichever class of the hierarchy it is (its HeaderError
   * extends this package's HeaderError, not LuksError). Classes that do not set it check as usual.
   *
   * @example
   * ```ts
   * export class LuksError extends DiskError {
   *   override readonly format = 'luks';
   *   static override readonly family = 'luks';
   * }
   * ```
   */
  static readonly family: string | undefined = undefined;

  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class `instanceof` asks about, a subclass too
    // biome-ignore lint/complexity/noThisInStatic: as above
    if (Object.hasOwn(this, 'family') && this.family !== undefined)
      // biome-ignore lint/complexity/noThisInStatic: as above
      return value instanceof DiskError && value.format === this.family;
    // biome-ignore lint/complexity/noThisInStatic: as above
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/**
 * The image is not a volume of the format that its package can read: no signature, a truncated or corrupt
 * header, metadata that breaks the format, or a feature not supported (the message says which).
 *
 * @example
 * ```ts
 * await format.readHeader(source).catch((e) => e instanceof HeaderError);
 * ```
 */
export class HeaderError extends DiskError {
  override name = 'HeaderError';
  override readonly code: DiskErrorCode = 'HEADER_ERROR';
}

/**
 * The secret given does not open the volume: the x-disk command exits with status 2 for it.
 *
 * @example
 * ```ts
 * const wrong = e instanceof WrongSecretError; // a wrong passphrase, recovery password, startup key or volume key
 * ```
 */
export class WrongSecretError extends DiskError {
  override name = 'WrongSecretError';
  override readonly code: DiskErrorCode = 'WRONG_SECRET';
}

/**
 * No keyslot, protector or user of the volume opens with the passphrase (password, recovery password,
 * startup key) given.
 *
 * @example
 * ```ts
 * await format.open(source, { kind: 'passphrase', bytes }).catch((e) => e instanceof WrongPassphraseError);
 * ```
 */
export class WrongPassphraseError extends WrongSecretError {
  override name = 'WrongPassphraseError';
  override readonly code: DiskErrorCode = 'WRONG_PASSPHRASE';
}

/**
 * The raw volume key given is not the volume's (as far as the format can tell).
 *
 * @example
 * ```ts
 * await format.openWithVolumeKey?.(source, key).catch((e) => e instanceof WrongVolumeKeyError);
 * ```
 */
export class WrongVolumeKeyError extends WrongSecretError {
  override name = 'WrongVolumeKeyError';
  override readonly code: DiskErrorCode = 'WRONG_VOLUME_KEY';
}

/**
 * The classes of one format package's errors, made by {@link formatErrors}: the documentation of every
 * format's error classes, written once here (a format package exports these under its own names, and says
 * in its README what each means for its format). Messages start with the package's name (`@x/luks: `).
 */
export interface FormatErrors {
  /**
   * The package's base class (`LuksError`, `BitlockerError`, …): every DiskError whose `format` is the
   * package's is an instance, its HeaderError, WrongPassphraseError and WrongVolumeKeyError included, and
   * so is an error of the package's own that fits none of them (a volume without the secret's kind of
   * keyslot or protector, a feature missing from this runtime).
   *
   * @example
   * ```ts
   * import { LuksError, openLuks } from '@x/luks';
   * try { await openLuks(bytes, { passphrase }); } catch (e) { if (e instanceof LuksError) console.error(e.message); }
   * ```
   */
  readonly FormatError: typeof DiskError;
  /**
   * The image is not a volume of the format this package can read: no signature, a truncated or corrupt
   * header (a checksum that does not match), metadata that breaks the format or points outside the image,
   * a feature not supported, or a KDF cost above the limits (the message says which). A subclass of
   * {@link HeaderError}.
   *
   * @example
   * ```ts
   * import { HeaderError, readHeader } from '@x/luks';
   * await readHeader(new Uint8Array(100)).catch((e) => e instanceof HeaderError); // true: too short
   * ```
   */
  readonly HeaderError: typeof HeaderError;
  /**
   * No keyslot, protector or user of the volume opens with the passphrase given (a password, recovery
   * password, startup key, keyfiles or PIM: the format's secrets): every one that could was tried, or the
   * one asked for. The `x-disk` command exits with status 2 for it. A subclass of {@link WrongPassphraseError}.
   *
   * @example
   * ```ts
   * import { WrongPassphraseError, openLuks } from '@x/luks';
   * await openLuks(image, { passphrase: 'guess' }).catch((e) => e instanceof WrongPassphraseError);
   * ```
   */
  readonly WrongPassphraseError: typeof WrongPassphraseError;
  /**
   * The raw volume key given is not the volume's: it does not match the header's digest, or the volume
   * does not decrypt with it to what it must hold (a boot sector, a file system). The `x-disk` command exits
   * with status 2. A subclass of {@link WrongVolumeKeyError}.
   *
   * @example
   * ```ts
   * import { WrongVolumeKeyError, openLuks } from '@x/luks';
   * await openLuks(image, { volumeKey: new Uint8Array(64) }).catch((e) => e instanceof WrongVolumeKeyError);
   * ```
   */
  readonly WrongVolumeKeyError: typeof WrongVolumeKeyError;
}

/**
 * The error classes of a format package: its base class (`name` as given, `static family` = `format`) and a
 * subclass of {@link HeaderError}, {@link WrongPassphraseError} and {@link WrongVolumeKeyError} each, whose
 * errors have `format` = `format`. A package exports them under its own names, as classes.
 *
 * @example
 * ```ts
 * export const errors = formatErrors('luks', 'LuksError');
 * export const { FormatError: LuksError, HeaderError, WrongPassphraseError, WrongVolumeKeyError } = errors;
 * export type LuksError = DiskError; // and HeaderError … as the types of @x/disk-format's classes
 * ```
 */
export function formatErrors(format: string, name: string): FormatErrors {
  if (typeof format !== 'string' || format === '') throw new TypeError('@x/disk-format: format must be a string');
  if (typeof name !== 'string' || name === '') throw new TypeError('@x/disk-format: name must be a string');
  const FormatError = class extends DiskError {
    override name = name;
    override readonly format = format;
    static override readonly family = format;
  };
  Object.defineProperty(FormatError, 'name', { value: name });
  const BaseHeader = HeaderError,
    BasePassphrase = WrongPassphraseError,
    BaseVolumeKey = WrongVolumeKeyError;
  return {
    FormatError,
    HeaderError: class HeaderError extends BaseHeader {
      override readonly format = format;
    },
    WrongPassphraseError: class WrongPassphraseError extends BasePassphrase {
      override readonly format = format;
    },
    WrongVolumeKeyError: class WrongVolumeKeyError extends BaseVolumeKey {
      override readonly format = format;
    },
  };
}
