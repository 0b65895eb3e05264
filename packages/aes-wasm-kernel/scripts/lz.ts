/**
 * The encoder of src/lz.ts's format (described there), used by scripts/build.ts to embed the module's
 * builds: greedy LZ77 over hash chains of 4-byte prefixes, with one step of lazy matching (a match is
 * deferred by a byte when the next position has a longer one). Deterministic: the same bytes give the
 * same stream, on every Node version (no zlib involved), so the generated file can be checked in CI.
 */
import { HEADER, MIN_MATCH } from '../src/lz.js';

/** How many earlier positions with the same 4-byte prefix are tried for each match. */
const CHAIN = 256;

/**
 * Compresses `bytes`, which must start with {@link HEADER} (a WebAssembly module, or modules one after
 * another).
 *
 * @example
 * ```ts
 * const stream = compress(wasm);
 * decompress(stream, wasm.length); // the same bytes as wasm
 * ```
 */
export function compress(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  if (bytes.length < HEADER.length || HEADER.some((b, i) => bytes[i] !== b)) {
    throw new Error('compress: the input does not start with a WebAssembly header');
  }
  const n = bytes.length;
  const out: number[] = [...HEADER];
  const varint = (v: number): void => {
    if (v >= 2 ** 28) throw new Error('compress: a length or distance beyond the 4-byte varints of the format');
    for (; v >= 0x80; v = Math.floor(v / 0x80)) out.push((v & 0x7f) | 0x80);
    out.push(v);
  };

  // head: the latest position with a given 4-byte prefix; previous[i]: the one before i with the same.
  const head = new Map<number, number>();
  const previous = new Int32Array(n).fill(-1);
  const prefix = (i: number): number =>
    (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)) >>> 0;
  let indexed = 0;
  const indexUpTo = (end: number): void => {
    for (; indexed < end && indexed + MIN_MATCH <= n; indexed++) {
      const k = prefix(indexed);
      previous[indexed] = head.get(k) ?? -1;
      head.set(k, indexed);
    }
  };
  /** The longest earlier match at `i` (the nearest among equals): [length, distance], or [0, 0]. */
  const longest = (i: number): [number, number] => {
    indexUpTo(i);
    let best = 0;
    let distance = 0;
    if (i + MIN_MATCH > n) return [0, 0];
    let tries = 0;
    for (let c = head.get(prefix(i)) ?? -1; c >= 0 && tries < CHAIN; c = previous[c], tries++) {
      let l = 0;
      while (i + l < n && bytes[c + l] === bytes[i + l]) l++;
      if (l > best) {
        best = l;
        distance = i - c;
      }
    }
    return [best, distance];
  };

  // The first sequence has no match; each later one starts with the match that ended the literals before it.
  varint(0);
  let literals = HEADER.length;
  let i = HEADER.length;
  indexUpTo(i);
  while (i < n) {
    const [length, distance] = longest(i);
    if (length < MIN_MATCH || (i + 1 < n && longest(i + 1)[0] > length + 1)) {
      i++;
      continue;
    }
    varint(i - literals);
    for (let j = literals; j < i; j++) out.push(bytes[j]);
    varint(distance);
    varint(length - MIN_MATCH);
    i += length;
    literals = i;
  }
  varint(n - literals);
  for (let j = literals; j < n; j++) out.push(bytes[j]);
  return Uint8Array.from(out);
}
