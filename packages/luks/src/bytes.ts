// Small readers for the big-endian fields and C strings of LUKS headers (LUKS1 spec §3.1: "unsigned
// integer … stored in big endian", "char[] … null terminated"; LUKS2 binary header likewise).
import { HeaderError } from './errors.js';

export const u16be = (b: Uint8Array, o: number): number => (b[o] << 8) | b[o + 1];
export const u32be = (b: Uint8Array, o: number): number =>
  ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;

/** A 64-bit big-endian field, as a number; a HeaderError past 2^53 − 1. */
export function u64be(b: Uint8Array, o: number, what: string): number {
  const hi = u32be(b, o),
    lo = u32be(b, o + 4);
  if (hi > 0x1fffff) throw new HeaderError(`@x/luks: ${what} is too large`);
  return hi * 0x1_0000_0000 + lo;
}

/** The C string in the field b[o .. o+n): bytes up to the first NUL, as Latin-1. */
export function cString(b: Uint8Array, o: number, n: number): string {
  let end = o;
  while (end < o + n && b[end] !== 0) end++;
  let s = '';
  for (let i = o; i < end; i++) s += String.fromCharCode(b[i]);
  return s;
}

export function hex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

/** Standard base64 (RFC 4648 §4), as LUKS2 JSON stores salts and digests; a HeaderError when malformed. */
export function fromBase64(s: unknown, what: string): Uint8Array {
  if (typeof s !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) {
    throw new HeaderError(`@x/luks: ${what} is not base64`);
  }
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toBase64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}
