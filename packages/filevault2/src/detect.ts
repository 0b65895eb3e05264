// Telling a Core Storage physical volume (FileVault 2) from its first sector: the "CS" signature, the
// version, the checksum algorithm and the CRC-32C of the volume header (libfvde "Volume header"). Kept apart
// from header.ts so that detection loads nothing else of this package.
import { u16le, u32le } from '@x/disk-format';
import { crc32cWeak } from './crc32c.js';

/** Size of the physical volume header (libfvde "Volume header"; cryptsetup FVAULT2_VOL_HEADER_SIZE). */
export const VOLUME_HEADER_SIZE = 512;

/**
 * Checks a block's stored CRC-32C (bytes 0…3) against the rest of it from the stored initial value
 * (bytes 4…7, which must be 0xffffffff); returns what is wrong, or undefined.
 */
export function checksumProblem(block: Uint8Array): string | undefined {
  const seed = u32le(block, 4);
  if (seed !== 0xffffffff) return `its checksum initial value is 0x${seed.toString(16)}, not 0xffffffff`;
  const stored = u32le(block, 0),
    computed = crc32cWeak(block.subarray(8), seed);
  if (stored !== computed)
    return `its checksum does not match (stored 0x${stored.toString(16)}, computed 0x${computed.toString(16)})`;
  return undefined;
}

/** Whether the first sector has the "CS" signature of a Core Storage physical volume header. */
export function hasSignature(b: Uint8Array): boolean {
  return b.length >= VOLUME_HEADER_SIZE && b[88] === 0x43 && b[89] === 0x53; // "CS" (libfvde: CoreStorage signature)
}

/**
 * Whether `first` (at least the first 512 bytes of an image) starts with a Core Storage physical volume
 * header: the "CS" signature, version 1, CRC-32C, and a checksum that matches. Cheap; reads nothing else.
 *
 * @example
 * ```ts
 * import { isFileVault2 } from '@x/filevault2';
 * if (isFileVault2(first512)) console.log('FileVault 2 / Core Storage');
 * ```
 */
export function isFileVault2(first: Uint8Array): boolean {
  if (!(first instanceof Uint8Array)) throw new TypeError('@x/filevault2: first must be a Uint8Array');
  if (!hasSignature(first)) return false;
  const b = first.subarray(0, VOLUME_HEADER_SIZE);
  return u16le(b, 8) === 1 && u32le(b, 90) === 1 && checksumProblem(b) === undefined;
}
