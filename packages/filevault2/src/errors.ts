// The errors @x/filevault2 throws on purpose, messages prefixed "@x/filevault2: " (argument mistakes are
// TypeError or RangeError): @x/disk-format's classes made for the format `fvault2`, documented once there
// (FormatErrors), under this package's names. For Core Storage: HeaderError is no "CS" signature, a
// checksum that does not match, a truncated image or metadata that breaks the format; WrongPassphraseError,
// the RFC 3394 integrity check failed for every passphrase user; WrongVolumeKeyError, the tweak half is not
// the one derived from the first half, or the first block does not decrypt to a file system it knows.
import type * as disk from '@x/disk-format';
import { formatErrors } from '@x/disk-format';

/** The classes, made once by @x/disk-format for the format `fvault2` (the `type` of the FileVault 2 DiskFormat). */
export const errors = formatErrors('fvault2', 'FileVault2Error');
export const { FormatError: FileVault2Error, HeaderError, WrongPassphraseError, WrongVolumeKeyError } = errors;
export type FileVault2Error = disk.DiskError;
export type HeaderError = disk.HeaderError;
export type WrongPassphraseError = disk.WrongPassphraseError;
export type WrongVolumeKeyError = disk.WrongVolumeKeyError;
