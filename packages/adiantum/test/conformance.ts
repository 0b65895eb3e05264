/**
 * The @x/adiantum conformance suite, run once per AES kernel (and so on both cores: the portable kernel
 * takes the portable core, every other kernel the WebAssembly one): the Adiantum authors' vectors for
 * Adiantum and HPolyC in all three round counts and the Linux testmgr vectors, property tests against the
 * model written out from the definitions (refHbsh of @x/testkit), wide-block diffusion, messages and
 * headers longer than the core's memory, sector calls against single messages, and every input rule.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Adiantum, AdiantumOptions } from '../src/hbsh.js';
import {
  assertBytes,
  backing,
  hex,
  outside,
  placed,
  random,
  refHbsh,
  type Suite,
  toHex,
  wideBlockInputRules,
  wideBlockKnownAnswer,
} from '@x/testkit';

export type Variant = 'adiantum' | 'hpolyc';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface HbshTarget {
  name: string;
  /** The core the ciphers must say they run on (not checked when absent). */
  core?: string;
  make(variant: Variant, key: Uint8Array, options?: AdiantumOptions): Adiantum;
}

interface Vector {
  key: string;
  tweak?: string;
  iv?: string;
  ptext: string;
  ctext: string;
  description?: string;
}

export interface ConformanceOptions {
  /** fast-check runs per property (default 40). */
  runs?: number;
  /** Where the vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
  /** Added to the suite's name, for a target a kernel and core do not tell apart. */
  label?: string;
}

const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const variantArb = fc.constantFrom<Variant>('adiantum', 'hpolyc');
const roundsArb = fc.constantFrom<8 | 12 | 20>(8, 12, 20);

