// The x-disk command: x-luks for every disk format x-aes reads. It tells the format from the image's
// first bytes (./formats.ts), loads that format's package and nothing else, and then dumps the header or
// writes the plaintext under the same rules as x-luks (./output.ts). Node only.
//
//   x-disk dump IMAGE [--json] [--type luks|bitlk|fvault2]
//   x-disk decrypt IMAGE OUT [--passphrase-file F | --recovery-password DIGITS | --startup-key F.BEK
//                             | --key-file F] [--type T] [--keyslot N] [--force]
//
// Exit status: 0 done, 2 wrong passphrase, recovery password, startup key or key file, 1 anything else.
import type { ByteSource } from '@x/byte-source';
import { openFileSource } from '@x/byte-source/file';
import { parseArgs } from 'node:util';
import { decryptThread } from './decrypt-threads.js';
import { FORMATS, type Format, type FormatModule, pickFormat, type Secret, type SecretKind } from './formats.js';
import { type CliIo, orList, report, UsageError } from './io.js';
import { decryptTo } from './output.js';
import { readSecret } from './secrets.js';

export type { CliIo } from './io.js';
export type { Format, FormatModule, FormatType, OpenedVolume, Secret, SecretKind } from './formats.js';
export { FORMATS } from './formats.js';

/** Each secret kind's option, and what a prompt on a terminal calls it. */
const SECRET_OPTIONS: readonly { kind: SecretKind; option: string; what: string }[] = [
  { kind: 'passphrase', option: 'passphrase-file', what: 'passphrase' },
  { kind: 'recoveryPassword', option: 'recovery-password', what: 'recovery password' },
  { kind: 'startupKey', option: 'startup-key', what: 'startup key' },
  { kind: 'volumeKey', option: 'key-file', what: 'volume key' },
];

const optionOf = (kind: SecretKind) => `--${SECRET_OPTIONS.find((s) => s.kind === kind)!.option}`;

function usage(formats: readonly Format[]): string {
  const types = formats.map((f) => f.type).join('|');
  return `usage:
  x-disk dump IMAGE [--json] [--type ${types}]
  x-disk decrypt IMAGE OUT [SECRET] [--type ${types}] [--keyslot N] [--force]

  IMAGE     ${orList(formats.map((f) => `${f.name} (${f.type})`))}, told by its first bytes unless --type says
  dump      print the volume's header (--json: as JSON)
  decrypt   write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force
  SECRET    at most one of (none: a BitLocker volume with a clear key):
  --passphrase-file FILE      the passphrase or password: every byte of FILE (- reads stdin;
                              from a terminal, one line typed without echo)
  --recovery-password DIGITS  BitLocker's 48-digit recovery password (- reads it like a passphrase)
  --startup-key FILE          BitLocker's startup key file (.BEK)
  --key-file FILE             the raw volume key (binary): LUKS volume key, BitLocker FVEK,
                              FileVault 2 volume key
  --keyslot N                 LUKS: try only keyslot N

exit status: 0 done, 2 wrong passphrase, recovery password, startup key or key file, 1 other errors`;
}

/** The image's format: the entry `--type` names, else the one its first bytes match. */
async function formatOf(source: ByteSource, image: string, type: string | undefined, formats: readonly Format[]) {
  const format = await pickFormat(source, formats, type, image);
  return { format, module: await format.load() };
}

/** Refuses the options a format does not take: a secret it has no use for, none where it needs one, --keyslot. */
function checkOptions(format: Format, module: FormatModule, kind: SecretKind | undefined, keyslot: boolean): void {
  const takes = orList(module.secrets.map(optionOf));
  if (kind !== undefined && !module.secrets.includes(kind))
    throw new UsageError(`${optionOf(kind)} does not open a ${format.name} volume (it takes ${takes})`);
  if (kind === undefined && !module.clearKey) throw new UsageError(`a ${format.name} volume needs ${takes}`);
  if (keyslot && !module.keyslots) throw new UsageError(`--keyslot is for LUKS volumes, not ${format.name}`);
}

/**
 * Runs `x-disk` with `argv` (the arguments after the command name) and returns the exit status: 0 done,
 * 2 wrong passphrase, recovery password, startup key or key file, 1 anything else (usage, I/O, a damaged
 * or truncated image, a bad startup key file). `formats` is the table of formats it detects ({@link FORMATS}).
 *
 * @example
 * ```ts
 * import { main } from '@x/cli/x-disk';
 * process.exitCode = await main(['decrypt', 'usb.img', 'usb.plain', '--recovery-password', digits]);
 * ```
 */
export async function main(
  argv: readonly string[],
  io: CliIo = process,
  formats: readonly Format[] = FORMATS,
): Promise<number> {
  if (decryptThread) {
    // a decrypt thread running the bundled command (./decrypt-threads.ts; x-disk starts none itself yet)
    await decryptThread;
    return 0;
  }
  const USAGE = usage(formats);
  let secret: Secret | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        force: { type: 'boolean' },
        type: { type: 'string' },
        'passphrase-file': { type: 'string' },
        'recovery-password': { type: 'string' },
        'startup-key': { type: 'string' },
        'key-file': { type: 'string' },
        keyslot: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [command, ...rest] = positionals;
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const type = values.type;
    if (type !== undefined && !formats.some((f) => f.type === type))
      throw new UsageError(`--type takes ${orList(formats.map((f) => f.type))}, not "${type}"`);
    if (command === 'dump') {
      if (rest.length !== 1) throw new UsageError('dump takes one IMAGE');
      const src = await openFileSource(rest[0]);
      try {
        const { module } = await formatOf(src, rest[0], type, formats);
        io.stdout.write(await module.dump(src, values.json === true));
      } finally {
        await src.close();
      }
      return 0;
    }
    if (command === 'decrypt') {
      if (rest.length !== 2) throw new UsageError('decrypt takes IMAGE and OUT');
      const [image, out] = rest;
      const given = SECRET_OPTIONS.filter((s) => values[s.option as keyof typeof values] !== undefined);
      if (given.length > 1)
        throw new UsageError(`decrypt takes at most one of ${orList(SECRET_OPTIONS.map((s) => `--${s.option}`))}`);
      const keyslot = values.keyslot;
      if (keyslot !== undefined && !/^\d+$/.test(keyslot)) throw new UsageError('--keyslot takes a keyslot number');
      const src = await openFileSource(image);
      try {
        const { format, module } = await formatOf(src, image, type, formats);
        const option = given[0];
        checkOptions(format, module, option?.kind, keyslot !== undefined);
        if (option !== undefined) {
          const value = values[option.option as keyof typeof values] as string;
          const bytes =
            option.kind === 'recoveryPassword' && value !== '-'
              ? new TextEncoder().encode(value) // the digits themselves
              : await readSecret(io, value, option.what);
          secret = { kind: option.kind, bytes };
        }
        await decryptTo(io, {
          command: 'x-disk',
          out,
          image,
          force: values.force === true,
          open: () => module.open(src, secret, { keyslot }),
          summary: (v) => v.summary,
        });
      } finally {
        await src.close();
      }
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command "${command}"`);
  } catch (e) {
    return report(io, 'x-disk', USAGE, e);
  } finally {
    secret?.bytes.fill(0);
  }
}
