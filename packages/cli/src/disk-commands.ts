// `dump` and `decrypt` for any list of disk formats: x-disk's, over every format of `@x/disk` (or the list
// its caller gives), and x-luks's, over LUKS alone. The image's format is the one `--type` names, else the
// first whose detection matches (x-luks: always LUKS, as if `--type luks` were given); only that format's
// code is loaded. The secret options are cryptsetup's: `-d, --key-file` (our `--passphrase-file`) for a
// passphrase, `--volume-key-file` for the raw volume key, and BitLocker's `--recovery-password` and
// `--startup-key`. This module is the table's entries alone (usages, options), cheap to load: each `run`
// imports its code when it runs (./image.ts for both, ./disk-decrypt.ts for `decrypt`).
import { type DiskFormat, orList } from '@x/disk-format';
import {
  FORCE,
  type FormatChoice,
  KDF_LIMIT_OPTIONS,
  KEY_SLOT,
  offersTcrypt,
  SECRET_OPTIONS,
  TCRYPT_OPTIONS,
  THREADS,
} from './disk-options.js';
import { UsageError } from './io.js';
import type { OptionDef } from './options.js';
import type { Subcommand } from './program.js';

const JSON_OPTION: OptionDef = { name: 'json', help: 'dump: the header as JSON' };

function typeOption(formats: readonly DiskFormat[]): OptionDef {
  return { name: 'type', value: 'TYPE', help: `the format: ${orList(formats.map((f) => f.type))} (default: detected)` };
}

/** `dump`'s secret options, for TrueCrypt/VeraCrypt only: its header cannot be read without them. */
const DUMP_SECRETS: readonly OptionDef[] = [
  {
    name: 'key-file',
    short: 'd',
    value: 'FILE',
    help: 'TrueCrypt/VeraCrypt: a keyfile (repeatable); the headers of the other\nformats are dumped without a secret',
  },
  { name: 'passphrase-file', value: 'FILE', help: 'TrueCrypt/VeraCrypt: the passphrase (- reads stdin)' },
];

/** The `dump` subcommand over `choice`'s formats. */
export function dumpCommand(choice: FormatChoice): Subcommand {
  const tcrypt = offersTcrypt(choice);
  return {
    usage: choice.only
      ? 'dump IMAGE [--json]'
      : `dump IMAGE [--json] [--type ${choice.formats.map((f) => f.type).join('|')}]${tcrypt ? ' [TCRYPT OPTIONS]' : ''}`,
    about: `print the volume's header (--json: as JSON)${tcrypt ? ";\na TrueCrypt/VeraCrypt header needs its secret, as cryptsetup's tcryptDump" : ''}`,
    options: choice.only
      ? [JSON_OPTION]
      : [JSON_OPTION, typeOption(choice.formats), ...(tcrypt ? [...DUMP_SECRETS, ...TCRYPT_OPTIONS] : [])],
    async run(args, values, io, lists) {
      if (args.length !== 1) throw new UsageError('dump takes one IMAGE');
      const { formatOf, namedFormat, openImage, refuseTcryptOptions } = await import('./image.js');
      const named = namedFormat(choice, values.type as string | undefined);
      const src = await openImage(args[0]);
      let wipe = () => {};
      try {
        let format = await formatOf(choice, src, args[0], named);
        let inWords = (e: unknown) => e;
        if (tcrypt && format.type === 'tcrypt') {
          const t = await import('./tcrypt.js');
          const unlock = await t.tcryptUnlock(values, lists, io, false);
          ({ format, wipe } = unlock);
          inWords = (e) => t.inCommandWords(e, choice.command);
        } else {
          refuseTcryptOptions(values, lists, format);
          const secret = DUMP_SECRETS.find((o) => values[o.name] !== undefined);
          if (secret)
            throw new UsageError(
              `--${secret.name} reads a TrueCrypt/VeraCrypt header; a ${format.name} header needs no secret`,
            );
        }
        const header = await format.readHeader(src).catch((e: unknown) => {
          throw inWords(e);
        });
        io.stdout.write(values.json ? `${JSON.stringify(header.toJson(), null, 2)}\n` : `${header.describe()}\n`);
      } finally {
        wipe();
        await src.close();
      }
    },
  };
}

/** The `decrypt` subcommand over `choice`'s formats. */
export function decryptCommand(choice: FormatChoice): Subcommand {
  const types = choice.formats.map((f) => f.type).join('|');
  const tcrypt = offersTcrypt(choice);
  return {
    usage: `decrypt IMAGE OUT [SECRET]${choice.only ? '' : ` [--type ${types}]`} [-S N] [--threads N] [--force]\n                 [--max-iterations N] [--max-memory KIB] [--max-time-cost N]${tcrypt ? ' [TCRYPT OPTIONS]' : ''}`,
    about: `write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force;\nSECRET is at most one of the options below (none: a BitLocker volume with a clear key)${tcrypt ? ';\nTrueCrypt/VeraCrypt: -d is a keyfile (repeatable), with --passphrase-file or\nthe passphrase asked for; a system drive writes the encrypted area of its header' : ''}`,
    options: [
      ...SECRET_OPTIONS,
      ...(choice.only ? [] : [typeOption(choice.formats)]),
      KEY_SLOT,
      THREADS,
      FORCE,
      ...KDF_LIMIT_OPTIONS,
      ...(tcrypt ? TCRYPT_OPTIONS : []),
    ],
    async run(args, values, io, lists) {
      if (args.length !== 2) throw new UsageError('decrypt takes IMAGE and OUT');
      await (await import('./disk-decrypt.js')).decrypt(choice, args[0], args[1], values, io, lists);
    },
  };
}
