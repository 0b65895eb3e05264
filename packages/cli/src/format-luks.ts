// LUKS1 and LUKS2 (`@x/luks`) as a format of x-disk, and the pieces x-luks shares with it: the dump, the
// options of openLuks, the summary line.
import type { ByteSource } from '@x/byte-source';
import type { LuksHeader, LuksVolume, OpenOptions } from '@x/luks';
import type { Format, FormatModule, OpenedVolume, Secret } from './formats.js';
import { fmtMiB } from './io.js';

/** The part of `@x/luks` the commands use (its module namespace is one). */
export interface LuksApi {
  readHeader(input: ByteSource): Promise<LuksHeader>;
  describeHeader(header: LuksHeader): string;
  headerToJson(header: LuksHeader): unknown;
  openLuks(input: ByteSource, options: OpenOptions): Promise<LuksVolume>;
}

/** "LUKS\xba\xbe", the primary header's magic at offset 0 (LUKS1 spec §3.1; LUKS2 keeps it). */
const MAGIC = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe];
/** "SKUL\xba\xbe", the LUKS2 secondary header's magic (LUKS2 on-disk format, "Binary header"). */
const MAGIC_SECONDARY = [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe];
/** Where a LUKS2 secondary header may start: at one of the hdr_size values the format allows, 16 KiB … 4 MiB. */
const SECONDARY_OFFSETS = [0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000];

const startsWith = (b: Uint8Array, magic: readonly number[]) => magic.every((x, i) => b[i] === x);

/**
 * Whether the image looks like LUKS: the magic at 0, or (a damaged primary) a LUKS2 secondary header's
 * magic at one of its offsets, which `readHeader` then reads and checks. Loads no code of `@x/luks`.
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

/** The dump of `x-luks dump` and `x-disk dump`: cryptsetup luksDump's layout, or the header as JSON. */
export async function dumpLuks(api: LuksApi, source: ByteSource, json: boolean): Promise<string> {
  const h = await api.readHeader(source);
  return json ? `${JSON.stringify(api.headerToJson(h), null, 2)}\n` : `${api.describeHeader(h)}\n`;
}

/**
 * The summary line of a LUKS volume, after `x-luks: ` or `x-disk: `; `keyslot` is the keyslot that
 * opened it (undefined: the volume key was given), when the volume was opened from a key unlocked before.
 */
export function luksSummary(v: LuksVolume, keyslot: string | undefined = v.keyslot): string {
  return (
    `LUKS${v.version} ${v.cipher}, ${v.sectorSize}-byte sectors, ${fmtMiB(v.payloadSize)} of payload at ${v.payloadOffset}` +
    `${keyslot === undefined ? ', volume key given' : `, keyslot ${keyslot}`}, kernel ${v.kernel}`
  );
}

/** `@x/luks` as x-disk's {@link FormatModule}: a passphrase or the volume key, and `--keyslot`. */
export function luksFormat(api: LuksApi): FormatModule {
  return {
    secrets: ['passphrase', 'volumeKey'],
    clearKey: false,
    keyslots: true,
    dump: (source, json) => dumpLuks(api, source, json),
    async open(source, secret: Secret | undefined, { keyslot }): Promise<OpenedVolume> {
      const options: OpenOptions =
        secret?.kind === 'volumeKey' ? { volumeKey: secret.bytes, keyslot } : { passphrase: secret?.bytes, keyslot };
      const v = await api.openLuks(source, options);
      return {
        sectorSize: v.sectorSize,
        payloadSize: v.payloadSize,
        kernel: v.kernel,
        summary: luksSummary(v),
        read: (dst, firstSector) => v.read(dst, firstSector),
        close: () => v.close(),
      };
    },
  };
}

/**
 * The LUKS entry of x-disk's format table; `load` imports `@x/luks`.
 *
 * @example
 * ```ts
 * const luks = luksEntry(() => import('@x/luks'));
 * ```
 */
export function luksEntry(load: () => Promise<LuksApi>): Format {
  return { type: 'luks', name: 'LUKS', detect: isLuks, load: async () => luksFormat(await load()) };
}
