/**
 * The input rules of an `@x` AEAD, each a call that must throw the given error with the exact message and
 * leave dst (and the memory around it) as it was: the key and options, seal, open, their detached forms
 * where the mode has them, the mode's own rules (its length limits), and calls after `dispose()`.
 */
import assert from 'node:assert/strict';
import type { Aead, AeadMode, AeadOptions, DetachedAead, Rejected } from './aead.js';
import { backing, toHex } from './bytes.js';
import type { Suite } from './suite.js';

const KEY = Uint8Array.from({ length: 16 }, (_, i) => i);
const NONCE = new Uint8Array(12);

/**
 * The rule tests of `mode` on ciphers from `make`, in a `describe` of their own.
 *
 * @example
 * ```ts
 * aeadInputRules(describe, it, GCM, (key, options) => newGcm(key, options));
 * ```
 */
export function aeadInputRules<A extends Aead, O extends AeadOptions>(
  describe: Suite['describe'],
  it: Suite['it'],
  mode: AeadMode<A, O>,
  make: (key: Uint8Array, options?: O) => A,
): void {
  describe('input rules (dst untouched on error)', () => {
    const rejected: Rejected<A, O> = (call, type, message, dst = new Uint8Array(48), options) => {
      const g = make(KEY, options);
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
    const detached = rejected as unknown as Rejected<A & DetachedAead, O>;
    const detachedMode = mode as unknown as AeadMode<A & DetachedAead, O>;

    it('keys and options', () => keyRules(mode));
    it('seal', () => {
      sealRules(mode, rejected);
      mode.sealRules?.(rejected);
    });
    if (mode.detached) it('sealDetached', () => sealDetachedRules(detachedMode, detached));
    it('open', () => openRules(mode, rejected));
    if (mode.detached) it('openDetached', () => openDetachedRules(detachedMode, detached));
    for (const t of mode.ruleTests) it(t.title, () => t.run(rejected));
    it('dispose wipes and later calls throw', () => disposeRules(mode, make));
  });
}

/** The key's type and length, the options' type, an unknown kernel, and every tag length. */
function keyRules<A extends Aead, O extends AeadOptions>(mode: AeadMode<A, O>): void {
  const P = mode.prefix;
  const make = (key: Uint8Array, options?: unknown) => mode.newCipher(key, options as O);
  assert.throws(() => make(new Uint8Array(20)), {
    name: 'RangeError',
    message: `${P}: key must be 16, 24 or 32 bytes, got 20`,
  });
  assert.throws(() => make('k' as unknown as Uint8Array), {
    name: 'TypeError',
    message: `${P}: key must be a Uint8Array`,
  });
  assert.throws(() => make(KEY, 16), { name: 'TypeError', message: `${P}: options must be an object` });
  assert.throws(
    () => make(KEY, { kernel: 'nope' }),
    (e: unknown) => e instanceof RangeError && e.message.startsWith(`${P}: unknown kernel "nope"`),
  );
  for (const t of mode.badTagLengths) {
    assert.throws(() => make(KEY, { tagLength: t }), {
      name: 'RangeError',
      message: `${P}: tagLength must be ${mode.tagLengthSaid} bytes, got ${t}`,
    });
  }
  assert.throws(() => make(KEY, { tagLength: '16' }), {
    name: 'TypeError',
    message: `${P}: tagLength must be a number`,
  });
  for (const t of mode.tagLengths) {
    const g = make(KEY, { tagLength: t });
    if (g.tagLength !== undefined) assert.equal(g.tagLength, t);
    g.dispose();
  }
}

/** seal: dst's length, the nonce, overlaps, arguments that are not bytes. */
function sealRules<A extends Aead, O extends AeadOptions>(mode: AeadMode<A, O>, rejected: Rejected<A, O>): void {
  const P = mode.prefix;
  const t = mode.tagLengths[0];
  const p = new Uint8Array(32);
  rejected(
    (g, d) => g.seal(d, NONCE, new Uint8Array(40)),
    RangeError,
    `${P}: dst must be plaintext.length + 16 = 56 bytes, got 48`,
  );
  rejected(
    (g, d) => g.seal(d, NONCE, p),
    RangeError,
    `${P}: dst must be plaintext.length + ${t} = ${32 + t} bytes, got 48`,
    undefined,
    { tagLength: t } as O,
  );
  for (const n of mode.badNonces)
    rejected((g, d) => g.seal(d, new Uint8Array(n), p), RangeError, `${P}: ${mode.nonceRule(n)}`);
  rejected((g, d) => g.seal(d, d.subarray(40), p), RangeError, `${P}: nonce overlaps dst`);
  rejected((g, d) => g.seal(d, NONCE, p, d.subarray(47)), RangeError, `${P}: aad overlaps dst`);
  rejected((g, d) => g.seal(d, NONCE, [] as unknown as Uint8Array), TypeError, `${P}: plaintext must be a Uint8Array`);
  rejected((g, d) => g.seal(d, 'n' as unknown as Uint8Array, p), TypeError, `${P}: nonce must be a Uint8Array`);
  rejected((g, d) => g.seal(d, NONCE, p, null as unknown as Uint8Array), TypeError, `${P}: aad must be a Uint8Array`);
  rejected((g) => g.seal({} as Uint8Array, NONCE, p), TypeError, `${P}: dst must be a Uint8Array`);
  const big = new Uint8Array(96);
  rejected(
    (g) => g.seal(big.subarray(8, 56), NONCE, big.subarray(0, 32)),
    RangeError,
    `${P}: dst and ${mode.sealOverlapName} overlap without being the same bytes`,
    big,
  );
}

/** open: sealed shorter than the tag, dst's length, the nonce, overlaps, types, a wrong tag in place. */
function openRules<A extends Aead, O extends AeadOptions>(mode: AeadMode<A, O>, rejected: Rejected<A, O>): void {
  const P = mode.prefix;
  const t = mode.tagLengths[0];
  const sealed = new Uint8Array(64);
  rejected(
    (g, d) => g.open(d, NONCE, new Uint8Array(15)),
    RangeError,
    `${P}: sealed is shorter than the 16-byte tag (15 bytes)`,
  );
  rejected(
    (g, d) => g.open(d, NONCE, new Uint8Array(t - 1)),
    RangeError,
    `${P}: sealed is shorter than the ${t}-byte tag (${t - 1} bytes)`,
    undefined,
    { tagLength: t } as O,
  );
  rejected(
    (g, d) => g.open(d, NONCE, sealed),
    RangeError,
    `${P}: dst must be sealed.length − 16 = 48 bytes, got 40`,
    new Uint8Array(40),
  );
  rejected(
    (g, d) => g.open(d, NONCE, new Uint8Array(60)),
    RangeError,
    `${P}: dst must be sealed.length − 16 = 44 bytes, got 48`,
  );
  for (const n of mode.badNonces) {
    rejected(
      (g, d) => g.open(d.subarray(0, 32), new Uint8Array(n), sealed.subarray(0, 48)),
      RangeError,
      `${P}: ${mode.nonceRule(n)}`,
    );
  }
  rejected(
    (g, d) => g.open(d.subarray(0, 32), d.subarray(20, 32), sealed.subarray(0, 48)),
    RangeError,
    `${P}: nonce overlaps dst`,
  );
  rejected(
    (g, d) => g.open(d.subarray(0, 32), NONCE, sealed.subarray(0, 48), d.subarray(0, 1)),
    RangeError,
    `${P}: aad overlaps dst`,
  );
  rejected((g, d) => g.open(d, NONCE, 'x' as unknown as Uint8Array), TypeError, `${P}: sealed must be a Uint8Array`);
  rejected((g) => g.open(null as unknown as Uint8Array, NONCE, sealed), TypeError, `${P}: dst must be a Uint8Array`);
  const big = new Uint8Array(96);
  rejected(
    (g) => g.open(big.subarray(8, 40), NONCE, big.subarray(0, 48)),
    RangeError,
    `${P}: dst and sealed overlap without being the same bytes`,
    big,
  );
  // In place with a wrong tag: nothing of sealed (dst's memory) changes.
  rejected((g) => g.open(big.subarray(0, 32), NONCE, big.subarray(0, 48)), Error, `${P}: authentication failed`, big);
  // The same on the long path (nothing is decrypted into dst before the tag is checked).
  rejected(
    (g, d) => g.open(d.subarray(0, 600), NONCE, d.subarray(0, 616)),
    Error,
    `${P}: authentication failed`,
    new Uint8Array(700),
  );
}

/** sealDetached: dst's and the tag's lengths, the nonce, what may not overlap what, types. */
function sealDetachedRules<A extends DetachedAead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  rejected: Rejected<A, O>,
): void {
  const P = mode.prefix;
  const p = new Uint8Array(48);
  const tag = new Uint8Array(16);
  rejected(
    (g, d) => g.sealDetached(d, tag, NONCE, new Uint8Array(40)),
    RangeError,
    `${P}: dst must be plaintext.length = 40 bytes, got 48`,
  );
  rejected((g, d) => g.sealDetached(d, new Uint8Array(12), NONCE, p), RangeError, `${P}: tag must be 16 bytes, got 12`);
  const t = mode.tagLengths.includes(8) ? 8 : mode.tagLengths[0];
  rejected((g, d) => g.sealDetached(d, tag, NONCE, p), RangeError, `${P}: tag must be ${t} bytes, got 16`, undefined, {
    tagLength: t,
  } as O);
  for (const n of mode.badNonces)
    rejected((g, d) => g.sealDetached(d, tag, new Uint8Array(n), p), RangeError, `${P}: ${mode.nonceRule(n)}`);
  rejected((g, d) => g.sealDetached(d, d.subarray(32), NONCE, p), RangeError, `${P}: tag overlaps dst`);
  const big = new Uint8Array(96);
  rejected(
    (g, d) => g.sealDetached(d, big.subarray(40, 56), NONCE, big.subarray(0, 48)),
    RangeError,
    `${P}: tag overlaps plaintext`,
  );
  rejected(
    (g, d) => g.sealDetached(d, big.subarray(0, 16), big.subarray(4, 16), p),
    RangeError,
    `${P}: nonce overlaps tag`,
  );
  rejected(
    (g, d) => g.sealDetached(d, big.subarray(0, 16), NONCE, p, big.subarray(15, 20)),
    RangeError,
    `${P}: aad overlaps tag`,
  );
  rejected((g, d) => g.sealDetached(d, tag, d.subarray(0, 12), p), RangeError, `${P}: nonce overlaps dst`);
  rejected((g, d) => g.sealDetached(d, tag, NONCE, p, d), RangeError, `${P}: aad overlaps dst`);
  rejected(
    (g, d) => g.sealDetached(d, 'tag' as unknown as Uint8Array, NONCE, p),
    TypeError,
    `${P}: tag must be a Uint8Array`,
  );
  rejected(
    (g) => g.sealDetached(big.subarray(8, 56), tag, NONCE, big.subarray(0, 48)),
    RangeError,
    `${P}: dst and plaintext overlap without being the same bytes`,
    big,
  );
}

