/** Known-answer tests: FIPS 197 Appendix C and NIST SP 800-38A Appendix F.2 (CBC). */
import { describe, expect, it } from 'vitest';
import { wasmKernel } from '../src/index.js';
import { hex, load, toHex } from './helpers.js';

// FIPS 197 Appendix C.1-C.3: plaintext 00112233…ff, key 000102…
const FIPS197 = [
  { key: '000102030405060708090a0b0c0d0e0f', ct: '69c4e0d86a7b0430d8cdb78070b4c55a' },
  { key: '000102030405060708090a0b0c0d0e0f1011121314151617', ct: 'dda97ca4864cdfe06eaf70a0ec0d7191' },
  { key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', ct: '8ea2b7ca516745bfeafc49904b496089' },
];
const PT = '00112233445566778899aabbccddeeff';

// SP 800-38A F.2.1/F.2.3/F.2.5: CBC-AES128/192/256, four blocks.
const SP800_38A_PT =
  '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710';
const SP800_38A_IV = '000102030405060708090a0b0c0d0e0f';
const SP800_38A = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    ct: '7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    ct: '4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    ct: 'f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b',
  },
];

describe('wasm-simd128 known answers', () => {
  it('is available on Node 20 and names itself', () => {
    expect(wasmKernel.isAvailable()).toBe(true);
    expect(wasmKernel.name).toBe('wasm-simd128');
    expect(wasmKernel.parallelBlocks).toBe(8);
  });

  for (const v of FIPS197) {
    it(`FIPS 197 Appendix C, ${v.key.length * 4}-bit key`, () => {
      const k = load(hex(v.key));
      expect(k.rounds).toBe(6 + v.key.length / 8);
      const out = new Uint8Array(16);
      k.encryptECB(out, hex(PT));
      expect(toHex(out)).toBe(v.ct);
      k.decryptECB(out, out);
      expect(toHex(out)).toBe(PT);
      // The same block many times, through the wide path and the tail.
      const many = new Uint8Array(16 * 9);
      for (let i = 0; i < 9; i++) many.set(hex(PT), 16 * i);
      k.encryptECB(many, many);
      for (let i = 0; i < 9; i++) expect(toHex(many.subarray(16 * i, 16 * i + 16))).toBe(v.ct);
      k.dispose();
    });
  }

  for (const v of SP800_38A) {
    it(`SP 800-38A F.2 CBC, ${v.key.length * 4}-bit key`, () => {
      const k = load(hex(v.key));
      const out = new Uint8Array(64);
      k.encryptCBC(out, hex(SP800_38A_PT), hex(SP800_38A_IV));
      expect(toHex(out)).toBe(v.ct);
      const back = new Uint8Array(64);
      k.decryptCBC(back, out, hex(SP800_38A_IV));
      expect(toHex(back)).toBe(SP800_38A_PT);
      const sectors = new Uint8Array(64);
      k.decryptSectors(sectors, out, 64, hex(SP800_38A_IV));
      expect(toHex(sectors)).toBe(SP800_38A_PT);
      k.encryptSectors(sectors, hex(SP800_38A_PT), 64, hex(SP800_38A_IV));
      expect(toHex(sectors)).toBe(v.ct);
      k.dispose();
    });
  }

  it('IEEE 1619 XTS-AES-128 vector 1, and node:crypto aes-128-xts / aes-256-xts', async () => {
    const { createCipheriv } = await import('node:crypto');
    const zero = load(new Uint8Array(16));
    const t = new Uint8Array(16);
    zero.encryptECB(t, t); // T = E_K2(0), K2 = 0
    const out = new Uint8Array(32);
    zero.encryptXTS(out, new Uint8Array(32), 32, t);
    expect(toHex(out)).toBe('917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e');
    zero.decryptXTS(out, out, 32, t);
    expect(out.every((b) => b === 0)).toBe(true);
    zero.dispose();
    for (const bits of [128, 256]) {
      const key = new Uint8Array(bits / 4).map((_, i) => 3 * i + 1);
      const k1 = load(key.subarray(0, bits / 8)), k2 = load(key.subarray(bits / 8));
      const iv = new Uint8Array(16).map((_, i) => 200 - i);
      const pt = new Uint8Array(512).map((_, i) => i * 29);
      const tw = new Uint8Array(16);
      k2.encryptECB(tw, iv);
      const ct = new Uint8Array(512);
      k1.encryptXTS(ct, pt, 512, tw);
      expect(toHex(ct)).toBe(createCipheriv(`aes-${bits}-xts`, key, iv).update(pt).toString('hex'));
      k1.dispose();
      k2.dispose();
    }
  });

  it('does nothing on empty input', () => {
    const k = load(new Uint8Array(16));
    const dst = new Uint8Array(16).fill(7);
    const empty = new Uint8Array(0);
    k.encryptECB(dst, empty);
    k.decryptECB(dst, empty);
    k.encryptCBC(dst, empty, new Uint8Array(16));
    k.decryptCBC(dst, empty, new Uint8Array(16));
    k.decryptSectors(dst, empty, 512, empty);
    k.encryptSectors(dst, empty, 512, empty);
    k.encryptXTS(dst, empty, 512, empty);
    k.decryptXTS(dst, empty, 512, empty);
    expect(dst.every((b) => b === 7)).toBe(true);
    k.dispose();
  });
});
