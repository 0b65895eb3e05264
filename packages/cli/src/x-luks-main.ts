// The x-luks command: `dump` shows a LUKS header, `decrypt` writes a volume's plaintext. Node only.
//
//   x-luks dump IMAGE [--json]
//   x-luks decrypt IMAGE OUT (--passphrase-file F | --key-file F) [--keyslot N] [--force]
//
// Exit status: 0 done, 2 wrong passphrase or volume key, 1 anything else. The output rules (a temporary
// file renamed when complete, --force, devices and FIFOs, stdout, signals, progress) are ./output.ts,
// shared with x-disk.
import { openFileSource } from '@x/byte-source/file';
import { describeHeader, headerToJson, openLuks, readHeader } from '@x/luks';
import { parseArgs } from 'node:util';
import { dumpLuks, type LuksApi, luksSummary } from './format-luks.js';
import { type CliIo, report, UsageError } from './io.js';
import { decryptTo } from './output.js';
import { readSecret } from './secrets.js';

export type { CliIo } from './io.js';
export { CHUNK_BYTES } from './output.js';

const LUKS: LuksApi = { readHeader, describeHeader, headerToJson, openLuks };

const USAGE = `usage:
  x-luks dump IMAGE [--json]
  x-luks decrypt IMAGE OUT (--passphrase-file FILE | --key-file FILE) [--keyslot N] [--force]

  dump      print the LUKS1/LUKS2 header: keyslots, segments, digests (--json: as JSON)
  decrypt   write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force
  --passphrase-file FILE   the passphrase: every byte of FILE, as cryptsetup --key-file reads it
                           (- reads stdin; from a terminal, one line typed without echo)
  --key-file FILE          the raw volume key (binary), as luksDump --dump-volume-key shows it
  --keyslot N              try only keyslot N

exit status: 0 done, 2 wrong passphrase or volume key, 1 other errors`;

async function dump(io: CliIo, image: string, json: boolean): Promise<void> {
  const src = await openFileSource(image);
  try {
    io.stdout.write(await dumpLuks(LUKS, src, json));
  } finally {
    await src.close();
  }
}

async function decrypt(
  io: CliIo,
  image: string,
  out: string,
  secret: { passphrase?: Uint8Array; volumeKey?: Uint8Array },
  keyslot: string | undefined,
  force: boolean,
): Promise<void> {
  let src: Awaited<ReturnType<typeof openFileSource>> | undefined;
  try {
    await decryptTo(io, {
      command: 'x-luks',
      out,
      image,
      force,
      async open() {
        src = await openFileSource(image);
        return openLuks(src, { ...secret, keyslot });
      },
      summary: luksSummary,
    });
  } finally {
    await src?.close();
  }
}

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
  let secretBytes: Uint8Array | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        force: { type: 'boolean' },
        'passphrase-file': { type: 'string' },
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
    if (command === 'dump') {
      if (rest.length !== 1) throw new UsageError('dump takes one IMAGE');
      await dump(io, rest[0], values.json === true);
      return 0;
    }
    if (command === 'decrypt') {
      if (rest.length !== 2) throw new UsageError('decrypt takes IMAGE and OUT');
      const pf = values['passphrase-file'],
        kf = values['key-file'];
      if ((pf === undefined) === (kf === undefined))
        throw new UsageError('decrypt needs exactly one of --passphrase-file and --key-file');
      if (values.keyslot !== undefined && !/^\d+$/.test(values.keyslot))
        throw new UsageError('--keyslot takes a keyslot number');
      secretBytes = await readSecret(io, (pf ?? kf)!, pf !== undefined ? 'passphrase' : 'volume key');
      const secret = pf !== undefined ? { passphrase: secretBytes } : { volumeKey: secretBytes };
      await decrypt(io, rest[0], rest[1], secret, values.keyslot, values.force === true);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command "${command}"`);
  } catch (e) {
    return report(io, 'x-luks', USAGE, e);
  } finally {
    secretBytes?.fill(0);
  }
}