/** What the sections of the suite share: the runner, the target, the options and what they give. */
function context(target: HbshTarget, { describe, it }: Suite, options: ConformanceOptions) {
  const make = target.make;
  const runs = options.runs ?? 40;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const load = (name: string): Vector[] => {
    const bytes = readFileSync(new URL(name, vectorsDir));
    return JSON.parse((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')).vectors;
  };
  return { describe, it, target, options, make, runs, vectorsDir, load };
}

type Ctx = ReturnType<typeof context>;

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of testedKernels(kernels())) hbshConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function hbshConformance(target: HbshTarget, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const c = context(target, { describe, it }, options);
  const { make } = c;
  const on = (target.core === undefined ? '' : `, core ${target.core}`) + (options.label ? ` (${options.label})` : '');
  describe(`@x/adiantum on kernel ${target.name}${on}`, () => {
    it('uses the kernel and core it was asked for', () => {
      for (const variant of ['adiantum', 'hpolyc'] as const) {
        const h = make(variant, random(32));
        assert.equal(h.kernel, target.name);
        if (target.core !== undefined) assert.equal(h.core, target.core);
        h.dispose();
      }
    });

    describe('known answers', () => knownAnswers(c));

    describe('against the model written out from the definitions (refHbsh of @x/testkit)', () => againstModel(c));

    describe('a wide-block cipher', () => wideBlock(c));

    describe('sectors', () => sectors(c));

    describe('input rules (dst untouched on error)', () => inputRules(c));
  });
}

/** Known answers. */
function knownAnswers(c: Ctx): void {
  const { it, make, load } = c;
  for (const variant of ['Adiantum', 'HPolyC'] as const) {
    for (const rounds of [12, 20, 8] as const) {
      const file = `google_${variant}_XChaCha${rounds}_32_AES256.json.gz`;
      it(`the authors' vectors: ${file} (180: tweaks of 0, 17 and 32 bytes, 16 to 4096 bytes), both ways`, () => {
        const vectors = load(file);
        assert.equal(vectors.length, 180);
        const lengths = new Set<number>();
        for (const [i, v] of vectors.entries()) {
          const h = make(variant === 'Adiantum' ? 'adiantum' : 'hpolyc', hex(v.key), { rounds });
          const tweak = hex(v.tweak ?? '');
          const out = new Uint8Array(v.ptext.length / 2);
          lengths.add(out.length);
          h.encrypt(out, hex(v.ptext), tweak);
          assert.equal(toHex(out), v.ctext, `#${i} ${v.description}`);
          h.decrypt(out, out, tweak);
          assert.equal(toHex(out), v.ptext, `#${i} ${v.description}: decrypt`);
          h.dispose();
        }
        assert.deepEqual(
          [...lengths].sort((a, b) => a - b),
          [16, 31, 128, 512, 1536, 4096],
        );
      });
    }
  }

  for (const rounds of [12, 20] as const) {
    it(`Linux testmgr adiantum(xchacha${rounds},aes): 6 vectors, 32-byte IVs, as messages and as sectors`, () => {
      const vectors = load(`linux_testmgr_adiantum_xchacha${rounds}_aes.json`);
      assert.equal(vectors.length, 6);
      for (const [i, v] of vectors.entries()) {
        const h = make('adiantum', hex(v.key), { rounds });
        wideBlockKnownAnswer(h, v.iv ?? '', v.ptext, v.ctext, `#${i}`);
        h.dispose();
      }
    });
  }
}

/** Against the model written out from the definitions (refHbsh of @x/testkit). */
function againstModel(c: Ctx): void {
  const { it, make, runs } = c;
  it('one message: any length ≥ 16, any tweak length, any offsets, in place or not, both ways', () => {
    fc.assert(
      fc.property(
        variantArb,
        roundsArb,
        key32,
        fc.oneof(fc.integer({ min: 16, max: 80 }), fc.integer({ min: 16, max: 2200 })),
        fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(32, 300, 1780, 1800, 2000)),
        fc.nat(15),
        fc.nat(15),
        fc.boolean(),
        (variant, rounds, key, length, tweakLength, so, dso, inPlace) => {
          const h = make(variant, key, { rounds });
          const data = random(length);
          const tweak = random(tweakLength);
          const want = refHbsh(variant, rounds, key, tweak, data, false);
          const src = placed(data, so);
          const dst = inPlace ? src : placed(new Uint8Array(length), dso);
          const around = outside(dst);
          h.encrypt(dst, src, tweak);
          assertBytes(dst, want, `${variant}-${rounds}: ${length} bytes, ${tweakLength}-byte tweak`);
          assertBytes(outside(dst), around, 'wrote outside dst');
          const back = inPlace ? dst : placed(new Uint8Array(length), so);
          h.decrypt(back, dst, tweak);
          assertBytes(back, data, 'decrypt');
          h.dispose();
        },
      ),
      { numRuns: runs * 2 },
    );
  });

  it('decrypting random bytes agrees with the model, and encrypting them again gives them back', () => {
    fc.assert(
      fc.property(variantArb, key32, fc.integer({ min: 16, max: 600 }), fc.nat(70), (variant, key, n, t) => {
        const h = make(variant, key);
        const c = random(n);
        const tweak = random(t);
        const p = new Uint8Array(n);
        h.decrypt(p, c, tweak);
        assertBytes(p, refHbsh(variant, 12, key, tweak, c, true));
        const again = new Uint8Array(n);
        h.encrypt(again, p, tweak);
        assertBytes(again, c);
        h.dispose();
      }),
      { numRuns: runs },
    );
  });

  it('messages and headers longer than the core memory at once: around its 128 KiB chunks, both ways', () => {
    const chunk = 131072;
    for (const [variant, length, tweakLength] of [
      ['adiantum', chunk + 16, 32],
      ['adiantum', chunk + 17, 5000],
      ['hpolyc', chunk + 15, 0],
      ['hpolyc', 2 * chunk + 16 + 100, 140000],
      ['adiantum', 300000, 3],
    ] as const) {
      const key = random(32);
      const h = make(variant, key);
      const data = random(length);
      const tweak = random(tweakLength);
      const c = new Uint8Array(length);
      h.encrypt(c, data, tweak);
      assertBytes(c, refHbsh(variant, 12, key, tweak, data, false), `${variant} ${length}/${tweakLength}`);
      h.decrypt(c, c, tweak);
      assertBytes(c, data, 'decrypt in place');
      h.dispose();
    }
  });
}

/** A wide-block cipher. */
function wideBlock(c: Ctx): void {
  const { it, make, runs } = c;
  it('one flipped bit of the plaintext, or of the tweak, changes every 16-byte block of the ciphertext', () => {
    fc.assert(
      fc.property(
        variantArb,
        key32,
        fc.integer({ min: 16, max: 4096 }),
        fc.nat(),
        fc.boolean(),
        (variant, key, length, where, inTweak) => {
          const h = make(variant, key);
          const p = random(length);
          const tweak = random(32);
          const c = new Uint8Array(length);
          h.encrypt(c, p, tweak);
          const bit = where % (8 * (inTweak ? 32 : length));
          (inTweak ? tweak : p)[bit >>> 3] ^= 1 << (bit & 7);
          const c2 = new Uint8Array(length);
          h.encrypt(c2, p, tweak);
          // A block of b bytes stays the same with probability 2^-8b: checked from 8 bytes up.
          for (let o = 0; o + 8 <= length; o += 16) {
            assert.notEqual(toHex(c.subarray(o, o + 16)), toHex(c2.subarray(o, o + 16)), `block at ${o}`);
          }
          h.dispose();
        },
      ),
      { numRuns: runs },
    );
  });
}

