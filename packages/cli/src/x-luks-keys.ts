// `x-luks add-key` and `x-luks remove-key`: keyslots added and removed in place, through @x/luks's addKey
// and removeKey over the image opened for writing (their order of writes keeps a volume that opens at
// every step). Also the KDF options `encrypt` and `add-key` share, as cryptsetup spells them.
import { openFileSource } from '@x/byte-source/file';
import { addKey, type KdfOptions, type LuksHeader, readHeader, removeKey } from '@x/luks';
import { type CliIo, UsageError } from './io.js';

/** A whole number from the command line, or a UsageError naming the option. */
export function wholeNumber(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${option} takes a whole number`);
  return Number(v);
}

/** The key derivation options of `encrypt` and `add-key`: --pbkdf, --iter-time or --pbkdf-force-iterations, … */
export const KDF_OPTIONS = {
  pbkdf: { type: 'string' },
  'iter-time': { type: 'string' },
  'pbkdf-force-iterations': { type: 'string' },
  'pbkdf-memory': { type: 'string' },
  'pbkdf-parallel': { type: 'string' },
} as const;

/** What the KDF options on the command line ask for (unset ones stay undefined: the library's defaults). */
export function kdfOptions(values: Record<string, string | boolean | undefined>): KdfOptions {
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

/** The command line of `add-key` and `remove-key`, checked before any secret is read. */
export interface KeyslotOptions {
  kdf: KdfOptions;
  keyslot?: number;
  newKeyslot?: number;
}

/** Reads and checks the options of `add-key` and `remove-key` (a UsageError for a mistake). */
export function keyslotOptions(values: Record<string, string | boolean | undefined>): KeyslotOptions {
  return {
    kdf: kdfOptions(values),
    keyslot: keyslotNumber(values.keyslot as string | undefined, '--keyslot'),
    newKeyslot: keyslotNumber(values['new-keyslot'] as string | undefined, '--new-keyslot'),
  };
}

/**
 * `add-key IMAGE (--passphrase-file OLD | --key-file VK) --new-passphrase-file NEW`: a new keyslot for NEW,
 * unlocked with OLD (or the volume key), in place.
 */
export async function addKeyCommand(
  io: CliIo,
  image: string,
  secret: { passphrase: Uint8Array } | { volumeKey: Uint8Array },
  newPassphrase: Uint8Array,
  options: KeyslotOptions,
): Promise<void> {
  const file = await openFileSource(image, { writable: true });
  try {
    const id = await addKey(file, {
      ...secret,
      newPassphrase,
      keyslot: options.keyslot,
      newKeyslot: options.newKeyslot,
      ...options.kdf,
    });
    io.stderr.write(`x-luks: added keyslot ${id} (${kdfSummary(await readHeader(file), id)})\n`);
  } finally {
    await file.close();
  }
}

/** `remove-key IMAGE --passphrase-file P`: the keyslot P opens is removed, in place; never the last one. */
export async function removeKeyCommand(
  io: CliIo,
  image: string,
  passphrase: Uint8Array,
  options: KeyslotOptions,
): Promise<void> {
  const { keyslot } = options;
  const file = await openFileSource(image, { writable: true });
  try {
    const id = await removeKey(file, { passphrase, keyslot }).catch((e: unknown) => {
      if (e instanceof Error && /is the last one that opens the volume/.test(e.message))
        throw new Error(
          `@x/cli: keyslot ${/keyslot (\d+)/.exec(e.message)?.[1]} is the last one that opens the volume: removing it would leave a volume nobody can open (cryptsetup luksKillSlot does it, if that is what you want)`,
          { cause: e },
        );
      throw e;
    });
    io.stderr.write(`x-luks: removed keyslot ${id}; its key material is overwritten\n`);
  } finally {
    await file.close();
  }
}
