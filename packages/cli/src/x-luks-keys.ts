// `x-luks add-key` and `x-luks remove-key`: keyslots added and removed in place, through @x/luks's addKey
// and removeKey over the image opened for writing (their order of writes keeps a volume that opens at
// every step). Also what `encrypt` shares with them: the passphrase file given, the KDF options read, a
// keyslot's KDF described, whole numbers read. Their table entries (usages, options) are
// ./x-luks-commands.ts; this module is loaded when one of them runs.
import { openFileSource } from '@x/byte-source/file';
import { addKey, type KdfOptions, type LuksHeader, readHeader, removeKey } from '@x/luks';
import { type CliIo, fileError, UsageError } from './io.js';
import type { OptionValues } from './options.js';
import { readSecret, VOLUME_KEY_MAX } from './secrets.js';

/** A whole number from the command line, or a UsageError naming the option. */
export function wholeNumber(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${option} takes a whole number`);
  return Number(v);
}

/** The passphrase file given (`-d`/`--key-file` or `--passphrase-file`, one of them), or undefined. */
export function passphraseFile(values: OptionValues): string | undefined {
  const [kf, pf] = [values['key-file'], values['passphrase-file']] as (string | undefined)[];
  if (kf !== undefined && pf !== undefined) throw new UsageError('give --key-file or --passphrase-file, not both');
  return kf ?? pf;
}

/** Reads a secret file (`-`: stdin), a missing one in one line; bounded as ./secrets.ts says. */
export const readSecretFile = (io: CliIo, file: string, what: string): Promise<Uint8Array> =>
  readSecret(io, file, what, what === 'volume key' ? VOLUME_KEY_MAX : undefined).catch((e: unknown) => {
    throw fileError(e, file);
  });

/** What the KDF options on the command line ask for (unset ones stay undefined: the library's defaults). */
export function kdfOptions(values: OptionValues): KdfOptions {
  const str = (k: string) => values[k] as string | undefined;
  const pbkdf = str('pbkdf');
  if (pbkdf !== undefined && pbkdf !== 'argon2id' && pbkdf !== 'argon2i' && pbkdf !== 'pbkdf2')
    throw new UsageError(`--pbkdf ${pbkdf}: expected argon2id, argon2i or pbkdf2`);
  if (values['iter-time'] !== undefined && values['pbkdf-force-iterations'] !== undefined)
    throw new UsageError('give --iter-time or --pbkdf-force-iterations, not both');
  return {
    pbkdf: pbkdf as KdfOptions['pbkdf'],
    iterTime: wholeNumber(str('iter-time'), '--iter-time'),
    iterations: wholeNumber(str('pbkdf-force-iterations'), '--pbkdf-force-iterations'),
    memory: wholeNumber(str('pbkdf-memory'), '--pbkdf-memory'),
    parallelism: wholeNumber(str('pbkdf-parallel'), '--pbkdf-parallel'),
  };
}

/** How a keyslot's key derivation reads in a message: `pbkdf2-sha256, 1000 iterations`. */
export function kdfSummary(h: LuksHeader, keyslot: string): string {
  if (h.version === 1) return `pbkdf2-${h.hashSpec}, ${h.keyslots[Number(keyslot)].iterations} iterations`;
  const kdf = h.keyslots.find((k) => k.id === keyslot)?.kdf;
  if (!kdf) return 'no KDF';
  return kdf.type === 'pbkdf2'
    ? `pbkdf2-${kdf.hash}, ${kdf.iterations} iterations`
    : `${kdf.type}, time ${kdf.time}, memory ${kdf.memory} KiB, ${kdf.cpus} threads`;
}

/** A keyslot number from the command line. */
function keyslotNumber(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) > 31) throw new UsageError(`${option} takes a keyslot number (0 … 31)`);
  return Number(v);
}

/** `add-key IMAGE …` (./x-luks-commands.ts): a new keyslot, in place. */
export async function runAddKey(args: readonly string[], values: OptionValues, io: CliIo): Promise<void> {
  if (args.length !== 1) throw new UsageError('add-key takes one IMAGE');
  const pf = passphraseFile(values),
    vk = values['volume-key-file'] as string | undefined,
    nf = values['new-keyfile'] as string | undefined;
  if (nf === undefined) throw new UsageError('add-key needs --new-keyfile');
  if ((pf === undefined) === (vk === undefined))
    throw new UsageError('add-key needs exactly one of --key-file and --volume-key-file');
  if ((pf ?? vk) === '-' && nf === '-')
    throw new UsageError('the secrets come from two files: only one of them can be - (standard input)');
  // usage mistakes before any secret is read
  const kdf = kdfOptions(values);
  const keyslot = keyslotNumber(values['key-slot'] as string | undefined, '--key-slot');
  const newKeyslot = keyslotNumber(values['new-key-slot'] as string | undefined, '--new-key-slot');
  let old: Uint8Array | undefined, fresh: Uint8Array | undefined;
  try {
    old = await readSecretFile(io, (pf ?? vk)!, pf !== undefined ? 'passphrase' : 'volume key');
    fresh = await readSecretFile(io, nf, 'new passphrase');
    const secret = pf !== undefined ? { passphrase: old } : { volumeKey: old };
    const file = await openFileSource(args[0], { writable: true }).catch((e: unknown) => {
      throw fileError(e, args[0]);
    });
    try {
      const id = await addKey(file, { ...secret, newPassphrase: fresh, keyslot, newKeyslot, ...kdf });
      io.stderr.write(`x-luks: added keyslot ${id} (${kdfSummary(await readHeader(file), id)})\n`);
    } finally {
      await file.close();
    }
  } finally {
    old?.fill(0);
    fresh?.fill(0);
  }
}

/** `remove-key IMAGE -d P` (./x-luks-commands.ts): the keyslot P opens removed, in place. */
export async function runRemoveKey(args: readonly string[], values: OptionValues, io: CliIo): Promise<void> {
  if (args.length !== 1) throw new UsageError('remove-key takes one IMAGE');
  const pf = passphraseFile(values);
  if (pf === undefined) throw new UsageError('remove-key needs --key-file');
  const keyslot = keyslotNumber(values['key-slot'] as string | undefined, '--key-slot');
  const passphrase = await readSecretFile(io, pf, 'passphrase');
  try {
    const file = await openFileSource(args[0], { writable: true }).catch((e: unknown) => {
      throw fileError(e, args[0]);
    });
    try {
      const allowLast = values['batch-mode'] === true;
      const id = await removeKey(file, { passphrase, keyslot, allowLast }).catch((e: unknown) => {
        if (e instanceof Error && /is the last one that opens the volume/.test(e.message))
          throw new Error(
            `@x/cli: keyslot ${/keyslot (\d+)/.exec(e.message)?.[1]} is the last one that opens the volume: removing it would leave a volume nobody can open (-q, --batch-mode removes it anyway, as cryptsetup luksRemoveKey -q does)`,
            { cause: e },
          );
        throw e;
      });
      io.stderr.write(`x-luks: removed keyslot ${id}; its key material is overwritten\n`);
    } finally {
      await file.close();
    }
  } finally {
    passphrase.fill(0);
  }
}
