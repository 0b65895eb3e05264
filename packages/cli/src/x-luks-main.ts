// The x-luks command: `dump` shows a LUKS header, `decrypt` writes a volume's plaintext, `encrypt` makes a
// LUKS2 volume from plaintext. Node only.
//
//   x-luks dump IMAGE [--json]
//   x-luks decrypt IMAGE OUT (--passphrase-file F | --key-file F) [--keyslot N] [--force]
//   x-luks encrypt PLAIN OUT --passphrase-file F [--cipher SPEC] [--key-size BITS] [--sector-size N] [--pbkdf …] …
//
// Exit status: 0 done, 2 wrong passphrase or volume key, 1 anything else. The output rules (a temporary
// file renamed when complete, --force, devices and FIFOs, stdout, signals, progress) are ./output.ts,
// shared with x-disk; `encrypt` writes its file OUT through the same ones (checkOut, intoNewFile, progress).
import { openFileSource } from '@x/byte-source/file';
import {
  type CreateOptions,
  createLuks,
  describeHeader,
  headerToJson,
  type Luks2Header,
  openLuks,
  readHeader,
} from '@x/luks';
import { parseArgs } from 'node:util';
import { dumpLuks, type LuksApi, luksSummary } from './format-luks.js';
import { type CliIo, report, UsageError } from './io.js';
import { checkOut, decryptTo, intoNewFile, progress } from './output.js';
import { readSecret } from './secrets.js';

export type { CliIo } from './io.js';
export { CHUNK_BYTES } from './output.js';

const LUKS: LuksApi = { readHeader, describeHeader, headerToJson, openLuks };

const USAGE = `usage:
  x-luks dump IMAGE [--json]
  x-luks decrypt IMAGE OUT (--passphrase-file FILE | --key-file FILE) [--keyslot N] [--force]
  x-luks encrypt PLAIN OUT --passphrase-file FILE [--type luks2] [--cipher SPEC] [--key-size BITS]
                 [--sector-size 512|4096] [--pbkdf argon2id|argon2i|pbkdf2]
                 [--iter-time MS | --pbkdf-force-iterations N] [--pbkdf-memory KIB]
                 [--pbkdf-parallel N] [--label L] [--force]

  dump      print the LUKS1/LUKS2 header: keyslots, segments, digests (--json: as JSON)
  decrypt   write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force
  encrypt   write a LUKS2 volume holding PLAIN to OUT, as cryptsetup luksFormat lays it out (16 MiB
            of header, then PLAIN encrypted, its last sector zero-padded); OUT must not exist unless --force
  --passphrase-file FILE   the passphrase: every byte of FILE, as cryptsetup --key-file reads it
                           (- reads stdin; from a terminal, one line typed without echo)
  --key-file FILE          the raw volume key (binary), as luksDump --dump-volume-key shows it
  --keyslot N              try only keyslot N
  encrypt's defaults are cryptsetup 2.6 luksFormat's: --type luks2, --cipher aes-xts-plain64,
  --key-size 512 (256 for non-XTS ciphers), --sector-size 4096 (512 when PLAIN is not a multiple of
  4096), --pbkdf argon2id, --iter-time 2000, --pbkdf-memory 1048576 (at most half the memory),
  --pbkdf-parallel 4 (at most the CPUs); --pbkdf-force-iterations sets the cost without a benchmark

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

/** The options of dump and decrypt (and encrypt's --passphrase-file, --force). */
const BASE_OPTIONS = {
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  'passphrase-file': { type: 'string' },
  'key-file': { type: 'string' },
  keyslot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
/** The options only `encrypt` takes, and (below) those it does not. */
const ENCRYPT_OPTIONS = {
  type: { type: 'string' },
  cipher: { type: 'string' },
  'key-size': { type: 'string' },
  'sector-size': { type: 'string' },
  pbkdf: { type: 'string' },
  'iter-time': { type: 'string' },
  'pbkdf-force-iterations': { type: 'string' },
  'pbkdf-memory': { type: 'string' },
  'pbkdf-parallel': { type: 'string' },
  label: { type: 'string' },
} as const;
const ENCRYPT_ONLY = Object.keys(ENCRYPT_OPTIONS) as (keyof typeof ENCRYPT_OPTIONS)[];
const NOT_FOR_ENCRYPT = ['json', 'key-file', 'keyslot'] as const;

/** A whole number from the command line, or a UsageError naming the option. */
function wholeNumber(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${option} takes a whole number`);
  return Number(v);
}

