/**
 * The @x/hctr2 conformance suite, run on every kernel and on the block primitives alone of every kernel
 * (the generic XCTR keystream, and the portable POLYVAL): the HCTR2 authors' vectors and the Linux testmgr
 * vectors (all key sizes), property tests against an independent model (refHctr2 of @x/testkit), wide-block
 * diffusion, sector calls against single messages, and every input rule. Like @x/xts's suite it takes the
 * runner's `describe`/`it`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { newHctr2, type Hctr2 } from '@x/hctr2';
import {
  assertBytes,
  hex,
  random,
  refHctr2,
  type Suite,
  toHex,
  wideBlockInputRules,
  wideBlockKnownAnswer,
  wideBlockProperties,
} from '@x/testkit';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface Hctr2Target {
  /** A kernel name (`newHctr2`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** An HCTR2 cipher for `key` on this target. */
  make(key: Uint8Array): Hctr2;
}

export interface ConformanceOptions {
  /** fast-check runs per property (default 60). */
  runs?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
  /** Where the vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
}

/**
 * The target of kernel `kernel` as users reach it: `newHctr2(key, { kernel })`.
 *
 * @example
 * ```ts
 * hctr2Conformance(onKernel('portable'), { describe, it });
 * ```
 */
export function onKernel(kernel: string): Hctr2Target {
  return { name: kernel, make: (key) => newHctr2(key, { kernel }) };
}

interface Vector {
  key: string;
  tweak?: string;
  iv?: string;
  ptext: string;
  ctext: string;
  description?: string;
}

const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));

/** What the sections of the suite share: the runner, the target, the options and what they give. */
function context(target: Hctr2Target, { describe, it }: Suite, options: ConformanceOptions) {
  const runs = options.runs ?? 60;
  const make = target.make;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const load = (name: string): Vector[] => JSON.parse(readFileSync(new URL(name, vectorsDir), 'utf8')).vectors;
  return { describe, it, target, options, runs, make, vectorsDir, load };
}

type Ctx = ReturnType<typeof context>;

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) hctr2Conformance(onKernel(kernel), { describe, it });
 * ```
 */
export function hctr2Conformance(target: Hctr2Target, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const c = context(target, { describe, it }, options);
  const { make } = c;
  describe(`@x/hctr2 on kernel ${target.name}`, () => {
    it('uses the kernel it was asked for', () => {
      const h = make(random(16));
      assert.equal(h.kernel, target.name);
      h.dispose();
    });

    describe('known answers', () => knownAnswers(c));

    // Against the independent model (refHctr2 of @x/testkit), diffusion, sectors: the wide-block suite.
    wideBlockProperties(
      { describe, it },
      {
        keys: keyArb,
        make,
        reference: (key, tweak, message, decrypt) => refHctr2(key, tweak, message, decrypt),
        maxLength: 1100,
        longTweaks: [32, 64, 300],
        runs: c.runs,
      },
    );

    describe('large sector calls', () => sectors(c));

    if (options.inputRules === false) return;

    describe('input rules (dst untouched on error)', () => inputRules(c));
  });
}

/** Known answers. */
function knownAnswers(c: Ctx): void {
  const { it, make, load } = c;
  for (const [file, count] of [
    ['google_hctr2_HCTR2_AES128.json', 200],
    ['google_hctr2_HCTR2_AES192.json', 150],
    ['google_hctr2_HCTR2_AES256.json', 350],
  ] as const) {
    it(`the HCTR2 authors' vectors: ${file} (tweaks of 0 to 47 bytes), both ways, in place and not`, () => {
      const vectors = load(file);
      assert.equal(vectors.length, count);
      for (const [i, v] of vectors.entries()) {
        const h = make(hex(v.key));
        const tweak = hex(v.tweak ?? '');
        const out = new Uint8Array(v.ptext.length / 2);
        h.encrypt(out, hex(v.ptext), tweak);
        assert.equal(toHex(out), v.ctext, `#${i} ${v.description}`);
        h.decrypt(out, out, tweak);
        assert.equal(toHex(out), v.ptext, `#${i} ${v.description}: decrypt`);
        h.dispose();
      }
    });
  }

  it('Linux testmgr hctr2(aes): 14 vectors, 32-byte tweaks, as messages and as sectors', () => {
    const vectors = load('linux_testmgr_hctr2_aes.json');
    assert.equal(vectors.length, 14);
    const keySizes = new Set<number>();
    for (const [i, v] of vectors.entries()) {
      keySizes.add(v.key.length / 2);
      const h = make(hex(v.key));
      wideBlockKnownAnswer(h, v.iv ?? '', v.ptext, v.ctext, `#${i}`);
      h.dispose();
    }
    assert.deepEqual([...keySizes].sort(), [16, 24, 32]);
  });
}

/** Large sector calls. */
function sectors(c: Ctx): void {
  const { it, make } = c;
  it('large inputs: 2048 sectors of 512 bytes in one call, then a different count on the same cipher', () => {
    for (const n of [16, 32]) {
      const key = random(n);
      const h = make(key);
      for (const count of [2048, 3]) {
        const plain = random(count * 512);
        const tweaks = random(32 * count);
        const disk = new Uint8Array(plain.length);
        h.encryptSectors(disk, plain, 512, tweaks);
        for (const s of [0, 1, count - 1]) {
          const t = tweaks.subarray(32 * s, 32 * s + 32);
          assertBytes(
            disk.subarray(512 * s, 512 * s + 512),
            refHctr2(key, t, plain.subarray(512 * s, 512 * s + 512), false),
          );
        }
        h.decryptSectors(disk, disk, 512, tweaks);
        assertBytes(disk, plain);
      }
      h.dispose();
    }
  });
}

/** Input rules (dst untouched on error). */
function inputRules(c: Ctx): void {
  const { describe, it, make } = c;
  const key = Uint8Array.from({ length: 16 }, (_, i) => i);
  wideBlockInputRules({ describe, it }, '@x/hctr2', () => make(key));

  it('keys and options', () => {
    for (const n of [0, 15, 17, 33, 64]) {
      assert.throws(() => newHctr2(new Uint8Array(n)), {
        name: 'RangeError',
        message: `@x/hctr2: key must be 16, 24 or 32 bytes, got ${n}`,
      });
    }
    assert.throws(() => newHctr2('k' as unknown as Uint8Array), {
      name: 'TypeError',
      message: '@x/hctr2: key must be a Uint8Array',
    });
    assert.throws(() => newHctr2(key, 'portable' as unknown as object), {
      name: 'TypeError',
      message: '@x/hctr2: options must be an object',
    });
    assert.throws(
      () => newHctr2(key, { kernel: 'nope' }),
      (e: unknown) => e instanceof RangeError && e.message.startsWith('@x/hctr2: unknown kernel "nope"'),
    );
  });

  it('the tweak may overlap src (it is read before anything is written only where it is not dst)', () => {
    const h = make(key);
    const buf = random(96);
    const want = refHctr2(key, buf.slice(0, 32), buf.slice(32, 96), false);
    const out = new Uint8Array(64);
    h.encrypt(out, buf.subarray(32), buf.subarray(0, 32));
    assertBytes(out, want);
    h.dispose();
  });
}
