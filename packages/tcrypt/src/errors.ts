// The errors @x/tcrypt throws on purpose, messages prefixed "@x/tcrypt: " (argument mistakes are TypeError
// or RangeError): @x/disk-format's classes made for the format `tcrypt`, documented once there
// (FormatErrors), under this package's names. For TrueCrypt/VeraCrypt: HeaderError is a header that
// decrypted (magic and key-area CRC-32 right) but breaks the format or points outside the image, or an
// image too short to hold one; WrongPassphraseError, no header decrypts with the passphrase, keyfiles and
// PIM under any PRF and mode tried (a wrong secret, or a cipher this package does not open: the message
// says both); WrongVolumeKeyError, the volume does not decrypt with the key to a boot sector or superblock.
import type * as disk from '@x/disk-format';
import { formatErrors } from '@x/disk-format';

/** The `type` of the TrueCrypt/VeraCrypt DiskFormat (cryptsetup's `--type tcrypt`), and the `format` of every error. */
export const TCRYPT = 'tcrypt';

/** The classes, made once by @x/disk-format for the format `tcrypt`. */
export const errors = formatErrors(TCRYPT, 'TcryptError');
export const { FormatError: TcryptError, HeaderError, WrongPassphraseError, WrongVolumeKeyError } = errors;
export type TcryptError = disk.DiskError;
export type HeaderError = disk.HeaderError;
export type WrongPassphraseError = disk.WrongPassphraseError;
export type WrongVolumeKeyError = disk.WrongVolumeKeyError;
