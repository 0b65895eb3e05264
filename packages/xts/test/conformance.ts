/**
 * The @x/xts conformance suite, run on every kernel and on the block primitives alone of every kernel
 * (the mode's generic code): IEEE 1619 Annex B, NIST CAVP XTSGenAES, Wycheproof aes_xts, property tests
 * against node:crypto `aes-128-xts` / `aes-256-xts`, and every input rule. Like @x/cbc's suite it takes
 * the runner's `describe`/`it`, so it also runs under `node:test` with an arm64 Node in qemu.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { newXts, type Xts } from '@x/xts';
import { assertBytes, hex, placed, random, refXts, toHex, type Suite } from '@x/testkit';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface XtsTarget {
  /** A kernel name (`newXts`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** An XTS cipher for `key` (key1 ‖ key2) on this target. */
  make(key: Uint8Array): Xts;
}

export interface ConformanceOptions {
  /** Where the vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
  /** fast-check runs per property (default 60); fewer under emulation. */
  runs?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
}

/**
 * The target of kernel `kernel` as users reach it: `newXts(key, { kernel })`.
 *
 * @example
 * ```ts
 * xtsConformance(onKernel('portable'), { describe, it });
 * ```
 */
export function onKernel(kernel: string): XtsTarget {
  return { name: kernel, make: (key) => newXts(key, { kernel }) };
}

/** Keys whose halves differ (OpenSSL refuses equal halves). */
const keyArb = fc
  .constantFrom(32, 64)
  .chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
  .filter((k) => toHex(k.subarray(0, k.length / 2)) !== toHex(k.subarray(k.length / 2)));
const tweakArb = fc.uint8Array({ minLength: 16, maxLength: 16 });

/** What the sections of the suite share: the runner, the target, the options and what they give. */
function context(target: XtsTarget, { describe, it }: Suite, options: ConformanceOptions) {
  const runs = options.runs ?? 60;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const load = (name: string) => JSON.parse(readFileSync(new URL(name, vectorsDir), 'utf8'));
  const make = target.make;
  const kernel = target.name;
  return { describe, it, target, options, runs, vectorsDir, load, make, kernel };
}

type Ctx = ReturnType<typeof context>;

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * for (const kernel of kernels()) xtsConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function xtsConformance(target: XtsTarget, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const c = context(target, { describe, it }, options);
  const { make, kernel } = c;
  describe(`@x/xts on kernel ${kernel}`, () => {
    it('uses the kernel it was asked for', () => {
      const x = make(random(32));
      assert.equal(x.kernel, kernel);
      x.dispose();
    });

    describe('known answers', () => knownAnswers(c));

    describe('against node:crypto', () => againstNode(c));

    if (options.inputRules === false) return;

    describe('input rules (dst untouched on error)', () => inputRules(c));
  });
}

/** Known answers. */
function knownAnswers(c: Ctx): void {
  const { it, load, make } = c;
  it('IEEE 1619 Annex B', () => {
    const { vectors } = load('ieee1619_xts_aes_annexB_subset.json');
    let equalHalves = 0;
    for (const v of vectors as { key: string; tweak: string; ptext: string; ctext: string }[]) {
      const n = v.key.length / 2;
      if (v.key.slice(0, n) === v.key.slice(n)) {
        // Vector 1 has key1 = key2 = 0, which OpenSSL and node:crypto refuse ("xts duplicated keys").
        assert.throws(() => make(hex(v.key)), { message: '@x/xts: key1 and key2 must differ' });
        equalHalves++;
        continue;
      }
      const x = make(hex(v.key));
      const out = new Uint8Array(v.ptext.length / 2);
      x.encrypt(out, hex(v.ptext), hex(v.tweak));
      assert.equal(toHex(out), v.ctext);
      x.decrypt(out, out, hex(v.tweak));
      assert.equal(toHex(out), v.ptext);
      x.dispose();
    }
    assert.equal(equalHalves, 1);
  });

  it('NIST CAVP XTSGenAES128/256 (whole-byte data units)', () => {
    const { vectors } = load('nist_cavp_aes_xts_bytes.json');
    assert.equal(vectors.length, 2800);
    for (const v of vectors as {
      key: string;
      tweak: string;
      ptext: string;
      ctext: string;
      direction: string;
      file: string;
      count: number;
    }[]) {
      const x = make(hex(v.key));
      const [input, want] = v.direction === 'encrypt' ? [v.ptext, v.ctext] : [v.ctext, v.ptext];
      const out = new Uint8Array(input.length / 2);
      (v.direction === 'encrypt' ? x.encrypt : x.decrypt).call(x, out, hex(input), hex(v.tweak));
      assert.equal(toHex(out), want, `${v.file} ${v.direction} #${v.count}`);
      x.dispose();
    }
  });

  it('Wycheproof aes_xts_test (short IVs are the tweak zero-padded; 384-bit keys are not XTS-AES)', () => {
    const { testGroups } = load('wycheproof_aes_xts_test.json');
    let checked = 0;
    for (const g of testGroups as {
      keySize: number;
      tests: { tcId: number; key: string; iv: string; msg: string; ct: string; result: string }[];
    }[]) {
      if (g.keySize === 384) {
        for (const t of g.tests) assert.throws(() => make(hex(t.key)), RangeError);
        continue;
      }
      for (const t of g.tests) {
        assert.equal(t.result, 'valid');
        const tweak = new Uint8Array(16);
        tweak.set(hex(t.iv));
        const x = make(hex(t.key));
        const out = new Uint8Array(t.msg.length / 2);
        x.encrypt(out, hex(t.msg), tweak);
        assert.equal(toHex(out), t.ct, `tcId ${t.tcId}`);
        x.decrypt(out, hex(t.ct), tweak);
        assert.equal(toHex(out), t.msg, `tcId ${t.tcId}`);
        x.dispose();
        checked++;
      }
    }
    assert.equal(checked, 82);
  });
}

