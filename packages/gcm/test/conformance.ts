/**
 * What @x/gcm is to the AEAD conformance suite of @x/testkit (`aeadConformance`): its tag lengths (12 to
 * 16 bytes), its nonce rule (at least 1 byte), its reference (node:crypto, and GCM written out from SP
 * 800-38D for nonces over 128 bytes, which OpenSSL refuses), the lengths worth trying, and what is its own:
 * NIST CAVP gcmEncryptExtIV / gcmDecrypt (a subset: every section) and the message length limit.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { type Gcm, type GcmOptions, newGcm } from '@x/gcm';
import {
  type AeadMode,
  type AeadSuiteOptions,
  type AeadTarget,
  aeadConformance,
  assertBytes,
  hex,
  type Rejected,
  type Suite,
  toHex,
} from '@x/testkit';
import { refSeal } from './reference.js';

interface CavpVector {
  file: string;
  keylen: number;
  ivlen: number;
  ptlen: number;
  aadlen: number;
  taglen: number;
  count: number;
  key: string;
  iv: string;
  pt?: string;
  aad: string;
  ct: string;
  tag: string;
  fail?: boolean;
}

/** NIST CAVP gcmEncryptExtIV / gcmDecrypt 128/192/256: every section (a subset of each). */
function cavp(make: (key: Uint8Array, options?: GcmOptions) => Gcm, vectorsDir: URL): void {
  const doc = JSON.parse(gunzipSync(readFileSync(new URL('nist_cavp_gcm_subset.json.gz', vectorsDir))).toString());
  const vectors = doc.vectors as CavpVector[];
  assert.equal(doc.sections, 3150);
  assert.equal(vectors.length, 4723);
  const seen = { sealed: 0, opened: 0, refused: 0, shortTag: 0 };
  for (const v of vectors) {
    const what = `${v.file} [${v.keylen},${v.ivlen},${v.ptlen},${v.aadlen},${v.taglen}] #${v.count}`;
    const t = v.taglen / 8;
    const key = hex(v.key),
      nonce = hex(v.iv),
      aad = hex(v.aad),
      ct = hex(v.ct),
      tag = hex(v.tag);
    if (t < 12) {
      // 32- and 64-bit tags are below SP 800-38D's usual minimum (§5.2.1.2, Appendix C) and
      // refused; the tag is the first t bytes of the 16-byte one (MSB_t, §7.1 step 6), so check
      // that: CTR is its own inverse, so sealing the ciphertext gives the plaintext, and sealing that
      // gives the ciphertext with its full tag.
      assert.throws(() => make(key, { tagLength: t }), RangeError);
      const g = make(key);
      const p = new Uint8Array(ct.length + 16);
      g.seal(p, nonce, ct, aad);
      const sealed = new Uint8Array(ct.length + 16);
      g.seal(sealed, nonce, p.subarray(0, ct.length), aad);
      assertBytes(sealed.subarray(0, ct.length), ct, what);
      assert.equal(toHex(sealed.subarray(ct.length, ct.length + t)) === v.tag, !v.fail, what);
      if (v.pt !== undefined) assert.equal(toHex(p.subarray(0, ct.length)), v.pt, what);
      g.dispose();
      seen.shortTag++;
      continue;
    }
    const g = make(key, { tagLength: t });
    const sealed = new Uint8Array(ct.length + t);
    sealed.set(ct);
    sealed.set(tag, ct.length);
    const out = new Uint8Array(ct.length).fill(0x5a);
    if (v.fail) {
      assert.throws(() => g.open(out, nonce, sealed, aad), { message: '@x/gcm: authentication failed' }, what);
      assert.ok(
        out.every((b) => b === 0x5a),
        `${what}: dst written`,
      );
      seen.refused++;
    } else {
      g.open(out, nonce, sealed, aad);
      assert.equal(toHex(out), v.pt, what);
      const again = new Uint8Array(sealed.length);
      g.seal(again, nonce, out, aad);
      assertBytes(again, sealed, what);
      if (v.file.startsWith('gcmEncrypt')) seen.sealed++;
      else seen.opened++;
    }
    g.dispose();
  }
  // 32- and 64-bit tags: 2 of 7 tag lengths of every file.
  assert.deepEqual(seen, { sealed: 1125, opened: 1123, refused: 1125, shortTag: 1350 });
}

