/**
 * What @x/ccm is to the AEAD conformance suite of @x/testkit (`aeadConformance`): its tag lengths (4, 6,
 * …, 16 bytes), its nonce rule (7 to 13 bytes), its reference (node:crypto `aes-*-ccm`), the lengths worth
 * trying, its detached calls, and what is its own: the NIST SP 800-38C Appendix C, RFC 3610 §8 and IEEE
 * P1619.1 Annex D known answers, BitLocker's shape, and the message length limit of each nonce length.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { type Ccm, type CcmOptions, newCcm } from '@x/ccm';
import {
  type AeadMode,
  type AeadSuiteOptions,
  type AeadTarget,
  aeadConformance,
  assertBytes,
  hex,
  random,
  type Rejected,
  type Suite,
  toHex,
} from '@x/testkit';
import { refSeal } from './reference.js';

type TagLength = 4 | 6 | 8 | 10 | 12 | 14 | 16;
const TAGS: TagLength[] = [4, 6, 8, 10, 12, 14, 16];
type Make = (key: Uint8Array, options?: CcmOptions) => Ccm;

interface KnownAnswer {
  source: string;
  name: string;
  key: string;
  nonce: string;
  aad: string;
  aadRepeat?: number;
  plaintext: string;
  ciphertext: string;
  tag: string;
}

/** The known-answer vectors (`test/vectors/ccm_known_answers.json`), AAD repeated as the file says. */
export function knownAnswers(vectorsDir: URL): (KnownAnswer & { aadBytes: Uint8Array })[] {
  const doc = JSON.parse(readFileSync(new URL('ccm_known_answers.json', vectorsDir), 'utf8'));
  return (doc.vectors as KnownAnswer[]).map((v) => ({ ...v, aadBytes: hex(v.aad.repeat(v.aadRepeat ?? 1)) }));
}

/** Every known answer sealed and opened, joined and detached. */
function knownAnswerTest(make: Make, vectorsDir: URL): void {
  const seen: Record<string, number> = {};
  for (const v of knownAnswers(vectorsDir)) {
    const what = `${v.source} ${v.name}`;
    const t = v.tag.length / 2;
    const g = make(hex(v.key), { tagLength: t as TagLength });
    const nonce = hex(v.nonce),
      aad = v.aadBytes,
      plain = hex(v.plaintext);
    const n = plain.length;
    const sealed = new Uint8Array(n + t);
    g.seal(sealed, nonce, plain, aad);
    assert.equal(toHex(sealed), v.ciphertext + v.tag, what);
    const opened = new Uint8Array(n).fill(0x5a);
    g.open(opened, nonce, sealed, aad);
    assert.equal(toHex(opened), v.plaintext, what);
    const ct = new Uint8Array(n);
    const tag = new Uint8Array(t);
    g.sealDetached(ct, tag, nonce, plain, aad);
    assert.equal(toHex(ct), v.ciphertext, what);
    assert.equal(toHex(tag), v.tag, what);
    opened.fill(0x5a);
    g.openDetached(opened, nonce, hex(v.ciphertext), hex(v.tag), aad);
    assert.equal(toHex(opened), v.plaintext, what);
    g.dispose();
    seen[v.source] = (seen[v.source] ?? 0) + 1;
  }
  assert.deepEqual(seen, {
    'NIST SP 800-38C Appendix C': 4,
    'RFC 3610 §8': 24,
    'IEEE P1619.1/D22 Annex D': 9,
  });
}

