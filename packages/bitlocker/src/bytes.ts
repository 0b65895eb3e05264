// The encodings of the BitLocker metadata that are BitLocker's own (libbde "BitLocker Drive Encryption (BDE)
// format", sections "Volume header" and "FVE metadata"): 64-bit offsets, GUIDs, FILETIMEs and CRC-32. The
// integers and strings every format reads are @x/disk-format's.
import { hex, u32le, u64le } from '@x/disk-format';
import { HeaderError } from './errors.js';

/** A 64-bit little-endian field that must fit a safe integer (offsets and sizes). */
export const u64 = (b: Uint8Array, o: number, what: string): number =>
  u64le(b, o, (v) => new HeaderError(`@x/bitlocker: ${what} (${v}) is out of range`));

/** A GUID as Windows stores it (the first three fields little-endian) in its usual text form. */
export function guid(b: Uint8Array, o: number): string {
  const p = Uint8Array.from(b.subarray(o, o + 16));
  const rev = (s: number, n: number) => hex(p.subarray(s, s + n).reverse());
  return `${rev(0, 4)}-${rev(4, 2)}-${rev(6, 2)}-${hex(p.subarray(8, 10))}-${hex(p.subarray(10, 16))}`;
}

/** A FILETIME (100 ns units since 1601-01-01 UTC) as a Date. */
export function filetime(b: Uint8Array, o: number): Date {
  const t = u32le(b, o) + u32le(b, o + 4) * 2 ** 32;
  return new Date((t - 116444736000000000) / 10000);
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3, reflected, as zlib): the checksum of an FVE metadata block (public data). */
export function crc32(b: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = crcTable[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
