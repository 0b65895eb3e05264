// What a disk format is, to the commands and the web page: a DiskFormat. Each format package exports one
// (`@x/luks/format`, …), cheap to import: detection only, its reading and unlocking code loaded on first
// use. The ordered list of them is `@x/disk`'s FORMATS; a caller may pass its own list wherever one is taken.
import type { ByteSource } from '@x/byte-source';
import type { DiskVolume } from './volume.js';

/**
 * A secret that opens a volume, besides its raw volume key: a passphrase (a LUKS or FileVault 2 passphrase,
 * a BitLocker password), BitLocker's 48-digit recovery password, or a BitLocker startup key (.BEK) file.
 *
 * @example
 * ```ts
 * const kinds: SecretKind[] = ['passphrase', 'recoveryPassword', 'startupKey'];
 * ```
 */
export type SecretKind = 'passphrase' | 'recoveryPassword' | 'startupKey';

/**
 * A secret and its bytes (a passphrase as read from a file or typed, as UTF-8; the digits of a recovery
 * password; the bytes of a .BEK file). The caller wipes the bytes once `open` has returned.
 *
 * @example
 * ```ts
 * const secret: Secret = { kind: 'passphrase', bytes: new TextEncoder().encode('open sesame') };
 * ```
 */
export interface Secret {
  readonly kind: SecretKind;
  readonly bytes: Uint8Array;
}

/**
 * Options of {@link DiskFormat.open}.
 *
 * @example
 * ```ts
 * await format.open(source, secret, { keyslot: '1', share: true });
 * ```
 */
export interface OpenOptions {
  /** Try only this keyslot (a format with {@link DiskFormat.keyslots}). */
  readonly keyslot?: string;
  /** Forces an AES kernel by name (see `@x/cbc`'s `kernels()`). */
  readonly kernel?: string;
  /** Keep a copy of the volume key for `volume.share()` (decrypt threads); it is wiped by `share()` or `close()`. */
  readonly share?: boolean;
  /** The KDF limits (./kdf-limits.ts), passed to the format's open: `x-disk --max-iterations` and its kin. */
  readonly maxIterations?: number;
  readonly maxMemory?: number;
  readonly maxTimeCost?: number;
}

/**
 * An opened volume and the line that says what was opened and how (after `x-disk: `), e.g.
 * `LUKS2 aes-xts-plain64, 4096-byte sectors, 64 KiB of payload at 524288, keyslot 0, kernel native-x64`.
 *
 * @example
 * ```ts
 * const { volume, summary } = await format.open(source, secret);
 * ```
 */
export interface Opened {
  readonly volume: DiskVolume;
  readonly summary: string;
}

/**
 * A header read and checked: a title (`LUKS2`, `BitLocker To Go`, `FileVault 2`) and its two dumps.
 *
 * @example
 * ```ts
 * const h = await format.readHeader(source);
 * console.log(h.title, h.describe(), JSON.stringify(h.toJson()));
 * ```
 */
export interface DiskHeader {
  readonly title: string;
  /** The header as text, in the layout of cryptsetup's dump of the format (no trailing newline). */
  describe(): string;
  /** The header as JSON-safe data (no secrets). */
  toJson(): unknown;
}

/**
 * A disk format: how to tell it, read its header, and open it.
 *
 * @example
 * ```ts
 * import { luksFormat } from '@x/luks/format';
 * if (await luksFormat.detect?.(first, source)) console.log((await luksFormat.readHeader(source)).describe());
 * ```
 */
