// The errors @x/bitlocker throws on purpose, messages prefixed "@x/bitlocker: " (argument mistakes are
// TypeError or RangeError): @x/disk-format's classes made for the format `bitlk`, documented once there
// (FormatErrors), under this package's names. For BitLocker: HeaderError is no signature, no FVE metadata
// block whose CRC-32 and structure are right, metadata that fails its authentication, a truncated image or
// Windows Vista's BitLocker; WrongPassphraseError, the AES-CCM tag of every protector of the secret's kind
// failed; WrongVolumeKeyError, the FVEK does not decrypt the boot sector to a boot record (README: Errors).
import type * as disk from '@x/disk-format';
import { formatErrors } from '@x/disk-format';

/** The classes, made once by @x/disk-format for the format `bitlk` (the `type` of the BitLocker DiskFormat). */
export const errors = formatErrors('bitlk', 'BitlockerError');
export const { FormatError: BitlockerError, HeaderError, WrongPassphraseError, WrongVolumeKeyError } = errors;
export type BitlockerError = disk.DiskError;
export type HeaderError = disk.HeaderError;
export type WrongPassphraseError = disk.WrongPassphraseError;
export type WrongVolumeKeyError = disk.WrongVolumeKeyError;
