/**
 * The kernel conformance suite: one suite that every AES kernel runs (Go's `cryptotest`), over the kernel
 * contract of `@x/aes-kernels/hazmat`. It checks the two required primitives and each fast path the
 * kernel has against node:crypto (XTS by its definition over ECB for AES-192, which OpenSSL lacks), at
 * lengths derived from the kernel's own batch size (`parallelBlocks` = p: 0, every tail 1..p-1, p, p+1,
 * 2p-1, 2p, 2p+1, 4p+3, and the same counts of sectors for the paths that run sectors side by side),
 * with Go cryptotest's checks: separate buffers, in place, the same bytes through another view, odd
 * byteOffsets, no byte written outside `dst[0, src.length)` nor read outside `src`, `iv`, `ivs`,
 * `tweaks` (guard bytes around every buffer), no state kept from one call to the next, several keys at
 * once. A fast path the kernel lacks gets a test that says so ("no cbcEncrypt: generic path"): the modes
 * run their own generic code there.
 *
 * It takes the runner's `describe`/`it` and needs only node:assert, node:crypto, fast-check and
 * `@x/aes-keyschedule` at run time, so it also runs under `node:test` with an arm64 Node in qemu
 * (packages/aes-native-arm64/scripts/test-arm64.mjs), where vitest cannot.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AesKernel, AesKeyedKernel, FastPath } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, backing, hex, outside, placed, random } from './bytes.js';
import { keyPair, refCbc, refCbcSectors, refEcb, refXtsBlocks } from './reference.js';
import type { Suite } from './suite.js';
import {
  FIPS197,
  FIPS197_PLAINTEXT,
  IEEE1619_VECTOR1,
  SP800_38A_CBC,
  SP800_38A_IV,
  SP800_38A_PLAINTEXT,
} from './vectors.js';

/** Options of {@link kernelConformance}. */
export interface KernelSuiteOptions {
  /** fast-check runs of the random test (default 100); fewer under emulation. */
  runs?: number;
  /** The kernel's count of native calls so far, where it has one: every contract call must be one. */
  callCount?: () => number;
  /**
   * Block counts at which the kernel cuts a call internally (the chunk its memory holds, a split that
   * keeps offsets below 2^31, …): lengths and data units around each are added (c-1, c, c+1, 2c+p+1).
   */
  chunkBlocks?: readonly number[];
  /** Sector counts at which the kernel cuts a sector call (the IVs its memory holds): counts around each are added. */
  chunkUnits?: readonly number[];
  /** The kernel promises that a call after `dispose()` throws (an error naming "disposed"). */
  throwsAfterDispose?: boolean;
}

const KEY_BYTES = [16, 24, 32] as const;

type Method = 'encryptBlocks' | 'decryptBlocks' | FastPath;

/** One call's input: `src`, the IV, IVs or tweaks it reads besides (`side`), and the sector or data unit size. */
interface Input {
  src: Uint8Array;
  side: Uint8Array;
  unit: number;
}

/** key1 is the kernel's key; key2 is XTS's tweak key, from which the reference derives the sequence numbers. */
interface Keys {
  key1: Uint8Array;
  key2: Uint8Array;
}

/** A keyed kernel as an operation sees it: the suite calls a fast path only where the kernel has it. */
type Full = Required<AesKeyedKernel>;

/** A contract method, how to call it and what node:crypto says it gives. */
interface Operation {
  /** blocks: (dst, src); chain: (dst, src, iv); units: (dst, src, sectorSize or unitSize, ivs or tweaks). */
  kind: 'blocks' | 'chain' | 'units';
  /** What the suite calls `side` in messages. */
  side: string;
  call(k: AesKeyedKernel, dst: Uint8Array, src: Uint8Array, side: Uint8Array, unit: number): void;
  want(keys: Keys, x: Input): Uint8Array;
}

/**
 * Every method of the contract (`satisfies` makes the compiler fail here when `FAST_PATHS` gains a name
 * this suite does not test).
 */
