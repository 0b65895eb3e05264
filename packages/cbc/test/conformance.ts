/**
 * The @x/cbc conformance suite, run on every kernel (Go's cryptotest.TestAllImplementations) and on the
 * block primitives alone of every kernel (the mode's generic code): known answers from FIPS 197 and NIST
 * CAVP, property tests against node:crypto, and every input rule.
 *
 * It depends only on node:assert, node:fs, fast-check, @x/testkit and @x/cbc, and takes the test
 * runner's `describe`/`it` as arguments, so the same file runs under vitest (x64) and under `node:test`
 * with an arm64 Node in qemu, where vitest's bundler cannot run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { newCipher, type Cipher } from '@x/cbc';
import {
  FIPS197,
  FIPS197_PLAINTEXT,
  assertBytes,
  hex,
  placed,
  random,
  refCbc,
  refCbcSectors,
  refEcb,
  toHex,
  type Suite,
} from '@x/testkit';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface CbcTarget {
  /** A kernel name (`newCipher`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** A cipher for `key` on this target. */
  make(key: Uint8Array): Cipher;
}

export interface ConformanceOptions {
  /** Where the NIST vector files are; default: `./vectors/` beside this file. */
  vectorsDir?: URL;
  /** fast-check runs per property (default 60); fewer under emulation. */
  runs?: number;
  /** Monte Carlo outer iterations per file and direction (default all 100). */
  mctIterations?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
}

interface NistVector {
  file: string;
  direction: 'encrypt' | 'decrypt';
  count: number;
  key: string;
  iv?: string;
  ptext: string;
  ctext: string;
}

/** A CBC vector: it has an IV. */
type CbcVector = NistVector & { iv: string };

/**
 * The target of kernel `kernel` as users reach it: `newCipher(key, { kernel })`.
 *
 * @example
 * ```ts
 * cbcConformance(onKernel('portable'), { describe, it });
 * ```
 */
export function onKernel(kernel: string): CbcTarget {
  return { name: kernel, make: (key) => newCipher(key, { kernel }) };
}

