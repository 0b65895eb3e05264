/**
 * The AEAD conformance suite (Go cryptotest's `TestAEAD`, for the `@x` AEADs: `@x/gcm`, `@x/ccm`), run on
 * every kernel and on the block primitives alone of every kernel: the mode's own known answers, Wycheproof,
 * property tests against node:crypto (any key, nonce, AAD and length, every tag length, odd offsets, in place
 * or not, joined or detached), every changed bit refused with dst untouched, long messages, and every input
 * rule with its exact message. A mode describes itself in an `AeadMode` (`aead.ts`): its prefix, tag lengths,
 * nonce rule, reference, lengths worth trying, and what it has besides (detached calls, its own vectors,
 * its own length limits).
 *
 * Like the other suites it takes the runner's `describe`/`it`, so it can also run under `node:test`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { aeadInputRules } from './aead-rules.js';
import { wycheproofAead } from './aead-wycheproof.js';
import { assertBytes, backing, outside, placed, random } from './bytes.js';
import type { Suite } from './suite.js';
import type { Aead, AeadMode, AeadOptions, AeadSuiteOptions, AeadTarget, DetachedAead } from './aead.js';

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) aeadConformance(onKernel(kernel), { describe, it }, GCM, { vectorsDir });
 * ```
 */
export function aeadConformance<A extends Aead, O extends AeadOptions>(
  target: AeadTarget<A, O>,
  { describe, it }: Suite,
  mode: AeadMode<A, O>,
  options: AeadSuiteOptions,
): void {
  const runs = options.runs ?? 100;
  const make = target.make;
  describe(`${mode.prefix} on kernel ${target.name}`, () => {
    it('uses the kernel it was asked for', () => {
      const g = make(random(16));
      assert.equal(g.kernel, target.name);
      if (g.tagLength !== undefined) assert.equal(g.tagLength, 16);
      g.dispose();
    });

    describe('known answers', () => {
      for (const t of mode.knownAnswers) it(t.title, () => t.run(make, options.vectorsDir));
      it(`Wycheproof ${mode.wycheproof.file.replace(/^wycheproof_/, '').replace(/\.json(\.gz)?$/, '')}: valid vectors seal and open, invalid ones are refused`, () =>
        wycheproofAead(mode, make, options.vectorsDir));
    });

    describe('against node:crypto', () => {
      const title = mode.detached
        ? 'any key, nonce, AAD and length, every tag length, any offsets, in place or not, joined or detached'
        : 'any key, nonce, AAD and plaintext length, every tag length, any offsets, in place or not';
      it(title, () => fc.assert(fc.property(...sealOpenProperty(mode, target)), { numRuns: runs }));
      it('any changed bit of ciphertext, tag, AAD or nonce is refused, dst untouched', () =>
        fc.assert(fc.property(...tamperProperty(mode, make)), { numRuns: runs }));
      const large = options.largeMessage ?? mode.largeMessage;
      it(mode.long.title(large), () => longMessages(mode, make, large));
    });

    if (options.inputRules !== false) aeadInputRules(describe, it, mode, make);
  });
}

/** Tag lengths as an arbitrary. */
const tagArb = (tagLengths: readonly number[]) => fc.constantFrom(...tagLengths);
const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));

/** Seal then open against the reference: joined (in place or not), or detached. */
function sealOpenProperty<A extends Aead, O extends AeadOptions>(mode: AeadMode<A, O>, target: AeadTarget<A, O>) {
  return [
    keyArb,
    mode.nonces,
    mode.lengths(target.parallelBlocks),
    mode.aadLengths,
    tagArb(mode.tagLengths),
    fc.tuple(fc.nat(15), fc.nat(15)),
    fc.boolean(),
    mode.detached ? fc.boolean() : fc.constant(false),
    (
      key: Uint8Array,
      nonce: Uint8Array,
      n: number,
      aadLength: number,
      t: number,
      offsets: [number, number],
      inPlace: boolean,
      detached: boolean,
    ) => {
      const g = target.make(key, { tagLength: t } as O);
      const plain = random(n),
        aad = random(aadLength);
      const want = mode.refSeal(key, nonce, plain, aad, t);
      const what = `${n} bytes, aad ${aadLength}, nonce ${nonce.length}, tag ${t}`;
      if (detached) sealOpenDetached(g as A & DetachedAead, nonce, plain, aad, want, offsets, inPlace, what);
      else sealOpenJoined(g, nonce, plain, aad, want, offsets, inPlace, what);
      g.dispose();
    },
  ] as const;
}