/** Against node:crypto. */
function againstNode(c: Ctx): void {
  const { it, runs, make } = c;
  it('one data unit of any length ≥ 16 (ciphertext stealing), any offsets', () => {
    fc.assert(
      fc.property(
        keyArb,
        tweakArb,
        fc.integer({ min: 16, max: 2100 }),
        fc.nat(15),
        fc.nat(15),
        fc.boolean(),
        (key, tweak, length, so, dso, inPlace) => {
          const x = make(key);
          const data = random(length);
          const src = placed(data, so);
          const dst = inPlace ? src : placed(new Uint8Array(length), dso);
          x.encrypt(dst, src, tweak);
          assert.equal(toHex(dst), toHex(refXts(true, key, data, tweak)));
          const back = inPlace ? dst : placed(new Uint8Array(length), so);
          x.decrypt(back, dst, tweak);
          assert.equal(toHex(back), toHex(data));
          x.dispose();
        },
      ),
      { numRuns: runs * 2 },
    );
  });

  it('sectors both ways: any sector size and count, in place or not', () => {
    const arb = fc.record({
      key: keyArb,
      sectorSize: fc.integer({ min: 1, max: 256 }).map((n) => 16 * n),
      sectors: fc.integer({ min: 0, max: 20 }),
      so: fc.nat(15),
      dso: fc.nat(15),
      inPlace: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ key, sectorSize, sectors, so, dso, inPlace }) => {
        const x = make(key);
        const plain = random(sectors * sectorSize);
        const tweaks = random(16 * sectors);
        const want = new Uint8Array(plain.length);
        for (let s = 0; s < sectors; s++) {
          const range = [s * sectorSize, (s + 1) * sectorSize] as const;
          want.set(refXts(true, key, plain.subarray(...range), tweaks.subarray(16 * s, 16 * s + 16)), range[0]);
        }
        const src = placed(plain, so);
        const dst = inPlace ? src : placed(new Uint8Array(plain.length), dso);
        x.encryptSectors(dst, src, sectorSize, tweaks);
        assert.equal(toHex(dst), toHex(want));
        const back = inPlace ? dst : placed(new Uint8Array(plain.length), so);
        x.decryptSectors(back, dst, sectorSize, tweaks);
        assert.equal(toHex(back), toHex(plain));
        x.dispose();
      }),
      { numRuns: runs },
    );
  });

  it('large inputs: 4096 sectors of 512 bytes in one call', () => {
    for (const bits of [256, 512]) {
      const key = random(bits / 8);
      const x = make(key);
      const plain = random(4096 * 512);
      const tweaks = random(16 * 4096);
      const disk = new Uint8Array(plain.length);
      x.encryptSectors(disk, plain, 512, tweaks);
      for (const s of [0, 1, 2047, 4095]) {
        const want = refXts(true, key, plain.subarray(512 * s, 512 * s + 512), tweaks.subarray(16 * s, 16 * s + 16));
        assertBytes(disk.subarray(512 * s, 512 * s + 512), want, `sector ${s}`);
      }
      x.decryptSectors(disk, disk, 512, tweaks);
      assertBytes(disk, plain);
      x.dispose();
    }
  });
}

/** What the tests of inputRules share. */
function inputRulesFixture(c: Ctx) {
  const { make } = c;
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const tweak = new Uint8Array(16);
  const rejected = (
    call: (x: Xts, dst: Uint8Array) => void,
    type: typeof TypeError | typeof RangeError,
    message: string,
    dst = new Uint8Array(96),
  ) => {
    const x = make(key);
    dst.fill(0x5a);
    const before = toHex(dst);
    assert.throws(
      () => call(x, dst),
      (e: unknown) => e instanceof type && (e as Error).message === message,
    );
    assert.equal(toHex(dst), before);
    x.dispose();
  };

  return { key, tweak, rejected };
}

