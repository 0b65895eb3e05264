// The input rules every tweakable wide-block cipher of the project shares (@x/hctr2, @x/adiantum): one
// message with a tweak of any length, sectors with 32 bytes of tweak each. Each rule is a call that must
// throw the given error, with the package's prefix, and leave dst as it was. And the properties they share
// (wideBlockProperties): diffusion over the whole message, sectors as messages one at a time.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assertBytes, backing, hex, outside, placed, random, toHex } from './bytes.js';
import type { Suite } from './suite.js';

/** The API both wide-block packages give (`Hctr2`, `Adiantum`). */
export interface WideBlock {
  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  dispose(): void;
}

/**
 * The tests of the shared rules, for ciphers from `make` (each made fresh, disposed after): messages and
 * tweaks, sectors, zero sectors, and calls after `dispose()`. `prefix` is the package's, e.g. `@x/hctr2`.
 *
 * @example
 * ```ts
 * wideBlockInputRules({ describe, it }, '@x/hctr2', () => newHctr2(key));
 * ```
 */
export function wideBlockInputRules({ it }: Suite, prefix: string, make: () => WideBlock): void {
  const rejected = rejecter(prefix, make);
  it('messages and tweaks', () => messageRules(rejected));
  it('sectors', () => sectorRules(rejected));

  it('zero sectors is a valid call that writes nothing', () => {
    const h = make();
    const d = new Uint8Array(16).fill(7);
    h.encryptSectors(d, new Uint8Array(0), 512, new Uint8Array(0));
    h.decryptSectors(d, new Uint8Array(0), 512, new Uint8Array(0));
    assert.ok(d.every((b) => b === 7));
    h.dispose();
  });

  it('dispose wipes and later calls throw', () => {
    const h = make();
    h.dispose();
    h.dispose();
    const d = new Uint8Array(32);
    const disposed = { message: `${prefix}: cipher was disposed` };
    assert.throws(() => h.encrypt(d, d, tweak), disposed);
    assert.throws(() => h.decrypt(d, d, tweak), disposed);
    assert.throws(() => h.encryptSectors(d, d, 16, new Uint8Array(64)), disposed);
    assert.throws(() => h.decryptSectors(d, d, 16, new Uint8Array(64)), disposed);
  });
}

/** The 32 bytes of tweak every rule passes where the tweak is not what is wrong. */
const tweak = new Uint8Array(32);

/** Asserts that a call throws `type` with `<prefix>: message`, and leaves `dst` as it was. */
type Rejected = (
  call: (h: WideBlock, dst: Uint8Array) => void,
  type: typeof TypeError | typeof RangeError,
  message: string,
  dst?: Uint8Array,
) => void;

/** {@link Rejected} for ciphers from `make`, each made fresh and disposed after. */
function rejecter(prefix: string, make: () => WideBlock): Rejected {
  return (call, type, message, dst = new Uint8Array(96)) => {
    const h = make();
    dst.fill(0x5a);
    const before = toHex(dst);
    assert.throws(
      () => call(h, dst),
      (e: unknown) => e instanceof type && (e as Error).message === `${prefix}: ${message}`,
    );
    assert.equal(toHex(dst), before);
    h.dispose();
  };
}

/** One message: too short, dst too short, overlaps, arguments that are not bytes. */
function messageRules(rejected: Rejected): void {
  for (const m of ['encrypt', 'decrypt'] as const) {
    rejected(
      (h, d) => h[m](d, new Uint8Array(15), tweak),
      RangeError,
      'src is shorter than one 16-byte block (15 bytes)',
    );
    rejected(
      (h, d) => h[m](d, new Uint8Array(0), tweak),
      RangeError,
      'src is shorter than one 16-byte block (0 bytes)',
    );
    rejected((h, d) => h[m](d, new Uint8Array(100), tweak), RangeError, 'dst is shorter than src (96 < 100 bytes)');
    rejected((h, d) => h[m](d, new Uint8Array(33), d.subarray(20, 52)), RangeError, 'tweak overlaps dst');
    rejected((h, d) => h[m](d, [] as unknown as Uint8Array, tweak), TypeError, 'src must be a Uint8Array');
    rejected(
      (h) => h[m]({} as unknown as Uint8Array, new Uint8Array(33), tweak),
      TypeError,
      'dst must be a Uint8Array',
    );
    rejected(
      (h, d) => h[m](d, new Uint8Array(33), 'x' as unknown as Uint8Array),
      TypeError,
      'tweak must be a Uint8Array',
    );
    const big = new Uint8Array(96);
    rejected(
      (h) => h[m](big.subarray(8, 56), big.subarray(0, 40), tweak),
      RangeError,
      'dst and src overlap without being the same bytes',
      big,
    );
  }
}

