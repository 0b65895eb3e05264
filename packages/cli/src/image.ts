// The image `dump` and `decrypt` read, and its format: the one named (x-luks's, or `--type`), else the
// first of the list whose detection matches its first bytes. Loaded when one of them runs.
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { type ByteSource, ImageError } from '@x/byte-source';
import { openFileSource } from '@x/byte-source/file';
import { detectFormat, type DiskFormat, orList, undetectedReason } from '@x/disk-format';
import { type FormatChoice, TCRYPT_OPTIONS } from './disk-options.js';
import { fileError, UsageError } from './io.js';
import type { OptionLists, OptionValues } from './options.js';

/** What `st` is, when it is not something an image can be (a regular file or a block device). */
function notAnImage(st: Stats): string | undefined {
  if (st.isFile() || st.isBlockDevice()) return undefined;
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Refuses an IMAGE that is not a regular file or a block device (issue 25: a FIFO blocked open(2) for
 * ever): `stat` first, then an open that cannot block (O_NONBLOCK) and `fstat` of what was opened, so that
 * a FIFO put in its place between the two is refused too.
 */
async function checkImage(path: string): Promise<void> {
  const refuse = (what: string) =>
    new ImageError(`${path}: ${what}, not a regular file or block device: IMAGE must be one`);
  const before = notAnImage(await stat(path));
  if (before) throw refuse(before);
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    const now = notAnImage(st);
    if (now) throw refuse(now);
  } finally {
    await fh.close();
  }
}

/** The image at `path`, opened for reading (a missing file is one line: `disk.img: no such file`). */
export async function openImage(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  try {
    await checkImage(path);
    return await openFileSource(path);
  } catch (e) {
    throw fileError(e, path);
  }
}

/** The format named: x-luks's one, or the one `--type` names (undefined: none named, detect it). */
export function namedFormat(choice: FormatChoice, type: string | undefined): DiskFormat | undefined {
  if (choice.only || type === undefined) return choice.only;
  const { formats } = choice;
  const f = formats.find((f) => f.type === type);
  if (!f) throw new UsageError(`--type takes ${orList(formats.map((f) => f.type))}, not "${type}"`);
  return f;
}

/** The format named, else the first whose detection matches the image. */
export async function formatOf(
  choice: FormatChoice,
  source: ByteSource,
  image: string,
  named: DiskFormat | undefined,
): Promise<DiskFormat> {
  if (named) return named;
  const found = await detectFormat(source, choice.formats);
  if (found) return found;
  // the formats that have a signature, and the ones that cannot be recognized (TrueCrypt/VeraCrypt: --type tcrypt)
  const told = choice.formats.filter((f) => f.detect);
  const untold = choice.formats.filter((f) => !f.detect);
  const names = told.length > 0 ? ` ${orList(told.map((f) => f.name))}` : '';
  const hints = untold.map((f) => `a ${f.name} volume has no signature: --type ${f.type}`);
  throw new Error(
    `${image} is not a${names} volume that ${choice.command} recognizes (${undetectedReason(source)}); --type names the format${hints.length > 0 ? ` (${hints.join('; ')})` : ''}`,
  );
}

/**
 * Refuses what only TrueCrypt/VeraCrypt takes for a volume of `format`: its options, and more than one
 * `-d` (cryptsetup: "Only one --key-file argument is allowed", but for tcrypt keyfiles).
 */
export function refuseTcryptOptions(values: OptionValues, lists: OptionLists, format: DiskFormat): void {
  const given = TCRYPT_OPTIONS.find((o) => values[o.name] !== undefined);
  if (given)
    throw new UsageError(`--${given.name} is for TrueCrypt/VeraCrypt volumes (--type tcrypt), not ${format.name}`);
  if ((lists['key-file']?.length ?? 0) > 1)
    throw new UsageError(
      `only one --key-file opens a ${format.name} volume (more are TrueCrypt/VeraCrypt keyfiles, with --type tcrypt)`,
    );
}
