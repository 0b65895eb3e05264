// Bytes for tests: hex in and out, random buffers, buffers at odd offsets with guard bytes around them
// (Go cryptotest's out-of-bounds checks), and a byte comparison that says where two arrays differ.
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';

/**
 * Bytes from hex; whitespace is ignored.
 *
 * @example
 * ```ts
 * hex('00 11 22'); // Uint8Array [0x00, 0x11, 0x22]
 * ```
 */
export function hex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
}

/**
 * The hex of exactly the bytes of the view (its byteOffset and length respected).
 *
 * @example
 * ```ts
 * toHex(new Uint8Array([1, 2, 255]).subarray(1)); // '02ff'
 * ```
 */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/**
 * `n` random bytes in an ArrayBuffer of their own (never a pooled Buffer, so the bytes around a view
 * made from them belong to the test).
 *
 * @example
 * ```ts
 * const key = random(32);
 * ```
 */
export function random(n: number): Uint8Array {
  return randomFillSync(new Uint8Array(n));
}

/**
 * A copy of `bytes` at byteOffset `offset` of a fresh buffer, with random guard bytes before it
 * (`offset` of them) and after it (`after`, default 16): for odd offsets, and for checking that a call
 * reads and writes nothing outside the view (compare {@link backing} before and after).
 *
 * @example
 * ```ts
 * const src = placed(plain, 3);           // src.byteOffset === 3
 * const before = backing(src);
 * kernel.encryptBlocks(dst, src);
 * assertBytes(backing(src), before);      // neither src nor its guard bytes changed
 * ```
 */
export function placed(bytes: Uint8Array, offset: number, after = 16): Uint8Array {
  const all = random(offset + bytes.length + after);
  const view = all.subarray(offset, offset + bytes.length);
  view.set(bytes);
  return view;
}

/**
 * A copy of the whole buffer under `view` (the view and the guard bytes around it).
 *
 * @example
 * ```ts
 * const before = backing(dst);
 * ```
 */
export function backing(view: Uint8Array): Uint8Array {
  return new Uint8Array(view.buffer.slice(0));
}

/**
 * A copy of the buffer under `view` with the view's own bytes zeroed: what a call must leave unchanged
 * when it writes the view (out-of-bounds writes).
 *
 * @example
 * ```ts
 * const around = outside(dst);
 * kernel.decryptBlocks(dst, src);
 * assertBytes(outside(dst), around, 'wrote outside dst');
 * ```
 */
export function outside(view: Uint8Array): Uint8Array {
  const all = backing(view);
  all.fill(0, view.byteOffset, view.byteOffset + view.length);
  return all;
}

/**
 * Asserts that two byte arrays are equal; on failure says where they first differ (not a dump of two
 * large arrays).
 *
 * @example
 * ```ts
 * assertBytes(dst, refEcb(true, key, src), 'encryptBlocks, 33 blocks');
 * ```
 */
export function assertBytes(actual: Uint8Array, expected: Uint8Array, what = 'bytes'): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.equals(b)) return;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const at = (x: Buffer) => x.subarray(i & ~15, (i & ~15) + 16).toString('hex');
  assert.fail(
    `${what}: ${a.length} bytes, expected ${b.length}; first difference at byte ${i} (block ${i >> 4}: ${at(a)}, expected ${at(b)})`,
  );
}