const keyArb = fc.constantFrom(16, 24, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const blockArb = (maxBlocks: number) =>
  fc.integer({ min: 0, max: maxBlocks }).chain((n) => fc.uint8Array({ minLength: 16 * n, maxLength: 16 * n }));

/** What the sections of the suite share: the runner, the target, the options and what they give. */
function context(target: CbcTarget, { describe, it }: Suite, options: ConformanceOptions) {
  const runs = options.runs ?? 60;
  const vectorsDir = options.vectorsDir ?? new URL('./vectors/', import.meta.url);
  const load = (name: string) =>
    (JSON.parse(readFileSync(new URL(name, vectorsDir), 'utf8')) as { vectors: NistVector[] }).vectors;
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
 * for (const kernel of kernels()) cbcConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function cbcConformance(target: CbcTarget, { describe, it }: Suite, options: ConformanceOptions = {}): void {
  const c = context(target, { describe, it }, options);
  const { make, kernel } = c;
  describe(`@x/cbc on kernel ${kernel}`, () => {
    it('uses the kernel it was asked for', () => {
      const c = make(new Uint8Array(16));
      assert.equal(c.kernel, kernel);
      c.dispose();
    });

    describe('known answers', () => knownAnswers(c));

    describe('against node:crypto', () => againstNode(c));

    if (options.inputRules === false) return;

    describe('input rules (dst untouched on error)', () => inputRules(c));
  });
}

/** Known answers. */
function knownAnswers(c: Ctx): void {
  const { it, options, load, make } = c;
  it('FIPS 197 Appendix C.1-C.3', () => {
    const pt = hex(FIPS197_PLAINTEXT);
    for (const { key, ciphertext: ct } of FIPS197) {
      const c = make(hex(key));
      const out = new Uint8Array(16);
      c.encryptECB(out, pt);
      assert.equal(toHex(out), ct);
      c.decryptECB(out, out);
      assert.equal(toHex(out), toHex(pt));
      c.dispose();
    }
  });

  it('NIST CAVP ECB KAT (GFSbox, KeySbox, VarKey, VarTxt)', () => {
    const vectors = load('nist_cavp_aes_ecb_kat.json');
    assert.equal(vectors.length, 2078);
    for (const v of vectors) {
      const c = make(hex(v.key));
      const [input, want] = v.direction === 'encrypt' ? [v.ptext, v.ctext] : [v.ctext, v.ptext];
      const out = new Uint8Array(input.length / 2);
      (v.direction === 'encrypt' ? c.encryptECB : c.decryptECB).call(c, out, hex(input));
      assert.equal(toHex(out), want, `${v.file} #${v.count}`);
      c.dispose();
    }
  });

  it('NIST CAVP CBC KAT and MMT', () => {
    const vectors = load('nist_cavp_aes_cbc_kat_mmt.json') as CbcVector[];
    assert.equal(vectors.length, 2138);
    for (const v of vectors) {
      const c = make(hex(v.key));
      const [input, want] = v.direction === 'encrypt' ? [v.ptext, v.ctext] : [v.ctext, v.ptext];
      const out = new Uint8Array(input.length / 2);
      (v.direction === 'encrypt' ? c.encrypt : c.decrypt).call(c, out, hex(input), hex(v.iv));
      assert.equal(toHex(out), want, `${v.file} #${v.count}`);
      // The same chain as one sector of decryptSectors.
      if (v.direction === 'decrypt') {
        out.fill(0);
        c.decryptSectors(out, hex(input), input.length / 2, hex(v.iv));
        assert.equal(toHex(out), want, `${v.file} #${v.count} as a sector`);
      }
      c.dispose();
    }
  });

  it('NIST CAVP CBC Monte Carlo (AESAVS §6.4.2, 1000 chained blocks per record)', () => {
    const vectors = load('nist_cavp_aes_cbc_mct.json') as CbcVector[];
    const per = options.mctIterations ?? 100;
    let checked = 0;
    for (const v of vectors) {
      if (v.count >= per) continue;
      const c = make(hex(v.key));
      const encrypt = v.direction === 'encrypt';
      // AESAVS: block j goes through the cipher with the previous output as IV; the next input is
      // the IV for j = 0 and output j-1 after that.
      let iv = hex(v.iv);
      let input = hex(encrypt ? v.ptext : v.ctext);
      let prev = new Uint8Array(16);
      let out = new Uint8Array(16);
      for (let j = 0; j < 1000; j++) {
        if (encrypt) c.encrypt(out, input, iv);
        else c.decrypt(out, input, iv);
        const nextInput = j === 0 ? iv : prev;
        iv = encrypt ? out : input;
        input = nextInput;
        prev = out;
        out = new Uint8Array(16);
      }
      assert.equal(toHex(prev), encrypt ? v.ctext : v.ptext, `${v.file} ${v.direction} #${v.count}`);
      c.dispose();
      checked++;
    }
    assert.equal(checked, 6 * per);
  });
}

/** Against node:crypto. */
function againstNode(c: Ctx): void {
  againstNode1(c);
  againstNode2(c);
}

function againstNode1(c: Ctx): void {
  const { it, runs, make } = c;
  it('ECB both ways, any length, any offsets', () => {
    fc.assert(
      fc.property(keyArb, blockArb(300), fc.nat(15), fc.nat(15), (key, data, so, dso) => {
        const c = make(key);
        const src = placed(data, so);
        const dst = placed(new Uint8Array(data.length), dso);
        c.encryptECB(dst, src);
        assert.equal(toHex(dst), toHex(refEcb(true, key, data)));
        c.decryptECB(dst, dst);
        assert.equal(toHex(dst), toHex(data));
        c.dispose();
      }),
      { numRuns: runs },
    );
  });

  it('CBC encrypt and decrypt, any length, any offsets', () => {
    fc.assert(
      fc.property(
        keyArb,
        blockArb(300),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.nat(15),
        fc.nat(15),
        (key, data, iv, so, dso) => {
          const c = make(key);
          const src = placed(data, so);
          const dst = placed(new Uint8Array(data.length), dso);
          const ivCopy = iv.slice();
          c.encrypt(dst, src, iv);
          const want = refCbc(true, key, data, iv);
          assert.equal(toHex(dst), toHex(want));
          c.decrypt(src, dst, iv);
          assert.equal(toHex(src), toHex(data));
          assert.equal(toHex(iv), toHex(ivCopy), 'iv is not modified');
          c.dispose();
        },
      ),
      { numRuns: runs },
    );
  });

  it('in place: dst is src, every method', () => {
    fc.assert(
      fc.property(
        keyArb,
        blockArb(200),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.nat(15),
        (key, data, iv, off) => {
          const c = make(key);
          const buf = placed(data, off);
          c.encrypt(buf, buf, iv);
          assert.equal(toHex(buf), toHex(refCbc(true, key, data, iv)));
          c.decrypt(buf, buf, iv);
          assert.equal(toHex(buf), toHex(data));
          c.encryptECB(buf, buf);
          assert.equal(toHex(buf), toHex(refEcb(true, key, data)));
          c.decryptECB(buf, buf);
          assert.equal(toHex(buf), toHex(data));
          // Same bytes through two different views also counts as in place.
          const alias = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
          c.encrypt(alias, buf, iv);
          c.decryptSectors(buf, alias, Math.max(16, data.length), data.length ? iv : new Uint8Array(0));
          assert.equal(toHex(buf), toHex(data));
          c.dispose();
        },
      ),
      { numRuns: runs },
    );
  });
}

function againstNode2(c: Ctx): void {
  const { it, runs, make } = c;
  it('decryptSectors and encryptSectors: many chains, any sector size and count, in place or not', () => {
    const arb = fc.record({
      key: keyArb,
      sectorSize: fc.integer({ min: 1, max: 256 }).map((n) => 16 * n),
      sectors: fc.integer({ min: 0, max: 24 }),
      so: fc.nat(15),
      dso: fc.nat(15),
      inPlace: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ key, sectorSize, sectors, so, dso, inPlace }) => {
        const c = make(key);
        const plain = random(sectors * sectorSize);
        const ivs = random(16 * sectors);
        const disk = refCbcSectors(true, key, plain, sectorSize, ivs);
        const src = placed(disk, so);
        const dst = inPlace ? src : placed(new Uint8Array(plain.length), dso);
        c.decryptSectors(dst, src, sectorSize, ivs);
        assert.equal(toHex(dst), toHex(plain));
        // And back: encryptSectors runs the chains side by side, with the same layout.
        const again = inPlace ? dst : placed(new Uint8Array(plain.length), so);
        c.encryptSectors(again, dst, sectorSize, ivs);
        assert.equal(toHex(again), toHex(disk));
        c.dispose();
      }),
      { numRuns: runs },
    );
  });

  it('large inputs (several MiB, past any kernel chunk size)', () => {
    for (const bits of [128, 256]) {
      const key = random(bits / 8);
      const iv = random(16);
      const data = random(3 * 1024 * 1024 + 48);
      const c = make(key);
      const out = new Uint8Array(data.length);
      c.encrypt(out, data, iv);
      assertBytes(out, refCbc(true, key, data, iv), `encrypt AES-${bits}`);
      const back = new Uint8Array(data.length);
      c.decrypt(back, out, iv);
      assertBytes(back, data, `decrypt AES-${bits}`);
      c.encryptECB(out, data);
      assertBytes(out, refEcb(true, key, data), `ECB AES-${bits}`);
      const sectorSize = 4096;
      const n = Math.floor(data.length / sectorSize);
      const ivs = random(16 * n);
      const disk = data.subarray(0, n * sectorSize);
      c.decryptSectors(back, disk, sectorSize, ivs);
      const reencrypted = new Uint8Array(disk.length);
      c.encryptSectors(reencrypted, back.subarray(0, disk.length), sectorSize, ivs);
      assertBytes(reencrypted, disk, `encryptSectors AES-${bits}`);
      for (const s of [0, 1, n >> 1, n - 1]) {
        const want = refCbc(
          false,
          key,
          disk.subarray(s * sectorSize, (s + 1) * sectorSize),
          ivs.subarray(16 * s, 16 * s + 16),
        );
        assertBytes(back.subarray(s * sectorSize, (s + 1) * sectorSize), want, `sector ${s}`);
      }
      c.dispose();
    }
  });

  it('writes exactly src.length bytes of a longer dst', () => {
    const c = make(random(32));
    const dst = new Uint8Array(64).fill(0xa5);
    c.encrypt(dst, random(32), random(16));
    c.decryptECB(dst, new Uint8Array(0));
    assert.ok(dst.subarray(32).every((b) => b === 0xa5));
    c.dispose();
  });
}

