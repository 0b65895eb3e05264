/**
 * The compression the module is embedded with: scripts/lz.ts's encoder against src/lz.ts's decoder, on the
 * shapes that stress an LZ77 codec (no repetition at all, runs that copy over themselves, matches at the
 * largest distances, lengths and counts whose varints take several bytes), and corrupt streams refused.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compress } from '../scripts/lz.js';
import { decompress, HEADER } from '../src/lz.js';
import { MODULE_ENDS, MODULES_BASE64 } from '../src/wasm.generated.js';

const withHeader = (...parts: Uint8Array[]): Uint8Array => {
  const all = new Uint8Array(HEADER.length + parts.reduce((n, p) => n + p.length, 0));
  all.set(HEADER);
  let at = HEADER.length;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
};

describe('the module compression (scripts/lz.ts, src/lz.ts)', () => {
  const noise = randomBytes(70_000);
  const cases: [string, Uint8Array][] = [
    ['the header alone', withHeader()],
    ['one byte', withHeader(Uint8Array.of(7))],
    ['incompressible bytes', withHeader(noise)],
    ['a run that copies over itself', withHeader(new Uint8Array(100_000).fill(0xfd))],
    ['a short period', withHeader(new Uint8Array(50_000).map((_, i) => i % 3))],
    ['a repeat 70 000 bytes back', withHeader(noise, Uint8Array.of(1, 2, 3), noise)],
    [
      'matches of exactly 4 and 5 bytes',
      withHeader(Uint8Array.of(1, 2, 3, 4, 9, 1, 2, 3, 4, 8, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5)),
    ],
    ['two headers', withHeader(noise.subarray(0, 300), HEADER, noise.subarray(0, 300))],
  ];
  for (const [name, bytes] of cases) {
    it(`round-trips ${name}`, () => {
      const stream = compress(bytes);
      expect(Buffer.compare(decompress(stream, bytes.length), bytes)).toBe(0);
    });
  }

  it('compresses the module builds about 12× together, and its base64 starts as a module would', () => {
    const stream = Buffer.from(MODULES_BASE64, 'base64');
    expect(MODULES_BASE64.startsWith('AGFzbQEAAAA')).toBe(true);
    expect(MODULE_ENDS[1] / stream.length).toBeGreaterThan(10);
    expect(decompress(stream, MODULE_ENDS[1]).length).toBe(MODULE_ENDS[1]);
  });

  it('refuses input without a WebAssembly header', () => {
    expect(() => compress(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9))).toThrow(/WebAssembly header/);
  });

  it('refuses corrupt streams instead of returning wrong bytes', () => {
    const bytes = withHeader(noise.subarray(0, 1000), noise.subarray(0, 1000));
    const stream = compress(bytes);
    expect(() => decompress(stream, bytes.length + 1)).toThrow(/corrupt/); // too short
    expect(() => decompress(stream, bytes.length - 1)).toThrow(/corrupt/); // too long
    expect(() => decompress(stream.subarray(0, stream.length - 1), bytes.length)).toThrow(/corrupt/); // cut
    expect(() => decompress(stream.subarray(0, 5), bytes.length)).toThrow(/corrupt/); // no header
    // A match reaching back before the start.
    expect(() => decompress(Uint8Array.of(...HEADER, 0, 0, 9, 0), 8 + 4)).toThrow(/corrupt/);
    // A varint that never ends.
    expect(() => decompress(Uint8Array.of(...HEADER, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 8)).toThrow(/corrupt/);
  });
});
