// The x-disk command: x-luks for every disk format x-aes reads. It tells the format from the image's first
// bytes (the list of `@x/disk`), loads that format's code and nothing else, and then dumps the header or
// writes the plaintext under the same rules as x-luks (./output.ts). Node only. Its start-up loads the list
// (each format's detection alone) and the table of subcommands; a subcommand's code is loaded when it runs.
//
//   x-disk dump IMAGE [--json] [--type luks|bitlk|fvault2|tcrypt] [TCRYPT OPTIONS]
//   x-disk decrypt IMAGE OUT [-d F | --passphrase-file F | --recovery-password DIGITS | --startup-key F.BEK
//                             | --volume-key-file F] [--type T] [-S N] [--threads N] [--force]
//   TCRYPT OPTIONS (cryptsetup's, ./tcrypt.ts): -d KEYFILE…, --passphrase-file F, --veracrypt-pim N,
//     --veracrypt-query-pim, --tcrypt-hidden, --tcrypt-system, --tcrypt-backup, --hash NAME, --disable-veracrypt
//
// Exit status: 0 done, 2 wrong passphrase, recovery password, startup key or volume key, 1 anything else.
import { FORMATS } from '@x/disk';
import { type DiskFormat, orList } from '@x/disk-format';
import { decryptCommand, dumpCommand } from './disk-commands.js';
import type { CliIo } from './io.js';
import { decryptThreadDone, type Program, runProgram } from './program.js';

export type { CliIo } from './io.js';

/** x-disk over `formats`: its subcommands, and what its help says about IMAGE. */
export function xDisk(formats: readonly DiskFormat[]): Program {
  const choice = { formats, command: 'x-disk' };
  return {
    name: 'x-disk',
    commands: { dump: dumpCommand(choice), decrypt: decryptCommand(choice) },
    notes: `  IMAGE     ${orList(formats.map((f) => `${f.name} (${f.type})`))}, told by its first bytes unless --type says${
      formats.some((f) => !f.detect)
        ? `\n            (${orList(formats.filter((f) => !f.detect).map((f) => f.name))}: only by --type ${orList(formats.filter((f) => !f.detect).map((f) => f.type))})`
        : ''
    }`,
    wrongSecret: 'wrong passphrase, recovery password, startup key or volume key',
  };
}

/**
 * Runs `x-disk` with `argv` (the arguments after the command name) and returns the exit status: 0 done,
 * 2 wrong passphrase, recovery password, startup key or volume key, 1 anything else (usage, I/O, a damaged
 * or truncated image, a bad startup key file). `formats` is the list of formats it detects, in order:
 * `@x/disk`'s FORMATS, or a list with a format of the caller's own.
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
  formats: readonly DiskFormat[] = FORMATS,
): Promise<number> {
  // a decrypt thread running the bundled command (./decrypt-threads.ts): it has no command line
  if (await decryptThreadDone()) return 0;
  return runProgram(xDisk(formats), argv, io);
}
