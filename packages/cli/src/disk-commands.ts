// `dump` and `decrypt` for any list of disk formats: x-disk's, over every format of `@x/disk` (or the list
// its caller gives), and x-luks's, over LUKS alone. The image's format is the one `--type` names, else the
// first whose detection matches (x-luks: always LUKS, as if `--type luks` were given); only that format's
// code is loaded. The secret options are cryptsetup's: `-d, --key-file` (our `--passphrase-file`) for a
// passphrase, `--volume-key-file` for the raw volume key, and BitLocker's `--recovery-password` and
// `--startup-key`.
import type { ByteSource } from '@x/byte-source';
import { openFileSource } from '@x/byte-source/file';
import { detectFormat, type DiskFormat, orList, type Secret, type SecretKind, undetectedReason } from '@x/disk-format';
import { type CliIo, fileError, UsageError } from './io.js';
import type { OptionDef, OptionValues } from './options.js';
import { decryptTo } from './output.js';
import type { Subcommand } from './program.js';
import { readSecret } from './secrets.js';
import { threadCount } from './decrypt-threads.js';

/** How a secret is given: its option, what it opens (`volumeKey`: the raw volume key), how a prompt names it. */
interface SecretOption extends OptionDef {
  readonly kind: SecretKind | 'volumeKey';
  readonly what: string;
}

/** The secret options, cryptsetup's spelling first for each kind (the one messages name). */
export const SECRET_OPTIONS: readonly SecretOption[] = [
  {
    name: 'key-file',
    short: 'd',
    value: 'FILE',
    kind: 'passphrase',
    what: 'passphrase',
    help: 'the passphrase (BitLocker: the password): every byte of FILE, as cryptsetup\nreads a key file; - reads stdin (from a terminal, one line typed without echo)',
  },
  { name: 'passphrase-file', value: 'FILE', kind: 'passphrase', what: 'passphrase', help: 'the same as --key-file' },
  {
    name: 'recovery-password',
    value: 'DIGITS',
    kind: 'recoveryPassword',
    what: 'recovery password',
    help: "BitLocker's 48-digit recovery password (- reads it like a key file)",
  },
  {
    name: 'startup-key',
    value: 'FILE',
    kind: 'startupKey',
    what: 'startup key',
    help: "BitLocker's startup key file (.BEK)",
  },
  {
    name: 'volume-key-file',
    value: 'FILE',
    kind: 'volumeKey',
    what: 'volume key',
    help: 'the raw volume key (binary): LUKS volume key, BitLocker FVEK, FileVault 2\nvolume key',
  },
];

export const KEY_SLOT: OptionDef = {
  name: 'key-slot',
  short: 'S',
  aliases: ['keyslot'],
  value: 'N',
  help: 'LUKS: try only keyslot N',
};
export const THREADS: OptionDef = {
  name: 'threads',
  value: 'N',
  help: 'decrypt on N threads (default: one per core with the software AES kernels,\none with a hardware one, which outruns the disk); OUT is the same for every N',
};
export const FORCE: OptionDef = { name: 'force', help: 'overwrite an existing OUT' };
const JSON_OPTION: OptionDef = { name: 'json', help: 'dump: the header as JSON' };

/** The option that names `kind` in messages: cryptsetup's spelling. */
const optionOf = (kind: SecretOption['kind']) => `--${SECRET_OPTIONS.find((s) => s.kind === kind)!.name}`;

/** The image at `path`, opened for reading (a missing file is one line: `disk.img: no such file`). */
export async function openImage(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  return openFileSource(path).catch((e: unknown) => {
    throw fileError(e, path);
  });
}

/** What `dump` and `decrypt` read images as: every format of a list, or one (x-luks). */
export interface FormatChoice {
  readonly formats: readonly DiskFormat[];
  /** Always this format, never detected (x-luks: LUKS); then there is no `--type`. */
  readonly only?: DiskFormat;
  /** The command's name, for the message of an image of no known format. */
  readonly command: string;
}

function typeOption(formats: readonly DiskFormat[]): OptionDef {
  return { name: 'type', value: 'TYPE', help: `the format: ${orList(formats.map((f) => f.type))} (default: detected)` };
}

/** The format named: x-luks's one, or the one `--type` names (undefined: none named, detect it). */
function namedFormat(choice: FormatChoice, type: string | undefined): DiskFormat | undefined {
  if (choice.only || type === undefined) return choice.only;
  const { formats } = choice;
  const f = formats.find((f) => f.type === type);
  if (!f) throw new UsageError(`--type takes ${orList(formats.map((f) => f.type))}, not "${type}"`);
  return f;
}