/** Sectors. */
function sectors(c: Ctx): void {
  const { it, make, runs } = c;
  it('equal the sectors one message at a time: any sector size and count, offsets, in place or not', () => {
    const arb = fc.record({
      variant: variantArb,
      key: key32,
      sectorSize: fc.oneof(
        fc.integer({ min: 1, max: 40 }).map((n) => 16 * n),
        fc.constantFrom(512, 4096),
      ),
      sectors: fc.integer({ min: 0, max: 12 }),
      so: fc.nat(15),
      dso: fc.nat(15),
      inPlace: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ variant, key, sectorSize, sectors, so, dso, inPlace }) => {
        const h = make(variant, key);
        const plain = random(sectors * sectorSize);
        const tweaks = random(32 * sectors);
        const want = new Uint8Array(plain.length);
        for (let s = 0; s < sectors; s++) {
          const one = new Uint8Array(sectorSize);
          h.encrypt(one, plain.subarray(s * sectorSize, (s + 1) * sectorSize), tweaks.subarray(32 * s, 32 * s + 32));
          want.set(one, s * sectorSize);
        }
        if (sectors > 0) {
          const first = refHbsh(variant, 12, key, tweaks.subarray(0, 32), plain.subarray(0, sectorSize), false);
          assertBytes(want.subarray(0, sectorSize), first);
        }
        const src = placed(plain, so);
        const dst = inPlace ? src : placed(new Uint8Array(plain.length), dso);
        const tweaksBefore = backing(tweaks);
        h.encryptSectors(dst, src, sectorSize, tweaks);
        assertBytes(dst, want, `${sectors} × ${sectorSize}`);
        assertBytes(backing(tweaks), tweaksBefore, 'tweaks changed');
        const back = inPlace ? dst : placed(new Uint8Array(plain.length), so);
        h.decryptSectors(back, dst, sectorSize, tweaks);
        assertBytes(back, plain);
        h.dispose();
      }),
      { numRuns: runs },
    );
  });

  it('many groups in one call (600 sectors of 16 bytes, 70 of 4096), sectors past 128 KiB, then other counts', () => {
    for (const [variant, size, counts] of [
      ['adiantum', 16, [600, 1]],
      ['hpolyc', 4096, [70, 2]],
      ['adiantum', 4096, [70, 33]],
      ['adiantum', 131072 + 4096, [2]],
    ] as const) {
      const key = random(32);
      const h = make(variant, key);
      for (const count of counts) {
        const plain = random(count * size);
        const tweaks = random(32 * count);
        const disk = new Uint8Array(plain.length);
        h.encryptSectors(disk, plain, size, tweaks);
        for (const s of new Set([0, 1, count - 1].filter((s) => s < count))) {
          const t = tweaks.subarray(32 * s, 32 * s + 32);
          const one = plain.subarray(size * s, size * s + size);
          assertBytes(disk.subarray(size * s, size * s + size), refHbsh(variant, 12, key, t, one, false));
        }
        h.decryptSectors(disk, disk, size, tweaks);
        assertBytes(disk, plain);
      }
      h.dispose();
    }
  });
}

/** Input rules (dst untouched on error). */
function inputRules(c: Ctx): void {
  const { describe, it, make } = c;
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  for (const variant of ['adiantum', 'hpolyc'] as const) {
    describe(variant, () => wideBlockInputRules({ describe, it }, '@x/adiantum', () => make(variant, key)));
  }

  it('keys, rounds and options', () => {
    for (const variant of ['adiantum', 'hpolyc'] as const) {
      for (const n of [0, 16, 24, 31, 33, 64]) {
        assert.throws(() => make(variant, new Uint8Array(n)), {
          name: 'RangeError',
          message: `@x/adiantum: key must be 32 bytes, got ${n}`,
        });
      }
      assert.throws(() => make(variant, 'k' as unknown as Uint8Array), {
        name: 'TypeError',
        message: '@x/adiantum: key must be a Uint8Array',
      });
      for (const rounds of [0, 10, 24, '12']) {
        assert.throws(() => make(variant, key, { rounds } as unknown as AdiantumOptions), {
          name: 'RangeError',
          message: `@x/adiantum: rounds must be 8, 12 or 20, got ${rounds}`,
        });
      }
      assert.throws(() => make(variant, key, 'portable' as unknown as AdiantumOptions), {
        name: 'TypeError',
        message: '@x/adiantum: options must be an object',
      });
    }
  });

  it('HPolyC tweaks up to 2^29 − 1 bytes (its bit count is 32 bits)', () => {
    const h = make('hpolyc', key);
    const d = new Uint8Array(32).fill(0x5a);
    // 2^29 zero bytes, never touched (the pages stay unmapped): the rule is checked on the length alone.
    const long = new Uint8Array(2 ** 29);
    assert.throws(() => h.encrypt(d, new Uint8Array(32), long), {
      name: 'RangeError',
      message: `@x/adiantum: HPolyC tweaks are at most ${2 ** 29 - 1} bytes, got ${2 ** 29}`,
    });
    assert.ok(d.every((b) => b === 0x5a));
    h.dispose();
  });
}
