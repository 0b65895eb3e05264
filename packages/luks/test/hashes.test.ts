// The two hash paths give the same bytes: node:crypto (taken in Node) and @noble/hashes (taken where there
// is no node:crypto, as in browsers), for every hash a header may name, as a digest and through AFmerge.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { afMerge } from '../src/af.js';
import { digest, hashByName } from '../src/hashes.js';

const NAMES = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'ripemd160'];

/** AFmerge (LUKS1 spec §2.4) written out again over @noble/hashes alone. */
function nobleAfMerge(material: Uint8Array, keyLength: number, stripes: number, name: string): Uint8Array {
  const h = hashByName(name);
  const d = new Uint8Array(keyLength);
  for (let k = 0; k < stripes; k++) {
    for (let i = 0; i < keyLength; i++) d[i] ^= material[k * keyLength + i];
    if (k === stripes - 1) break;
    for (let i = 0, o = 0; o < keyLength; i++, o += h.size) {
      const n = Math.min(h.size, keyLength - o);
      const counter = Uint8Array.of(i >>> 24, (i >>> 16) & 0xff, (i >>> 8) & 0xff, i & 0xff);
      d.set(
        h.fn
          .create()
          .update(counter)
          .update(d.subarray(o, o + n))
          .digest()
          .subarray(0, n),
        o,
      );
    }
  }
  return d;
}

describe('digest', () => {
  for (const name of NAMES) {
    it(`${name}: the same as @noble/hashes, one part or two`, () => {
      const h = hashByName(name);
      const a = randomBytes(37);
      const b = randomBytes(1000);
      expect(Buffer.from(digest(h, a, b)).equals(Buffer.from(h.fn(Buffer.concat([a, b]))))).toBe(true);
      expect(Buffer.from(digest(h, b)).equals(Buffer.from(h.fn(b)))).toBe(true);
    });

    it(`${name}: AFmerge is the same on both paths`, () => {
      const keyLength = 64 + 7; // pieces of the digest size and a shorter last one
      const material = randomBytes(keyLength * 50);
      const got = afMerge(material, keyLength, 50, name);
      expect(Buffer.from(got).equals(Buffer.from(nobleAfMerge(material, keyLength, 50, name)))).toBe(true);
    });
  }
});
