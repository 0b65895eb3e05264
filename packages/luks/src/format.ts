/**
 * `@x/luks/format`: LUKS1 and LUKS2 as a {@link DiskFormat} of `@x/disk-format`, what `x-disk`, `x-luks`
 * and the web page use. Cheap to import: detection is here (the magic bytes), the header, dump and unlock
 * code of this package is loaded by the first `readHeader` or `open`.
 *
 * @example
 * ```ts
 * import { luksFormat } from '@x/luks/format';
 * const { volume, summary } = await luksFormat.open(source, { kind: 'passphrase', bytes });
 * ```
 *
 * @packageDocumentation
 */
import type { ByteSource } from '@x/byte-source';
import { type DiskFormat, type Opened, type OpenOptions, passphraseOf, sizeText, limitsOf } from '@x/disk-format';
import type { LuksVolume, OpenOptions as LuksOpenOptions } from './volume.js';

/** "LUKS\xba\xbe", the primary header's magic at offset 0 (LUKS1 spec §3.1; LUKS2 keeps it). */
const MAGIC = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe];
/** "SKUL\xba\xbe", the LUKS2 secondary header's magic (LUKS2 on-disk format, "Binary header"). */
const MAGIC_SECONDARY = [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe];
/** Where a LUKS2 secondary header may start: at one of the hdr_size values the format allows, 16 KiB … 4 MiB. */
const SECONDARY_OFFSETS = [0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000];

const startsWith = (b: Uint8Array, magic: readonly number[]) => magic.every((x, i) => b[i] === x);

/**
 * Whether the image looks like LUKS: the magic at 0, or (a damaged primary) a LUKS2 secondary header's
 * magic at one of its offsets, which `readHeader` then reads and checks.
 *
 * @example
 * ```ts
 * const luks = await isLuks(await readBytes(source, 0, 512), source);
 * ```
 */
export async function isLuks(first: Uint8Array, source: ByteSource): Promise<boolean> {
  if (startsWith(first, MAGIC)) return true;
  const magic = new Uint8Array(MAGIC_SECONDARY.length);
  for (const offset of SECONDARY_OFFSETS) {
    if (offset + magic.length > source.size) break;
    await source.read(offset, magic);
    if (startsWith(magic, MAGIC_SECONDARY)) return true;
  }
  return false;
}

/**
 * The line that says what was opened (after `x-luks: ` or `x-disk: `), e.g. `LUKS2 aes-xts-plain64,
 * 4096-byte sectors, 64 KiB of payload at 524288, keyslot 0, kernel native-x64`.
 *
 * @example
 * ```ts
 * console.error(`x-luks: ${luksSummary(volume)}`);
 * ```
 */
export function luksSummary(v: LuksVolume): string {
  return (
    `LUKS${v.version} ${v.cipher}, ${v.sectorSize}-byte sectors, ${sizeText(v.payloadSize)} of payload at ${v.payloadOffset}` +
    `${v.keyslot === undefined ? ', volume key given' : `, keyslot ${v.keyslot}`}, kernel ${v.kernel}`
  );
}

async function open(source: ByteSource, secret: LuksOpenOptions, options: OpenOptions = {}): Promise<Opened> {
  const { openLuks } = await import('./volume.js');
  const { keyslot, kernel, share } = options;
  const volume = await openLuks(source, { ...secret, keyslot, kernel, share, ...limitsOf(options) });
  return { volume, summary: luksSummary(volume) };
}

/**
 * LUKS1 and LUKS2 volumes: detected by their magic (or a LUKS2 secondary header), opened with a passphrase
 * (every active keyslot in cryptsetup's order, or `keyslot`) or the volume key.
 *
 * @example
 * ```ts
 * import { luksFormat } from '@x/luks/format';
 * console.log((await luksFormat.readHeader(source)).describe()); // as `cryptsetup luksDump`
 * ```
 */
export const luksFormat: DiskFormat = {
  type: 'luks',
  name: 'LUKS',
  secrets: ['passphrase'],
  clearKey: false,
  keyslots: true,
  detect: isLuks,
  readHeader: async (source) => (await import('./describe.js')).luksDiskHeader(source),
  open: async (source, secret, options) =>
    open(source, { passphrase: passphraseOf(secret, '@x/luks', 'LUKS') }, options),
  openWithVolumeKey: (source, volumeKey, options) => open(source, { volumeKey }, options),
};
