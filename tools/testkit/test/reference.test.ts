// The references checked against each other and against published answers, so the suites can trust them.
import { describe, expect, it } from 'vitest';
import {
  FIPS197,
  FIPS197_PLAINTEXT,
  SP800_38A_CBC,
  SP800_38A_IV,
  SP800_38A_PLAINTEXT,
  backing,
  dmCryptIv,
  hex,
  keyPair,
  mulAlpha,
  outside,
  placed,
  random,
  refCbc,
  refEcb,
  refXtsBlocks,
  toHex,
} from '../src/index.js';

describe('references', () => {
  it('FIPS 197 Appendix C and SP 800-38A F.2 through node:crypto', () => {
    for (const v of FIPS197) expect(toHex(refEcb(true, hex(v.key), hex(FIPS197_PLAINTEXT)))).toBe(v.ciphertext);
    for (const v of SP800_38A_CBC)
      expect(toHex(refCbc(true, hex(v.key), hex(SP800_38A_PLAINTEXT), hex(SP800_38A_IV)))).toBe(v.ciphertext);
  });

  it('XTS by its definition over ECB agrees with node:crypto aes-128-xts and aes-256-xts', () => {
    for (const n of [16, 32]) {
      const [k1, k2] = keyPair(n);
      const src = random(3 * 16 * 19),
        tweaks = random(48);
      tweaks.fill(0xff, 0, 16); // every doubling reduces
      for (const encrypt of [true, false]) {
        expect(toHex(refXtsBlocks(encrypt, k1, k2, src, 16 * 19, tweaks, true))).toBe(
          toHex(refXtsBlocks(encrypt, k1, k2, src, 16 * 19, tweaks)),
        );
      }
    }
  });

  it('mulAlpha doubles little-endian and reduces by 0x87 (IEEE 1619 §5.2)', () => {
    expect(toHex(mulAlpha(hex('01000000000000000000000000000000')))).toBe('02000000000000000000000000000000');
    expect(toHex(mulAlpha(hex('80000000000000000000000000000000')))).toBe('00010000000000000000000000000000');
    expect(toHex(mulAlpha(hex('00000000000000000000000000000080')))).toBe('87000000000000000000000000000000');
  });

  it('dmCryptIv: plain, plain64, plain64be, benbi, null by hand; ESSIV and EBOIV from ECB', () => {
    const key = hex('000102030405060708090a0b0c0d0e0f');
    expect(toHex(dmCryptIv('plain', key, 0x1_0000_0002n, 512))).toBe(`02${'00'.repeat(15)}`);
    expect(toHex(dmCryptIv('plain64', key, 0x1_0000_0002n, 512))).toBe(`0200000001${'00'.repeat(11)}`);
    expect(toHex(dmCryptIv('plain64be', key, 2n, 512))).toBe(`${'00'.repeat(15)}02`);
    expect(toHex(dmCryptIv('benbi', key, 2n, 512))).toBe(`${'00'.repeat(15)}41`);
    expect(toHex(dmCryptIv('null', key, 2n, 512))).toBe('00'.repeat(16));
    expect(toHex(dmCryptIv('eboiv', key, 2n, 4096))).toBe(toHex(refEcb(true, key, hex(`0020${'00'.repeat(14)}`))));
    expect(() => dmCryptIv('lmk', key, 0n, 512)).toThrow(/unknown IV mode/);
  });
});

describe('buffers', () => {
  it('placed: a copy at the offset, guard bytes around it; outside() and backing() see them', () => {
    const bytes = random(40);
    const v = placed(bytes, 3);
    expect([v.byteOffset, v.length, v.buffer.byteLength]).toEqual([3, 40, 3 + 40 + 16]);
    expect(toHex(v)).toBe(toHex(bytes));
    const all = backing(v),
      around = outside(v);
    v.fill(0);
    expect(toHex(outside(v))).toBe(toHex(around));
    expect(toHex(backing(v))).not.toBe(toHex(all));
  });
});
