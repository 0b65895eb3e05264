// The x-luks command: `dump` shows a LUKS header, `decrypt` writes a volume's plaintext, `encrypt` makes a
// LUKS2 (or LUKS1) volume from plaintext, `add-key` and `remove-key` change its keyslots in place. Node only.
//
//   x-luks dump IMAGE [--json]
//   x-luks decrypt IMAGE OUT (--passphrase-file F | --key-file F) [--keyslot N] [--threads N] [--force]
//   x-luks encrypt PLAIN OUT --passphrase-file F [--type luks2|luks1] [--cipher SPEC] [--key-size BITS] …
//   x-luks add-key IMAGE (--passphrase-file F | --key-file F) --new-passphrase-file F [--new-keyslot N] …
//   x-luks remove-key IMAGE --passphrase-file F [--keyslot N]
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
  type LuksHeader,
  type LuksVolume,
  openLuks,
  readHeader,
  unlockLuks,
} from '@x/luks';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { decryptThread } from './decrypt-threads.js';
import { dumpLuks, type LuksApi, luksSummary } from './format-luks.js';
import { type CliIo, report, UsageError } from './io.js';
import { checkOut, decryptTo, intoNewFile, progress } from './output.js';
import { readSecret } from './secrets.js';
import {
  addKeyCommand,
  KDF_OPTIONS,
  kdfOptions,
  kdfSummary,
  keyslotOptions,
  removeKeyCommand,
  wholeNumber,
} from './x-luks-keys.js';

export type { CliIo } from './io.js';
export { CHUNK_BYTES } from './output.js';

const LUKS: LuksApi = { readHeader, describeHeader, headerToJson, openLuks };