/** Input rules (dst untouched on error). */
function inputRules(c: Ctx): void {
  const r = inputRulesFixture(c);
  inputRules1(c, r);
  inputRules2(c, r);
}

function inputRules1(c: Ctx, r: ReturnType<typeof inputRulesFixture>): void {
  const { it } = c;
  const { key, tweak, rejected } = r;
  it('keys', () => {
    assert.throws(() => newXts(new Uint8Array(16)), {
      name: 'RangeError',
      message: '@x/xts: key must be 32 or 64 bytes (key1 ‖ key2 for AES-128 or AES-256), got 16',
    });
    assert.throws(() => newXts(new Uint8Array(48)), RangeError);
    assert.throws(() => newXts(new Uint8Array(32)), {
      name: 'RangeError',
      message: '@x/xts: key1 and key2 must differ',
    });
    assert.throws(() => newXts(new Uint8Array(64).fill(9)), { message: '@x/xts: key1 and key2 must differ' });
    assert.throws(() => newXts('k' as unknown as Uint8Array), {
      name: 'TypeError',
      message: '@x/xts: key must be a Uint8Array',
    });
    assert.throws(() => newXts(key, 'portable' as unknown as object), {
      name: 'TypeError',
      message: '@x/xts: options must be an object',
    });
    assert.throws(
      () => newXts(key, { kernel: 'nope' }),
      (e: unknown) => e instanceof RangeError && e.message.startsWith('@x/xts: unknown kernel "nope"'),
    );
  });

  it('data units and tweaks', () => {
    for (const m of ['encrypt', 'decrypt'] as const) {
      rejected(
        (x, d) => x[m](d, new Uint8Array(15), tweak),
        RangeError,
        '@x/xts: src is shorter than one 16-byte block (15 bytes)',
      );
      rejected(
        (x, d) => x[m](d, new Uint8Array(0), tweak),
        RangeError,
        '@x/xts: src is shorter than one 16-byte block (0 bytes)',
      );
      rejected(
        (x, d) => x[m](d, new Uint8Array(100), tweak),
        RangeError,
        '@x/xts: dst is shorter than src (96 < 100 bytes)',
      );
      rejected(
        (x, d) => x[m](d, new Uint8Array(33), new Uint8Array(8)),
        RangeError,
        '@x/xts: tweak must be 16 bytes, got 8',
      );
      rejected((x, d) => x[m](d, new Uint8Array(33), d.subarray(0, 16)), RangeError, '@x/xts: tweak overlaps dst');
      rejected((x, d) => x[m](d, [] as unknown as Uint8Array, tweak), TypeError, '@x/xts: src must be a Uint8Array');
      rejected(
        (x, d) => x[m](d, new Uint8Array(33), 'x' as unknown as Uint8Array),
        TypeError,
        '@x/xts: tweak must be a Uint8Array',
      );
      const big = new Uint8Array(96);
      rejected(
        (x) => x[m](big.subarray(8, 56), big.subarray(0, 40), tweak),
        RangeError,
        '@x/xts: dst and src overlap without being the same bytes',
        big,
      );
    }
  });
}

function inputRules2(c: Ctx, r: ReturnType<typeof inputRulesFixture>): void {
  const { it, make } = c;
  const { key, tweak, rejected } = r;
  it('sectors', () => {
    for (const m of ['encryptSectors', 'decryptSectors'] as const) {
      const s = new Uint8Array(64);
      rejected(
        (x, d) => x[m](d, new Uint8Array(40), 16, new Uint8Array(32)),
        RangeError,
        '@x/xts: src is not a whole number of 16-byte blocks (40 bytes)',
      );
      rejected(
        (x, d) => x[m](d, s, 24, new Uint8Array(32)),
        RangeError,
        '@x/xts: sectorSize must be a positive multiple of 16, got 24',
      );
      rejected(
        (x, d) => x[m](d, s, 48, new Uint8Array(32)),
        RangeError,
        '@x/xts: src is not a whole number of 48-byte sectors (64 bytes)',
      );
      rejected(
        (x, d) => x[m](d, s, 32, new Uint8Array(16)),
        RangeError,
        '@x/xts: tweaks must be 16 bytes per sector, 32 bytes, got 16',
      );
      rejected((x, d) => x[m](d, s, 32, d.subarray(0, 32)), RangeError, '@x/xts: tweaks overlaps dst');
      rejected(
        (x, d) => x[m](d, s, 32, null as unknown as Uint8Array),
        TypeError,
        '@x/xts: tweaks must be a Uint8Array',
      );
    }
  });

  it('dispose wipes and later calls throw', () => {
    const x = make(key);
    x.dispose();
    x.dispose();
    const d = new Uint8Array(32);
    assert.throws(() => x.encrypt(d, d, tweak), { message: '@x/xts: cipher was disposed' });
    assert.throws(() => x.decryptSectors(d, d, 16, new Uint8Array(32)), { message: '@x/xts: cipher was disposed' });
  });
}
