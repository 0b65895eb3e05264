/**
 * The decoder of the compression that src/wasm.generated.ts embeds the module with (the encoder is
 * scripts/lz.ts): LZ77 with byte-aligned varints, no entropy coding. The module is unrolled bitsliced code
 * and compresses about 6×; its two builds differ only at the swizzles, so the second costs little more.
 * The input is the package's own constant, never user data, and is public.
 *
 * The format: the first 8 bytes are copied as they are (a WebAssembly module's magic number and version,
 * so the base64 still starts like a module's, `AGFzbQEAAAA`); then sequences follow to the end, each
 *
 *     varint distance     0: no match in this sequence
 *     varint length - 4   only when distance > 0: copy `length` bytes from `distance` bytes back
 *                         (overlapping copies repeat, as in LZ77)
 *     varint count        then `count` bytes copied as they are
 *
 * where a varint is unsigned LEB128 (7 bits a byte, low bits first, the high bit set on all but the last),
 * at most 4 bytes long.
 */

/** The shortest match the encoder emits: the stored length is the match length minus this. */
export const MIN_MATCH = 4;

/** The bytes every stream starts with, stored as they are: `\0asm` and version 1. */
export const HEADER = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

/**
 * Decompresses `stream` into exactly `length` bytes; throws on a stream that does not decode to that.
 *
 * @example
 * ```ts
 * const bytes = decompress(Uint8Array.from(atob(MODULES_BASE64), (c) => c.charCodeAt(0)), MODULE_ENDS[1]);
 * ```
 */
export function decompress(stream: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const corrupt = () => new Error('@x/aes-wasm-kernel: corrupt module stream');
  const out = new Uint8Array(length);
  let p = HEADER.length;
  let q = p;
  if (stream.length < p || length < p) throw corrupt();
  for (let i = 0; i < p; i++) out[i] = stream[i];
  // Shifts, not `2 ** n`, and byte loops for the literals (a few thousand bytes in all), not subarray():
  // the decoder runs once, cold, in the interpreter, where those are an order of magnitude slower.
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = stream[p++];
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    throw corrupt(); // more than 4 bytes (2^28), or past the end
  };
  while (p < stream.length) {
    const distance = varint();
    if (distance > 0) {
      const n = varint() + MIN_MATCH;
      if (distance > q || q + n > length) throw corrupt();
      if (distance >= n) {
        out.copyWithin(q, q - distance, q - distance + n);
        q += n;
      } else {
        for (let end = q + n; q < end; q++) out[q] = out[q - distance]; // a run that copies over itself
      }
    }
    const count = varint();
    if (q + count > length || p + count > stream.length) throw corrupt();
    for (let end = p + count; p < end; ) out[q++] = stream[p++];
  }
  if (q !== length) throw corrupt();
  return out;
}