/** What the tests of inputRules share. */
function inputRulesFixture(c: Ctx) {
  const { make } = c;
  type Call = (c: Cipher, dst: Uint8Array) => void;
  const expectRejected = (
    call: Call,
    type: typeof TypeError | typeof RangeError,
    message: string,
    dst = new Uint8Array(64),
  ) => {
    const c = make(new Uint8Array(16));
    dst.fill(0x5a);
    const before = toHex(dst);
    assert.throws(
      () => call(c, dst),
      (e: unknown) => e instanceof type && (e as Error).message === message,
    );
    assert.equal(toHex(dst), before);
    c.dispose();
  };
  const iv = new Uint8Array(16);

  return { expectRejected, iv };
}

/** Input rules (dst untouched on error). */
function inputRules(c: Ctx): void {
  const r = inputRulesFixture(c);
  inputRules1(c, r);
  inputRules2(c, r);
  inputRules3(c, r);
}

function inputRules1(c: Ctx, r: ReturnType<typeof inputRulesFixture>): void {
  const { it, kernel } = c;
  const { expectRejected, iv } = r;
  it('bad keys and options', () => {
    assert.throws(() => newCipher(new Uint8Array(20), { kernel }), {
      name: 'RangeError',
      message: '@x/cbc: key must be 16, 24 or 32 bytes, got 20',
    });
    assert.throws(() => newCipher(new Uint8Array(0), { kernel }), RangeError);
    assert.throws(() => newCipher('0123456789abcdef' as unknown as Uint8Array), {
      name: 'TypeError',
      message: '@x/cbc: key must be a Uint8Array',
    });
    assert.throws(
      () => newCipher(new Uint8Array(16), { kernel: 'nope' }),
      (e: unknown) => e instanceof RangeError && e.message.startsWith('@x/cbc: unknown kernel "nope"; usable here: '),
    );
    assert.throws(() => newCipher(new Uint8Array(16), { kernel: 7 as unknown as string }), TypeError);
    assert.throws(() => newCipher(new Uint8Array(16), 'portable' as unknown as object), TypeError);
  });

  it('non-Uint8Array arguments are TypeErrors', () => {
    const s = new Uint8Array(32);
    expectRejected(
      (c, d) => c.encrypt(d, [1, 2] as unknown as Uint8Array, iv),
      TypeError,
      '@x/cbc: src must be a Uint8Array',
    );
    expectRejected(
      (c) => c.decrypt(new Uint16Array(16) as unknown as Uint8Array, s, iv),
      TypeError,
      '@x/cbc: dst must be a Uint8Array',
    );
    expectRejected(
      (c, d) => c.decrypt(d, s, 'x' as unknown as Uint8Array),
      TypeError,
      '@x/cbc: iv must be a Uint8Array',
    );
    expectRejected(
      (c, d) => c.decryptSectors(d, s, 16, null as unknown as Uint8Array),
      TypeError,
      '@x/cbc: ivs must be a Uint8Array',
    );
    expectRejected(
      (c, d) => c.decryptSectors(d, s, '16' as unknown as number, new Uint8Array(32)),
      TypeError,
      '@x/cbc: sectorSize must be a number',
    );
  });
}