/** Seal into dst (in place: the plaintext is dst's first bytes), then open (in place: dst is sealed's first bytes). */
function sealOpenJoined(
  g: Aead,
  nonce: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  want: Uint8Array,
  [so, dso]: [number, number],
  inPlace: boolean,
  what: string,
): void {
  const n = plain.length;
  const dst = placed(new Uint8Array(want.length), dso);
  const src = inPlace ? dst.subarray(0, n) : placed(plain, so);
  if (inPlace) src.set(plain);
  const around = outside(dst);
  const srcBefore = inPlace ? undefined : backing(src);
  g.seal(dst, nonce, src, aad);
  assertBytes(dst, want, `seal ${what}`);
  assertBytes(outside(dst), around, 'seal wrote outside dst');
  if (srcBefore) assertBytes(backing(src), srcBefore, 'seal changed plaintext');
  const sealed = inPlace ? dst : placed(want, so);
  const out = inPlace ? sealed.subarray(0, n) : placed(new Uint8Array(n), dso);
  const outAround = outside(out);
  const sealedBefore = inPlace ? undefined : backing(sealed);
  g.open(out, nonce, sealed, aad);
  assertBytes(out, plain, `open ${what}`);
  if (!inPlace) assertBytes(outside(out), outAround, 'open wrote outside dst');
  if (sealedBefore) assertBytes(backing(sealed), sealedBefore, 'open changed sealed');
}

/** sealDetached into dst and a tag of its own, then openDetached; in place, dst is the plaintext. */
function sealOpenDetached(
  g: DetachedAead,
  nonce: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  want: Uint8Array,
  [so, dso]: [number, number],
  inPlace: boolean,
  what: string,
): void {
  const n = plain.length;
  const dst = placed(new Uint8Array(n), dso);
  const tag = placed(new Uint8Array(want.length - n), 3);
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

/** One changed bit of the ciphertext, the tag, the AAD or the nonce: refused, dst untouched. */
function tamperProperty<A extends Aead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  make: (key: Uint8Array, options?: O) => A,
) {
  return [
    keyArb,
    mode.nonces,
    mode.tamperLengths,
    fc.integer({ min: 0, max: 40 }),
    tagArb(mode.tagLengths),
    fc.constantFrom('ciphertext', 'tag', 'aad', 'nonce'),
    fc.nat(),
    mode.detached ? fc.boolean() : fc.constant(false),
    (
      key: Uint8Array,
      nonce: Uint8Array,
      n: number,
      aadLength: number,
      t: number,
      where: string,
      bit: number,
      detached: boolean,
    ) => {
      const g = make(key, { tagLength: t } as O);
      const plain = random(n),
        aad = random(aadLength);
      const sealed = mode.refSeal(key, nonce, plain, aad, t);
      const sizes: Record<string, number> = { ciphertext: n, tag: t, aad: aadLength, nonce: nonce.length };
      if (sizes[where] === 0) return;
      const i = bit % (8 * sizes[where]);
      const changed = Uint8Array.from(nonce);
      const changedAad = Uint8Array.from(aad);
      const changedSealed = Uint8Array.from(sealed);
      const flip = where === 'nonce' ? changed : where === 'aad' ? changedAad : changedSealed;
      flip[(where === 'tag' ? n : 0) + (i >>> 3)] ^= 1 << (i & 7);
      const out = new Uint8Array(n).fill(0xa5);
      assert.throws(
        () =>
          detached
            ? (g as A & DetachedAead).openDetached(
                out,
                changed,
                changedSealed.subarray(0, n),
                changedSealed.subarray(n),
                changedAad,
              )
            : g.open(out, changed, changedSealed, changedAad),
        { message: `${mode.prefix}: authentication failed` },
      );
      assert.ok(out.every((b) => b === 0xa5));
      g.dispose();
    },
  ] as const;
}

/** Long messages on one cipher per key size: seal and open against the reference, then one changed byte refused. */
function longMessages<A extends Aead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  make: (key: Uint8Array, options?: O) => A,
  large: number,
): void {
  for (const [bits, cases] of mode.long.cases(large)) {
    const key = random(bits / 8);
    const g = make(key);
    for (const [nonceLength, n] of cases) {
      const nonce = random(nonceLength),
        aad = random(33);
      const plain = random(n);
      const want = mode.refSeal(key, nonce, plain, aad);
      const dst = new Uint8Array(n + 16);
      g.seal(dst, nonce, plain, aad);
      assertBytes(dst, want, `seal ${n}`);
      const out = new Uint8Array(n);
      g.open(out, nonce, dst, aad);
      assertBytes(out, plain, `open ${n}`);
      dst[n >>> 1] ^= 1;
      assert.throws(() => g.open(out, nonce, dst, aad), { message: `${mode.prefix}: authentication failed` });
    }
    g.dispose();
  }
}
