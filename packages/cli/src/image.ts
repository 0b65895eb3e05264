// The image `dump` and `decrypt` read, and its format: the one named (x-luks's, or `--type`), else the
// first of the list whose detection matches its first bytes. Loaded when one of them runs.
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { type ByteSource, ImageError } from '@x/byte-source';
import { openFileSource } from '@x/byte-source/file';
import { detectFormat, type DiskFormat, orList, undetectedReason } from '@x/disk-format';
import type { FormatChoice } from './disk-options.js';
import { fileError, UsageError } from './io.js';

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
  const names = orList(choice.formats.map((f) => f.name));
  throw new Error(
    `${image} is not a ${names} volume that ${choice.command} recognizes (${undetectedReason(source)}); --type names the format`,
  );
}