/** SP 800-38D §5.2.1.1: messages up to 2^39 − 256 bits. */
function messageLimit(rejected: Rejected<Gcm, GcmOptions>): void {
  const nonce = new Uint8Array(12);
  // Arrays that say they are that long (nothing is read: the length is checked first).
  const long = (n: number) =>
    Object.defineProperty(Object.create(Uint8Array.prototype), 'length', { value: n }) as Uint8Array;
  rejected(
    (g, d) => g.seal(d, nonce, long(2 ** 36 - 31)),
    RangeError,
    '@x/gcm: plaintext is longer than 2^36 − 32 bytes (SP 800-38D §5.2.1.1)',
  );
  rejected(
    (g, d) => g.open(d, nonce, long(2 ** 36 - 15)),
    RangeError,
    '@x/gcm: ciphertext is longer than 2^36 − 32 bytes (SP 800-38D §5.2.1.1)',
  );
  rejected(
    (g, d) => g.open(d, nonce, long(2 ** 36 - 16)),
    RangeError,
    `@x/gcm: dst must be sealed.length − 16 = ${2 ** 36 - 32} bytes, got 48`,
  );
}

const large = (bits: number) =>
  [
    bits,
    [
      [12, 1 << 20],
      [12, (1 << 20) + 5],
      [12, 65_536 + 15],
    ],
  ] as const;

/** @x/gcm for `aeadConformance`. @example `aeadConformance(target, { describe, it }, GCM, { vectorsDir })` */
export const GCM: AeadMode<Gcm, GcmOptions> = {
  prefix: '@x/gcm',
  newCipher: newGcm,
  tagLengths: [12, 13, 14, 15, 16],
  badTagLengths: [0, 4, 8, 11, 17, 12.5, Number.NaN],
  tagLengthSaid: 'an integer from 12 to 16',
  nonceAllowed: (n) => n >= 1,
  badNonces: [0],
  nonceRule: () => 'nonce must be at least 1 byte',
  sealOverlapName: 'src',
  refSeal,
  nonces: fc.oneof(
    fc.uint8Array({ minLength: 12, maxLength: 12 }),
    fc.uint8Array({ minLength: 1, maxLength: 1 }),
    fc.uint8Array({ minLength: 1, maxLength: 40 }),
    fc.uint8Array({ minLength: 200, maxLength: 600 }),
  ),
  /** Lengths that reach every branch: empty, partial blocks, the staging limits, many batches. */
  lengths: (parallelBlocks) =>
    fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 16 * parallelBlocks + d)),
      fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 32 * parallelBlocks + d)),
      fc.integer({ min: 300, max: 5000 }),
    ),
  aadLengths: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(0), fc.integer({ min: 300, max: 1000 })),
  tamperLengths: fc.integer({ min: 0, max: 200 }),
  long: {
    title: () => 'large messages: 1 MiB and odd lengths, one cipher reused',
    cases: () => [large(128), large(256)],
  },
  largeMessage: (1 << 20) + 5,
  wycheproof: {
    file: 'wycheproof_aes_gcm_test.json',
    counts: { valid: 229, modifiedTag: 81, nonceSize: 6, tagSize: 0 },
  },
  knownAnswers: [
    { title: 'NIST CAVP gcmEncryptExtIV / gcmDecrypt 128/192/256: every section (subset of each)', run: cavp },
  ],
  detached: false,
  ruleTests: [{ title: 'SP 800-38D §5.2.1.1: messages up to 2^39 − 256 bits', run: messageLimit }],
};

/**
 * The AEAD suite on one target with @x/gcm's description and vectors (what `test/gcm.test.ts` and the arm64
 * run of @x/aes-native-arm64 call).
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) gcmConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function gcmConformance(
  target: AeadTarget<Gcm, GcmOptions>,
  suite: Suite,
  options: Partial<AeadSuiteOptions> = {},
): void {
  aeadConformance(target, suite, GCM, { vectorsDir: new URL('./vectors/', import.meta.url), ...options });
}
