// The image `dump` and `decrypt` read, and its format: the one named (x-luks's, or `--type`), else the
// first of the list whose detection matches its first bytes. Loaded when one of them runs.
import type { ByteSource } from '@x/byte-source';
import { openFileSource } from '@x/byte-source/file';
import { detectFormat, type DiskFormat, orList, undetectedReason } from '@x/disk-format';
import type { FormatChoice } from './disk-options.js';
import { fileError, UsageError } from './io.js';

/** The image at `path`, opened for reading (a missing file is one line: `disk.img: no such file`). */
export async function openImage(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  return openFileSource(path).catch((e: unknown) => {
    throw fileError(e, path);
  });
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