const OPERATIONS = {
  encryptBlocks: {
    kind: 'blocks',
    side: '',
    call: (k, d, s) => k.encryptBlocks(d, s),
    want: (K, x) => refEcb(true, K.key1, x.src),
  },
  decryptBlocks: {
    kind: 'blocks',
    side: '',
    call: (k, d, s) => k.decryptBlocks(d, s),
    want: (K, x) => refEcb(false, K.key1, x.src),
  },
  cbcEncrypt: {
    kind: 'chain',
    side: 'iv',
    call: (k: Full, d, s, iv) => k.cbcEncrypt(d, s, iv),
    want: (K, x) => refCbc(true, K.key1, x.src, x.side),
  },
  cbcDecryptSectors: {
    kind: 'units',
    side: 'ivs',
    call: (k: Full, d, s, ivs, n) => k.cbcDecryptSectors(d, s, n, ivs),
    want: (K, x) => refCbcSectors(false, K.key1, x.src, x.unit, x.side),
  },
  cbcEncryptSectors: {
    kind: 'units',
    side: 'ivs',
    call: (k: Full, d, s, ivs, n) => k.cbcEncryptSectors(d, s, n, ivs),
    want: (K, x) => refCbcSectors(true, K.key1, x.src, x.unit, x.side),
  },
  xtsEncrypt: {
    kind: 'units',
    side: 'tweaks',
    call: (k: Full, d, s, t, n) => k.xtsEncrypt(d, s, n, t),
    want: (K, x) => refXtsBlocks(true, K.key1, K.key2, x.src, x.unit, x.side),
  },
  xtsDecrypt: {
    kind: 'units',
    side: 'tweaks',
    call: (k: Full, d, s, t, n) => k.xtsDecrypt(d, s, n, t),
    want: (K, x) => refXtsBlocks(false, K.key1, K.key2, x.src, x.unit, x.side),
  },
} satisfies Record<Method, Operation>;

const METHODS = Object.keys(OPERATIONS) as Method[];
const op = (m: Method): Operation => OPERATIONS[m];

/** Block counts around a batch of p: 0, every tail 1..p-1, p, p+1, 2p-1, 2p, 2p+1, 4p+3; around each chunk c: c-1, c, c+1, 2c+p+1. */
function counts(p: number, chunks: readonly number[] = []): number[] {
  const all = new Set<number>([0, p, p + 1, 2 * p - 1, 2 * p, 2 * p + 1, 4 * p + 3]);
  for (let i = 1; i < p; i++) all.add(i);
  for (const c of chunks) for (const n of [c - 1, c, c + 1, 2 * c + p + 1]) all.add(n);
  return [...all].filter((n) => n >= 0).sort((a, b) => a - b);
}

/** A random input: `blocks` blocks, or `units` units of `blocks` blocks with `extra` IVs past the last. */
function input(o: Operation, blocks: number, units = 1, extra = 0, tweak = 2): Input {
  if (o.kind !== 'units') return { src: random(16 * blocks), side: random(o.kind === 'chain' ? 16 : 0), unit: 0 };
  const side = random(16 * (units + extra));
  // The first tweak: one whose every doubling reduces (all ones), one whose first does (bit 127 only).
  if (units > 0 && tweak === 0) side.fill(0xff, 0, 16);
  if (units > 0 && tweak === 1) {
    side.fill(0, 0, 16);
    side[15] = 0x80;
  }
  return { src: random(16 * blocks * units), side, unit: 16 * blocks };
}

