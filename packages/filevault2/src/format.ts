/**
 * `@x/filevault2/format`: FileVault 2 (Core Storage) as a {@link DiskFormat} of `@x/disk-format`, what
 * `x-disk` and the web page use. Cheap to import: detection checks the physical volume header's signature
 * and checksum and loads nothing else; the metadata, key and volume code of this package is loaded by the
 * first `readHeader` or `open`.
 *
 * @example
 * ```ts
 * import { fileVault2Format } from '@x/filevault2/format';
 * const { volume, summary } = await fileVault2Format.open(source, { kind: 'passphrase', bytes });
 * ```
 *
 * @packageDocumentation
 */
import type { ByteSource } from '@x/byte-source';
import { type DiskFormat, type Opened, type OpenOptions, passphraseOf, sizeText, limitsOf } from '@x/disk-format';
import { isFileVault2 } from './detect.js';
import type { FileVault2OpenOptions } from './volume.js';

async function open(source: ByteSource, secret: FileVault2OpenOptions, options: OpenOptions = {}): Promise<Opened> {
  const { openFileVault2 } = await import('./volume.js');
  const v = await openFileVault2(source, {
    ...secret,
    kernel: options.kernel,
    share: options.share,
    ...limitsOf(options),
  });
  const how = secret.volumeKey === undefined ? 'passphrase' : 'volume key given';
  const summary = `FileVault 2 ${v.cipher}, ${v.sectorSize}-byte sectors, ${sizeText(v.payloadSize)}, ${how}, kernel ${v.kernel}`;
  return { volume: v, summary };
}

/**
 * FileVault 2 logical volumes: detected by their Core Storage physical volume header, opened with a user's
 * passphrase or the volume key.
 *
 * @example
 * ```ts
 * import { fileVault2Format } from '@x/filevault2/format';
 * console.log((await fileVault2Format.readHeader(source)).describe()); // as `cryptsetup fvault2Dump`
 * ```
 */
export const fileVault2Format: DiskFormat = {
  type: 'fvault2',
  name: 'FileVault 2',
  secrets: ['passphrase'],
  clearKey: false,
  keyslots: false,
  detect: isFileVault2,
  readHeader: async (source) => (await import('./describe.js')).fileVault2DiskHeader(source),
  open: async (source, secret, options) =>
    open(source, { passphrase: passphraseOf(secret, '@x/filevault2', 'FileVault 2') }, options),
  openWithVolumeKey: (source, volumeKey, options) => open(source, { volumeKey }, options),
};
