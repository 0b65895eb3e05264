// The disk formats x-disk knows, and how it tells them apart.
//
// Each format is an entry of FORMATS: a cheap `detect` on the image's first bytes, and a `load` that
// imports the format's package with a dynamic import(), so that x-disk loads only the code of the format
// it opens (and @x/luks, which browsers bundle, never depends on BitLocker or FileVault code). The entry
// adapts its package to {@link FormatModule}, the little x-disk needs: dump a header, open a volume.
import type { ByteSource } from '@x/byte-source';
import { bitlockerEntry } from './format-bitlk.js';
import { fileVault2Entry } from './format-fvault2.js';
import { luksEntry } from './format-luks.js';
import { orList } from './io.js';
import type { DiskVolume } from './output.js';

/** The format names of `--type`: cryptsetup's `luks`, `bitlk` and `fvault2`. */
export type FormatType = 'luks' | 'bitlk' | 'fvault2';

/**
 * The secret options of `x-disk decrypt`: `--passphrase-file` (a passphrase or password),
 * `--recovery-password`, `--startup-key` (a BitLocker .BEK file) and `--key-file` (the raw volume key).
 */
export type SecretKind = 'passphrase' | 'recoveryPassword' | 'startupKey' | 'volumeKey';

/** A secret as read from the command line: its kind and its bytes (zeroed by the caller after use). */
export interface Secret {
  readonly kind: SecretKind;
  readonly bytes: Uint8Array;
}

/** An unlocked volume with its summary line (`LUKS2 aes-xts-plain64, 4096-byte sectors, …, kernel …`). */
export interface OpenedVolume extends DiskVolume {
  readonly summary: string;
}

/** What x-disk needs of a format package, once loaded. */
export interface FormatModule {
  /** The secret kinds this format takes. */
  readonly secrets: readonly SecretKind[];
  /** Whether a volume may open with no secret at all (BitLocker's clear key). */
  readonly clearKey: boolean;
  /** Whether `--keyslot` means something (LUKS). */
  readonly keyslots: boolean;
  /** The header as text (`--json`: as JSON), ending in a newline. */
  dump(source: ByteSource, json: boolean): Promise<string>;
  /** Unlocks the volume with `secret` (undefined: no secret given). */
  open(source: ByteSource, secret: Secret | undefined, options: { readonly keyslot?: string }): Promise<OpenedVolume>;
}

/** One format of the table. */
export interface Format {
  readonly type: FormatType;
  /** Its name in messages: `LUKS`, `BitLocker`, `FileVault 2`. */
  readonly name: string;
  /** Whether the image is of this format, from its first 512 bytes (fewer if the image is shorter). */
  detect(first: Uint8Array, source: ByteSource): boolean | Promise<boolean>;
  /** Loads the format's package (a dynamic import) and adapts it. */
  load(): Promise<FormatModule>;
}

/**
 * The formats x-disk detects, in the order it tries them: LUKS and BitLocker by their magic bytes (no
 * package loaded), FileVault 2 last, as its detection (the Core Storage header's checksum) loads
 * `@x/filevault2`.
 */
export const FORMATS: readonly Format[] = [
  luksEntry(() => import('@x/luks')),
  bitlockerEntry(() => import('@x/bitlocker')),
  fileVault2Entry(() => import('@x/filevault2')),
];

/** Bytes that detection looks at: a boot sector (BitLocker) holds everything any format's `detect` needs. */
export const DETECT_BYTES = 512;

/** The first {@link DETECT_BYTES} of the image, or all of it if it is shorter. */
export async function firstBytes(source: ByteSource): Promise<Uint8Array> {
  const first = new Uint8Array(Math.min(DETECT_BYTES, source.size));
  await source.read(0, first);
  return first;
}

/**
 * The format of the image: the entry of `type` if given, else the first entry whose `detect` says yes.
 *
 * @throws Error naming every format when none matches.
 */
export async function pickFormat(
  source: ByteSource,
  formats: readonly Format[],
  type: string | undefined,
  image: string,
): Promise<Format> {
  if (type !== undefined) {
    const f = formats.find((f) => f.type === type);
    if (!f) throw new Error(`--type ${type} is not one of ${formats.map((f) => f.type).join(', ')}`);
    return f;
  }
  const first = await firstBytes(source);
  for (const f of formats) if (await f.detect(first, source)) return f;
  const list = orList(formats.map((f) => f.name));
  const why = first.length < DETECT_BYTES ? `only ${first.length} bytes` : 'no known signature';
  throw new Error(`${image} is not a ${list} volume that x-disk recognizes (${why}); --type names the format`);
}
