// `dump` and `decrypt` for any list of disk formats: x-disk's, over every format of `@x/disk` (or the list
// its caller gives), and x-luks's, over LUKS alone. The image's format is the one `--type` names, else the
// first whose detection matches (x-luks: always LUKS, as if `--type luks` were given); only that format's
// code is loaded. The secret options are cryptsetup's: `-d, --key-file` (our `--passphrase-file`) for a
// passphrase, `--volume-key-file` for the raw volume key, and BitLocker's `--recovery-password` and
// `--startup-key`. This module is the table's entries alone (usages, options), cheap to load: each `run`
// imports its code when it runs (./image.ts for both, ./disk-decrypt.ts for `decrypt`).
import { type DiskFormat, orList, type SecretKind } from '@x/disk-format';
import { UsageError } from './io.js';
import type { OptionDef } from './options.js';
import type { Subcommand } from './program.js';

/** How a secret is given: its option, what it opens (`volumeKey`: the raw volume key), how a prompt names it. */
export interface SecretOption extends OptionDef {
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
      const { formatOf, namedFormat, openImage } = await import('./image.js');
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
      await (await import('./disk-decrypt.js')).decrypt(choice, args[0], args[1], values, io);
    },
  };
}
