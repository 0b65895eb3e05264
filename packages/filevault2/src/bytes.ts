// Small readers for Core Storage structures: little-endian integers (libfvde, "Characteristics": byte order
// little-endian, except UUIDs, stored big-endian), UUIDs, hex and base64 (the plist's <data> values).
import { HeaderError } from './errors.js';

export const u16le = (b: Uint8Array, o: number): number => b[o] | (b[o + 1] << 8);
export const u32le = (b: Uint8Array, o: number): number =>
  (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;

/** A 64-bit little-endian field, as a number; a HeaderError past 2^53 − 1. */
export function u64le(b: Uint8Array, o: number, what: string): number {
  const lo = u32le(b, o),
    hi = u32le(b, o + 4);
  if (hi > 0x1fffff) throw new HeaderError(`@x/filevault2: ${what} is too large (${hi * 2 ** 32 + lo})`);
  return hi * 0x1_0000_0000 + lo;
}

export function hex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

/** The 16 bytes at `o` as a UUID string, lower case (as cryptsetup and libuuid print them). */
export function uuidAt(b: Uint8Array, o: number): string {
  const h = hex(b.subarray(o, o + 16));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID string of the plist (upper case there) in canonical lower case; a HeaderError when malformed. */
export function canonicalUuid(s: string, what: string): string {
  const u = s.trim().toLowerCase();
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

/** Standard base64 (RFC 4648 §4) with any white space in it, as plist <data> holds it; a HeaderError when malformed. */
export function fromBase64(s: string, what: string): Uint8Array {
  const t = s.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t) || t.length % 4 !== 0)
    throw new HeaderError(`@x/filevault2: ${what} is not base64`);
  const bin = atob(t);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toBase64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

export function allZero(b: Uint8Array): boolean {
  let d = 0;
  for (let i = 0; i < b.length; i++) d |= b[i];
  return d === 0;
}

/** Constant-time equality of two byte strings of the same length (a length mismatch is not secret). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