/** openDetached: dst's and the tag's lengths, the nonce, overlaps, types, a wrong tag in place. */
function openDetachedRules<A extends DetachedAead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  rejected: Rejected<A, O>,
): void {
  const P = mode.prefix;
  const ct = new Uint8Array(48);
  const tag = new Uint8Array(16);
  rejected(
    (g, d) => g.openDetached(d, NONCE, new Uint8Array(40), tag),
    RangeError,
    `${P}: dst must be ciphertext.length = 40 bytes, got 48`,
  );
  rejected(
    (g, d) => g.openDetached(d, NONCE, ct, new Uint8Array(15)),
    RangeError,
    `${P}: tag must be 16 bytes, got 15`,
  );
  for (const n of mode.badNonces)
    rejected((g, d) => g.openDetached(d, new Uint8Array(n), ct, tag), RangeError, `${P}: ${mode.nonceRule(n)}`);
  rejected((g, d) => g.openDetached(d, NONCE, ct, d.subarray(0, 16)), RangeError, `${P}: tag overlaps dst`);
  rejected((g, d) => g.openDetached(d, d.subarray(36), ct, tag), RangeError, `${P}: nonce overlaps dst`);
  rejected((g, d) => g.openDetached(d, NONCE, ct, tag, d.subarray(47)), RangeError, `${P}: aad overlaps dst`);
  rejected(
    (g, d) => g.openDetached(d, NONCE, ct, [] as unknown as Uint8Array),
    TypeError,
    `${P}: tag must be a Uint8Array`,
  );
  rejected(
    (g, d) => g.openDetached(d, NONCE, {} as Uint8Array, tag),
    TypeError,
    `${P}: ciphertext must be a Uint8Array`,
  );
  const big = new Uint8Array(96);
  rejected(
    (g) => g.openDetached(big.subarray(1, 49), NONCE, big.subarray(0, 48), tag),
    RangeError,
    `${P}: dst and ciphertext overlap without being the same bytes`,
    big,
  );
  rejected(
    (g) => g.openDetached(big.subarray(16, 64), NONCE, big.subarray(16, 64), big.subarray(0, 16)),
    Error,
    `${P}: authentication failed`,
    big,
  );
}

/** After a long seal, `dispose()` twice, then every call throws. */
function disposeRules<A extends Aead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  make: (key: Uint8Array, options?: O) => A,
): void {
  const g = make(KEY);
  const sealed = new Uint8Array(16 + 600);
  g.seal(sealed, NONCE, new Uint8Array(600));
  g.dispose();
  g.dispose();
  const d = new Uint8Array(16);
  const message = `${mode.prefix}: cipher was disposed`;
  assert.throws(() => g.seal(d, NONCE, new Uint8Array(0)), { message });
  assert.throws(() => g.open(new Uint8Array(0), NONCE, d), { message });
  if (!mode.detached) return;
  const x = g as A & DetachedAead;
  assert.throws(() => x.sealDetached(new Uint8Array(0), d, NONCE, new Uint8Array(0)), { message });
  assert.throws(() => x.openDetached(new Uint8Array(0), NONCE, new Uint8Array(0), d), { message });
}
