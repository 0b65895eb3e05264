// The x-luks command: `dump` shows a LUKS header and `decrypt` writes a volume's plaintext (x-disk's code,
// on LUKS alone), `encrypt` makes a LUKS2 (or LUKS1) volume from plaintext, `add-key` and `remove-key`
// change its keyslots in place. Node only.
//
//   x-luks dump IMAGE [--json]
//   x-luks decrypt IMAGE OUT (-d F | --volume-key-file F) [-S N] [--threads N] [--force]
//   x-luks encrypt PLAIN OUT -d F [--type luks2|luks1] [--cipher SPEC] [--key-size BITS] …
//   x-luks add-key IMAGE (-d F | --volume-key-file F) --new-keyfile F [--new-key-slot N] …
//   x-luks remove-key IMAGE -d F [-S N] [-q]
//
// Exit status: 0 done, 2 wrong passphrase or volume key, 1 anything else. The output rules (a temporary
// file renamed when complete, --force, devices and FIFOs, stdout, signals, progress) are ./output.ts,
// shared with x-disk; `encrypt` writes its file OUT through the same ones (checkOut, intoNewFile, progress).
import { luksFormat } from '@x/luks/format';
import { decryptCommand, dumpCommand } from './disk-commands.js';
import type { CliIo } from './io.js';
import { decryptThreadDone, type Program, runProgram } from './program.js';
import { addKeyCommand, encryptCommand, removeKeyCommand } from './x-luks-commands.js';

export type { CliIo } from './io.js';
export { CHUNK_BYTES } from './pump.js';

const LUKS_ONLY = { formats: [luksFormat], only: luksFormat, command: 'x-luks' };

/** x-luks: its subcommands, as a table. */
export const X_LUKS: Program = {
  name: 'x-luks',
  commands: {
    dump: {
      ...dumpCommand(LUKS_ONLY),
      about: 'print the LUKS1/LUKS2 header: keyslots, segments, digests (--json: as JSON)',
    },
    decrypt: decryptCommand(LUKS_ONLY),
    encrypt: encryptCommand,
    'add-key': addKeyCommand,
    'remove-key': removeKeyCommand,
  },
  notes: `  encrypt's defaults are cryptsetup 2.6 luksFormat's: --type luks2, --cipher aes-xts-plain64,
  --key-size 512 (256 for non-XTS ciphers), --sector-size 4096 (512 when PLAIN is not a multiple of
  4096; LUKS1: 512), --pbkdf argon2id (LUKS1: pbkdf2), --iter-time 2000, --pbkdf-memory 1048576 (at most
  half the memory), --pbkdf-parallel 4 (at most the CPUs); --pbkdf-force-iterations sets the cost without
  a benchmark. add-key's KDF defaults are the same.`,
  wrongSecret: 'wrong passphrase or volume key',
};

/**
 * Runs `x-luks` with `argv` (the arguments after the command name) and returns the exit status:
 * 0 done, 2 wrong passphrase or volume key, 1 anything else (usage, I/O, header errors).
 *
 * @example
 * ```ts
 * import { main } from '@x/cli/x-luks';
 * process.exitCode = await main(['dump', 'disk.img', '--json']);
 * ```
 */
export async function main(argv: readonly string[], io: CliIo = process): Promise<number> {
  // a decrypt thread running the bundled command (./decrypt-threads.ts): it has no command line
  if (await decryptThreadDone()) return 0;
  return runProgram(X_LUKS, argv, io);
}