/** Sectors: whole blocks, the sector size, whole sectors, 32 bytes of tweak each, overlaps. */
function sectorRules(rejected: Rejected): void {
  for (const m of ['encryptSectors', 'decryptSectors'] as const) {
    const s = new Uint8Array(64);
    rejected(
      (h, d) => h[m](d, new Uint8Array(40), 16, new Uint8Array(64)),
      RangeError,
      'src is not a whole number of 16-byte blocks (40 bytes)',
    );
    rejected(
      (h, d) => h[m](d, s, 24, new Uint8Array(64)),
      RangeError,
      'sectorSize must be a positive multiple of 16, got 24',
    );
    rejected(
      (h, d) => h[m](d, s, 0, new Uint8Array(64)),
      RangeError,
      'sectorSize must be a positive multiple of 16, got 0',
    );
    rejected(
      (h, d) => h[m](d, s, '32' as unknown as number, new Uint8Array(64)),
      TypeError,
      'sectorSize must be a number',
    );
    rejected(
      (h, d) => h[m](d, s, 48, new Uint8Array(64)),
      RangeError,
      'src is not a whole number of 48-byte sectors (64 bytes)',
    );
    rejected(
      (h, d) => h[m](d, s, 32, new Uint8Array(32)),
      RangeError,
      'tweaks must be 32 bytes per sector, 64 bytes, got 32',
    );
    rejected(
      (h, d) => h[m](d, s, 32, new Uint8Array(32 * 4)),
      RangeError,
      'tweaks must be 32 bytes per sector, 64 bytes, got 128',
    );
    rejected((h, d) => h[m](d, s, 32, d.subarray(0, 64)), RangeError, 'tweaks overlaps dst');
    rejected((h, d) => h[m](d, s, 32, null as unknown as Uint8Array), TypeError, 'tweaks must be a Uint8Array');
    rejected(
      (h, d) => h[m](d, new Uint8Array(128), 32, new Uint8Array(128)),
      RangeError,
      'dst is shorter than src (96 < 128 bytes)',
    );
  }
}

/**
 * One known answer with a 32-byte tweak (Linux's testmgr vectors), checked as a message both ways and,
 * when the message is whole blocks, as sector calls: three copies side by side under the same tweak, in
 * place, each giving the known ciphertext.
 *
 * @example
 * ```ts
 * wideBlockKnownAnswer(newHctr2(hex(v.key)), v.iv, v.ptext, v.ctext, `#${i}`);
 * ```
 */
export function wideBlockKnownAnswer(h: WideBlock, iv: string, ptext: string, ctext: string, what: string): void {
  const tweak = hex(iv);
  assert.equal(tweak.length, 32);
  const pt = hex(ptext);
  const out = new Uint8Array(pt.length);
  h.encrypt(out, pt, tweak);
  assert.equal(toHex(out), ctext, what);
  h.decrypt(out, hex(ctext), tweak);
  assert.equal(toHex(out), ptext, `${what}: decrypt`);
  if (pt.length % 16 !== 0) return;
  const n = pt.length;
  const three = new Uint8Array(3 * n);
  const tweaks = new Uint8Array(96);
  for (let s = 0; s < 3; s++) {
    three.set(pt, s * n);
    tweaks.set(tweak, 32 * s);
  }
  h.encryptSectors(three, three, n, tweaks);
  for (let s = 0; s < 3; s++) assert.equal(toHex(three.subarray(s * n, (s + 1) * n)), ctext, `${what} sector ${s}`);
  h.decryptSectors(three, three, n, tweaks);
  for (let s = 0; s < 3; s++)
    assert.equal(toHex(three.subarray(s * n, (s + 1) * n)), ptext, `${what} sector ${s}: decrypt`);
}

/** What {@link wideBlockProperties} needs of a wide-block package. */
export interface WideBlockProperties<K> {
  /** What a property draws to make a cipher: a key, or a key and a variant. */
  keys: fc.Arbitrary<K>;
  /** A fresh cipher for `k` (disposed by the suite). */
  make(k: K): WideBlock;
  /** The package's independent model: one message encrypted (or decrypted, when `decrypt`) under a tweak. */
  reference(k: K, tweak: Uint8Array, message: Uint8Array, decrypt: boolean): Uint8Array;
  /** The longest message of the bit-flip property, and of the first property against the model. */
  maxLength: number;
  /** Tweak lengths the first property against the model draws besides 0 to 40 bytes (`[32, 64, 300]`). */
  longTweaks: number[];
  /** fast-check runs per property. */
  runs: number;
}

/**
 * The properties every tweakable wide-block cipher has (HCTR2, Adiantum, HPolyC), in a `describe` each:
 * against the package's model (one message of any length and tweak length, at odd offsets, in place or
 * not, both ways; random bytes decrypted and encrypted back); one flipped bit of the message or of the
 * tweak changes every 16-byte block of the ciphertext; sectors (any size and count, at odd offsets, in
 * place or not, tweaks left as they were) are the messages one at a time, and decrypt back.
 *
 * @example
 * ```ts
 * wideBlockProperties({ describe, it }, {
 *   keys: keyArb, make: (key) => newHctr2(key), reference: (key, t, m, d) => refHctr2(key, t, m, d),
 *   maxLength: 1100, longTweaks: [32, 64, 300], runs: 60,
 * });
 * ```
 */