/** The createLuks options the command line asks for. */
function encryptOptions(values: Record<string, string | boolean | undefined>): Omit<CreateOptions, 'passphrase'> {
  const str = (k: string) => values[k] as string | undefined;
  const type = str('type') ?? 'luks2';
  if (type === 'luks1') throw new UsageError('--type luks1 is not supported by encrypt yet (luks2 only)');
  if (type !== 'luks2') throw new UsageError(`--type ${type}: expected luks2`);
  const pbkdf = str('pbkdf');
  if (pbkdf !== undefined && pbkdf !== 'argon2id' && pbkdf !== 'argon2i' && pbkdf !== 'pbkdf2')
    throw new UsageError(`--pbkdf ${pbkdf}: expected argon2id, argon2i or pbkdf2`);
  if (values['iter-time'] !== undefined && values['pbkdf-force-iterations'] !== undefined)
    throw new UsageError('give --iter-time or --pbkdf-force-iterations, not both');
  const keyBits = wholeNumber(str('key-size'), '--key-size');
  if (keyBits !== undefined && keyBits % 8 !== 0) throw new UsageError('--key-size takes bits, a multiple of 8');
  const sectorSize = wholeNumber(str('sector-size'), '--sector-size');
  if (sectorSize !== undefined && ![512, 1024, 2048, 4096].includes(sectorSize))
    throw new UsageError('--sector-size takes 512, 1024, 2048 or 4096');
  return {
    cipher: str('cipher'),
    keySize: keyBits,
    sectorSize,
    pbkdf: pbkdf as CreateOptions['pbkdf'],
    iterTime: wholeNumber(str('iter-time'), '--iter-time'),
    iterations: wholeNumber(str('pbkdf-force-iterations'), '--pbkdf-force-iterations'),
    memory: wholeNumber(str('pbkdf-memory'), '--pbkdf-memory'),
    parallelism: wholeNumber(str('pbkdf-parallel'), '--pbkdf-parallel'),
    label: str('label'),
  };
}

/** What `encrypt` says about the volume it wrote. */
function createdSummary(h: Luks2Header): string {
  const seg = h.segments[0],
    slot = h.keyslots[0],
    kdf = slot.kdf!;
  const cost =
    kdf.type === 'pbkdf2'
      ? `pbkdf2-${kdf.hash}, ${kdf.iterations} iterations`
      : `${kdf.type}, time ${kdf.time}, memory ${kdf.memory} KiB, ${kdf.cpus} threads`;
  return `LUKS2 ${seg.encryption}, ${slot.keySize * 8}-bit key, ${seg.sectorSize}-byte sectors, keyslot 0 ${cost}, UUID ${h.uuid}`;
}

/**
 * `encrypt`: PLAIN into a new LUKS2 image OUT, through a temporary file next to OUT (mode 0600) that is
 * renamed to OUT once complete and removed on any failure, SIGINT or SIGTERM: no partial OUT is ever left.
 * OUT must be a new file, or with --force an existing regular file; never PLAIN itself (device and inode).
 */
async function encrypt(
  io: CliIo,
  plain: string,
  out: string,
  passphrase: Uint8Array,
  options: Omit<CreateOptions, 'passphrase'>,
  force: boolean,
): Promise<void> {
  const command = 'x-luks';
  if (out === '-') throw new UsageError('encrypt writes a file: OUT cannot be - (standard output)');
  const existing = await checkOut(
    out,
    plain,
    force,
    'is PLAIN itself: refusing to write the volume over it, even with --force',
  );
  if (existing && !existing.isFile()) throw new UsageError(`${out} is not a regular file: encrypt writes only files`);
  const src = await openFileSource(plain);
  try {
    const bar = progress(io, command, src.size, 'encrypted');
    const header = await intoNewFile(out, command, force, 'encrypting', (file) =>
      createLuks(
        src,
        {
          async write(offset, bytes) {
            for (let done = 0; done < bytes.length; ) {
              const { bytesWritten } = await file.write(bytes, done, bytes.length - done, offset + done);
              done += bytesWritten;
            }
          },
        },
        { ...options, passphrase, onProgress: (done) => bar.update(done) },
      ),
    );
    io.stderr.write(`${command}: ${createdSummary(header)}\n`);
    bar.finish(src.size);
  } finally {
    await src.close();
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
        ...BASE_OPTIONS,
        ...ENCRYPT_OPTIONS,
      },
    });
    const [first] = positionals;
    if (first !== 'encrypt' && ENCRYPT_ONLY.some((o) => values[o] !== undefined)) {
      // dump and decrypt take none of encrypt's options: parsed again without them, for the same error as ever
      parseArgs({ args: [...argv], allowPositionals: true, options: BASE_OPTIONS });
    }
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
    if (command === 'encrypt') {
      if (rest.length !== 2) throw new UsageError('encrypt takes PLAIN and OUT');
      const given = NOT_FOR_ENCRYPT.find((o) => values[o] !== undefined);
      if (given) throw new UsageError(`encrypt does not take --${given}`);
      const pf = values['passphrase-file'];
      if (pf === undefined) throw new UsageError('encrypt needs --passphrase-file');
      const options = encryptOptions(values);
      secretBytes = await readSecret(io, pf, 'passphrase');
      await encrypt(io, rest[0], rest[1], secretBytes, options, values.force === true);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command "${command}"`);
  } catch (e) {
    return report(io, 'x-luks', USAGE, e);
  } finally {
    secretBytes?.fill(0);
  }
}