function inputRules2(c: Ctx, r: ReturnType<typeof inputRulesFixture>): void {
  const { it } = c;
  const { expectRejected, iv } = r;
  it('partial blocks, short dst, bad IVs', () => {
    for (const m of ['encrypt', 'decrypt'] as const) {
      expectRejected(
        (c, d) => c[m](d, new Uint8Array(17), iv),
        RangeError,
        '@x/cbc: src is not a whole number of 16-byte blocks (17 bytes)',
      );
      expectRejected(
        (c, d) => c[m](d, new Uint8Array(80), iv),
        RangeError,
        '@x/cbc: dst is shorter than src (64 < 80 bytes)',
      );
      expectRejected(
        (c, d) => c[m](d, new Uint8Array(32), new Uint8Array(15)),
        RangeError,
        '@x/cbc: iv must be 16 bytes, got 15',
      );
      expectRejected(
        (c, d) => c[m](d, new Uint8Array(32), new Uint8Array(32)),
        RangeError,
        '@x/cbc: iv must be 16 bytes, got 32',
      );
      expectRejected((c, d) => c[m](d, new Uint8Array(32), d.subarray(16, 32)), RangeError, '@x/cbc: iv overlaps dst');
    }
    for (const m of ['encryptECB', 'decryptECB'] as const) {
      expectRejected(
        (c, d) => c[m](d, new Uint8Array(8)),
        RangeError,
        '@x/cbc: src is not a whole number of 16-byte blocks (8 bytes)',
      );
      expectRejected(
        (c) => c[m](new Uint8Array(16), new Uint8Array(32)),
        RangeError,
        '@x/cbc: dst is shorter than src (16 < 32 bytes)',
      );
    }
  });
}

