// `decrypt IMAGE OUT` of any format (x-disk's and x-luks's): the secret option checked against what the
// image's format takes, read, and the volume opened and written to OUT by ./output.ts. Loaded when
// `decrypt` runs (./disk-commands.ts is its table entry), with the AES kernels' registry it needs anyway.
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { type DiskFormat, orList, type Secret, type SecretKind } from '@x/disk-format';
import { availableParallelism } from 'node:os';
import {
  type FormatChoice,
  KDF_LIMIT_OPTIONS,
  offersTcrypt,
  SECRET_OPTIONS,
  type SecretOption,
} from './disk-options.js';
import { formatOf, namedFormat, openImage, refuseTcryptOptions } from './image.js';
import { type CliIo, fileError, UsageError } from './io.js';
import type { OptionLists, OptionValues } from './options.js';
import { decryptTo } from './output.js';
import { readSecret, VOLUME_KEY_MAX } from './secrets.js';

/** The option that names `kind` in messages: cryptsetup's spelling. */
const optionOf = (kind: SecretOption['kind']) => `--${SECRET_OPTIONS.find((s) => s.kind === kind)!.name}`;

/** The secret option given, if any (a UsageError for more than one). */
function secretOption(values: OptionValues): SecretOption | undefined {
  const given = SECRET_OPTIONS.filter((s) => values[s.name] !== undefined);
  if (given.length > 1) throw new UsageError(`decrypt takes at most one of ${orList(given.map((s) => `--${s.name}`))}`);
  return given[0];
}

/** Refuses what `format` does not take: a secret it has no use for, none where it needs one, --key-slot. */
function checkOptions(choice: FormatChoice, format: DiskFormat, given: SecretOption | undefined, keyslot: boolean) {
  const kinds = [...format.secrets, ...(format.openWithVolumeKey ? (['volumeKey'] as const) : [])];
  const takes = orList(kinds.map(optionOf));
  if (given && !kinds.includes(given.kind))
    throw new UsageError(`--${given.name} does not open a ${format.name} volume (it takes ${takes})`);
  if (!given && !format.clearKey) throw new UsageError(`a ${format.name} volume needs ${takes}`);
  if (keyslot && !format.keyslots) {
    const withSlots = orList(choice.formats.filter((f) => f.keyslots).map((f) => f.name));
    throw new UsageError(`--key-slot is for ${withSlots} volumes, not ${format.name}`);
  }
}

/** The bytes of the secret `option` gives: a file's, stdin's, or (`--recovery-password`) the digits themselves. */
async function readGiven(io: CliIo, option: SecretOption, value: string): Promise<Uint8Array> {
  if (option.kind === 'recoveryPassword' && value !== '-') return new TextEncoder().encode(value);
  return readSecret(io, value, option.what, option.kind === 'volumeKey' ? VOLUME_KEY_MAX : undefined).catch(
    (e: unknown) => {
      throw fileError(e, value);
    },
  );
}

/** The most `--threads`: far more than any machine's cores; each thread holds a 4 MiB chunk. */
const MAX_THREADS = 256;

/**
 * `--threads`: a whole number from 1 to {@link MAX_THREADS}. By default one per core where the AES kernel
 * is the bottleneck (wasm-simd128, portable: about 300 MB/s a core here); one with a hardware AES kernel
 * (native-x64, native-arm64), whose one thread outruns the file system, so that more threads would only add
 * their start-up and compete with the writes (measured: 1 GiB in 0.75 s on one thread, 0.85 s on two).
 */
