// CCM's formatting (SP 800-38C Appendix A) on its own: the AAD length encodings at every boundary, which
// the cross-checks reach only up to 2^16 (a 4 GiB AAD is beyond a test), B0's flags for every tag
// length and L, the counter blocks, and the message limits.
import { describe, expect, it } from 'vitest';
import { aadLengthHeader, addToCounter, maxMessageBytes, writeA0, writeB0 } from '../src/format.js';

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('format', () => {
  it('the AAD length: 2 bytes below 2^16 − 2^8, 0xfffe and 4 bytes below 2^32, 0xffff and 8 bytes above (§A.2.2)', () => {
    const cases: [number, string][] = [
      [1, '0001'],
      [0x1234, '1234'],
      [0xfeff, 'feff'],
      [0xff00, 'fffe0000ff00'],
      [0xffff, 'fffe0000ffff'],
      [0x10000, 'fffe00010000'],
      [2 ** 32 - 1, 'fffeffffffff'],
      [2 ** 32, 'ffff0000000100000000'],
      [2 ** 40 + 0x0102, 'ffff0000010000000102'],
      [Number.MAX_SAFE_INTEGER, 'ffff001fffffffffffff'],
    ];
    for (const [a, want] of cases) {
      const out = new Uint8Array(16).fill(0xee);
      const len = aadLengthHeader(out, a);
      expect(len, String(a)).toBe(want.length / 2);
      expect(hexOf(out.subarray(0, len)), String(a)).toBe(want);
      expect(out.subarray(len).every((b) => b === 0xee)).toBe(true);
    }
  });

  it('B0: flags 64·Adata + 8·(t − 2)/2 + (L − 1), the nonce, the length in L bytes (§A.2.1)', () => {
    for (let nonceLength = 7; nonceLength <= 13; nonceLength++) {
      const l = 15 - nonceLength;
      const nonce = Uint8Array.from({ length: nonceLength }, (_, i) => 0xa0 + i);
      for (const t of [4, 6, 8, 10, 12, 14, 16]) {
        for (const aad of [false, true]) {
          const b0 = new Uint8Array(16).fill(0xee);
          writeB0(b0, nonce, t, 0x0102, aad);
          expect(b0[0]).toBe((aad ? 64 : 0) + 8 * ((t - 2) / 2) + (l - 1));
          expect(hexOf(b0.subarray(1, 1 + nonceLength))).toBe(hexOf(nonce));
          expect(hexOf(b0.subarray(16 - l))).toBe('0102'.padStart(2 * l, '0'));
        }
      }
    }
    // RFC 3610 §2.2's example of the length field at its largest for L = 2.
    const b0 = new Uint8Array(16);
    writeB0(b0, new Uint8Array(13), 8, 65_535, true);
    expect(hexOf(b0)).toBe(`59${'00'.repeat(13)}ffff`);
    writeB0(b0, new Uint8Array(7), 16, Number.MAX_SAFE_INTEGER, false);
    expect(hexOf(b0)).toBe(`3f${'00'.repeat(7)}001fffffffffffff`);
  });

  it('A0 and the counter (§A.3): flags L − 1, the nonce, a counter of L bytes that carries within them', () => {
    const a = new Uint8Array(16).fill(0xee);
    writeA0(
      a,
      Uint8Array.from({ length: 12 }, (_, i) => i + 1),
    );
    expect(hexOf(a)).toBe('020102030405060708090a0b0c000000');
    addToCounter(a, 3, 1);
    expect(hexOf(a.subarray(13))).toBe('000001');
    addToCounter(a, 3, 255);
    expect(hexOf(a.subarray(13))).toBe('000100');
    addToCounter(a, 3, 0xfeff00 - 0x100);
    expect(hexOf(a)).toBe('020102030405060708090a0b0cfeff00');
    addToCounter(a, 3, 0x100);
    expect(hexOf(a)).toBe('020102030405060708090a0b0cff0000');
  });

  it('the longest message of each nonce length: 2^(8L) − 1 bytes, at most Number.MAX_SAFE_INTEGER', () => {
    expect([13, 12, 11, 10, 9, 8, 7].map(maxMessageBytes)).toEqual([
      2 ** 16 - 1,
      2 ** 24 - 1,
      2 ** 32 - 1,
      2 ** 40 - 1,
      2 ** 48 - 1,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
    ]);
  });
});
