// The errors @x/luks throws on purpose, messages prefixed "@x/luks: " (argument mistakes are TypeError or
// RangeError): @x/disk-format's classes made for the format `luks`, documented once there (FormatErrors),
// under this package's names. For LUKS: HeaderError is bad magic, a truncated or corrupt header (a LUKS2
// checksum mismatch on both copies), JSON metadata that breaks the format or a feature not supported;
// WrongPassphraseError, no keyslot opens (every active one was tried, or the one asked for);
// WrongVolumeKeyError, the key does not match the header's digest. The README says more.
import type * as disk from '@x/disk-format';
import { formatErrors } from '@x/disk-format';

/** The classes, made once by @x/disk-format for the format `luks` (the `type` of the LUKS DiskFormat). */
export const errors = formatErrors('luks', 'LuksError');
export const { FormatError: LuksError, HeaderError, WrongPassphraseError, WrongVolumeKeyError } = errors;
export type LuksError = disk.DiskError;
export type HeaderError = disk.HeaderError;
export type WrongPassphraseError = disk.WrongPassphraseError;
export type WrongVolumeKeyError = disk.WrongVolumeKeyError;