export function threadCount(v: string | undefined): number {
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

/** The KDF bounds given (`--max-iterations N` …), as the open options of every format take them. */
export function kdfLimitValues(
  values: OptionValues,
): Partial<Record<(typeof KDF_LIMIT_OPTIONS)[number]['api'], number>> {
  const limits: Partial<Record<(typeof KDF_LIMIT_OPTIONS)[number]['api'], number>> = {};
  for (const o of KDF_LIMIT_OPTIONS) {
    const v = values[o.name] as string | undefined;
    if (v === undefined) continue;
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    if (!(n >= 1 && n <= 0xffff_ffff))
      throw new UsageError(`--${o.name} takes a whole number from 1 to 4294967295, not "${v}"`);
    limits[o.api] = n;
  }
  return limits;
}

/** The format to open with (bound to the TrueCrypt options), its secret or volume key, and how to wipe them. */
interface Unlock {
  readonly format: DiskFormat;
  readonly secret: Secret | undefined;
  readonly volumeKey: Uint8Array | undefined;
  /** Turns an error of opening into the command's words. */
  readonly inWords: (e: unknown) => unknown;
  wipe(): void;
}

/** The secret option of a format other than TrueCrypt/VeraCrypt, checked and read. */
async function formatSecret(
  choice: FormatChoice,
  format: DiskFormat,
  values: OptionValues,
  lists: OptionLists,
  io: CliIo,
): Promise<Unlock> {
  refuseTcryptOptions(values, lists, format);
  const option = secretOption(values);
  checkOptions(choice, format, option, values['key-slot'] !== undefined);
  const bytes = option ? await readGiven(io, option, values[option.name] as string) : undefined;
  const volumeKey = option?.kind === 'volumeKey' ? bytes : undefined;
  const secret: Secret | undefined =
    option && bytes && !volumeKey ? { kind: option.kind as SecretKind, bytes } : undefined;
  return { format, secret, volumeKey, inWords: (e) => e, wipe: () => bytes?.fill(0) };
}

/** TrueCrypt/VeraCrypt's options (./tcrypt.ts), and its volume key when `--volume-key-file` gives it. */
async function tcryptSecret(
  choice: FormatChoice,
  values: OptionValues,
  lists: OptionLists,
  io: CliIo,
): Promise<Unlock> {
  const other = SECRET_OPTIONS.find(
    (s) => values[s.name] !== undefined && !['key-file', 'passphrase-file', 'volume-key-file'].includes(s.name),
  );
  if (other)
    throw new UsageError(
      `--${other.name} does not open a TrueCrypt/VeraCrypt volume (it takes --passphrase-file, -d keyfiles or --volume-key-file)`,
    );
  if (values['key-slot'] !== undefined) throw new UsageError('--key-slot is for LUKS volumes, not TrueCrypt/VeraCrypt');
  const { tcryptUnlock, inCommandWords } = await import('./tcrypt.js');
  const keyFile = values['volume-key-file'] as string | undefined;
  const t = await tcryptUnlock(values, lists, io, keyFile !== undefined);
  try {
    const volumeKey =
      keyFile === undefined
        ? undefined
        : await readGiven(io, SECRET_OPTIONS.find((s) => s.kind === 'volumeKey')!, keyFile);
    return {
      format: t.format,
      secret: t.secret,
      volumeKey,
      inWords: (e) => inCommandWords(e, choice.command),
      wipe() {
        t.wipe();
        volumeKey?.fill(0);
      },
    };
  } catch (e) {
    t.wipe();
    throw e;
  }
}

/**
 * `decrypt IMAGE OUT` over `choice`'s formats with the options `values` (and `lists`, every value of the
 * repeatable `-d`): the usage checked, the image's format found, the secret read, the plaintext written to
 * OUT (see ./output.ts); the secret is wiped after.
 */
export async function decrypt(
  choice: FormatChoice,
  image: string,
  out: string,
  values: OptionValues,
  io: CliIo,
  lists: OptionLists = {},
): Promise<void> {
  const named = namedFormat(choice, values.type as string | undefined);
  const keyslot = values['key-slot'] as string | undefined;
  if (keyslot !== undefined && !/^\d+$/.test(keyslot)) throw new UsageError('--key-slot takes a keyslot number');
  const threads = threadCount(values.threads as string | undefined);
  const limits = kdfLimitValues(values);
  let unlock: Unlock | undefined;
  const src = await openImage(image);
  try {
    const format = await formatOf(choice, src, image, named);
    unlock =
      offersTcrypt(choice) && format.type === 'tcrypt'
        ? await tcryptSecret(choice, values, lists, io)
        : await formatSecret(choice, format, values, lists, io);
    const { secret, volumeKey, inWords } = unlock;
    const opening = unlock.format;
    const options = { keyslot, share: threads > 1, ...limits };
    await decryptTo(io, {
      command: choice.command,
      out,
      image,
      force: values.force === true,
      threads,
      imageSize: src.size,
      open: () =>
        (volumeKey ? opening.openWithVolumeKey!(src, volumeKey, options) : opening.open(src, secret, options)).catch(
          (e: unknown) => {
            throw inWords(e);
          },
        ),
    });
  } finally {
    unlock?.wipe();
    await src.close();
  }
}
