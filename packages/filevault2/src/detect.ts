// Telling a Core Storage physical volume (FileVault 2) from its first sector: the "CS" signature of the
// volume header (libfvde "Volume header"). Kept apart from header.ts so that detection loads nothing else of
// this package.
/** Size of the physical volume header (libfvde "Volume header"; cryptsetup FVAULT2_VOL_HEADER_SIZE). */
export const VOLUME_HEADER_SIZE = 512;

/** Whether the first sector has the "CS" signature of a Core Storage physical volume header. */
export function hasSignature(b: Uint8Array): boolean {
  return b.length >= VOLUME_HEADER_SIZE && b[88] === 0x43 && b[89] === 0x53; // "CS" (libfvde: CoreStorage signature)
}

/**
 * Whether `first` (at least the first 512 bytes of an image) starts with a Core Storage physical volume
 * header: the "CS" signature at offset 88, as `isLuks` looks at LUKS's magic and nothing else. Cheap; reads
 * nothing else. What else the header needs (version 1, the CRC-32C checksum algorithm, a checksum that
 * matches) is checked by `readFileVault2Header` and `openFileVault2`, whose `HeaderError` says what is
 * wrong: a damaged or unsupported FileVault 2 header is still told to be one, not "no known signature".
 *
 * @example
 * ```ts
 * import { isFileVault2 } from '@x/filevault2';
 * if (isFileVault2(first512)) console.log('FileVault 2 / Core Storage');
 * ```
 */
export function isFileVault2(first: Uint8Array): boolean {
  if (!(first instanceof Uint8Array)) throw new TypeError('@x/filevault2: first must be a Uint8Array');
  return hasSignature(first);
}
