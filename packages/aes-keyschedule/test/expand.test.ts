import { describe, expect, it } from 'vitest';
import { expandKey } from '../src/index.js';
import { subByte } from '../src/expand.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// FIPS 197 (2001 and Upd1 2023) Appendix A: key expansion examples. Round keys 0, 1 and the last.
const appendixA = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    rounds: 10,
    round1: 'a0fafe1788542cb123a339392a6c7605',
    last: 'd014f9a8c9ee2589e13f0cc8b6630ca6',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    rounds: 12,
    round1: '62f8ead2522c6b7bfe0c91f72402f5a5',
    last: 'e98ba06f448c773c8ecc720401002202',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    rounds: 14,
    round1: '1f352c073b6108d72d9810a30914dff4',
    last: 'fe4890d1e6188d0b046df344706c631e',
  },
];

// FIPS 197 Appendix C: the equivalent inverse cipher's first and last round keys (round[0].ik_sch,
// round[1].ik_sch for AES-128 and AES-256, round[Nr].ik_sch) for keys 000102….
const appendixC: { key: string; dk0: string; dk1?: string }[] = [
  {
    key: '000102030405060708090a0b0c0d0e0f',
    dk0: '13111d7fe3944a17f307a78b4d2b30c5',
    dk1: '13aa29be9c8faff6f770f58000f7bf03',
  },
  {
    key: '000102030405060708090a0b0c0d0e0f1011121314151617',
    dk0: 'a4970a331a78dc09c418c271e3a41d5d',
  },
  {
    key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    dk0: '24fc79ccbf0979e9371ac23c6d68de36',
    dk1: '34f1d1ffbfceaa2ffce9e25f2558016e',
  },
];

function block(ks: Uint8Array, r: number) {
  return toHex(ks.subarray(16 * r, 16 * r + 16));
}

describe('expandKey (FIPS 197 Appendix A)', () => {
  for (const v of appendixA) {
    it(`AES-${v.key.length * 4}`, () => {
      const ks = expandKey(hex(v.key));
      expect(ks.rounds).toBe(v.rounds);
      expect(ks.encryptionKeys.length).toBe(16 * (v.rounds + 1));
      expect(toHex(ks.encryptionKeys).startsWith(v.key)).toBe(true);
      expect(block(ks.encryptionKeys, 1)).toBe(v.round1);
      expect(block(ks.encryptionKeys, v.rounds)).toBe(v.last);
      // Equivalent inverse cipher: first is the last encryption key, last is the first.
      expect(block(ks.decryptionKeys, 0)).toBe(v.last);
      expect(block(ks.decryptionKeys, v.rounds)).toBe(v.key.slice(0, 32));
    });
  }
});

describe('decryptionKeys (FIPS 197 §5.3.5, Appendix C)', () => {
  for (const v of appendixC) {
    it(`AES-${v.key.length * 4}`, () => {
      const ks = expandKey(hex(v.key));
      expect(block(ks.decryptionKeys, 0)).toBe(v.dk0);
      if (v.dk1) expect(block(ks.decryptionKeys, 1)).toBe(v.dk1);
      expect(block(ks.decryptionKeys, ks.rounds)).toBe(v.key.slice(0, 32));
    });
  }
});

describe('subByte', () => {
  it('is the FIPS 197 S-box (spot values, bijective)', () => {
    // FIPS 197 Figure 7: S(00)=63, S(01)=7c, S(53)=ed, S(ff)=16.
    expect([0x00, 0x01, 0x53, 0xff].map(subByte)).toEqual([0x63, 0x7c, 0xed, 0x16]);
    const seen = new Set(Array.from({ length: 256 }, (_, i) => subByte(i)));
    expect(seen.size).toBe(256);
  });
});

describe('wipe and input rules', () => {
  it('wipe() zeroes both directions', () => {
    const ks = expandKey(new Uint8Array(32).fill(7));
    ks.wipe();
    expect(ks.encryptionKeys.every((b) => b === 0)).toBe(true);
    expect(ks.decryptionKeys.every((b) => b === 0)).toBe(true);
  });
  it('does not keep or change the key', () => {
    const key = hex(appendixA[0].key);
    const ks = expandKey(key);
    ks.wipe();
    expect(toHex(key)).toBe(appendixA[0].key);
  });
  it('rejects bad keys with stable messages', () => {
    expect(() => expandKey(new Uint8Array(15))).toThrow(
      new RangeError('@x/aes-keyschedule: key must be 16, 24 or 32 bytes, got 15'),
    );
    expect(() => expandKey(new Uint8Array(0))).toThrow(RangeError);
    expect(() => expandKey([1, 2, 3] as unknown as Uint8Array)).toThrow(
      new TypeError('@x/aes-keyschedule: key must be a Uint8Array'),
    );
  });
});
