/**
 * The stream cipher conformance suite (Go cryptotest's `TestStream`, for `@x/ctr`), run on every kernel and
 * on the block primitives alone of every kernel: the mode's known answers both ways, the counter carrying
 * and wrapping, 1 MiB in one call and in pieces continued from the next counter block, fast-check
 * properties against the reference (any key, IVs near the wrap, lengths 0..700, odd offsets, in place or
 * not), and `dispose()`; then, once, the input rules with their exact messages and dst untouched.
 *
 * Like the other suites it takes the runner's `describe`/`it`, so it can also run under `node:test`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assertBytes, hex, placed, random } from './bytes.js';
import type { Suite } from './suite.js';

/** A stream cipher as `@x/ctr` gives it: dst = src ^ keystream from the initial counter block `iv`. */
export interface Stream {
  readonly kernel: string;
  xorKeyStream(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  dispose(): void;
}

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface StreamTarget<S extends Stream = Stream> {
  /** A kernel name (the constructor's option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** A cipher for `key` on this target. */
  make(key: Uint8Array): S;
}

/** What the suite needs to know of a stream mode. */
export interface StreamMode<S extends Stream = Stream> {
  /** The package, as errors start: `'@x/ctr'`. */
  prefix: string;
  /** The package's constructor (the key and option rules are checked on it). */
  newCipher(key: Uint8Array, options?: { kernel?: string }): S;
  /** The reference: `data` ^ the keystream from `iv` (node:crypto `aes-*-ctr`). */
  ref(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array;
  /** The counter block `blocks` blocks after `iv`: where a message goes on in the next call. */
  advance(iv: Uint8Array, blocks: number): Uint8Array;
  /** Known answers: each key's ciphertext of `plaintext` from `iv`, and what they are. */
  knownAnswers: {
    title: string;
    plaintext: string;
    iv: string;
    vectors: readonly { key: string; ciphertext: string }[];
  };
}

/** IVs near where the counter carries or wraps: the last 1..16 bytes all ones, the rest random. */
const ivArb = fc
  .tuple(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 0, max: 16 }))
  .map(([iv, ones]) => {
    iv.fill(0xff, 16 - ones);
    return iv;
  });

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * streamConformance({ name: 'portable', make: (key) => newCtr(key, { kernel: 'portable' }) }, { describe, it }, CTR);
 * ```
 */
export function streamConformance<S extends Stream>(
  target: StreamTarget<S>,
  { describe, it }: Suite,
  mode: StreamMode<S>,
  options: { runs?: number } = {},
): void {
  const { name, make } = target;
  const runs = options.runs ?? 150;
  describe(`${mode.prefix} on ${name}`, () => {
    it(mode.knownAnswers.title, () => {
      const { plaintext, iv, vectors } = mode.knownAnswers;
      for (const v of vectors) {
        const c = make(hex(v.key));
        assert.equal(c.kernel, name);
        const out = new Uint8Array(plaintext.length / 2);
        c.xorKeyStream(out, hex(plaintext), hex(iv));
        assertBytes(out, hex(v.ciphertext), `AES-${v.key.length * 4} encrypt`);
        c.xorKeyStream(out, out, hex(iv));
        assertBytes(out, hex(plaintext), `AES-${v.key.length * 4} decrypt, in place`);
        c.dispose();
      }
    });

    it('wraps modulo 2^128 as OpenSSL does, and carries across every byte', () => wraps(mode, make));
    it('1 MiB + 5 bytes in one call, and a long message in pieces continued from the next counter block', () =>
      inPieces(mode, make));

    it('random keys, IVs near the wrap, lengths 0..700, odd offsets, in place or not, against node:crypto', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          ivArb,
          fc.integer({ min: 0, max: 700 }),
          fc.tuple(fc.nat(15), fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (n, iv, len, [so, dso, vo], inPlace) => {
            const key = random(n),
              data = random(len);
            const c = make(key);
            const src = placed(data, so);
            const dst = inPlace ? src : placed(new Uint8Array(len), dso);
            c.xorKeyStream(dst, src, placed(iv, vo));
            c.dispose();
            assertBytes(dst, mode.ref(key, iv, data), `AES-${8 * n}, ${len} bytes`);
          },
        ),
        { numRuns: runs },
      );
    });

    it('dispose() wipes the key: every later call throws', () => {
      const c = make(random(16));
      c.dispose();
      assert.throws(() => c.xorKeyStream(new Uint8Array(16), new Uint8Array(16), new Uint8Array(16)), {
        message: `${mode.prefix}: cipher was disposed`,
      });
      c.dispose();
    });
  });
}

/** IVs whose last bytes are all ones (the last of them 0xfe), for every key size, against the reference. */
function wraps<S extends Stream>(mode: StreamMode<S>, make: (key: Uint8Array) => S): void {
  for (const n of [16, 24, 32]) {
    const key = random(n);
    const c = make(key);
    for (const tail of [16, 8, 9, 4, 1]) {
      const iv = random(16).fill(0xff, 16 - tail);
      iv[16 - tail] = 0xfe;
      const src = random(16 * 70 + 7);
      const dst = new Uint8Array(src.length);
      c.xorKeyStream(dst, src, iv);
      assertBytes(dst, mode.ref(key, iv, src), `AES-${8 * n}, iv ${Buffer.from(iv).toString('hex')}`);
    }
    c.dispose();
  }
}

/** 1 MiB + 5 bytes in one call, then the same message in pieces of whole blocks, each from the next counter. */
function inPieces<S extends Stream>(mode: StreamMode<S>, make: (key: Uint8Array) => S): void {
  const key = random(32),
    iv = random(16),
    src = random((1 << 20) + 5);
  const c = make(key);
  const dst = new Uint8Array(src.length);
  c.xorKeyStream(dst, src, iv);
  const want = mode.ref(key, iv, src);
  assertBytes(dst, want, '1 MiB');
  const pieces = new Uint8Array(src.length);
  let off = 0;
  for (const len of [16 * 3, 16 * 1000, 16 * 7, src.length - 16 * 1010]) {
    c.xorKeyStream(pieces.subarray(off, off + len), src.subarray(off, off + len), mode.advance(iv, off >>> 4));
    off += len;
  }
  assertBytes(pieces, want, 'in pieces');
  c.dispose();
}

/**
 * The input rules, once (the mode's own code): the key and options, then each wrong call throws its exact
 * error and leaves dst as it was; an empty message writes nothing.
 *
 * @example
 * ```ts
 * streamInputRules({ describe, it }, CTR);
 * ```
 */
export function streamInputRules<S extends Stream>({ describe, it }: Suite, mode: StreamMode<S>): void {
  const P = mode.prefix;
  describe(`${P} input rules: a clear error, and dst untouched`, () => {
    const key = random(16);
    const throws = (call: () => void, type: ErrorConstructor, message: string | RegExp) =>
      assert.throws(
        call,
        (e: unknown) =>
          e instanceof type &&
          (typeof message === 'string' ? (e as Error).message.includes(message) : message.test((e as Error).message)),
      );
    const cases: [string, () => void, string | RegExp, ErrorConstructor][] = [
      ['key of 15 bytes', () => mode.newCipher(random(15)), `${P}: key must be 16, 24 or 32 bytes, got 15`, RangeError],
      ['key not bytes', () => mode.newCipher([1, 2] as never), `${P}: key must be a Uint8Array`, TypeError],
      ['options not an object', () => mode.newCipher(key, 5 as never), `${P}: options must be an object`, TypeError],
      [
        'unknown kernel',
        () => mode.newCipher(key, { kernel: 'nope' }),
        new RegExp(`^${P}: unknown kernel "nope"`),
        RangeError,
      ],
    ];
    for (const [what, call, message, type] of cases) it(what, () => throws(call, type, message));

    const c = mode.newCipher(key);
    const iv = random(16);
    const dst = random(64);
    const before = dst.slice();
    const calls: [string, () => void, string, ErrorConstructor][] = [
      [
        'dst shorter than src',
        () => c.xorKeyStream(dst.subarray(0, 31), random(32), iv),
        `${P}: dst is shorter than src (31 < 32 bytes)`,
        RangeError,
      ],
      ['src not bytes', () => c.xorKeyStream(dst, 'abc' as never, iv), `${P}: src must be a Uint8Array`, TypeError],
      [
        'dst not bytes',
        () => c.xorKeyStream(null as never, random(3), iv),
        `${P}: dst must be a Uint8Array`,
        TypeError,
      ],
      [
        'iv of 12 bytes',
        () => c.xorKeyStream(dst, random(5), random(12)),
        `${P}: iv must be 16 bytes, got 12`,
        RangeError,
      ],
      ['iv not bytes', () => c.xorKeyStream(dst, random(5), 7 as never), `${P}: iv must be a Uint8Array`, TypeError],
      [
        'iv overlapping dst',
        () => c.xorKeyStream(dst, random(20), dst.subarray(4, 20)),
        `${P}: iv overlaps dst`,
        RangeError,
      ],
      [
        'src overlapping dst, not in place',
        () => c.xorKeyStream(dst.subarray(1, 33), dst.subarray(0, 32), iv),
        `${P}: dst and src overlap without being the same bytes`,
        RangeError,
      ],
    ];
    for (const [what, call, message, type] of calls) {
      it(what, () => {
        throws(call, type, message);
        assert.deepEqual(dst, before);
      });
    }
    it('an empty message writes nothing', () => {
      c.xorKeyStream(dst.subarray(0, 0), new Uint8Array(0), iv);
      assert.deepEqual(dst, before);
    });
  });
}
