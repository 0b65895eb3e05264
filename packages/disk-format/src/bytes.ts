// The byte readers and text helpers of the disk formats: integers in either byte order, C and UTF-16
// strings, hex and base64, constant-time comparison, and the JSON-safe copy a header's `--json` dump is.
// Nothing here throws about an image: a reader that can fail calls the caller's `fail` for the error its
// format throws.

export const u16be = (b: Uint8Array, o: number): number => (b[o] << 8) | b[o + 1];
export const u32be = (b: Uint8Array, o: number): number =>
  ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
export const u16le = (b: Uint8Array, o: number): number => b[o] | (b[o + 1] << 8);
export const u32le = (b: Uint8Array, o: number): number =>
  (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;

/** `hi · 2^32 + lo` as a number, or `fail(value)` thrown past 2^53 − 1. */
function u64(hi: number, lo: number, fail: (value: bigint) => Error): number {
  if (hi > 0x1fffff) throw fail((BigInt(hi) << 32n) | BigInt(lo));
  return hi * 0x1_0000_0000 + lo;
}

/**
 * A 64-bit big-endian field as a number; past 2^53 − 1 (no offset or size of an image read here is that
 * large) the error `fail` makes of its value is thrown.
 *
 * @example
 * ```ts
 * const size = u64be(b, 8, (v) => new HeaderError(`@x/luks: hdr_size ${v} is too large`));
 * ```
 */
export const u64be = (b: Uint8Array, o: number, fail: (value: bigint) => Error): number =>
  u64(u32be(b, o), u32be(b, o + 4), fail);

/** A 64-bit little-endian field as a number, as {@link u64be}. */
export const u64le = (b: Uint8Array, o: number, fail: (value: bigint) => Error): number =>
  u64(u32le(b, o + 4), u32le(b, o), fail);

/**
 * The C string in the field `b[o .. o+n)`: the bytes up to the first NUL, as Latin-1 (each byte one
 * character, U+0000 … U+00FF).
 *
 * @example
 * ```ts
 * cString(phdr, 8, 32); // 'aes'
 * ```
 */
export function cString(b: Uint8Array, o: number, n: number): string {
  let s = '';
  for (let i = o; i < o + n && i < b.length && b[i] !== 0; i++) s += String.fromCharCode(b[i]);
  return s;
}

/**
 * A UTF-16LE string up to its first NUL (a trailing odd byte is ignored).
 *
 * @example
 * ```ts
 * utf16le(Uint8Array.of(0x41, 0, 0x42, 0, 0, 0)); // 'AB'
 * ```
 */
export function utf16le(b: Uint8Array): string {
  let end = 0;
  while (end + 1 < b.length && (b[end] | b[end + 1]) !== 0) end += 2;
  return new TextDecoder('utf-16le').decode(b.subarray(0, end));
}

/**
 * The bytes as lower-case hex, `separator` between two bytes.
 *
 * @example
 * ```ts
 * hex(Uint8Array.of(1, 0xab));      // '01ab'
 * hex(Uint8Array.of(1, 0xab), ' '); // '01 ab'
 * ```
 */
export function hex(b: Uint8Array, separator = ''): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(separator);
}

/**
 * Standard base64 (RFC 4648 §4), as LUKS2 JSON and plists store bytes; undefined when `s` is not a string
 * of it (no white space allowed: strip it first where the format allows it).
 *
 * @example
 * ```ts
 * fromBase64('AQI='); // Uint8Array [1, 2]
 * fromBase64('A');    // undefined
 * ```
 */
export function fromBase64(s: unknown): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * The bytes as standard base64 (RFC 4648 §4).
 *
 * @example
 * ```ts
 * toBase64(Uint8Array.of(1, 2)); // 'AQI='
 * ```
 */
export function toBase64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

/**
 * Whether two byte strings are equal, in time that depends only on their length (a length is not secret).
 *
 * @example
 * ```ts
 * if (!equalBytes(computedDigest, storedDigest)) throw new WrongVolumeKeyError('…');
 * ```
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

/**
 * Whether every byte is zero.
 *
 * @example
 * ```ts
 * allZero(new Uint8Array(8)); // true
 * ```
 */
export function allZero(b: Uint8Array): boolean {
  let d = 0;
  for (let i = 0; i < b.length; i++) d |= b[i];
  return d === 0;
}

/**
 * A JSON-safe copy of a parsed header (for `dump --json`): byte arrays become base64, bigints decimal
 * strings; the properties `omit` names (key and value) are left out, at any depth.
 *
 * @example
 * ```ts
 * JSON.stringify(jsonSafe(header, (key) => key === 'json'));
 * ```
 */
export function jsonSafe(v: unknown, omit: (key: string, value: unknown) => boolean = () => false): unknown {
  if (v instanceof Uint8Array) return toBase64(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map((x) => jsonSafe(x, omit));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!omit(k, x)) out[k] = jsonSafe(x, omit);
    return out;
  }
  return v;
}

const MiB = 1024 * 1024;

/**
 * A size for people: `12 KiB` below a MiB, else `3.4 MiB`.
 *
 * @example
 * ```ts
 * sizeText(3 << 20); // '3.0 MiB'
 * ```
 */
export const sizeText = (n: number): string =>
  n < MiB ? `${(n / 1024).toFixed(0)} KiB` : `${(n / MiB).toFixed(1)} MiB`;

/**
 * `a`, `a or b`, `a, b or c`.
 *
 * @example
 * ```ts
 * orList(['LUKS', 'BitLocker', 'FileVault 2']); // 'LUKS, BitLocker or FileVault 2'
 * ```
 */
export const orList = (items: readonly string[]): string =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : (items[0] ?? '');

/**
 * A secret given as text or bytes, as bytes the caller owns and wipes: a string encoded as UTF-8, bytes
 * copied (used as they are, like a key file's).
 *
 * @throws TypeError `${prefix}: ${what} must be a string or a Uint8Array` for anything else.
 * @example
 * ```ts
 * const pass = secretBytes(options.passphrase, 'passphrase', '@x/luks');
 * try { … } finally { pass.fill(0); }
 * ```
 */
export function secretBytes(value: unknown, what: string, prefix: string): Uint8Array {
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  throw new TypeError(`${prefix}: ${what} must be a string or a Uint8Array`);
}