function inputRules3(c: Ctx, r: ReturnType<typeof inputRulesFixture>): void {
  const { it, make } = c;
  const { expectRejected, iv } = r;
  const sectorRules = (m: 'decryptSectors' | 'encryptSectors') => {
    const s = new Uint8Array(64);
    expectRejected(
      (c, d) => c[m](d, s, 0, new Uint8Array(0)),
      RangeError,
      '@x/cbc: sectorSize must be a positive multiple of 16, got 0',
    );
    expectRejected(
      (c, d) => c[m](d, s, 24, new Uint8Array(16)),
      RangeError,
      '@x/cbc: sectorSize must be a positive multiple of 16, got 24',
    );
    expectRejected(
      (c, d) => c[m](d, s, 16.5, new Uint8Array(16)),
      RangeError,
      '@x/cbc: sectorSize must be a positive multiple of 16, got 16.5',
    );
    expectRejected(
      (c, d) => c[m](d, s, -16, new Uint8Array(16)),
      RangeError,
      '@x/cbc: sectorSize must be a positive multiple of 16, got -16',
    );
    expectRejected(
      (c, d) => c[m](d, s, 48, new Uint8Array(16)),
      RangeError,
      '@x/cbc: src is not a whole number of 48-byte sectors (64 bytes)',
    );
    expectRejected(
      (c, d) => c[m](d, s, 32, new Uint8Array(16)),
      RangeError,
      '@x/cbc: ivs must be 16 bytes per sector, 32 bytes, got 16',
    );
    expectRejected(
      (c, d) => c[m](d, s, 32, new Uint8Array(48)),
      RangeError,
      '@x/cbc: ivs must be 16 bytes per sector, 32 bytes, got 48',
    );
    expectRejected((c, d) => c[m](d, s, 32, d.subarray(32, 64)), RangeError, '@x/cbc: ivs overlaps dst');
  };

  it('sector rules', () => {
    for (const m of ['decryptSectors', 'encryptSectors'] as const) sectorRules(m);
  });

  it('overlap that is not exactly in place', () => {
    const big = new Uint8Array(128);
    const message = '@x/cbc: dst and src overlap without being the same bytes';
    expectRejected((c) => c.encrypt(big.subarray(16, 80), big.subarray(0, 64), iv), RangeError, message, big);
    expectRejected((c) => c.decrypt(big.subarray(0, 64), big.subarray(16, 80), iv), RangeError, message, big);
    expectRejected((c) => c.encryptECB(big.subarray(1, 65), big.subarray(0, 64)), RangeError, message, big);
    expectRejected((c) => c.decryptECB(big.subarray(0, 64), big.subarray(40, 88)), RangeError, message, big);
    expectRejected(
      (c) => c.decryptSectors(big.subarray(48, 112), big.subarray(0, 64), 32, new Uint8Array(32)),
      RangeError,
      message,
      big,
    );
    // Adjacent is fine; so are separate buffers.
    const c = make(new Uint8Array(16));
    c.encrypt(big.subarray(64, 128), big.subarray(0, 64), iv);
    c.dispose();
  });

  it('one cipher checks every call, also after calls on the same arrays (it remembers where they lie)', () => {
    const big = new Uint8Array(128);
    const dst = big.subarray(0, 64);
    const src = big.subarray(64, 128);
    const c = make(new Uint8Array(16));
    const message = '@x/cbc: dst and src overlap without being the same bytes';
    for (let round = 0; round < 3; round++) {
      c.decrypt(dst, src, iv);
      c.encrypt(dst, src, iv);
      c.encryptECB(dst, src);
      c.decryptSectors(dst, src, 32, new Uint8Array(32));
      const before = toHex(big);
      const overlapping = big.subarray(16, 80);
      assert.throws(() => c.decrypt(dst, overlapping, iv), { name: 'RangeError', message });
      assert.throws(() => c.encryptECB(overlapping, src), { name: 'RangeError', message });
      assert.throws(() => c.decrypt(dst, src, dst.subarray(48, 64)), { message: '@x/cbc: iv overlaps dst' });
      assert.throws(() => c.encrypt(dst, src, big.subarray(0, 16)), { message: '@x/cbc: iv overlaps dst' });
      assert.equal(toHex(big), before);
      c.decrypt(dst, dst, src.subarray(0, 16)); // in place, the IV in another part of the buffer
    }
    c.dispose();
  });

  it('dispose wipes and later calls throw', () => {
    const c = make(new Uint8Array(16));
    c.dispose();
    c.dispose();
    const d = new Uint8Array(16);
    for (const call of [
      () => c.encrypt(d, d, iv),
      () => c.decrypt(d, d, iv),
      () => c.encryptECB(d, d),
      () => c.decryptECB(d, d),
      () => c.decryptSectors(d, d, 16, iv),
      () => c.encryptSectors(d, d, 16, iv),
    ]) {
      assert.throws(call, { message: '@x/cbc: cipher was disposed' });
    }
  });
}
