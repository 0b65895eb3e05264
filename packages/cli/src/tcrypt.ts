// TrueCrypt/VeraCrypt (`--type tcrypt`) as cryptsetup's tcryptOpen and tcryptDump take it: `-d, --key-file`
// is a keyfile (repeatable), the passphrase comes from `--passphrase-file` or is asked for (from a
// terminal without echo, else the first line of stdin, as cryptsetup reads a passphrase that no key file
// gives), `--veracrypt-pim N` or `--veracrypt-query-pim`, `--tcrypt-hidden`, `--tcrypt-system`,
// `--tcrypt-backup`, `--hash NAME` (the PRF hint), `--disable-veracrypt`. They are bound to the format with
// `@x/tcrypt`'s tcryptFormatWith (a DiskFormat has no room for them); `dump` and `decrypt` then use that
// format as any other. Loaded only when a command runs on `--type tcrypt`.
import { open } from 'node:fs/promises';
import type { DiskFormat, Secret } from '@x/disk-format';
import { KEYFILE_BYTES, PRFS, prfOf, type TcryptFormatOptions, tcryptFormatWith } from '@x/tcrypt';
import { fileError, UsageError } from './io.js';
import type { OptionLists, OptionValues } from './options.js';
import { readSecret } from './secrets.js';

/** The most keyfiles: cryptsetup's MAX_KEYFILES. */
export const MAX_KEYFILES = 32;
/** VeraCrypt's largest PIM (of a volume that is not system encryption). */
const MAX_PIM = 2_147_468;

/** The format bound to the options, the passphrase it opens with, and how to wipe what was read. */
export interface TcryptUnlock {
  readonly format: DiskFormat;
  /** The passphrase (undefined with `--volume-key-file`). */
  readonly secret: Secret | undefined;
  /** Wipes the passphrase and the keyfiles read. */
  wipe(): void;
}

/**
 * Answers prompts: from a terminal, each one line typed without echo; from a pipe or file, the lines of
 * stdin in turn (read once, bounded as a key file), the newline not part of the answer.
 */
class Prompts {
  private rest: Uint8Array | undefined;
  private all: Uint8Array | undefined;
  constructor(private readonly io: Parameters<typeof readSecret>[0]) {}

  async line(what: string): Promise<Uint8Array> {
    if ((this.io.stdin as NodeJS.ReadStream).isTTY) return readSecret(this.io, '-', what);
    if (this.all === undefined) {
      this.all = await readSecret(this.io, '-', what);
      this.rest = this.all;
    }
    const rest = this.rest!;
    const nl = rest.indexOf(0x0a);
    const end = nl < 0 ? rest.length : nl;
    this.rest = rest.subarray(nl < 0 ? end : end + 1);
    return rest.slice(0, end);
  }

  wipe(): void {
    this.all?.fill(0);
  }
}

/** The first KEYFILE_BYTES of the keyfile `path` (VeraCrypt reads no more), or all of a shorter one. */
async function readKeyfile(path: string): Promise<Uint8Array> {
  if (path === '-') throw new UsageError('-d - : a TrueCrypt/VeraCrypt keyfile is a file (stdin gives the passphrase)');
  try {
    const fh = await open(path, 'r');
    try {
      const buf = new Uint8Array(KEYFILE_BYTES);
      let got = 0;
      for (;;) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
        got += bytesRead;
        if (bytesRead === 0 || got === buf.length) break;
      }
      const bytes = buf.slice(0, got);
      buf.fill(0);
      return bytes;
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw fileError(e, path);
  }
}

/** A PIM as typed or given: a whole number from 0 (`zero`: none) or 1 to VeraCrypt's largest. */
function pimOf(text: string, option: string, zero: boolean): number | undefined {
  const n = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= (zero ? 0 : 1) && n <= MAX_PIM))
    throw new UsageError(`${option} takes a whole number from ${zero ? 0 : 1} to ${MAX_PIM}, not "${text}"`);
  return n === 0 ? undefined : n;
}

