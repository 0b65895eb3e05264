/**
 * The @x/ccm conformance suite, run on every kernel and on the block primitives alone of every kernel
 * (the generic keystream and the one-block CBC-MAC): NIST SP 800-38C Appendix C, RFC 3610 §8 and IEEE
 * P1619.1 Annex D known answers, Wycheproof aes_ccm_test, property tests against node:crypto
 * `aes-*-ccm`, tampering, and every input rule. Like @x/gcm's suite it takes the runner's
 * `describe`/`it`, so it can also run under `node:test`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { type Ccm, type CcmOptions, newCcm } from '@x/ccm';
import { assertBytes, backing, hex, outside, placed, random, type Suite, toHex } from '@x/testkit';
import { refSeal } from './reference.js';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface CcmTarget {
  /** A kernel name (`newCcm`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** The kernel's `parallelBlocks`: lengths around 16 times it are tried. */
  parallelBlocks: number;
  /** A CCM cipher for `key` on this target. */
  make(key: Uint8Array, options?: CcmOptions): Ccm;
}

export interface ConformanceOptions {
  /** Where the vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
  /** fast-check runs per property (default 100). */
  runs?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
  /**
   * The longest message tried with a 12-byte nonce (default 1 MiB + 5 bytes, where the counter carries into
   * its third byte); less on the slowest target, the portable kernel one block per call.
   */
  largeMessage?: number;
}

type TagLength = 4 | 6 | 8 | 10 | 12 | 14 | 16;
const TAGS: TagLength[] = [4, 6, 8, 10, 12, 14, 16];

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

/**
 * Lengths that reach every branch: empty, partial blocks, the short path's limit (512), the chunk size of
 * the CBC-MAC and of `open`'s first pass (4096), batches of the kernel, several chunks.
 */
const lengthArb = (parallelBlocks: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: 300 }),
    fc.integer({ min: -17, max: 17 }).map((d) => 512 + d),
    fc.integer({ min: -17, max: 17 }).map((d) => 4096 + d),
    fc.integer({ min: -17, max: 17 }).map((d) => 8192 + d),
    fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 16 * parallelBlocks + d)),
    fc.integer({ min: 300, max: 10_000 }),
  );
/**
 * AAD lengths: none, short, across the staging chunk (B0 and the 2-byte length take 18 bytes of it), and
 * across 2^16 − 2^8, where the length encoding goes from 2 bytes to 6 (SP 800-38C §A.2.2).
 */
const aadLengthArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 64 }), weight: 3 },
  { arbitrary: fc.integer({ min: 64, max: 700 }), weight: 2 },
  { arbitrary: fc.integer({ min: -20, max: 20 }).map((d) => 4078 + d), weight: 1 },
  { arbitrary: fc.integer({ min: -3, max: 3 }).map((d) => 0xff00 + d), weight: 1 },
);
const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const nonceArb = fc.oneof(
  fc.uint8Array({ minLength: 12, maxLength: 12 }),
  fc.uint8Array({ minLength: 13, maxLength: 13 }),
  fc.integer({ min: 7, max: 13 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
);
const tagArb = fc.constantFrom(...TAGS);

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) ccmConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function ccmConformance(target: CcmTarget, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const runs = options.runs ?? 100;
  const large = options.largeMessage ?? (1 << 20) + 5;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const make = target.make;

  describe(`@x/ccm on kernel ${target.name}`, () => {
    it('uses the kernel it was asked for', () => {
      const g = make(random(16));
      assert.equal(g.kernel, target.name);
      assert.equal(g.tagLength, 16);
      g.dispose();
    });

    describe('known answers', () => {
      it('NIST SP 800-38C Appendix C, RFC 3610 packet vectors #1–#24, IEEE P1619.1 Annex D', () => {
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
      });

      it('Wycheproof aes_ccm_test: valid vectors seal and open, invalid ones are refused', () => {
        const { testGroups } = JSON.parse(
          gunzipSync(readFileSync(new URL('wycheproof_aes_ccm_test.json.gz', vectorsDir))).toString(),
        );
        const seen = { valid: 0, modifiedTag: 0, nonceSize: 0, tagSize: 0 };
        for (const group of testGroups as {
          tagSize: number;
          tests: {
            tcId: number;
            key: string;
            iv: string;
            aad: string;
            msg: string;
            ct: string;
            tag: string;
            result: string;
          }[];
        }[]) {
          const t = group.tagSize / 8;
          for (const v of group.tests) {
            const what = `tcId ${v.tcId}`;
            // The file has no "acceptable" vectors; one would be held to the rule of "valid" ones.
            assert.ok(v.result === 'valid' || v.result === 'invalid', what);
            const key = hex(v.key),
              nonce = hex(v.iv),
              aad = hex(v.aad),
              msg = hex(v.msg);
            const sealed = hex(v.ct + v.tag);
            if (!TAGS.includes(t as TagLength)) {
              // Tags of 2, 3, 5, 7, … bytes (InvalidTagSize, InsecureTagSize): refused by the constructor.
              assert.equal(v.result, 'invalid', what);
              assert.throws(() => make(key, { tagLength: t as TagLength }), RangeError, what);
              seen.tagSize++;
              continue;
            }
            const g = make(key, { tagLength: t as TagLength });
            const out = new Uint8Array(msg.length).fill(0x5a);
            if (v.result === 'valid') {
              const dst = new Uint8Array(sealed.length);
              g.seal(dst, nonce, msg, aad);
              assert.equal(toHex(dst), v.ct + v.tag, what);
              g.open(out, nonce, sealed, aad);
              assert.equal(toHex(out), v.msg, what);
              seen.valid++;
            } else if (nonce.length < 7 || nonce.length > 13) {
              // InvalidNonceSize (0 to 268 bytes, none of 7 to 13): a RangeError from seal and open alike.
              const message = `@x/ccm: nonce must be 7 to 13 bytes, got ${nonce.length}`;
              assert.throws(() => g.seal(new Uint8Array(sealed.length), nonce, msg, aad), { message }, what);
              assert.throws(() => g.open(out, nonce, sealed, aad), { name: 'RangeError', message }, what);
              seen.nonceSize++;
            } else {
              // ModifiedTag.
              assert.throws(() => g.open(out, nonce, sealed, aad), { message: '@x/ccm: authentication failed' }, what);
              seen.modifiedTag++;
            }
            if (v.result === 'invalid') {
              assert.ok(
                out.every((b) => b === 0x5a),
                `${what}: dst written`,
              );
            }
            g.dispose();
          }
        }
        assert.deepEqual(seen, { valid: 405, modifiedTag: 81, nonceSize: 39, tagSize: 27 });
      });

      it("BitLocker's shape: AES-256, 12-byte nonce, 16-byte tag stored before the ciphertext, no AAD", () => {
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
      });
    });

    describe('against node:crypto', () => {
      it('any key, nonce, AAD and length, every tag length, any offsets, in place or not, joined or detached', () => {
        fc.assert(
          fc.property(
            keyArb,
            nonceArb,
            lengthArb(target.parallelBlocks),
            aadLengthArb,
            tagArb,
            fc.tuple(fc.nat(15), fc.nat(15)),
            fc.boolean(),
            fc.boolean(),
            (key, nonce, n, aadLength, t, [so, dso], inPlace, detached) => {
              const g = make(key, { tagLength: t });
              const plain = random(n),
                aad = random(aadLength);
              const want = refSeal(key, nonce, plain, aad, t);
              const what = `${n} bytes, aad ${aadLength}, nonce ${nonce.length}, tag ${t}`;
              if (!detached) {
                // Seal: dst and its guard bytes; in place, the plaintext is the first bytes of dst.
                const dst = placed(new Uint8Array(n + t), dso);
                const src = inPlace ? dst.subarray(0, n) : placed(plain, so);
                if (inPlace) src.set(plain);
                const around = outside(dst);
                const srcBefore = inPlace ? undefined : backing(src);
                g.seal(dst, nonce, src, aad);
                assertBytes(dst, want, `seal ${what}`);
                assertBytes(outside(dst), around, 'seal wrote outside dst');
                if (srcBefore) assertBytes(backing(src), srcBefore, 'seal changed plaintext');
                // Open: in place, dst is the first bytes of sealed.
                const sealed = inPlace ? dst : placed(want, so);
                const out = inPlace ? sealed.subarray(0, n) : placed(new Uint8Array(n), dso);
                const outAround = outside(out);
                const sealedBefore = inPlace ? undefined : backing(sealed);
                g.open(out, nonce, sealed, aad);
                assertBytes(out, plain, `open ${what}`);
                if (!inPlace) assertBytes(outside(out), outAround, 'open wrote outside dst');
                if (sealedBefore) assertBytes(backing(sealed), sealedBefore, 'open changed sealed');
              } else {
                const dst = placed(new Uint8Array(n), dso);
                const tag = placed(new Uint8Array(t), 3);
                const src = inPlace ? dst : placed(plain, so);
                if (inPlace) src.set(plain);
                const around = outside(dst);
                const tagAround = outside(tag);
                g.sealDetached(dst, tag, nonce, src, aad);
                assertBytes(dst, want.subarray(0, n), `sealDetached ${what}`);
                assertBytes(tag, want.subarray(n), `sealDetached tag ${what}`);
                assertBytes(outside(dst), around, 'sealDetached wrote outside dst');
                assertBytes(outside(tag), tagAround, 'sealDetached wrote outside tag');
                const ct = inPlace ? dst : placed(want.subarray(0, n), so);
                const out = inPlace ? ct : placed(new Uint8Array(n), dso);
                const tagIn = placed(want.subarray(n), 5);
                g.openDetached(out, nonce, ct, tagIn, aad);
                assertBytes(out, plain, `openDetached ${what}`);
              }
              g.dispose();
            },
          ),
          { numRuns: runs },
        );
      });

      it('any changed bit of ciphertext, tag, AAD or nonce is refused, dst untouched', () => {
        fc.assert(
          fc.property(
            keyArb,
            nonceArb,
            fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 500, max: 5000 })),
            fc.integer({ min: 0, max: 40 }),
            tagArb,
            fc.constantFrom('ciphertext', 'tag', 'aad', 'nonce'),
            fc.nat(),
            fc.boolean(),
            (key, nonce, n, aadLength, t, where, bit, detached) => {
              const g = make(key, { tagLength: t });
              const plain = random(n),
                aad = random(aadLength);
              const sealed = refSeal(key, nonce, plain, aad, t);
              const target =
                where === 'ciphertext'
                  ? sealed.subarray(0, n)
                  : where === 'tag'
                    ? sealed.subarray(n)
                    : where === 'aad'
                      ? aad
                      : nonce;
              if (target.length === 0) return;
              const i = bit % (8 * target.length);
              const changed = Uint8Array.from(nonce);
              const changedAad = Uint8Array.from(aad);
              const changedSealed = Uint8Array.from(sealed);
              const flip = where === 'nonce' ? changed : where === 'aad' ? changedAad : changedSealed;
              flip[(where === 'tag' ? n : 0) + (i >>> 3)]! ^= 1 << (i & 7);
              const out = new Uint8Array(n).fill(0xa5);
              assert.throws(
                () =>
                  detached
                    ? g.openDetached(out, changed, changedSealed.subarray(0, n), changedSealed.subarray(n), changedAad)
                    : g.open(out, changed, changedSealed, changedAad),
                { message: '@x/ccm: authentication failed' },
              );
              assert.ok(out.every((b) => b === 0xa5));
              g.dispose();
            },
          ),
          { numRuns: runs },
        );
      });

      it(`long messages: the most a 13-byte nonce allows (2^16 − 1 bytes), ${large} bytes, one cipher reused`, () => {
        // 1 MiB: the counter carries into its third byte (2^16 blocks).
        for (const [bits, cases] of [
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
        ] as const) {
          const key = random(bits / 8);
          const g = make(key);
          for (const [nonceLength, n] of cases) {
            const nonce = random(nonceLength),
              aad = random(33);
            const plain = random(n);
            const want = refSeal(key, nonce, plain, aad);
            const dst = new Uint8Array(n + 16);
            g.seal(dst, nonce, plain, aad);
            assertBytes(dst, want, `seal ${n}`);
            const out = new Uint8Array(n);
            g.open(out, nonce, dst, aad);
            assertBytes(out, plain, `open ${n}`);
            dst[n >>> 1]! ^= 1;
            assert.throws(() => g.open(out, nonce, dst, aad), { message: '@x/ccm: authentication failed' });
          }
          g.dispose();
        }
      });
    });

    if (options.inputRules === false) return;

    describe('input rules (dst untouched on error)', () => {
      const key = Uint8Array.from({ length: 16 }, (_, i) => i);
      const nonce = new Uint8Array(12);
      const rejected = (
        call: (g: Ccm, dst: Uint8Array) => void,
        type: typeof TypeError | typeof RangeError | typeof Error,
        message: string,
        dst = new Uint8Array(48),
        options?: CcmOptions,
      ) => {
        const g = make(key, options);
        dst.fill(0x5a);
        const before = toHex(backing(dst));
        assert.throws(
          () => call(g, dst),
          (e: unknown) => e instanceof type && (e as Error).message === message,
          message,
        );
        assert.equal(toHex(backing(dst)), before);
        g.dispose();
      };

      it('keys and options', () => {
        assert.throws(() => newCcm(new Uint8Array(20)), {
          name: 'RangeError',
          message: '@x/ccm: key must be 16, 24 or 32 bytes, got 20',
        });
        assert.throws(() => newCcm('k' as unknown as Uint8Array), {
          name: 'TypeError',
          message: '@x/ccm: key must be a Uint8Array',
        });
        assert.throws(() => newCcm(key, 16 as unknown as object), {
          name: 'TypeError',
          message: '@x/ccm: options must be an object',
        });
        assert.throws(
          () => newCcm(key, { kernel: 'nope' }),
          (e: unknown) => e instanceof RangeError && e.message.startsWith('@x/ccm: unknown kernel "nope"'),
        );
        for (const t of [0, 2, 3, 5, 7, 15, 17, 18, 32, 12.5, Number.NaN, -4]) {
          assert.throws(() => newCcm(key, { tagLength: t as TagLength }), {
            name: 'RangeError',
            message: `@x/ccm: tagLength must be 4, 6, 8, 10, 12, 14 or 16 bytes, got ${t}`,
          });
        }
        assert.throws(() => newCcm(key, { tagLength: '16' as unknown as TagLength }), {
          name: 'TypeError',
          message: '@x/ccm: tagLength must be a number',
        });
        for (const t of TAGS) {
          const g = newCcm(key, { tagLength: t });
          assert.equal(g.tagLength, t);
          g.dispose();
        }
      });

      it('seal', () => {
        const p = new Uint8Array(32);
        rejected(
          (g, d) => g.seal(d, nonce, new Uint8Array(40)),
          RangeError,
          '@x/ccm: dst must be plaintext.length + 16 = 56 bytes, got 48',
        );
        rejected(
          (g, d) => g.seal(d, nonce, p),
          RangeError,
          '@x/ccm: dst must be plaintext.length + 4 = 36 bytes, got 48',
          undefined,
          { tagLength: 4 },
        );
        for (const n of [0, 6, 14, 16, 32]) {
          rejected(
            (g, d) => g.seal(d, new Uint8Array(n), p),
            RangeError,
            `@x/ccm: nonce must be 7 to 13 bytes, got ${n}`,
          );
        }
        rejected((g, d) => g.seal(d, d.subarray(40), p), RangeError, '@x/ccm: nonce overlaps dst');
        rejected((g, d) => g.seal(d, nonce, p, d.subarray(47)), RangeError, '@x/ccm: aad overlaps dst');
        rejected(
          (g, d) => g.seal(d, nonce, [] as unknown as Uint8Array),
          TypeError,
          '@x/ccm: plaintext must be a Uint8Array',
        );
        rejected((g, d) => g.seal(d, 'n' as unknown as Uint8Array, p), TypeError, '@x/ccm: nonce must be a Uint8Array');
        rejected(
          (g, d) => g.seal(d, nonce, p, null as unknown as Uint8Array),
          TypeError,
          '@x/ccm: aad must be a Uint8Array',
        );
        rejected((g) => g.seal({} as Uint8Array, nonce, p), TypeError, '@x/ccm: dst must be a Uint8Array');
        const big = new Uint8Array(96);
        rejected(
          (g) => g.seal(big.subarray(8, 56), nonce, big.subarray(0, 32)),
          RangeError,
          '@x/ccm: dst and plaintext overlap without being the same bytes',
          big,
        );
        // The plaintext may not lie under the tag's bytes either.
        rejected(
          (g) => g.seal(big.subarray(0, 48), nonce, big.subarray(40, 72)),
          RangeError,
          '@x/ccm: dst and plaintext overlap without being the same bytes',
          big,
        );
      });

      it('sealDetached', () => {
        const p = new Uint8Array(48);
        const tag = new Uint8Array(16);
        rejected(
          (g, d) => g.sealDetached(d, tag, nonce, new Uint8Array(40)),
          RangeError,
          '@x/ccm: dst must be plaintext.length = 40 bytes, got 48',
        );
        rejected(
          (g, d) => g.sealDetached(d, new Uint8Array(12), nonce, p),
          RangeError,
          '@x/ccm: tag must be 16 bytes, got 12',
        );
        rejected(
          (g, d) => g.sealDetached(d, tag, nonce, p),
          RangeError,
          '@x/ccm: tag must be 8 bytes, got 16',
          undefined,
          { tagLength: 8 },
        );
        rejected(
          (g, d) => g.sealDetached(d, tag, new Uint8Array(14), p),
          RangeError,
          '@x/ccm: nonce must be 7 to 13 bytes, got 14',
        );
        rejected((g, d) => g.sealDetached(d, d.subarray(32), nonce, p), RangeError, '@x/ccm: tag overlaps dst');
        const big = new Uint8Array(96);
        rejected(
          (g, d) => g.sealDetached(d, big.subarray(40, 56), nonce, big.subarray(0, 48)),
          RangeError,
          '@x/ccm: tag overlaps plaintext',
        );
        rejected(
          (g, d) => g.sealDetached(d, big.subarray(0, 16), big.subarray(4, 16), p),
          RangeError,
          '@x/ccm: nonce overlaps tag',
        );
        rejected(
          (g, d) => g.sealDetached(d, big.subarray(0, 16), nonce, p, big.subarray(15, 20)),
          RangeError,
          '@x/ccm: aad overlaps tag',
        );
        rejected((g, d) => g.sealDetached(d, tag, d.subarray(0, 12), p), RangeError, '@x/ccm: nonce overlaps dst');
        rejected((g, d) => g.sealDetached(d, tag, nonce, p, d), RangeError, '@x/ccm: aad overlaps dst');
        rejected(
          (g, d) => g.sealDetached(d, 'tag' as unknown as Uint8Array, nonce, p),
          TypeError,
          '@x/ccm: tag must be a Uint8Array',
        );
        rejected(
          (g) => g.sealDetached(big.subarray(8, 56), tag, nonce, big.subarray(0, 48)),
          RangeError,
          '@x/ccm: dst and plaintext overlap without being the same bytes',
          big,
        );
      });

      it('open', () => {
        const sealed = new Uint8Array(64);
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(15)),
          RangeError,
          '@x/ccm: sealed is shorter than the 16-byte tag (15 bytes)',
        );
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(3)),
          RangeError,
          '@x/ccm: sealed is shorter than the 4-byte tag (3 bytes)',
          undefined,
          { tagLength: 4 },
        );
        rejected(
          (g, d) => g.open(d, nonce, sealed),
          RangeError,
          '@x/ccm: dst must be sealed.length − 16 = 48 bytes, got 40',
          new Uint8Array(40),
        );
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(60)),
          RangeError,
          '@x/ccm: dst must be sealed.length − 16 = 44 bytes, got 48',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), new Uint8Array(6), sealed.subarray(0, 48)),
          RangeError,
          '@x/ccm: nonce must be 7 to 13 bytes, got 6',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), d.subarray(20, 32), sealed.subarray(0, 48)),
          RangeError,
          '@x/ccm: nonce overlaps dst',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), nonce, sealed.subarray(0, 48), d.subarray(0, 1)),
          RangeError,
          '@x/ccm: aad overlaps dst',
        );
        rejected(
          (g, d) => g.open(d, nonce, 'x' as unknown as Uint8Array),
          TypeError,
          '@x/ccm: sealed must be a Uint8Array',
        );
        rejected(
          (g) => g.open(null as unknown as Uint8Array, nonce, sealed),
          TypeError,
          '@x/ccm: dst must be a Uint8Array',
        );
        const big = new Uint8Array(96);
        rejected(
          (g) => g.open(big.subarray(8, 40), nonce, big.subarray(0, 48)),
          RangeError,
          '@x/ccm: dst and sealed overlap without being the same bytes',
          big,
        );
        // In place with a wrong tag: nothing of sealed (dst's memory) changes.
        rejected(
          (g) => g.open(big.subarray(0, 32), nonce, big.subarray(0, 48)),
          Error,
          '@x/ccm: authentication failed',
          big,
        );
        // The same on the long path (two passes: nothing is decrypted into dst before the tag is checked).
        rejected(
          (g, d) => g.open(d.subarray(0, 600), nonce, d.subarray(0, 616)),
          Error,
          '@x/ccm: authentication failed',
          new Uint8Array(700),
        );
      });

      it('openDetached', () => {
        const ct = new Uint8Array(48);
        const tag = new Uint8Array(16);
        rejected(
          (g, d) => g.openDetached(d, nonce, new Uint8Array(40), tag),
          RangeError,
          '@x/ccm: dst must be ciphertext.length = 40 bytes, got 48',
        );
        rejected(
          (g, d) => g.openDetached(d, nonce, ct, new Uint8Array(15)),
          RangeError,
          '@x/ccm: tag must be 16 bytes, got 15',
        );
        rejected(
          (g, d) => g.openDetached(d, new Uint8Array(0), ct, tag),
          RangeError,
          '@x/ccm: nonce must be 7 to 13 bytes, got 0',
        );
        rejected((g, d) => g.openDetached(d, nonce, ct, d.subarray(0, 16)), RangeError, '@x/ccm: tag overlaps dst');
        rejected((g, d) => g.openDetached(d, d.subarray(36), ct, tag), RangeError, '@x/ccm: nonce overlaps dst');
        rejected((g, d) => g.openDetached(d, nonce, ct, tag, d.subarray(47)), RangeError, '@x/ccm: aad overlaps dst');
        rejected(
          (g, d) => g.openDetached(d, nonce, ct, [] as unknown as Uint8Array),
          TypeError,
          '@x/ccm: tag must be a Uint8Array',
        );
        rejected(
          (g, d) => g.openDetached(d, nonce, {} as Uint8Array, tag),
          TypeError,
          '@x/ccm: ciphertext must be a Uint8Array',
        );
        const big = new Uint8Array(96);
        rejected(
          (g) => g.openDetached(big.subarray(1, 49), nonce, big.subarray(0, 48), tag),
          RangeError,
          '@x/ccm: dst and ciphertext overlap without being the same bytes',
          big,
        );
        rejected(
          (g) => g.openDetached(big.subarray(16, 64), nonce, big.subarray(16, 64), big.subarray(0, 16)),
          Error,
          '@x/ccm: authentication failed',
          big,
        );
      });

      it('SP 800-38C A.1: messages up to 2^(8L) − 1 bytes, L = 15 − nonce.length', () => {
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
      });

      it('dispose wipes and later calls throw', () => {
        const g = make(key);
        const sealed = new Uint8Array(16 + 600);
        g.seal(sealed, nonce, new Uint8Array(600));
        g.dispose();
        g.dispose();
        const d = new Uint8Array(16);
        const message = '@x/ccm: cipher was disposed';
        assert.throws(() => g.seal(d, nonce, new Uint8Array(0)), { message });
        assert.throws(() => g.open(new Uint8Array(0), nonce, d), { message });
        assert.throws(() => g.sealDetached(new Uint8Array(0), d, nonce, new Uint8Array(0)), { message });
        assert.throws(() => g.openDetached(new Uint8Array(0), nonce, new Uint8Array(0), d), { message });
      });
    });
  });
}
