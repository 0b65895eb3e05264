/**
 * The @x/gcm conformance suite, run on every kernel and on the block primitives alone of every kernel
 * (the generic keystream and the portable POLYVAL): NIST CAVP gcmEncryptExtIV / gcmDecrypt (a subset:
 * every section), Wycheproof aes_gcm_test, property tests against node:crypto `aes-*-gcm` (and, for
 * nonces over 128 bytes, which OpenSSL refuses, against GCM written out from SP 800-38D), and every
 * input rule. Like @x/xts's suite it takes the runner's `describe`/`it`, so it can also run under
 * `node:test`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { type Gcm, type GcmOptions, newGcm } from '@x/gcm';
import { assertBytes, backing, hex, outside, placed, random, type Suite, toHex } from '@x/testkit';
import { refSeal } from './reference.js';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface GcmTarget {
  /** A kernel name (`newGcm`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** The kernel's `parallelBlocks`: lengths around 16 times it are tried. */
  parallelBlocks: number;
  /** A GCM cipher for `key` on this target. */
  make(key: Uint8Array, options?: GcmOptions): Gcm;
}

export interface ConformanceOptions {
  /** Where the vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
  /** fast-check runs per property (default 100); fewer under emulation. */
  runs?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
}

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

/** Lengths that reach every branch: empty, partial blocks, the staging limits, many batches. */
const lengthArb = (parallelBlocks: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: 300 }),
    fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 16 * parallelBlocks + d)),
    fc.integer({ min: -17, max: 17 }).map((d) => Math.max(0, 32 * parallelBlocks + d)),
    fc.integer({ min: 300, max: 5000 }),
  );