/** BitLocker's shape: AES-256, 12-byte nonce, 16-byte tag stored before the ciphertext, no AAD. */
function bitLocker(make: Make): void {
  for (const n of [44, 60, 0, 1, 16, 300]) {
    const key = random(32),
      nonce = random(12),
      plain = random(n);
    const want = refSeal(key, nonce, plain, new Uint8Array(0));
    // The blob as stored: tag ‖ ciphertext.
    const blob = new Uint8Array(16 + n);
    blob.set(want.subarray(n), 0);
    blob.set(want.subarray(0, n), 16);
    const g = make(key);
    const out = new Uint8Array(n);
    g.openDetached(out, nonce, blob.subarray(16), blob.subarray(0, 16));
    assertBytes(out, plain, `open ${n} bytes`);
    const again = new Uint8Array(16 + n);
    g.sealDetached(again.subarray(16), again.subarray(0, 16), nonce, plain);
    assertBytes(again, blob, `seal ${n} bytes`);
    blob[n % 16]! ^= 0x80;
    assert.throws(() => g.openDetached(out, nonce, blob.subarray(16), blob.subarray(0, 16)), {
      message: '@x/ccm: authentication failed',
    });
    g.dispose();
  }
}

/** The plaintext may not lie under the tag's bytes of dst either. */
function plaintextUnderTag(rejected: Rejected<Ccm, CcmOptions>): void {
  const big = new Uint8Array(96);
  rejected(
    (g) => g.seal(big.subarray(0, 48), new Uint8Array(12), big.subarray(40, 72)),
    RangeError,
    '@x/ccm: dst and plaintext overlap without being the same bytes',
    big,
  );
}

/** SP 800-38C A.1: messages up to 2^(8L) − 1 bytes, L = 15 − nonce.length. */
function messageLimit(rejected: Rejected<Ccm, CcmOptions>): void {
  // Arrays that say they are that long (nothing is read: the length is checked first).
  const long = (n: number) =>
    Object.defineProperty(Object.create(Uint8Array.prototype), 'length', { value: n }) as Uint8Array;
  const cases: [number, number, string][] = [
    [13, 2 ** 16, '2^16 − 1 bytes'],
    [12, 2 ** 24, '2^24 − 1 bytes'],
    [11, 2 ** 32, '2^32 − 1 bytes'],
    [10, 2 ** 40, '2^40 − 1 bytes'],
    [9, 2 ** 48, '2^48 − 1 bytes'],
    [8, 2 ** 53, `${Number.MAX_SAFE_INTEGER} bytes`],
    [7, 2 ** 53, `${Number.MAX_SAFE_INTEGER} bytes`],
  ];
  for (const [nonceLength, n, most] of cases) {
    const l = 15 - nonceLength;
    const nonceN = new Uint8Array(nonceLength);
    rejected(
      (g, d) => g.seal(d, nonceN, long(n)),
      RangeError,
      `@x/ccm: plaintext is longer than a ${nonceLength}-byte nonce allows (L = ${l}: ${most}, SP 800-38C A.1)`,
    );
    rejected(
      (g, d) => g.sealDetached(d, new Uint8Array(16), nonceN, long(n)),
      RangeError,
      `@x/ccm: plaintext is longer than a ${nonceLength}-byte nonce allows (L = ${l}: ${most}, SP 800-38C A.1)`,
    );
    rejected(
      (g, d) => g.open(d, nonceN, long(n + 16)),
      RangeError,
      `@x/ccm: ciphertext is longer than a ${nonceLength}-byte nonce allows (L = ${l}: ${most}, SP 800-38C A.1)`,
    );
    rejected(
      (g, d) => g.openDetached(d, nonceN, long(n), new Uint8Array(16)),
      RangeError,
      `@x/ccm: ciphertext is longer than a ${nonceLength}-byte nonce allows (L = ${l}: ${most}, SP 800-38C A.1)`,
    );
    // One byte less is the limit itself: past the nonce rule, refused for dst's length (where the
    // lengths are exact doubles).
    if (l <= 6) {
      rejected(
        (g, d) => g.open(d, nonceN, long(n - 1 + 16)),
        RangeError,
        `@x/ccm: dst must be sealed.length − 16 = ${n - 1} bytes, got 48`,
      );
    }
  }
}

