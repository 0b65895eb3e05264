/**
 * `@x/disk`: the disk formats x-aes reads, as one ordered list of {@link DiskFormat}s (`@x/disk-format`).
 * `x-disk`, `x-luks` and the web page detect, dump and open images through it. A new format is a package
 * exporting a `DiskFormat` and one entry here; a caller with a format of its own passes
 * `[...FORMATS, itsFormat]` wherever a list is taken (`main` of `@x/cli/x-disk`, the page's worker session).
 *
 * Importing the list is cheap: each entry is the format package's `/format` entry point, detection only;
 * a format's reading and unlocking code is loaded when an image of that format is read or opened.
 *
 * @example
 * ```ts
 * import { FORMATS } from '@x/disk';
 * import { detectFormat } from '@x/disk-format';
 * const format = await detectFormat(source, FORMATS);
 * console.log(format?.name, (await format?.readHeader(source))?.describe());
 * ```
 *
 * @packageDocumentation
 */
import { bitlockerFormat } from '@x/bitlocker/format';
import type { DiskFormat } from '@x/disk-format';
import { fileVault2Format } from '@x/filevault2/format';
import { luksFormat } from '@x/luks/format';
import { tcryptFormat } from '@x/tcrypt/format';

/**
 * Every format, in the order detection tries them: LUKS and BitLocker by their magic bytes, FileVault 2
 * (a checksum over its volume header); then TrueCrypt/VeraCrypt, which has no `detect` (its header cannot
 * be told from random bytes): detection passes it over, and it is chosen by its type (`--type tcrypt`).
 *
 * @example
 * ```ts
 * FORMATS.map((f) => f.type); // ['luks', 'bitlk', 'fvault2', 'tcrypt']
 * ```
 */
export const FORMATS: readonly DiskFormat[] = [luksFormat, bitlockerFormat, fileVault2Format, tcryptFormat];