export function wideBlockProperties<K>({ describe, it }: Suite, w: WideBlockProperties<K>): void {
  describe('against the model', () => againstModel(it, w));
  describe('a wide-block cipher', () => diffusion(it, w));
  describe('sectors', () => sectorsAsMessages(it, w));
}

function againstModel<K>(it: Suite['it'], w: WideBlockProperties<K>): void {
  it('one message: any length ≥ 16, any tweak length, any offsets, in place or not, both ways', () => {
    const arb = fc.tuple(
      w.keys,
      fc.oneof(fc.integer({ min: 16, max: 80 }), fc.integer({ min: 16, max: w.maxLength })),
      fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(...w.longTweaks)),
      fc.nat(15),
      fc.nat(15),
      fc.boolean(),
    );
    fc.assert(
      fc.property(arb, ([k, length, tweakLength, so, dso, inPlace]) => {
        const h = w.make(k);
        const data = random(length);
        const tweak = random(tweakLength);
        const want = w.reference(k, tweak, data, false);
        const src = placed(data, so);
        const dst = inPlace ? src : placed(new Uint8Array(length), dso);
        const around = outside(dst);
        h.encrypt(dst, src, tweak);
        assertBytes(dst, want, `${length} bytes, ${tweakLength}-byte tweak`);
        assertBytes(outside(dst), around, 'wrote outside dst');
        const back = inPlace ? dst : placed(new Uint8Array(length), so);
        h.decrypt(back, dst, tweak);
        assertBytes(back, data, 'decrypt');
        h.dispose();
      }),
      { numRuns: w.runs * 2 },
    );
  });

  it('decrypting random bytes agrees with the model, and encrypting them again gives them back', () => {
    fc.assert(
      fc.property(w.keys, fc.integer({ min: 16, max: 600 }), fc.nat(70), (k, length, tweakLength) => {
        const h = w.make(k);
        const c = random(length);
        const tweak = random(tweakLength);
        const p = new Uint8Array(length);
        h.decrypt(p, c, tweak);
        assertBytes(p, w.reference(k, tweak, c, true));
        const again = new Uint8Array(length);
        h.encrypt(again, p, tweak);
        assertBytes(again, c);
        h.dispose();
      }),
      { numRuns: w.runs },
    );
  });
}

function diffusion<K>(it: Suite['it'], w: WideBlockProperties<K>): void {
  it('one flipped bit of the plaintext, or of the tweak, changes every 16-byte block of the ciphertext', () => {
    const arb = fc.tuple(w.keys, fc.integer({ min: 16, max: w.maxLength }), fc.nat(), fc.boolean());
    fc.assert(
      fc.property(arb, ([k, length, where, inTweak]) => {
        const h = w.make(k);
        const p = random(length);
        const tweak = random(32);
        const c = new Uint8Array(length);
        h.encrypt(c, p, tweak);
        const bit = where % (8 * (inTweak ? 32 : length));
        (inTweak ? tweak : p)[bit >>> 3] ^= 1 << (bit & 7);
        const c2 = new Uint8Array(length);
        h.encrypt(c2, p, tweak);
        // Every block changes; a partial last block of b bytes stays the same with probability
        // 2^-8b, so it is checked only from 8 bytes up (a false failure once in 2^64).
        for (let o = 0; o + 8 <= length; o += 16) {
          assert.notEqual(toHex(c.subarray(o, o + 16)), toHex(c2.subarray(o, o + 16)), `block at ${o} (bit ${bit})`);
        }
        h.dispose();
      }),
      { numRuns: w.runs },
    );
  });
}

function sectorsAsMessages<K>(it: Suite['it'], w: WideBlockProperties<K>): void {
  it('equal the messages one at a time: any sector size and count, offsets, in place or not', () => {
    const arb = fc.record({
      k: w.keys,
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
      fc.property(arb, ({ k, sectorSize, sectors, so, dso, inPlace }) => {
        const h = w.make(k);
        const plain = random(sectors * sectorSize);
        const tweaks = random(32 * sectors);
        const want = new Uint8Array(plain.length);
        for (let s = 0; s < sectors; s++) {
          const one = new Uint8Array(sectorSize);
          h.encrypt(one, plain.subarray(s * sectorSize, (s + 1) * sectorSize), tweaks.subarray(32 * s, 32 * s + 32));
          want.set(one, s * sectorSize);
        }
        if (sectors > 0) {
          const first = w.reference(k, tweaks.subarray(0, 32), plain.subarray(0, sectorSize), false);
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
      { numRuns: w.runs },
    );
  });
}
