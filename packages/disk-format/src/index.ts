/**
 * `@x/disk-format`: what every disk format package of x-aes builds on, and what the commands and the web
 * page see of a format. The {@link DiskFormat} interface (detect, read the header, describe it, open with a
 * secret or the raw volume key); one error hierarchy ({@link DiskError}, {@link HeaderError},
 * {@link WrongSecretError} …, each with a stable `code`, and {@link formatErrors} that makes a package's);
 * the limits on the key derivations a header asks for ({@link kdfLimits}); the byte readers and text helpers; and
 * {@link SectorVolume}, the volume every format opens (`read(dst, firstSector)`, `close()` that wipes,
 * `share()` for another thread). It loads no cipher and no format: `@x/luks`, `@x/bitlocker` and
 * `@x/filevault2` depend on it, and `@x/disk` lists them.
 *
 * @example
 * ```ts
 * import { detectFormat, WrongSecretError } from '@x/disk-format';
 * import { FORMATS } from '@x/disk';
 * const format = await detectFormat(source, FORMATS);
 * const { volume, summary } = await format!.open(source, { kind: 'passphrase', bytes });
 * ```
 *
 * @packageDocumentation
 */
export {
  type DiskErrorCode,
  DiskError,
  type FormatErrors,
  formatErrors,
  HeaderError,
  WrongPassphraseError,
  WrongSecretError,
  WrongVolumeKeyError,
} from './errors.js';
export {
  type Argon2Cost,
  argon2Problem,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TIME_COST,
  iterationsProblem,
  type KdfLimitOptions,
  type KdfLimits,
  kdfLimits,
  type KdfProblem,
  kdfProblemError,
  MAX_ARGON2_MEMORY,
  notTried,
  triable,
} from './kdf-limits.js';
export {
  allZero,
  cString,
  equalBytes,
  fromBase64,
  hex,
  jsonSafe,
  orList,
  secretBytes,
  sizeText,
  toBase64,
  u16be,
  u16le,
  u32be,
  u32le,
  u64be,
  u64le,
  utf16le,
} from './bytes.js';
export {
  type DiskVolume,
  type FormatVolume,
  type Extent,
  payloadLayout,
  type SectorVolumeInit,
  SectorVolume,
  type SharedVolume,
  type VolumeCipher,
  type VolumeLayout,
} from './volume.js';
export {
  DETECT_BYTES,
  detectFormat,
  type DiskFormat,
  type DiskHeader,
  firstBytes,
  limitsOf,
  type Opened,
  type OpenOptions,
  passphraseOf,
  type Secret,
  type SecretKind,
  undetectedReason,
} from './format.js';