const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const nonceArb = fc.oneof(
  fc.uint8Array({ minLength: 12, maxLength: 12 }),
  fc.uint8Array({ minLength: 1, maxLength: 1 }),
  fc.uint8Array({ minLength: 1, maxLength: 40 }),
  fc.uint8Array({ minLength: 200, maxLength: 600 }),
);
const tagArb = fc.integer({ min: 12, max: 16 });

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) gcmConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function gcmConformance(target: GcmTarget, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const runs = options.runs ?? 100;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const make = target.make;

  describe(`@x/gcm on kernel ${target.name}`, () => {
    it('uses the kernel it was asked for', () => {
      const g = make(random(16));
      assert.equal(g.kernel, target.name);
      g.dispose();
    });

    describe('known answers', () => {
      it('NIST CAVP gcmEncryptExtIV / gcmDecrypt 128/192/256: every section (subset of each)', () => {
        const doc = JSON.parse(
          gunzipSync(readFileSync(new URL('nist_cavp_gcm_subset.json.gz', vectorsDir))).toString(),
        );
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
      });

      it('Wycheproof aes_gcm_test: valid vectors seal and open, invalid ones are refused', () => {
        const { testGroups } = JSON.parse(readFileSync(new URL('wycheproof_aes_gcm_test.json', vectorsDir), 'utf8'));
        const seen = { valid: 0, invalid: 0 };
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
            // The file has no "acceptable" vectors; one would be held to the same rule as "valid".
            assert.ok(v.result === 'valid' || v.result === 'invalid', what);
            const g = make(hex(v.key), { tagLength: t });
            const nonce = hex(v.iv),
              aad = hex(v.aad),
              msg = hex(v.msg);
            const sealed = hex(v.ct + v.tag);
            const out = new Uint8Array(msg.length).fill(0x5a);
            if (v.result === 'valid') {
              const dst = new Uint8Array(sealed.length);
              g.seal(dst, nonce, msg, aad);
              assert.equal(toHex(dst), v.ct + v.tag, what);
              g.open(out, nonce, sealed, aad);
              assert.equal(toHex(out), v.msg, what);
              seen.valid++;
            } else {
              if (nonce.length === 0) {
                // SP 800-38D §8.2: a nonce has at least one bit; an empty one is refused for both calls.
                assert.throws(() => g.seal(new Uint8Array(sealed.length), nonce, msg, aad), RangeError, what);
                assert.throws(() => g.open(out, nonce, sealed, aad), RangeError, what);
              } else {
                assert.throws(
                  () => g.open(out, nonce, sealed, aad),
                  { message: '@x/gcm: authentication failed' },
                  what,
                );
              }
              assert.ok(
                out.every((b) => b === 0x5a),
                `${what}: dst written`,
              );
              seen.invalid++;
            }
            g.dispose();
          }
        }
        assert.deepEqual(seen, { valid: 229, invalid: 87 });
      });
    });

    describe('against node:crypto', () => {
      it('any key, nonce, AAD and plaintext length, every tag length, any offsets, in place or not', () => {
        fc.assert(
          fc.property(
            keyArb,
            nonceArb,
            lengthArb(target.parallelBlocks),
            fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(0), fc.integer({ min: 300, max: 1000 })),
            tagArb,
            fc.tuple(fc.nat(15), fc.nat(15)),
            fc.boolean(),
            (key, nonce, n, aadLength, t, [so, dso], inPlace) => {
              const g = make(key, { tagLength: t });
              const plain = random(n),
                aad = random(aadLength);
              const want = refSeal(key, nonce, plain, aad, t);
              // Seal: dst and its guard bytes; in place, the plaintext is the first bytes of dst.
              const dst = placed(new Uint8Array(n + t), dso);
              const src = inPlace ? dst.subarray(0, n) : placed(plain, so);
              if (inPlace) src.set(plain);
              const around = outside(dst);
              const srcBefore = inPlace ? undefined : backing(src);
              g.seal(dst, nonce, src, aad);
              assertBytes(dst, want, `seal ${n} bytes, aad ${aadLength}, nonce ${nonce.length}, tag ${t}`);
              assertBytes(outside(dst), around, 'seal wrote outside dst');
              if (srcBefore) assertBytes(backing(src), srcBefore, 'seal changed plaintext');
              // Open: in place, dst is the first bytes of sealed.
              const sealed = inPlace ? dst : placed(want, so);
              const out = inPlace ? sealed.subarray(0, n) : placed(new Uint8Array(n), dso);
              const outAround = outside(out);
              g.open(out, nonce, sealed, aad);
              assertBytes(out, plain, 'open');
              if (!inPlace) assertBytes(outside(out), outAround, 'open wrote outside dst');
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
            fc.integer({ min: 0, max: 200 }),
            fc.integer({ min: 0, max: 40 }),
            tagArb,
            fc.constantFrom('sealed', 'aad', 'nonce'),
            fc.nat(),
            (key, nonce, n, aadLength, t, where, bit) => {
              const g = make(key, { tagLength: t });
              const plain = random(n),
                aad = random(aadLength);
              const sealed = refSeal(key, nonce, plain, aad, t);
              const target = where === 'sealed' ? sealed : where === 'aad' ? aad : nonce;
              if (target.length === 0) return;
              const i = bit % (8 * target.length);
              const changed = Uint8Array.from(target);
              changed[i >>> 3]! ^= 1 << (i & 7);
              const out = new Uint8Array(n).fill(0xa5);
              assert.throws(
                () =>
                  g.open(
                    out,
                    where === 'nonce' ? changed : nonce,
                    where === 'sealed' ? changed : sealed,
                    where === 'aad' ? changed : aad,
                  ),
                { message: '@x/gcm: authentication failed' },
              );
              assert.ok(out.every((b) => b === 0xa5));
              g.dispose();
            },
          ),
          { numRuns: runs },
        );
      });

      it('large messages: 1 MiB and odd lengths, one cipher reused', () => {
        for (const bits of [128, 256]) {
          const key = random(bits / 8);
          const g = make(key);
          for (const n of [1 << 20, (1 << 20) + 5, 65_536 + 15]) {
            const nonce = random(12),
              aad = random(33);
            const plain = random(n);
            const want = refSeal(key, nonce, plain, aad);
            const dst = new Uint8Array(n + 16);
            g.seal(dst, nonce, plain, aad);
            assertBytes(dst, want, `seal ${n}`);
            const out = new Uint8Array(n);
            g.open(out, nonce, dst, aad);
            assertBytes(out, plain, `open ${n}`);
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
        call: (g: Gcm, dst: Uint8Array) => void,
        type: typeof TypeError | typeof RangeError,
        message: string,
        dst = new Uint8Array(48),
        options?: GcmOptions,
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
        assert.throws(() => newGcm(new Uint8Array(20)), {
          name: 'RangeError',
          message: '@x/gcm: key must be 16, 24 or 32 bytes, got 20',
        });
        assert.throws(() => newGcm('k' as unknown as Uint8Array), {
          name: 'TypeError',
          message: '@x/gcm: key must be a Uint8Array',
        });
        assert.throws(() => newGcm(key, 16 as unknown as object), {
          name: 'TypeError',
          message: '@x/gcm: options must be an object',
        });
        assert.throws(
          () => newGcm(key, { kernel: 'nope' }),
          (e: unknown) => e instanceof RangeError && e.message.startsWith('@x/gcm: unknown kernel "nope"'),
        );
        for (const t of [0, 4, 8, 11, 17, 12.5, Number.NaN]) {
          assert.throws(() => newGcm(key, { tagLength: t }), {
            name: 'RangeError',
            message: `@x/gcm: tagLength must be an integer from 12 to 16 bytes, got ${t}`,
          });
        }
        assert.throws(() => newGcm(key, { tagLength: '16' as unknown as number }), {
          name: 'TypeError',
          message: '@x/gcm: tagLength must be a number',
        });
        for (const t of [12, 13, 14, 15, 16]) newGcm(key, { tagLength: t }).dispose();
      });

      it('seal', () => {
        const p = new Uint8Array(32);
        rejected(
          (g, d) => g.seal(d, nonce, new Uint8Array(40)),
          RangeError,
          '@x/gcm: dst must be plaintext.length + 16 = 56 bytes, got 48',
        );
        rejected(
          (g, d) => g.seal(d, nonce, p),
          RangeError,
          '@x/gcm: dst must be plaintext.length + 12 = 44 bytes, got 48',
          undefined,
          { tagLength: 12 },
        );
        rejected((g, d) => g.seal(d, new Uint8Array(0), p), RangeError, '@x/gcm: nonce must be at least 1 byte');
        rejected((g, d) => g.seal(d, d.subarray(40), p), RangeError, '@x/gcm: nonce overlaps dst');
        rejected((g, d) => g.seal(d, nonce, p, d.subarray(47)), RangeError, '@x/gcm: aad overlaps dst');
        rejected(
          (g, d) => g.seal(d, nonce, [] as unknown as Uint8Array),
          TypeError,
          '@x/gcm: plaintext must be a Uint8Array',
        );
        rejected((g, d) => g.seal(d, 'n' as unknown as Uint8Array, p), TypeError, '@x/gcm: nonce must be a Uint8Array');
        rejected(
          (g, d) => g.seal(d, nonce, p, null as unknown as Uint8Array),
          TypeError,
          '@x/gcm: aad must be a Uint8Array',
        );
        rejected((g) => g.seal({} as Uint8Array, nonce, p), TypeError, '@x/gcm: dst must be a Uint8Array');
        const big = new Uint8Array(96);
        rejected(
          (g) => g.seal(big.subarray(8, 56), nonce, big.subarray(0, 32)),
          RangeError,
          '@x/gcm: dst and src overlap without being the same bytes',
          big,
        );
      });

      it('open', () => {
        const sealed = new Uint8Array(64);
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(15)),
          RangeError,
          '@x/gcm: sealed is shorter than the 16-byte tag (15 bytes)',
        );
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(11)),
          RangeError,
          '@x/gcm: sealed is shorter than the 12-byte tag (11 bytes)',
          undefined,
          { tagLength: 12 },
        );
        rejected(
          (g, d) => g.open(d, nonce, sealed),
          RangeError,
          '@x/gcm: dst must be sealed.length − 16 = 48 bytes, got 40',
          new Uint8Array(40),
        );
        rejected(
          (g, d) => g.open(d, nonce, new Uint8Array(60)),
          RangeError,
          '@x/gcm: dst must be sealed.length − 16 = 44 bytes, got 48',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), new Uint8Array(0), sealed.subarray(0, 48)),
          RangeError,
          '@x/gcm: nonce must be at least 1 byte',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), d.subarray(20, 32), sealed.subarray(0, 48)),
          RangeError,
          '@x/gcm: nonce overlaps dst',
        );
        rejected(
          (g, d) => g.open(d.subarray(0, 32), nonce, sealed.subarray(0, 48), d.subarray(0, 1)),
          RangeError,
          '@x/gcm: aad overlaps dst',
        );
        rejected(
          (g, d) => g.open(d, nonce, 'x' as unknown as Uint8Array),
          TypeError,
          '@x/gcm: sealed must be a Uint8Array',
        );
        const big = new Uint8Array(96);
        rejected(
          (g) => g.open(big.subarray(8, 40), nonce, big.subarray(0, 48)),
          RangeError,
          '@x/gcm: dst and sealed overlap without being the same bytes',
          big,
        );
        rejected(
          (g) => g.open(big.subarray(0, 32), nonce, big.subarray(0, 48)),
          Error,
          '@x/gcm: authentication failed',
          big,
        );
      });

      it('SP 800-38D §5.2.1.1: messages up to 2^39 − 256 bits', () => {
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
      });

      it('dispose wipes and later calls throw', () => {
        const g = make(key);
        g.dispose();
        g.dispose();
        const d = new Uint8Array(16);
        assert.throws(() => g.seal(d, nonce, new Uint8Array(0)), { message: '@x/gcm: cipher was disposed' });
        assert.throws(() => g.open(new Uint8Array(0), nonce, d), { message: '@x/gcm: cipher was disposed' });
      });
    });
  });
}