/** The options that are not secrets: which header, the PRF hint, VeraCrypt or not; checked as cryptsetup does. */
function headerOptions(values: OptionValues): TcryptFormatOptions {
  const hidden = values['tcrypt-hidden'] === true;
  const system = values['tcrypt-system'] === true;
  const backup = values['tcrypt-backup'] === true;
  if (system && (hidden || backup))
    throw new UsageError(
      `--tcrypt-system takes neither --tcrypt-hidden nor --tcrypt-backup (a system drive has one header, in sector 62)`,
    );
  const veracrypt = values['disable-veracrypt'] !== true;
  if (!veracrypt && (values['veracrypt-pim'] !== undefined || values['veracrypt-query-pim'] === true))
    throw new UsageError(
      '--veracrypt-pim and --veracrypt-query-pim are for VeraCrypt volumes, not --disable-veracrypt',
    );
  if (values['veracrypt-pim'] !== undefined && values['veracrypt-query-pim'] === true)
    throw new UsageError('--veracrypt-pim and --veracrypt-query-pim are mutually exclusive');
  let prf: string | undefined;
  const hash = values.hash as string | undefined;
  if (hash !== undefined)
    try {
      prf = prfOf(hash);
    } catch {
      throw new UsageError(`--hash takes ${PRFS.join(', ')}, not "${hash}"`);
    }
  return { hidden, system, backup, veracrypt, ...(prf ? { prf } : {}) };
}

/**
 * The TrueCrypt/VeraCrypt format bound to the options of the command line, and its passphrase: the
 * keyfiles (`-d`), the passphrase (`--passphrase-file`, else asked for), the PIM, the header.
 * With `volumeKey` (`--volume-key-file`) no secret is read and only the outer volume of a container opens.
 *
 * @throws UsageError for options that do not go together or a bad PIM or PRF name.
 */
export async function tcryptUnlock(
  values: OptionValues,
  lists: OptionLists,
  io: Parameters<typeof readSecret>[0],
  volumeKey: boolean,
): Promise<TcryptUnlock> {
  const header = headerOptions(values);
  const keyfilePaths = lists['key-file'] ?? [];
  if (volumeKey) {
    if (keyfilePaths.length > 0 || values['passphrase-file'] !== undefined)
      throw new UsageError('--volume-key-file opens the volume without a passphrase or keyfiles (-d)');
    if (header.hidden || header.system)
      throw new UsageError(
        '--volume-key-file opens the outer volume of a container; a hidden or system volume opens with its passphrase',
      );
    return { format: tcryptFormatWith(header), secret: undefined, wipe() {} };
  }
  if (keyfilePaths.length > MAX_KEYFILES)
    throw new UsageError(`at most ${MAX_KEYFILES} keyfiles (-d), as cryptsetup: ${keyfilePaths.length} given`);
  const pimGiven = values['veracrypt-pim'] as string | undefined;
  let pim = pimGiven === undefined ? undefined : pimOf(pimGiven, '--veracrypt-pim', true);
  const keyfiles: Uint8Array[] = [];
  const prompts = new Prompts(io);
  let passphrase: Uint8Array | undefined;
  try {
    for (const path of keyfilePaths) keyfiles.push(await readKeyfile(path));
    const file = values['passphrase-file'] as string | undefined;
    if (file === '-' && values['veracrypt-query-pim'] === true && !(io.stdin as NodeJS.ReadStream).isTTY)
      throw new UsageError('--veracrypt-query-pim reads the PIM from stdin, which --passphrase-file - takes whole');
    passphrase =
      file === undefined
        ? await prompts.line('passphrase')
        : await readSecret(io, file, 'passphrase').catch((e: unknown) => {
            throw fileError(e, file);
          });
    if (values['veracrypt-query-pim'] === true) {
      const typed = await prompts.line('VeraCrypt PIM');
      const text = new TextDecoder().decode(typed);
      typed.fill(0);
      pim = pimOf(text, 'the VeraCrypt PIM', false);
    }
  } catch (e) {
    for (const k of keyfiles) k.fill(0);
    passphrase?.fill(0);
    throw e;
  } finally {
    prompts.wipe();
  }
  const bytes = passphrase!;
  const format = tcryptFormatWith({ ...header, keyfiles, passphrase: bytes, ...(pim ? { pim } : {}) });
  return {
    format,
    secret: { kind: 'passphrase', bytes },
    wipe() {
      bytes.fill(0);
      for (const k of keyfiles) k.fill(0);
    },
  };
}

/**
 * The message of a header no AES mode decrypts in the command's words: `@x/tcrypt` says "a cipher this
 * package does not open"; the user ran `command`.
 */
export function inCommandWords(e: unknown, command: string): unknown {
  if (e instanceof Error && e.message.includes('a cipher this package does not open'))
    e.message = e.message.replace('a cipher this package does not open', `a cipher ${command} does not open`);
  return e;
}