/** The inputs every method runs at: lengths, or layouts of sectors, derived from p and the chunks. */
function inputs(o: Operation, p: number, options: KernelSuiteOptions): Input[] {
  const lengths = counts(p, options.chunkBlocks);
  if (o.kind !== 'units') return lengths.map((b) => input(o, b));
  const shapes = new Map<string, [number, number, number]>();
  const add = (blocks: number, units: number, extra = 0) =>
    shapes.set(`${blocks} ${units} ${extra}`, [blocks, units, extra]);
  // One chain (one data unit) of every length, then two and three of them: units meet inside a batch.
  for (const b of lengths) if (b > 0) for (const n of [1, 2, 3]) add(b, n);
  // Many sectors of 16, 48, 16(p+1) and 512 bytes: the paths that run p chains side by side see every
  // remainder; some with IVs past the last sector, which must not be read.
  for (const b of [1, 3, p + 1, 32]) for (const n of counts(p, options.chunkUnits)) add(b, n, n % 3 === 1 ? 2 : 0);
  for (const n of [0, 1, p - 1, p, p + 1, 2 * p + 1]) add(256, n); // 4096-byte sectors
  // Sectors so large that fewer than p fit in a chunk c (the side-by-side paths cut their groups), and
  // larger than a chunk.
  for (const c of options.chunkBlocks ?? [])
    for (const b of [Math.floor(c / p) + 1, c + 1]) for (const n of [p - 1, p, p + 1, 2 * p + 1]) add(b, n);
  return [...shapes.values()].map(([b, n, extra], i) => input(o, b, n, extra, i % 3));
}

/** "33 blocks", "3 × 48-byte units". */
function describeInput(o: Operation, x: Input): string {
  if (o.kind !== 'units') return `${x.src.length / 16} blocks`;
  return `${x.src.length / x.unit} × ${x.unit}-byte ${o.side === 'ivs' ? 'sectors' : 'units'}`;
}

/** Loads `key` and wipes the schedule, as the modes do: the kernel keeps its own copy. */
function load(kernel: AesKernel, key: Uint8Array): AesKeyedKernel {
  const schedule = expandKey(key);
  try {
    return kernel.load(schedule);
  } finally {
    schedule.wipe();
  }
}

/**
 * One input three ways, each checked against `want`: separate buffers (src, side and dst at the given
 * byteOffsets, dst 16 bytes longer than src), in place (dst === src), and in place through another view
 * of the same bytes. Every buffer has random guard bytes around it: none may change, and nothing outside
 * `dst[0, src.length)` may be written; src (unless it is dst) and side may not change at all.
 */
function exercise(
  o: Operation,
  k: AesKeyedKernel,
  x: Input,
  want: Uint8Array,
  [so, dso, vo]: readonly number[],
  label: string,
): void {
  const n = x.src.length;
  const src = placed(x.src, so),
    side = placed(x.side, vo),
    dst = placed(random(n + 16), dso);
  const srcBefore = backing(src),
    sideBefore = backing(side),
    around = outside(dst.subarray(0, n));
  o.call(k, dst, src, side, x.unit);
  assertBytes(dst.subarray(0, n), want, `${label}, separate buffers`);
  assertBytes(outside(dst.subarray(0, n)), around, `${label}: wrote outside dst[0, src.length)`);
  assertBytes(backing(src), srcBefore, `${label}: changed src or the bytes around it`);

  const buf = placed(x.src, dso);
  const bufAround = outside(buf);
  o.call(k, buf, buf, side, x.unit);
  assertBytes(buf, want, `${label}, in place`);
  assertBytes(outside(buf), bufAround, `${label}, in place: wrote outside dst`);

  const mem = placed(x.src, so ^ 5);
  o.call(k, new Uint8Array(mem.buffer, mem.byteOffset, n), mem, side, x.unit);
  assertBytes(mem, want, `${label}, in place through another view`);
  if (o.side) assertBytes(backing(side), sideBefore, `${label}: changed ${o.side} or the bytes around it`);
}

/** Odd byteOffsets for src, dst and side, different for each input. */
const offsets = (i: number) => [(5 * i + 1) & 15, (3 * i + 7) & 15, (7 * i + 3) & 15] as const;

/**
 * Runs the kernel conformance suite on `kernel` with the runner's `describe`/`it`.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { kernelConformance } from '@x/testkit';
 * import { kernel } from '../src/index.js';
 * kernelConformance(kernel, { describe, it }, { throwsAfterDispose: true });
 * ```
 */