const USAGE = `usage:
  x-luks dump IMAGE [--json]
  x-luks decrypt IMAGE OUT (--passphrase-file FILE | --key-file FILE) [--keyslot N] [--threads N] [--force]
  x-luks encrypt PLAIN OUT --passphrase-file FILE [--type luks2|luks1] [--cipher SPEC] [--key-size BITS]
                 [--sector-size 512|4096] [--pbkdf argon2id|argon2i|pbkdf2]
                 [--iter-time MS | --pbkdf-force-iterations N] [--pbkdf-memory KIB]
                 [--pbkdf-parallel N] [--label L] [--force]
  x-luks add-key IMAGE (--passphrase-file FILE | --key-file FILE) --new-passphrase-file FILE
                 [--keyslot N] [--new-keyslot N] [--pbkdf …] [--iter-time MS | --pbkdf-force-iterations N]
                 [--pbkdf-memory KIB] [--pbkdf-parallel N]
  x-luks remove-key IMAGE --passphrase-file FILE [--keyslot N]

  dump        print the LUKS1/LUKS2 header: keyslots, segments, digests (--json: as JSON)
  decrypt     write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force
  encrypt     write a LUKS volume holding PLAIN to OUT, as cryptsetup luksFormat lays it out (LUKS2: 16 MiB
              of header, LUKS1: 2 MiB, then PLAIN encrypted, its last sector zero-padded); OUT must not
              exist unless --force
  add-key     add the passphrase of --new-passphrase-file in a new keyslot (the first free one, or
              --new-keyslot), unlocking with --passphrase-file or --key-file; IMAGE is changed in place
  remove-key  remove the keyslot the passphrase opens and overwrite its key material; never the last one
  --passphrase-file FILE   the passphrase: every byte of FILE, as cryptsetup --key-file reads it
                           (- reads stdin; from a terminal, one line typed without echo)
  --key-file FILE          the raw volume key (binary), as luksDump --dump-volume-key shows it
  --keyslot N              try only keyslot N
  --threads N              decrypt on N threads (default: one per core with the software AES kernels, one
                           with a hardware one, which outruns the disk); the output is the same for every N
  encrypt's defaults are cryptsetup 2.6 luksFormat's: --type luks2, --cipher aes-xts-plain64,
  --key-size 512 (256 for non-XTS ciphers), --sector-size 4096 (512 when PLAIN is not a multiple of
  4096; LUKS1: 512), --pbkdf argon2id (LUKS1: pbkdf2), --iter-time 2000, --pbkdf-memory 1048576 (at most
  half the memory), --pbkdf-parallel 4 (at most the CPUs); --pbkdf-force-iterations sets the cost without
  a benchmark. add-key's KDF defaults are the same.

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
  threads: number,
): Promise<void> {
  let src: Awaited<ReturnType<typeof openFileSource>> | undefined;
  // with threads and a passphrase: the key it unlocked (handed to the threads, wiped by decryptTo) and its keyslot
  let unlocked: { volumeKey: Uint8Array | undefined; keyslot: string | undefined } | undefined;
  try {
    await decryptTo(io, {
      command: 'x-luks',
      out,
      image,
      force,
      async open(): Promise<LuksVolume> {
        src = await openFileSource(image);
        if (threads === 1 || secret.passphrase === undefined) return openLuks(src, { ...secret, keyslot });
        // one unlock here, then this thread and each decrypt thread open the volume from its key
        const u = await unlockLuks(src, { passphrase: secret.passphrase, keyslot });
        unlocked = { volumeKey: u.volumeKey, keyslot: u.keyslot };
        return openLuks(src, { volumeKey: u.volumeKey });
      },
      summary: (v) => luksSummary(v, unlocked ? unlocked.keyslot : v.keyslot),
      threads:
        threads > 1
          ? {
              count: threads,
              format: 'luks',
              takeVolumeKey() {
                if (secret.volumeKey) return Uint8Array.from(secret.volumeKey); // main() wipes its own
                const key = unlocked?.volumeKey;
                if (unlocked) unlocked.volumeKey = undefined; // decryptTo owns it now, and wipes it
                return key;
              },
            }
          : undefined,
    });
  } finally {
    unlocked?.volumeKey?.fill(0); // not taken (decryptTo failed before the threads opened)
    await src?.close();
  }
}

/** The options of dump and decrypt (and some of the others'). */
const BASE_OPTIONS = {
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  'passphrase-file': { type: 'string' },
  'key-file': { type: 'string' },
  keyslot: { type: 'string' },
  threads: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
/** The options of encrypt, add-key and remove-key that dump and decrypt do not take. */
const WRITE_OPTIONS = {
  type: { type: 'string' },
  cipher: { type: 'string' },
  'key-size': { type: 'string' },
  'sector-size': { type: 'string' },
  ...KDF_OPTIONS,
  label: { type: 'string' },
  'new-passphrase-file': { type: 'string' },
  'new-keyslot': { type: 'string' },
} as const;
type OptionName = keyof typeof BASE_OPTIONS | keyof typeof WRITE_OPTIONS;
const KDF = Object.keys(KDF_OPTIONS) as (keyof typeof KDF_OPTIONS)[];
/** What each command takes (besides --help). */
const TAKES: Record<string, readonly OptionName[]> = {
  dump: ['json'],
  decrypt: ['passphrase-file', 'key-file', 'keyslot', 'threads', 'force'],
  encrypt: ['passphrase-file', 'type', 'cipher', 'key-size', 'sector-size', ...KDF, 'label', 'force'],
  'add-key': ['passphrase-file', 'key-file', 'keyslot', 'new-passphrase-file', 'new-keyslot', ...KDF],
  'remove-key': ['passphrase-file', 'keyslot'],
};

/** The most `--threads`: far more than any machine's cores; each thread holds a 4 MiB chunk. */
const MAX_THREADS = 256;

/**
 * `--threads`: a whole number from 1 to {@link MAX_THREADS}. By default one per core where the AES kernel
 * is the bottleneck (wasm-simd128, portable: about 300 MB/s a core here); one with a hardware AES kernel
 * (native-x64, native-arm64), whose one thread outruns the file system, so that more threads would only add
 * their start-up and compete with the writes (measured: 1 GiB in 0.75 s on one thread, 0.85 s on two).
 */
function threadCount(v: string | undefined): number {
  if (v === undefined) {
    let kernel = '';
    try {
      kernel = chooseKernel('@x/cli').name; // what the volume will run on: X_AES_KERNEL, else the best
    } catch {
      // an unusable X_AES_KERNEL: opening the volume says so
    }
    return kernel.startsWith('native-') ? 1 : Math.min(availableParallelism(), MAX_THREADS);
  }
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 1 && n <= MAX_THREADS))
    throw new UsageError(`--threads takes a whole number of threads from 1 to ${MAX_THREADS}, not "${v}"`);
  return n;
}

/** The createLuks options the command line asks for. */
function encryptOptions(values: Record<string, string | boolean | undefined>): Omit<CreateOptions, 'passphrase'> {
  const str = (k: string) => values[k] as string | undefined;
  const type = str('type') ?? 'luks2';
  if (type !== 'luks2' && type !== 'luks1') throw new UsageError(`--type ${type}: expected luks2 or luks1`);
  const keyBits = wholeNumber(str('key-size'), '--key-size');
  if (keyBits !== undefined && keyBits % 8 !== 0) throw new UsageError('--key-size takes bits, a multiple of 8');
  const sectorSize = wholeNumber(str('sector-size'), '--sector-size');
  if (sectorSize !== undefined && ![512, 1024, 2048, 4096].includes(sectorSize))
    throw new UsageError('--sector-size takes 512, 1024, 2048 or 4096');
  return {
    type,
    cipher: str('cipher'),
    keySize: keyBits,
    sectorSize,
    ...kdfOptions(values),
    label: str('label'),
  };
}

/** What `encrypt` says about the volume it wrote. */
function createdSummary(h: LuksHeader): string {
  const [cipher, keyBits, sector] =
    h.version === 1
      ? [h.cipher, h.keyBytes * 8, 512]
      : [h.segments[0].encryption, h.keyslots[0].keySize * 8, h.segments[0].sectorSize];
  return `LUKS${h.version} ${cipher}, ${keyBits}-bit key, ${sector}-byte sectors, keyslot 0 ${kdfSummary(h, '0')}, UUID ${h.uuid}`;
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
  if (decryptThread) {
    // this is a decrypt thread running the bundled command (./decrypt-threads.ts): it has no command line
    await decryptThread;
    return 0;
  }
  let secretBytes: Uint8Array | undefined, newSecret: Uint8Array | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { ...BASE_OPTIONS, ...WRITE_OPTIONS },
    });
    const [command, ...rest] = positionals;
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const takes = TAKES[command ?? ''];
    const given = (Object.keys(values) as OptionName[]).filter((o) => values[o] !== undefined && o !== 'help');
    const wrong = takes && given.find((o) => !takes.includes(o));
    if (wrong !== undefined) {
      // dump and decrypt know none of the others' options: parsed again without them, for parseArgs's own error
      if (command === 'dump' || command === 'decrypt')
        parseArgs({ args: [...argv], allowPositionals: true, options: BASE_OPTIONS });
      throw new UsageError(`${command} does not take --${wrong}`);
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
      const threads = threadCount(values.threads);
      secretBytes = await readSecret(io, (pf ?? kf)!, pf !== undefined ? 'passphrase' : 'volume key');
      const secret = pf !== undefined ? { passphrase: secretBytes } : { volumeKey: secretBytes };
      await decrypt(io, rest[0], rest[1], secret, values.keyslot, values.force === true, threads);
      return 0;
    }
    if (command === 'encrypt') {
      if (rest.length !== 2) throw new UsageError('encrypt takes PLAIN and OUT');
      const pf = values['passphrase-file'];
      if (pf === undefined) throw new UsageError('encrypt needs --passphrase-file');
      const options = encryptOptions(values);
      secretBytes = await readSecret(io, pf, 'passphrase');
      await encrypt(io, rest[0], rest[1], secretBytes, options, values.force === true);
      return 0;
    }
    if (command === 'add-key') {
      if (rest.length !== 1) throw new UsageError('add-key takes one IMAGE');
      const pf = values['passphrase-file'],
        kf = values['key-file'],
        nf = values['new-passphrase-file'];
      if (nf === undefined) throw new UsageError('add-key needs --new-passphrase-file');
      if ((pf === undefined) === (kf === undefined))
        throw new UsageError('add-key needs exactly one of --passphrase-file and --key-file');
      if ((pf ?? kf) === '-' && nf === '-')
        throw new UsageError('the secrets come from two files: only one of them can be - (standard input)');
      const options = keyslotOptions(values); // usage mistakes before any secret is read
      secretBytes = await readSecret(io, (pf ?? kf)!, pf !== undefined ? 'passphrase' : 'volume key');
      newSecret = await readSecret(io, nf, 'new passphrase');
      const secret = pf !== undefined ? { passphrase: secretBytes } : { volumeKey: secretBytes };
      await addKeyCommand(io, rest[0], secret, newSecret, options);
      return 0;
    }
    if (command === 'remove-key') {
      if (rest.length !== 1) throw new UsageError('remove-key takes one IMAGE');
      const pf = values['passphrase-file'];
      if (pf === undefined) throw new UsageError('remove-key needs --passphrase-file');
      const options = keyslotOptions(values);
      secretBytes = await readSecret(io, pf, 'passphrase');
      await removeKeyCommand(io, rest[0], secretBytes, options);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command "${command}"`);
  } catch (e) {
    return report(io, 'x-luks', USAGE, e);
  } finally {
    secretBytes?.fill(0);
    newSecret?.fill(0);
  }
}