/** @x/ccm for `aeadConformance`. @example `aeadConformance(target, { describe, it }, CCM, { vectorsDir })` */
export const CCM: AeadMode<Ccm, CcmOptions> = {
  prefix: '@x/ccm',
  newCipher: newCcm,
  tagLengths: TAGS,
  badTagLengths: [0, 2, 3, 5, 7, 15, 17, 18, 32, 12.5, Number.NaN, -4],
  tagLengthSaid: '4, 6, 8, 10, 12, 14 or 16',
  nonceAllowed: (n) => n >= 7 && n <= 13,
  badNonces: [0, 6, 14, 16, 32],
  nonceRule: (n) => `nonce must be 7 to 13 bytes, got ${n}`,
  sealOverlapName: 'plaintext',
  refSeal,
  nonces: fc.oneof(
    fc.uint8Array({ minLength: 12, maxLength: 12 }),
    fc.uint8Array({ minLength: 13, maxLength: 13 }),
    fc.integer({ min: 7, max: 13 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
  ),
  /**
   * Lengths that reach every branch: empty, partial blocks, the short path's limit (512), the chunk size of
   * the CBC-MAC and of `open`'s first pass (4096), batches of the kernel, several chunks.
   */
  lengths: (parallelBlocks) =>
    fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: -17, max: 17 }).map((d) => 512 + d),
      fc.integer({ min: -17, max: 17 }).map((d) => 4096 + d),
      fc.integer({ min: -17, max: 17 }).map((d) => 8192 + d),
      fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 16 * parallelBlocks + d)),
      fc.integer({ min: 300, max: 10_000 }),
    ),
  /**
   * AAD lengths: none, short, across the staging chunk (B0 and the 2-byte length take 18 bytes of it), and
   * across 2^16 − 2^8, where the length encoding goes from 2 bytes to 6 (SP 800-38C §A.2.2).
   */
  aadLengths: fc.oneof(
    { arbitrary: fc.constant(0), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 64 }), weight: 3 },
    { arbitrary: fc.integer({ min: 64, max: 700 }), weight: 2 },
    { arbitrary: fc.integer({ min: -20, max: 20 }).map((d) => 4078 + d), weight: 1 },
    { arbitrary: fc.integer({ min: -3, max: 3 }).map((d) => 0xff00 + d), weight: 1 },
  ),
  tamperLengths: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 500, max: 5000 })),
  // 1 MiB: the counter carries into its third byte (2^16 blocks).
  long: {
    title: (large) =>
      `long messages: the most a 13-byte nonce allows (2^16 − 1 bytes), ${large} bytes, one cipher reused`,
    cases: (large) => [
      [
        128,
        [
          [13, 65_535],
          [7, 70_001],
        ],
      ],
      [
        256,
        [
          [12, large],
          [13, 65_535],
        ],
      ],
    ],
  },
  largeMessage: (1 << 20) + 5,
  wycheproof: {
    file: 'wycheproof_aes_ccm_test.json.gz',
    counts: { valid: 405, modifiedTag: 81, nonceSize: 39, tagSize: 27 },
  },
  knownAnswers: [
    { title: 'NIST SP 800-38C Appendix C, RFC 3610 packet vectors #1–#24, IEEE P1619.1 Annex D', run: knownAnswerTest },
    {
      title: "BitLocker's shape: AES-256, 12-byte nonce, 16-byte tag stored before the ciphertext, no AAD",
      run: bitLocker,
    },
  ],
  detached: true,
  sealRules: plaintextUnderTag,
  ruleTests: [{ title: 'SP 800-38C A.1: messages up to 2^(8L) − 1 bytes, L = 15 − nonce.length', run: messageLimit }],
};

/**
 * The AEAD suite on one target with @x/ccm's description and vectors (what `test/ccm.test.ts` and the arm64
 * run of @x/aes-native-arm64 call).
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) ccmConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function ccmConformance(
  target: AeadTarget<Ccm, CcmOptions>,
  suite: Suite,
  options: Partial<AeadSuiteOptions> = {},
): void {
  aeadConformance(target, suite, CCM, { vectorsDir: new URL('./vectors/', import.meta.url), ...options });
}
