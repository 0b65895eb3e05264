/**
 * `@x/tcrypt/format`: TrueCrypt and VeraCrypt as a {@link DiskFormat} of `@x/disk-format`, what `x-disk`
 * and the web page use. A TrueCrypt header is indistinguishable from random bytes, so the format has no
 * `detect`: it is chosen by name (`--type tcrypt`), and even its header needs the secret to be read.
 * `tcryptFormat` opens with a passphrase alone; `tcryptFormatWith(options)` is the same format bound to the
 * options a DiskFormat cannot carry (keyfiles, PIM, hidden, system, backup, the PRF hint, a detached
 * `header` such as the drive of a system partition image, the passphrase for `readHeader`). Cheap to import: the header, key derivation and volume code load on first use.
 *
 * @example
 * ```ts
 * import { tcryptFormatWith } from '@x/tcrypt/format';
 * const format = tcryptFormatWith({ keyfiles: [kf1, kf2], pim: 485, passphrase: 'secret' });
 * console.log((await format.readHeader(source)).describe()); // as `cryptsetup tcryptDump`
 * ```
 *
 * @packageDocumentation
 */
import type { ByteSource } from '@x/byte-source';
import {
  type DiskFormat,
  type DiskHeader,
  limitsOf,
  type Opened,
  type OpenOptions,
  passphraseOf,
  sizeText,
} from '@x/disk-format';
import type { TcryptOpenOptions } from './volume.js';

/** What {@link tcryptFormatWith} binds: the open options but the kernel and sharing, which come with each call. */
export type TcryptFormatOptions = Omit<TcryptOpenOptions, 'kernel' | 'share' | 'volumeKey'>;

async function open(source: ByteSource, o: TcryptOpenOptions, options: OpenOptions = {}): Promise<Opened> {
  const { openTcrypt } = await import('./volume.js');
  const v = await openTcrypt(source, { ...o, kernel: options.kernel, share: options.share, ...limitsOf(options) });
  const h = v.header;
  const name = h === undefined ? 'TrueCrypt/VeraCrypt' : h.magic === 'VERA' ? 'VeraCrypt' : 'TrueCrypt';
  const how =
    h === undefined
      ? 'volume key given'
      : `${h.location} header, ${h.kdf.prf === 'argon2id' ? `argon2id ${h.kdf.iterations} passes` : `pbkdf2-${h.kdf.prf} ${h.kdf.iterations} iterations`}`;
  const summary = `${name} ${v.cipher}, ${v.sectorSize}-byte sectors, ${sizeText(v.payloadSize)} at ${v.payloadOffset}, ${how}, kernel ${v.kernel}`;
  return { volume: v, summary };
}

async function readHeader(source: ByteSource, o: TcryptFormatOptions): Promise<DiskHeader> {
  const { HeaderError } = await import('./errors.js');
  if (o.passphrase === undefined && (o.keyfiles?.length ?? 0) === 0)
    throw new HeaderError(
      '@x/tcrypt: a TrueCrypt/VeraCrypt header cannot be told from random bytes: reading it needs the passphrase (or keyfiles)',
    );
  const [{ unlockTcrypt }, { describeTcrypt, tcryptToJson }] = await Promise.all([
    import('./volume.js'),
    import('./describe.js'),
  ]);
  const { header, volumeKey } = await unlockTcrypt(source, o);
  volumeKey.fill(0);
  const title = header.magic === 'VERA' ? 'VeraCrypt' : 'TrueCrypt';
  return { title, describe: () => describeTcrypt(header), toJson: () => tcryptToJson(header) };
}

/**
 * The TrueCrypt/VeraCrypt DiskFormat bound to `bound`: `open` adds the passphrase of its secret (when it
 * is given) to them, `readHeader` decrypts the header with them.
 *
 * @example
 * ```ts
 * const { volume } = await tcryptFormatWith({ hidden: true }).open(source, { kind: 'passphrase', bytes });
 * ```
 */
export function tcryptFormatWith(bound: TcryptFormatOptions = {}): DiskFormat {
  return {
    type: 'tcrypt',
    name: 'TrueCrypt/VeraCrypt',
    secrets: ['passphrase'],
    clearKey: false,
    keyslots: false,
    readHeader: (source) => readHeader(source, bound),
    open: async (source, secret, options) =>
      open(
        source,
        {
          ...bound,
          passphrase:
            secret === undefined && (bound.keyfiles?.length ?? 0) > 0
              ? (bound.passphrase ?? '')
              : passphraseOf(secret, '@x/tcrypt', 'TrueCrypt/VeraCrypt'),
        },
        options,
      ),
    openWithVolumeKey: (source, volumeKey, options) => open(source, { ...bound, volumeKey }, options),
  };
}

/**
 * TrueCrypt and VeraCrypt volumes with a passphrase (or their volume key): never detected, only named.
 *
 * @example
 * ```ts
 * import { tcryptFormat } from '@x/tcrypt/format';
 * const { volume, summary } = await tcryptFormat.open(source, { kind: 'passphrase', bytes });
 * ```
 */
export const tcryptFormat: DiskFormat = tcryptFormatWith();