export interface DiskFormat {
  /** Its name on the command line (`--type`), cryptsetup's: `luks`, `bitlk`, `fvault2`. */
  readonly type: string;
  /** Its name in messages: `LUKS`, `BitLocker`, `FileVault 2`. */
  readonly name: string;
  /** The secrets {@link DiskFormat.open} takes, in the order to offer them. */
  readonly secrets: readonly SecretKind[];
  /** Whether a volume may open with no secret at all (BitLocker's clear key). */
  readonly clearKey: boolean;
  /** Whether it has keyslots to choose from ({@link OpenOptions.keyslot}). */
  readonly keyslots: boolean;
  /** What it calls its passphrase, where that is not `passphrase` (BitLocker: `password`). */
  readonly passphraseName?: string;
  /**
   * Whether the image is of this format, from its first {@link DETECT_BYTES} bytes (fewer if the image is
   * shorter) and, where the format has a signature elsewhere, the source. Absent: it is never detected, only
   * named.
   */
  detect?(first: Uint8Array, source: ByteSource): boolean | Promise<boolean>;
  /** Reads and checks the header. @throws HeaderError (the format's) when it is not one this format reads. */
  readHeader(source: ByteSource): Promise<DiskHeader>;
  /**
   * Opens the volume with `secret` (undefined: none, for a clear key). @throws WrongPassphraseError when it
   * does not open; HeaderError for a damaged or unsupported image.
   */
  open(source: ByteSource, secret: Secret | undefined, options?: OpenOptions): Promise<Opened>;
  /** Opens the volume with its raw volume key, checked as far as the format can. @throws WrongVolumeKeyError. */
  openWithVolumeKey?(source: ByteSource, volumeKey: Uint8Array, options?: OpenOptions): Promise<Opened>;
}

/**
 * The bytes of `secret` for a format whose only secret is a passphrase (its raw volume key aside).
 *
 * @throws TypeError (`prefix: a NAME volume opens with a passphrase or its volume key`) for anything else.
 * @example
 * ```ts
 * open: async (source, secret, options) => open(source, passphraseOf(secret, '@x/luks', 'LUKS'), options),
 * ```
 */
export function passphraseOf(secret: Secret | undefined, prefix: string, name: string): Uint8Array {
  if (secret?.kind !== 'passphrase')
    throw new TypeError(`${prefix}: a ${name} volume opens with a passphrase or its volume key`);
  return secret.bytes;
}

/** Bytes that detection looks at: a boot sector (BitLocker) holds everything any format's `detect` needs. */
export const DETECT_BYTES = 512;

/**
 * The first {@link DETECT_BYTES} of the image, or all of it if it is shorter.
 *
 * @example
 * ```ts
 * const first = await firstBytes(source);
 * ```
 */
export async function firstBytes(source: ByteSource): Promise<Uint8Array> {
  const first = new Uint8Array(Math.min(DETECT_BYTES, source.size));
  await source.read(0, first);
  return first;
}

/**
 * The first format of `formats` whose `detect` says yes, or undefined; they are asked in order.
 *
 * @example
 * ```ts
 * import { FORMATS } from '@x/disk';
 * const format = await detectFormat(source, FORMATS);
 * ```
 */
export async function detectFormat(
  source: ByteSource,
  formats: readonly DiskFormat[],
): Promise<DiskFormat | undefined> {
  const first = await firstBytes(source);
  for (const f of formats) if (await f.detect?.(first, source)) return f;
  return undefined;
}

/**
 * Why no format was detected, for a message: `only 10 bytes` or `no known signature`.
 *
 * @example
 * ```ts
 * throw new Error(`${name} is not a LUKS volume (${undetectedReason(source)})`);
 * ```
 */
export const undetectedReason = (source: ByteSource): string =>
  source.size < DETECT_BYTES ? `only ${source.size} bytes` : 'no known signature';

/**
 * The KDF limits of `options` that are set, for a format's own open options (undefined ones left out, so
 * that they do not override the format's defaults).
 *
 * @example
 * ```ts
 * await openBitlocker(source, { ...secret, kernel: options.kernel, ...limitsOf(options) });
 * ```
 */
export function limitsOf(options: OpenOptions): { maxIterations?: number; maxMemory?: number; maxTimeCost?: number } {
  const out: { maxIterations?: number; maxMemory?: number; maxTimeCost?: number } = {};
  if (options.maxIterations !== undefined) out.maxIterations = options.maxIterations;
  if (options.maxMemory !== undefined) out.maxMemory = options.maxMemory;
  if (options.maxTimeCost !== undefined) out.maxTimeCost = options.maxTimeCost;
  return out;
}
