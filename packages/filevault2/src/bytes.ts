// The encodings of Core Storage that are its own (libfvde, "Characteristics": byte order little-endian,
// except UUIDs, stored big-endian): 64-bit fields, UUIDs, and the base64 of the plist's <data> values. The
// integers and strings every format reads are @x/disk-format's.
import { fromBase64, hex, u64le } from '@x/disk-format';
import { HeaderError } from './errors.js';

/** A 64-bit little-endian field, as a number; a HeaderError past 2^53 − 1. */
export const u64 = (b: Uint8Array, o: number, what: string): number =>
  u64le(b, o, (v) => new HeaderError(`@x/filevault2: ${what} is too large (${v})`));

/** The 16 bytes at `o` as a UUID string, lower case (as cryptsetup and libuuid print them). */
export function uuidAt(b: Uint8Array, o: number): string {
  const h = hex(b.subarray(o, o + 16));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID string of the plist (upper case there) in canonical lower case; a HeaderError when malformed. */
export function canonicalUuid(s: string, what: string): string {
  const u = s.toLowerCase(); // no white space, as uuid_parse (cryptsetup) takes none
  if (!UUID.test(u)) throw new HeaderError(`@x/filevault2: ${what} "${s}" is not a UUID`);
  return u;
}

/** The 16 bytes of a canonical UUID string (big-endian, as Core Storage hashes it). */
export function uuidBytes(u: string): Uint8Array {
  const h = u.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Standard base64, as the plist <data> of Core Storage holds it (one line: no white space, which cryptsetup
 * would not decode either); a HeaderError when malformed.
 */
export function plistData(s: string, what: string): Uint8Array {
  const b = fromBase64(s);
  if (!b) throw new HeaderError(`@x/filevault2: ${what} is not base64`);
  return b;
}
