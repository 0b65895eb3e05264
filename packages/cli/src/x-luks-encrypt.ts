// `x-luks encrypt`: PLAIN into a new LUKS2 (or LUKS1) image OUT, laid out as cryptsetup luksFormat lays it
// out, written through the output rules of ./output.ts (a temporary file renamed once complete). Its table
// entry is ./x-luks-commands.ts; this module is loaded when `encrypt` runs.
import { openFileSource } from '@x/byte-source/file';
import { type CreateOptions, createLuks, type LuksHeader } from '@x/luks';
import { type CliIo, fileError, UsageError } from './io.js';
import type { OptionValues } from './options.js';
import { checkOut, intoNewFile, progress } from './output.js';
import { kdfOptions, kdfSummary, passphraseFile, readSecretFile, wholeNumber } from './x-luks-keys.js';

/** The createLuks options the command line asks for. */
function encryptOptions(values: OptionValues): Omit<CreateOptions, 'passphrase'> {
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
 * renamed to OUT once complete and removed on any failure or signal (./signals.ts): no partial OUT is ever left.
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
  const src = await openFileSource(plain).catch((e: unknown) => {
    throw fileError(e, plain);
  });
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

/** `encrypt PLAIN OUT -d FILE …` (./x-luks-commands.ts). */
export async function runEncrypt(args: readonly string[], values: OptionValues, io: CliIo): Promise<void> {
  if (args.length !== 2) throw new UsageError('encrypt takes PLAIN and OUT');
  const pf = passphraseFile(values);
  if (pf === undefined) throw new UsageError('encrypt needs --key-file');
  const options = encryptOptions(values);
  const passphrase = await readSecretFile(io, pf, 'passphrase');
  try {
    await encrypt(io, args[0], args[1], passphrase, options, values.force === true);
  } finally {
    passphrase.fill(0);
  }
}
