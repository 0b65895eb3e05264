// `decrypt IMAGE OUT` of any format (x-disk's and x-luks's): the secret option checked against what the
// image's format takes, read, and the volume opened and written to OUT by ./output.ts. Loaded when
// `decrypt` runs (./disk-commands.ts is its table entry), with the AES kernels' registry it needs anyway.
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { type DiskFormat, orList, type Secret } from '@x/disk-format';
import { availableParallelism } from 'node:os';
import { type FormatChoice, KDF_LIMIT_OPTIONS, SECRET_OPTIONS, type SecretOption } from './disk-options.js';
import { formatOf, namedFormat, openImage } from './image.js';
import { type CliIo, fileError, UsageError } from './io.js';
import type { OptionValues } from './options.js';
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

/**
 * `decrypt IMAGE OUT` over `choice`'s formats with the options `values`: the usage checked, the image's
 * format found, the secret read, the plaintext written to OUT (see ./output.ts); the secret is wiped after.
 */
export async function decrypt(
  choice: FormatChoice,
  image: string,
  out: string,
  values: OptionValues,
  io: CliIo,
): Promise<void> {
  const option = secretOption(values);
  const named = namedFormat(choice, values.type as string | undefined);
  const keyslot = values['key-slot'] as string | undefined;
  if (keyslot !== undefined && !/^\d+$/.test(keyslot)) throw new UsageError('--key-slot takes a keyslot number');
  const threads = threadCount(values.threads as string | undefined);
  const limits = kdfLimitValues(values);
  let bytes: Uint8Array | undefined;
  const src = await openImage(image);
  try {
    const format = await formatOf(choice, src, image, named);
    checkOptions(choice, format, option, keyslot !== undefined);
    if (option) bytes = await readGiven(io, option, values[option.name] as string);
    const options = { keyslot, share: threads > 1, ...limits };
    const secret: Secret | undefined =
      option && bytes && option.kind !== 'volumeKey' ? { kind: option.kind, bytes } : undefined;
    await decryptTo(io, {
      command: choice.command,
      out,
      image,
      force: values.force === true,
      threads,
      imageSize: src.size,
      open: () =>
        option?.kind === 'volumeKey'
          ? format.openWithVolumeKey!(src, bytes!, options)
          : format.open(src, secret, options),
    });
  } finally {
    bytes?.fill(0);
    await src.close();
  }
}