export function kernelConformance(kernel: AesKernel, { describe, it }: Suite, options: KernelSuiteOptions = {}): void {
  const runs = options.runs ?? 100;
  const p = kernel.parallelBlocks;

  // A kernel with several code paths (native-x64: vaes, aesni) runs the suite once per path.
  const path = (kernel as { path?: unknown }).path;
  describe(`kernel ${kernel.name}${typeof path === 'string' ? ` (${path})` : ''}`, () => {
    let present: Method[];
    try {
      const probe = load(kernel, new Uint8Array(16));
      present = METHODS.filter((m) => typeof probe[m] === 'function');
      probe.dispose();
    } catch (error) {
      it('is available', () => assert.fail(`${kernel.name}: load() failed: ${(error as Error).message}`));
      return;
    }
    const has = (m: Method) => present.includes(m);

    it('is available, and describes itself: name, parallelBlocks, rounds; each fast path a function or absent', () => {
      assert.equal(kernel.isAvailable(), true);
      assert.equal(typeof kernel.name, 'string');
      assert.ok(Number.isInteger(p) && p >= 1, `parallelBlocks ${p}`);
      for (const n of KEY_BYTES) {
        const k = load(kernel, new Uint8Array(n));
        assert.equal(k.rounds, n / 4 + 6);
        for (const m of METHODS) assert.equal(typeof k[m], has(m) ? 'function' : 'undefined', `AES-${n * 8} ${m}`);
        k.dispose();
      }
    });

    it(`FIPS 197 Appendix C.1-C.3: one block, and the same block in all ${p + 3} blocks of a batch and a tail`, () => {
      const pt = hex(FIPS197_PLAINTEXT);
      const many = new Uint8Array(16 * (p + 3));
      for (let i = 0; i < p + 3; i++) many.set(pt, 16 * i);
      for (const v of FIPS197) {
        const k = load(kernel, hex(v.key));
        const out = new Uint8Array(16);
        k.encryptBlocks(out, pt);
        assertBytes(out, hex(v.ciphertext), `AES-${v.key.length * 4} encryptBlocks`);
        k.decryptBlocks(out, out);
        assertBytes(out, pt, `AES-${v.key.length * 4} decryptBlocks`);
        const all = many.slice();
        k.encryptBlocks(all, all);
        for (let i = 0; i < p + 3; i++) assertBytes(all.subarray(16 * i, 16 * i + 16), hex(v.ciphertext), `block ${i}`);
        k.decryptBlocks(all, all);
        assertBytes(all, many, 'decrypted back');
        k.dispose();
      }
    });

    const cbcPaths = present.filter((m) => m.startsWith('cbc'));
    if (cbcPaths.length > 0) {
      it(`NIST SP 800-38A F.2.1-F.2.6 (CBC-AES128/192/256) through ${cbcPaths.join(', ')}`, () => {
        const pt = hex(SP800_38A_PLAINTEXT),
          iv = hex(SP800_38A_IV);
        for (const v of SP800_38A_CBC) {
          const k = load(kernel, hex(v.key));
          const out = new Uint8Array(64);
          if (k.cbcEncrypt) {
            k.cbcEncrypt(out, pt, iv);
            assertBytes(out, hex(v.ciphertext), 'cbcEncrypt');
          }
          if (k.cbcEncryptSectors) {
            k.cbcEncryptSectors(out, pt, 64, iv);
            assertBytes(out, hex(v.ciphertext), 'cbcEncryptSectors, one sector');
          }
          if (k.cbcDecryptSectors) {
            k.cbcDecryptSectors(out, hex(v.ciphertext), 64, iv);
            assertBytes(out, pt, 'cbcDecryptSectors, one chain');
          }
          k.dispose();
        }
      });
    }

    const xtsPaths = present.filter((m) => m.startsWith('xts'));
    if (xtsPaths.length > 0) {
      it(`IEEE 1619 Annex B vector 1 (XTS-AES-128, key1 = key2 = 0) through ${xtsPaths.join(', ')}`, () => {
        const v = IEEE1619_VECTOR1;
        const t = refEcb(true, hex(v.key2), hex(v.sequence)); // T = E_K2(i), IEEE 1619 §5.3.1
        const k = load(kernel, hex(v.key1));
        const out = new Uint8Array(32);
        if (k.xtsEncrypt) {
          k.xtsEncrypt(out, hex(v.plaintext), 32, t);
          assertBytes(out, hex(v.ciphertext), 'xtsEncrypt');
        }
        if (k.xtsDecrypt) {
          k.xtsDecrypt(out, hex(v.ciphertext), 32, t);
          assertBytes(out, hex(v.plaintext), 'xtsDecrypt');
        }
        k.dispose();
      });
    }

    for (const m of METHODS) {
      if (!has(m)) {
        it(`no ${m}: generic path (the modes run their own code over encryptBlocks/decryptBlocks)`, () => {
          const k = load(kernel, new Uint8Array(16));
          assert.equal(k[m], undefined);
          k.dispose();
        });
        continue;
      }
      const o = op(m);
      const what =
        o.kind === 'units'
          ? 'one to three units of every length, and 0 to many sectors side by side'
          : `every length from 0 to ${Math.max(...counts(p, options.chunkBlocks))} blocks around the batch of ${p}`;
      for (const n of KEY_BYTES) {
        it(`${m}, AES-${n * 8}: ${what}; separate, in place, aliased, odd offsets, nothing touched out of bounds`, () => {
          const [key1, key2] = keyPair(n);
          const k = load(kernel, key1);
          for (const [i, x] of inputs(o, p, options).entries()) {
            exercise(o, k, x, o.want({ key1, key2 }, x), offsets(i), `${m} of ${describeInput(o, x)}`);
          }
          k.dispose();
        });
      }
    }

    const unitPaths = present.filter((m) => op(m).kind === 'units');
    if (unitPaths.length > 0) {
      it(`identical sectors with identical IVs or tweaks come out identical in every lane and the remainder (${unitPaths.join(', ')})`, () => {
        const sectors = 2 * p + 3,
          size = 16 * (p + 1);
        for (const m of unitPaths) {
          const o = op(m);
          const [key1, key2] = keyPair(32);
          const one = input(o, p + 1);
          const src = new Uint8Array(size * sectors),
            ivs = new Uint8Array(16 * sectors);
          for (let s = 0; s < sectors; s++) {
            src.set(one.src, s * size);
            ivs.set(one.side, 16 * s);
          }
          const want = o.want({ key1, key2 }, one);
          const k = load(kernel, key1);
          o.call(k, src, src, ivs, size);
          for (let s = 0; s < sectors; s++)
            assertBytes(src.subarray(s * size, (s + 1) * size), want, `${m}, sector ${s}`);
          k.dispose();
        }
      });
    }

    it('keeps no state between calls: every method after every other on one keyed kernel, twice over', () => {
      for (const n of KEY_BYTES) {
        const [key1, key2] = keyPair(n);
        const k = load(kernel, key1);
        for (const [blocks, units] of [
          [2 * p + 1, 3],
          [p - 1 || 1, 2],
          [0, 0],
          [p + 1, 1],
        ]) {
          for (const m of present) {
            const o = op(m);
            const x = input(o, o.kind === 'units' ? Math.max(blocks, 1) : blocks, units);
            const dst = new Uint8Array(x.src.length);
            o.call(k, dst, x.src, x.side, x.unit);
            assertBytes(dst, o.want({ key1, key2 }, x), `AES-${n * 8} ${m} of ${describeInput(o, x)} after the others`);
          }
        }
        k.dispose();
      }
    });

    it('several keyed kernels at once, calls interleaved; disposing one leaves the others working', () => {
      const keys = [16, 24, 32, 16, 32].map((n) => keyPair(n));
      const ks = keys.map(([key1]) => load(kernel, key1));
      const check = (i: number) => {
        for (const m of present) {
          const o = op(m);
          const x = input(o, o.kind === 'units' ? p + 1 : 2 * p + 1, 2);
          const dst = new Uint8Array(x.src.length);
          o.call(ks[i], dst, x.src, x.side, x.unit);
          assertBytes(dst, o.want({ key1: keys[i][0], key2: keys[i][1] }, x), `key ${i}, ${m}`);
        }
      };
      for (let round = 0; round < 2; round++) for (let i = 0; i < ks.length; i++) check(i);
      ks[1].dispose();
      for (const i of [0, 2, 3, 4]) check(i);
      for (const i of [0, 2, 3, 4]) ks[i].dispose();
    });

    it('the key schedule may be wiped once loaded: the kernel keeps its own copy', () => {
      const [key1, key2] = keyPair(32);
      const schedule = expandKey(key1);
      const k = kernel.load(schedule);
      schedule.wipe();
      assert.ok(schedule.encryptionKeys.every((b) => b === 0) && schedule.decryptionKeys.every((b) => b === 0));
      for (const m of present) {
        const o = op(m);
        const x = input(o, p + 3, 2);
        const dst = new Uint8Array(x.src.length);
        o.call(k, dst, x.src, x.side, x.unit);
        assertBytes(dst, o.want({ key1, key2 }, x), m);
      }
      k.dispose();
    });

    if (options.throwsAfterDispose) {
      it('refuses every call after dispose() instead of using wiped keys', () => {
        for (const m of present) {
          const o = op(m);
          const k = load(kernel, random(16));
          k.dispose();
          const x = input(o, 1);
          assert.throws(() => o.call(k, new Uint8Array(16), x.src, x.side, x.unit), /disposed/, m);
        }
      });
    }

    it(`random methods, key sizes, lengths, sector sizes and counts, odd byteOffsets, in place or not (${runs} runs)`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...present),
          fc.constantFrom(...KEY_BYTES),
          fc.integer({ min: 0, max: 4 * p + 3 }),
          fc.integer({ min: 0, max: 2 * p + 1 }),
          fc.integer({ min: 0, max: 3 }),
          fc.tuple(fc.nat(15), fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (m, n, blocks, units, extra, [so, dso, vo], inPlace) => {
            const o = op(m);
            const x = o.kind === 'units' ? input(o, Math.max(blocks, 1), units, extra) : input(o, blocks);
            const [key1, key2] = keyPair(n);
            const want = o.want({ key1, key2 }, x);
            const k = load(kernel, key1);
            const src = placed(x.src, so),
              side = placed(x.side, vo);
            const dst = inPlace ? src : placed(new Uint8Array(x.src.length), dso);
            o.call(k, dst, src, side, x.unit);
            k.dispose();
            assertBytes(dst, want, `AES-${n * 8} ${m} of ${describeInput(o, x)}${inPlace ? ', in place' : ''}`);
          },
        ),
        { numRuns: runs },
      );
    });

    const count = options.callCount;
    if (count) {
      for (const m of present) {
        const o = op(m);
        const what = o.kind === 'units' ? '2048 sectors of 512 bytes' : '1 MiB';
        it(`one ${m} call over ${what} is one native call`, () => {
          const [key1, key2] = keyPair(32);
          const k = load(kernel, key1);
          const x = o.kind === 'units' ? input(o, 32, 2048) : input(o, 65536);
          const dst = new Uint8Array(x.src.length);
          const before = count();
          o.call(k, dst, x.src, x.side, x.unit);
          assert.equal(count() - before, 1);
          if (o.kind !== 'units') assertBytes(dst, o.want({ key1, key2 }, x), m);
          for (const s of o.kind === 'units' ? [0, 1, 7, 8, 1023, 2047] : []) {
            const at = s * x.unit;
            const one = {
              src: x.src.subarray(at, at + x.unit),
              side: x.side.subarray(16 * s, 16 * s + 16),
              unit: x.unit,
            };
            assertBytes(dst.subarray(at, at + x.unit), o.want({ key1, key2 }, one), `${m}, sector ${s}`);
          }
          k.dispose();
        });
      }
    }
  });
}