/** The format named, else the first whose detection matches the image. */
async function formatOf(choice: FormatChoice, source: ByteSource, image: string, named: DiskFormat | undefined) {
  if (named) return named;
  const found = await detectFormat(source, choice.formats);
  if (found) return found;
  const names = orList(choice.formats.map((f) => f.name));
  throw new Error(
    `${image} is not a ${names} volume that ${choice.command} recognizes (${undetectedReason(source)}); --type names the format`,
  );
}

/** The `dump` subcommand over `choice`'s formats. */
export function dumpCommand(choice: FormatChoice): Subcommand {
  return {
    usage: choice.only
      ? 'dump IMAGE [--json]'
      : `dump IMAGE [--json] [--type ${choice.formats.map((f) => f.type).join('|')}]`,
    about: "print the volume's header (--json: as JSON)",
    options: choice.only ? [JSON_OPTION] : [JSON_OPTION, typeOption(choice.formats)],
    async run(args, values, io) {
      if (args.length !== 1) throw new UsageError('dump takes one IMAGE');
      const named = namedFormat(choice, values.type as string | undefined);
      const src = await openImage(args[0]);
      try {
        const header = await (await formatOf(choice, src, args[0], named)).readHeader(src);
        io.stdout.write(values.json ? `${JSON.stringify(header.toJson(), null, 2)}\n` : `${header.describe()}\n`);
      } finally {
        await src.close();
      }
    },
  };
}

/** The secret option given, if any (a UsageError for more than one). */
function secretOption(values: OptionValues): SecretOption | undefined {
  const given = SECRET_OPTIONS.filter((s) => values[s.name] !== undefined);
  if (given.length > 1) throw new UsageError(`decrypt takes at most one of ${orList(given.map((s) => `--${s.name}`))}`);
  return given[0];
}

/** Refuses what `format` does not take: a secret it has no use for, none where it needs one, --key-slot. */
function checkOptions(choice: FormatChoice, format: DiskFormat, given: SecretOption | undefined, keyslot: boolean) {
  const kinds = [...format.secrets, ...(format.openWithVolumeKey ? (['volumeKey'] as const) : [])];
  const takes = orList(kinds.map(optionOf));
  if (given && !kinds.includes(given.kind))
    throw new UsageError(`--${given.name} does not open a ${format.name} volume (it takes ${takes})`);
  if (!given && !format.clearKey) throw new UsageError(`a ${format.name} volume needs ${takes}`);
  if (keyslot && !format.keyslots) {
    const withSlots = orList(choice.formats.filter((f) => f.keyslots).map((f) => f.name));
    throw new UsageError(`--key-slot is for ${withSlots} volumes, not ${format.name}`);
  }
}

/** The bytes of the secret `option` gives: a file's, stdin's, or (`--recovery-password`) the digits themselves. */
async function readGiven(io: CliIo, option: SecretOption, value: string): Promise<Uint8Array> {
  if (option.kind === 'recoveryPassword' && value !== '-') return new TextEncoder().encode(value);
  return readSecret(io, value, option.what).catch((e: unknown) => {
    throw fileError(e, value);
  });
}

/** The `decrypt` subcommand over `choice`'s formats. */
export function decryptCommand(choice: FormatChoice): Subcommand {
  const types = choice.formats.map((f) => f.type).join('|');
  return {
    usage: `decrypt IMAGE OUT [SECRET]${choice.only ? '' : ` [--type ${types}]`} [-S N] [--threads N] [--force]`,
    about:
      "write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force;\nSECRET is at most one of the options below (none: a BitLocker volume with a clear key)",
    options: [...SECRET_OPTIONS, ...(choice.only ? [] : [typeOption(choice.formats)]), KEY_SLOT, THREADS, FORCE],
    async run(args, values, io) {
      if (args.length !== 2) throw new UsageError('decrypt takes IMAGE and OUT');
      const [image, out] = args;
      const option = secretOption(values);
      const named = namedFormat(choice, values.type as string | undefined);
      const keyslot = values['key-slot'] as string | undefined;
      if (keyslot !== undefined && !/^\d+$/.test(keyslot)) throw new UsageError('--key-slot takes a keyslot number');
      const threads = threadCount(values.threads as string | undefined);
      let bytes: Uint8Array | undefined;
      const src = await openImage(image);
      try {
        const format = await formatOf(choice, src, image, named);
        checkOptions(choice, format, option, keyslot !== undefined);
        if (option) bytes = await readGiven(io, option, values[option.name] as string);
        const options = { keyslot, share: threads > 1 };
        const secret: Secret | undefined =
          option && bytes && option.kind !== 'volumeKey' ? { kind: option.kind, bytes } : undefined;
        await decryptTo(io, {
          command: choice.command,
          out,
          image,
          force: values.force === true,
          threads,
          imageSize: src.size,
          open: () =>
            option?.kind === 'volumeKey'
              ? format.openWithVolumeKey!(src, bytes!, options)
              : format.open(src, secret, options),
        });
      } finally {
        bytes?.fill(0);
        await src.close();
      }
    },
  };
}
