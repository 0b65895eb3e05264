// BitLocker (`@x/bitlocker`) as a format of x-disk: the little x-disk uses of the package, as an
// interface, so that the adapter is tested against a stand-in too; its types are the package's own (a
// type-only import: the code is loaded by `bitlockerEntry(() => import('@x/bitlocker'))` when opened).
import type { BitlockerSecret } from '@x/bitlocker';
import type { ByteSource } from '@x/byte-source';
import type { Format, FormatModule, OpenedVolume, Secret } from './formats.js';
import { fmtMiB } from './io.js';
import type { DiskVolume } from './output.js';

export type { BitlockerSecret };

/** An unlocked BitLocker volume, as x-disk uses it. */
export interface BitlockerVolumeLike extends DiskVolume {
  /** The payload cipher, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  /** What opened it, e.g. `recovery password`. */
  readonly protector: string;
}

/** The part of `@x/bitlocker` x-disk uses (its module namespace is one); `H` is its header type. */
export interface BitlockerApi<H> {
  readBitlockerHeader(input: ByteSource): Promise<H>;
  describeBitlocker(header: H): string;
  bitlockerToJson(header: H): unknown;
  openBitlocker(input: ByteSource, secret?: BitlockerSecret): Promise<BitlockerVolumeLike>;
}

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
 */
export function isBitlocker(first: Uint8Array): boolean {
  return (
    at(first, 3, FVE_SIGNATURE) || (at(first, 3, TO_GO_OEM) && TO_GO_GUIDS.some((g) => at(first, TO_GO_GUID_OFFSET, g)))
  );
}

/** `openBitlocker`'s secret from x-disk's: every protector BitLocker has, and the FVEK. */
function toBitlockerSecret(secret: Secret | undefined): BitlockerSecret | undefined {
  switch (secret?.kind) {
    case undefined:
      return undefined;
    case 'passphrase':
      return { passphrase: secret.bytes };
    case 'recoveryPassword':
      return { recoveryPassword: new TextDecoder().decode(secret.bytes).trim() };
    case 'startupKey':
      return { startupKey: secret.bytes };
    case 'volumeKey':
      return { fvek: secret.bytes };
  }
}

/** `@x/bitlocker` as x-disk's {@link FormatModule}. */
export function bitlockerFormat<H>(api: BitlockerApi<H>): FormatModule {
  return {
    secrets: ['passphrase', 'recoveryPassword', 'startupKey', 'volumeKey'],
    clearKey: true,
    keyslots: false,
    async dump(source, json) {
      const h = await api.readBitlockerHeader(source);
      return json ? `${JSON.stringify(api.bitlockerToJson(h), null, 2)}\n` : `${api.describeBitlocker(h)}\n`;
    },
    async open(source, secret): Promise<OpenedVolume> {
      const v = await api.openBitlocker(source, toBitlockerSecret(secret));
      return {
        sectorSize: v.sectorSize,
        payloadSize: v.payloadSize,
        kernel: v.kernel,
        summary: `BitLocker ${v.cipher}, ${v.sectorSize}-byte sectors, ${fmtMiB(v.payloadSize)}, ${v.protector}, kernel ${v.kernel}`,
        read: (dst, firstSector) => v.read(dst, firstSector),
        close: () => v.close(),
      };
    },
  };
}

/**
 * The BitLocker entry of x-disk's format table; `load` imports `@x/bitlocker`. Detection reads only the
 * boot sector and loads nothing.
 *
 * @example
 * ```ts
 * const bitlk = bitlockerEntry(() => import('@x/bitlocker'));
 * ```
 */
export function bitlockerEntry<H>(load: () => Promise<BitlockerApi<H>>): Format {
  return { type: 'bitlk', name: 'BitLocker', detect: isBitlocker, load: async () => bitlockerFormat(await load()) };
}
