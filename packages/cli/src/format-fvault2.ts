// FileVault 2 (`@x/filevault2`) as a format of x-disk: the little x-disk uses of the package, as an
// interface, so that the adapter is tested against a stand-in too; its types are the package's own (a
// type-only import: the code is loaded by `fileVault2Entry(() => import('@x/filevault2'))` when opened).
import type { ByteSource } from '@x/byte-source';
import type { FileVault2OpenOptions as FileVault2Secret } from '@x/filevault2';
import type { Format, FormatModule, OpenedVolume, Secret } from './formats.js';
import { fmtMiB } from './io.js';
import type { DiskVolume } from './output.js';

export type { FileVault2Secret };

/** An unlocked FileVault 2 volume, as x-disk uses it. */
export interface FileVault2VolumeLike extends DiskVolume {
  /** The payload cipher, e.g. `aes-xts-plain64`, when the package names it. */
  readonly cipher?: string;
}

/** The part of `@x/filevault2` x-disk uses (its module namespace is one); `H` is its header type. */
export interface FileVault2Api<H> {
  isFileVault2(first: Uint8Array): boolean;
  readFileVault2Header(input: ByteSource): Promise<H>;
  describeFileVault2(header: H): string;
  fileVault2ToJson(header: H): unknown;
  openFileVault2(input: ByteSource, secret: FileVault2Secret): Promise<FileVault2VolumeLike>;
}

function toFileVault2Secret(secret: Secret | undefined): FileVault2Secret {
  if (secret?.kind === 'passphrase') return { passphrase: secret.bytes };
  if (secret?.kind === 'volumeKey') return { volumeKey: secret.bytes };
  throw new TypeError('@x/cli: FileVault 2 takes a passphrase or the volume key'); // x-disk checks this first
}

/** `@x/filevault2` as x-disk's {@link FormatModule}: a passphrase or the volume key. */
export function fileVault2Format<H>(api: FileVault2Api<H>): FormatModule {
  return {
    secrets: ['passphrase', 'volumeKey'],
    clearKey: false,
    keyslots: false,
    async dump(source, json) {
      const h = await api.readFileVault2Header(source);
      return json ? `${JSON.stringify(api.fileVault2ToJson(h), null, 2)}\n` : `${api.describeFileVault2(h)}\n`;
    },
    async open(source, secret): Promise<OpenedVolume> {
      const v = await api.openFileVault2(source, toFileVault2Secret(secret));
      return {
        sectorSize: v.sectorSize,
        payloadSize: v.payloadSize,
        kernel: v.kernel,
        summary:
          `FileVault 2${v.cipher ? ` ${v.cipher}` : ''}, ${v.sectorSize}-byte sectors, ${fmtMiB(v.payloadSize)}, ` +
          `${secret?.kind === 'volumeKey' ? 'volume key given' : 'passphrase'}, kernel ${v.kernel}`,
        read: (dst, firstSector) => v.read(dst, firstSector),
        close: () => v.close(),
      };
    },
  };
}

/**
 * The FileVault 2 entry of x-disk's format table; `load` imports `@x/filevault2`, whose `isFileVault2`
 * detects it (so put this entry after those that detect without loading anything).
 *
 * @example
 * ```ts
 * const fvault2 = fileVault2Entry(() => import('@x/filevault2'));
 * ```
 */
export function fileVault2Entry<H>(load: () => Promise<FileVault2Api<H>>): Format {
  return {
    type: 'fvault2',
    name: 'FileVault 2',
    detect: async (first) => (await load()).isFileVault2(first),
    load: async () => fileVault2Format(await load()),
  };
}
