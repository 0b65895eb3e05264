/**
 * `@x/bitlocker/format`: BitLocker (and BitLocker To Go) as a {@link DiskFormat} of `@x/disk-format`, what
 * `x-disk` and the web page use. Cheap to import: detection reads the boot sector it is given and loads
 * nothing; the metadata, key and volume code of this package (and AES-CCM) is loaded by the first
 * `readHeader` or `open`.
 *
 * @example
 * ```ts
 * import { bitlockerFormat } from '@x/bitlocker/format';
 * const { volume, summary } = await bitlockerFormat.open(source, { kind: 'recoveryPassword', bytes });
 * ```
 *
 * @packageDocumentation
 */
import type { ByteSource } from '@x/byte-source';
import { type DiskFormat, type Opened, type OpenOptions, type Secret, sizeText, limitsOf } from '@x/disk-format';
import type { BitlockerSecret } from './volume.js';

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
/** The OEM name of a BitLocker volume's boot sector, bytes 3 … 10. */
const FVE_SIGNATURE = ascii('-FVE-FS-');
/** The OEM name of a BitLocker To Go volume (and of any FAT32 volume, hence the GUID below). */
const TO_GO_OEM = ascii('MSWIN4.1');
/**
 * The BitLocker identifiers as they are stored (mixed-endian), at byte 424 of a To Go volume: a normal
 * volume's 4967d63b-2e29-4ad8-8399-f6a339e3d001, and 92a84d3b-dd80-4d0e-9e4e-b1e3284eaed8 of one turned
 * on in "encrypt on write" mode.
 */
const TO_GO_GUIDS = [
  [0x3b, 0xd6, 0x67, 0x49, 0x29, 0x2e, 0xd8, 0x4a, 0x83, 0x99, 0xf6, 0xa3, 0x39, 0xe3, 0xd0, 0x01],
  [0x3b, 0x4d, 0xa8, 0x92, 0x80, 0xdd, 0x0e, 0x4d, 0x9e, 0x4e, 0xb1, 0xe3, 0x28, 0x4e, 0xae, 0xd8],
];
const TO_GO_GUID_OFFSET = 424;

const at = (b: Uint8Array, offset: number, want: readonly number[]) =>
  b.length >= offset + want.length && want.every((x, i) => b[offset + i] === x);

/**
 * Whether a boot sector is BitLocker's: `-FVE-FS-` at byte 3 (Windows 7 and later, and Vista), or
 * `MSWIN4.1` there with a BitLocker identifier at byte 424 (a plain FAT32 volume has only the former).
 *
 * @example
 * ```ts
 * isBitlocker(await readBytes(source, 0, 512));
 * ```
 */
export function isBitlocker(first: Uint8Array): boolean {
  return (
    at(first, 3, FVE_SIGNATURE) || (at(first, 3, TO_GO_OEM) && TO_GO_GUIDS.some((g) => at(first, TO_GO_GUID_OFFSET, g)))
  );
}

/** Where a To Go volume's boot sector keeps the three FVE metadata block offsets (u64 LE each). */
const TO_GO_METADATA_OFFSETS = [440, 448, 456];

/**
 * {@link isBitlocker}, and a FAT boot sector (`MSWIN4.1`) whose identifier at 424 is not a known one but one
 * of whose three metadata offsets holds an FVE metadata block (`-FVE-FS-`): a To Go volume with a changed
 * identifier, which `readHeader` then names (a plain FAT32 volume has boot code there). Reads at most
 * three 8-byte pieces; a read that fails is a no.
 *
 * @example
 * ```ts
 * await detectBitlocker(await firstBytes(source), source);
 * ```
 */
export async function detectBitlocker(first: Uint8Array, source: ByteSource): Promise<boolean> {
  if (isBitlocker(first)) return true;
  if (!at(first, 3, TO_GO_OEM) || first.length < 464) return false;
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  for (const o of TO_GO_METADATA_OFFSETS) {
    const offset = Number(view.getBigUint64(o, true));
    if (offset === 0 || offset % 512 !== 0 || offset + 8 > source.size) continue;
    const sig = new Uint8Array(8);
    try {
      await source.read(offset, sig);
    } catch {
      return false;
    }
    if (at(sig, 0, FVE_SIGNATURE)) return true;
  }
  return false;
}

/** `openBitlocker`'s secret from a DiskFormat secret: every protector BitLocker has (none: the clear key). */
function bitlockerSecret(secret: Secret | undefined): BitlockerSecret {
  switch (secret?.kind) {
    case undefined:
      return {};
    case 'passphrase':
      return { passphrase: secret.bytes };
    case 'recoveryPassword':
      return { recoveryPassword: new TextDecoder().decode(secret.bytes).trim() };
    case 'startupKey':
      return { startupKey: secret.bytes };
  }
}

async function open(source: ByteSource, secret: BitlockerSecret, options: OpenOptions = {}): Promise<Opened> {
  const { openBitlocker } = await import('./volume.js');
  const v = await openBitlocker(source, {
    ...secret,
    kernel: options.kernel,
    share: options.share,
    ...limitsOf(options),
  });
  const summary = `BitLocker ${v.cipher}, ${v.sectorSize}-byte sectors, ${sizeText(v.payloadSize)}, ${v.protector}, kernel ${v.kernel}`;
  return { volume: v, summary };
}

/**
 * BitLocker volumes of Windows 7 and later, and BitLocker To Go: detected by their boot sector, opened with
 * the password, the 48-digit recovery password, the startup key (.BEK) file, the clear key (no secret), or
 * the FVEK.
 *
 * @example
 * ```ts
 * import { bitlockerFormat } from '@x/bitlocker/format';
 * console.log((await bitlockerFormat.readHeader(source)).describe()); // as `cryptsetup bitlkDump`
 * ```
 */
export const bitlockerFormat: DiskFormat = {
  type: 'bitlk',
  name: 'BitLocker',
  secrets: ['passphrase', 'recoveryPassword', 'startupKey'],
  clearKey: true,
  keyslots: false,
  passphraseName: 'password',
  detect: detectBitlocker,
  readHeader: async (source) => (await import('./describe.js')).bitlockerDiskHeader(source),
  open: (source, secret, options) => open(source, bitlockerSecret(secret), options),
  openWithVolumeKey: (source, fvek, options) => open(source, { fvek }, options),
};
