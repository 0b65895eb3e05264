// Known answers used by more than one package's tests, with their sources. The large vector files (NIST
// CAVP, Wycheproof, IEEE 1619 Annex B) stay beside the suites that read them.

/**
 * FIPS 197 Appendix C.1–C.3: the key 000102…, the plaintext 00112233…ff, and the ciphertext, for
 * AES-128, AES-192 and AES-256.
 *
 * @example
 * ```ts
 * for (const v of FIPS197) refEcb(true, hex(v.key), hex(FIPS197_PLAINTEXT)); // hex(v.ciphertext)
 * ```
 */
export const FIPS197: readonly { key: string; ciphertext: string }[] = [
  { key: '000102030405060708090a0b0c0d0e0f', ciphertext: '69c4e0d86a7b0430d8cdb78070b4c55a' },
  { key: '000102030405060708090a0b0c0d0e0f1011121314151617', ciphertext: 'dda97ca4864cdfe06eaf70a0ec0d7191' },
  {
    key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    ciphertext: '8ea2b7ca516745bfeafc49904b496089',
  },
];

/** The plaintext of {@link FIPS197}. @example `hex(FIPS197_PLAINTEXT).length // 16` */
export const FIPS197_PLAINTEXT = '00112233445566778899aabbccddeeff';

/**
 * NIST SP 800-38A Appendix F.2.1, F.2.3 and F.2.5 (CBC-AES128/192/256.Encrypt; F.2.2/4/6 are the same
 * vectors decrypted): four blocks under {@link SP800_38A_IV}.
 *
 * @example
 * ```ts
 * const v = SP800_38A_CBC[0];
 * refCbc(true, hex(v.key), hex(SP800_38A_PLAINTEXT), hex(SP800_38A_IV)); // hex(v.ciphertext)
 * ```
 */
export const SP800_38A_CBC: readonly { key: string; ciphertext: string }[] = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    ciphertext:
      '7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    ciphertext:
      '4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    ciphertext:
      'f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b',
  },
];

/** The plaintext of {@link SP800_38A_CBC} (SP 800-38A Appendix F). @example `hex(SP800_38A_PLAINTEXT).length // 64` */
export const SP800_38A_PLAINTEXT =
  '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710';

/** The IV of {@link SP800_38A_CBC}. @example `hex(SP800_38A_IV)` */
export const SP800_38A_IV = '000102030405060708090a0b0c0d0e0f';

/**
 * IEEE 1619-2007 Annex B, XTS-AES-128 vector 1: key1 = key2 = 0, data unit sequence number 0, 32 zero
 * bytes of plaintext. (node:crypto refuses its equal halves; a kernel, which takes the encrypted tweak
 * T = E_K2(0), does not care.)
 *
 * @example
 * ```ts
 * IEEE1619_VECTOR1.ciphertext; // '917cf69e…'
 * ```
 */
export const IEEE1619_VECTOR1 = {
  key1: '00000000000000000000000000000000',
  key2: '00000000000000000000000000000000',
  sequence: '00000000000000000000000000000000',
  plaintext: '0000000000000000000000000000000000000000000000000000000000000000',
  ciphertext: '917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e',
} as const;

/**
 * NIST SP 800-38A Appendix F.5.1, F.5.3, F.5.5 (CTR-AES128/192/256.Encrypt; F.5.2/4/6 decrypt them back):
 * the plaintext {@link SP800_38A_PLAINTEXT} from the initial counter block {@link SP800_38A_CTR_IV}.
 *
 * @example
 * ```ts
 * const v = SP800_38A_CTR[0];
 * refCtr(hex(v.key), hex(SP800_38A_PLAINTEXT), hex(SP800_38A_CTR_IV), 'be128'); // hex(v.ciphertext)
 * ```
 */
export const SP800_38A_CTR: readonly { key: string; ciphertext: string }[] = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    ciphertext:
      '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    ciphertext:
      '1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    ciphertext:
      '601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6',
  },
];

/** The initial counter block of {@link SP800_38A_CTR}. @example `hex(SP800_38A_CTR_IV)` */
export const SP800_38A_CTR_IV = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff';
