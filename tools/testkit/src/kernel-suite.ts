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
 * run their own generic code there. POLYVAL (`loadPolyval`) and HCTR2 (`hctr2`, which takes the kernel's
 * own POLYVAL key) have sections of their own, against the bit-serial POLYVAL and the paper's HCTR2.
 *
 * It takes the runner's `describe`/`it` and needs only node:assert, node:crypto, fast-check and
 * `@x/aes-keyschedule` at run time, so it also runs under `node:test` with an arm64 Node in qemu
 * (packages/aes-native-arm64/scripts/test-arm64.mjs), where vitest cannot.
 */
import assert from 'node:assert/strict';
import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import fc from 'fast-check';
import type { AesKernel, AesKeyedKernel, FastPath, PolyvalKernel } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, backing, hex, outside, placed, random } from './bytes.js';
import {
  CTR_COUNTERS,
  ghashKey,
  keyPair,
  refCbc,
  refCbcSectors,
  refCtr,
  refEcb,
  refHctr2,
  refPolyval,
  refXtsBlocks,
} from './reference.js';
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

const hex16 = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The methods of the generic sections; `hctr2` has its own ({@link hctr2Suite}): it needs `loadPolyval` too. */
type Method = 'encryptBlocks' | 'decryptBlocks' | Exclude<FastPath, 'hctr2'>;

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
  /**
   * blocks: (dst, src); chain: (dst, src, iv); units: (dst, src, sectorSize or unitSize, ivs or tweaks);
   * stream: (dst, src of any length, iv, the counter kind CTR_COUNTERS[unit]).
   */
  kind: 'blocks' | 'chain' | 'units' | 'stream';
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
  ctr: {
    kind: 'stream',
    side: 'iv',
    call: (k: Full, d, s, iv, c) => k.ctr(d, s, iv, CTR_COUNTERS[c]),
    want: (K, x) => refCtr(K.key1, x.src, x.side, CTR_COUNTERS[x.unit]),
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
  if (o.kind === 'stream') {
    // Whole blocks and a partial last block, by turns; the counter kind from `units`.
    return {
      src: random(16 * blocks + (blocks % 2 === 1 ? 16 - (blocks % 16) : 0)),
      side: random(16),
      unit: units % 3,
    };
  }
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
  if (o.kind === 'stream') return streamInputs(lengths, p);
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

/**
 * CTR inputs: every block count of `lengths` as whole blocks and with 1..15 bytes more, for each counter
 * kind; then counters that carry or wrap at every block of a batch of p and of the next one, in inputs
 * long enough (2p + 24 blocks and 3 bytes) to reach the kernel's widest loop: the last 32-bit word at
 * 2^32 − k (be128 carries into byte 11, be32 wraps to 0 and must not), the last 64 bits at 2^64 − k (be128
 * carries into the high half), for k = 1 .. 2p + 1; the whole iv all ones (be128 wraps modulo 2^128); and
 * xctr past 256 blocks (its little-endian counter's first carry).
 */
function streamInputs(lengths: number[], p: number): Input[] {
  const all: Input[] = [];
  for (const b of lengths) {
    for (let c = 0; c < 3; c++) {
      all.push({ src: random(16 * b), side: random(16), unit: c });
      all.push({ src: random(16 * b + 1 + ((b + c) % 15)), side: random(16), unit: c });
    }
  }
  const edge = (counter: number, tailBytes: number, k: number) => {
    const side = random(16);
    // The last `tailBytes` bytes, big-endian, hold 2^(8·tailBytes) − k.
    let v = k;
    for (let i = 15; i >= 16 - tailBytes; i--) {
      const d = (256 - (v % 256)) % 256;
      side[i] = d;
      v = Math.ceil(v / 256);
    }
    all.push({ src: random(16 * (2 * p + 24) + 3), side, unit: counter });
  };
  for (let k = 1; k <= 2 * p + 1; k++) {
    edge(0, 4, k);
    edge(1, 4, k);
    edge(0, 8, k);
  }
  all.push({ src: random(16 * (2 * p + 4) + 9), side: new Uint8Array(16).fill(0xff), unit: 0 }); // wraps mod 2^128
  all.push({ src: random(16 * 260 + 5), side: random(16), unit: 2 });
  return all;
}

/** "33 blocks", "3 × 48-byte units", "37 bytes, be32". */
function describeInput(o: Operation, x: Input): string {
  if (o.kind === 'stream') return `${x.src.length} bytes, ${CTR_COUNTERS[x.unit]} from iv ${hex16(x.side)}`;
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
    let hasHctr2: boolean;
    try {
      const probe = load(kernel, new Uint8Array(16));
      present = METHODS.filter((m) => typeof probe[m] === 'function');
      hasHctr2 = typeof probe.hctr2 === 'function';
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
        assert.equal(typeof k.hctr2, hasHctr2 ? 'function' : 'undefined', `AES-${n * 8} hctr2`);
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
            const x = o.kind === 'units' ? input(o, Math.max(blocks, 1), units, extra) : input(o, blocks, units);
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

    if (kernel.loadPolyval === undefined) {
      it('no loadPolyval: GHASH and POLYVAL callers use the portable one', () =>
        assert.equal(kernel.loadPolyval, undefined));
    } else {
      polyvalSuite(kernel, kernel.loadPolyval.bind(kernel), { describe, it }, runs, options.callCount);
    }

    if (!hasHctr2) {
      it('no hctr2: generic path (@x/hctr2 runs its own code over ctr, encryptBlocks and POLYVAL)', () => {
        const k = load(kernel, new Uint8Array(16));
        assert.equal(k.hctr2, undefined);
        k.dispose();
      });
    } else {
      hctr2Suite(kernel, { describe, it }, options);
    }
  });
}

/** RFC 8452 Appendix A: POLYVAL(H, X_1, X_2). */
const RFC8452_POLYVAL = {
  h: '25629347589242761d31f826ba4b757b',
  x: '4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362',
  polyval: 'f7a3b47b846119fae5b7866cf5e5b77e',
};

/**
 * The GF(2^128) multiply-accumulate (`loadPolyval`): RFC 8452's example, GHASH through `reversed` against
 * node:crypto's AES-GCM tags, and the bit-serial reference of `refPolyval` at every block count around the
 * aggregation width (0..19, 31..33, 64, 1000), split into calls anywhere, keys with special values, odd
 * byteOffsets, guard bytes, several keys at once.
 */
function polyvalSuite(
  kernel: AesKernel,
  loadPolyval: NonNullable<AesKernel['loadPolyval']>,
  { describe, it }: Suite,
  runs: number,
  callCount?: () => number,
): void {
  const update = (h: Uint8Array, acc: Uint8Array, data: Uint8Array, reversed: boolean) => {
    const k = loadPolyval(h);
    const a = acc.slice();
    k.update(a, data, reversed);
    k.dispose();
    return a;
  };
  describe(`${kernel.name}: POLYVAL multiply-accumulate (loadPolyval)`, () => {
    it('RFC 8452 Appendix A: POLYVAL(H, X_1, X_2); the key may be wiped once loaded', () => {
      const v = RFC8452_POLYVAL;
      const h = hex(v.h);
      const k = loadPolyval(h);
      h.fill(0);
      const acc = new Uint8Array(16);
      k.update(acc, hex(v.x), false);
      assertBytes(acc, hex(v.polyval), 'POLYVAL');
      k.dispose();
    });

    it('GHASH through reversed blocks and the key mulX(ByteReverse(H)) gives node:crypto AES-GCM tags', () => {
      for (const n of KEY_BYTES) {
        for (const [aadLen, ptLen] of [
          [0, 0],
          [16, 48],
          [32, 16 * 19],
        ]) {
          const key = random(n),
            nonce = random(12),
            aad = random(aadLen),
            pt = random(ptLen);
          const c = createCipheriv(`aes-${8 * n}-gcm` as CipherGCMTypes, key, nonce);
          c.setAAD(aad);
          const ct = c.update(pt);
          c.final();
          const len = Buffer.alloc(16);
          len.writeBigUInt64BE(BigInt(8 * aadLen), 0);
          len.writeBigUInt64BE(BigInt(8 * ptLen), 8);
          const acc = update(
            ghashKey(refEcb(true, key, new Uint8Array(16))),
            new Uint8Array(16),
            Buffer.concat([aad, ct, len]),
            true,
          );
          acc.reverse();
          const ej0 = refEcb(true, key, Buffer.concat([nonce, Buffer.from([0, 0, 0, 1])]));
          assertBytes(
            acc.map((b, i) => b ^ ej0[i]),
            c.getAuthTag(),
            `AES-${8 * n}-GCM tag, ${aadLen} + ${ptLen} bytes`,
          );
        }
      }
    });

    it('every block count 0..19, 31..33, 64, 1000, both orders, from a random accumulator; separate calls continue', () => {
      for (const blocks of [...Array.from({ length: 20 }, (_, i) => i), 31, 32, 33, 64, 1000]) {
        for (const reversed of [false, true]) {
          const h = random(16),
            acc = random(16),
            data = random(16 * blocks);
          const want = refPolyval(h, acc, data, reversed);
          const k = loadPolyval(h);
          // In one call, at odd byteOffsets, with guard bytes around both.
          const a = placed(acc, blocks & 15),
            d = placed(data, (3 * blocks + 1) & 15);
          const aAround = outside(a),
            dBefore = backing(d);
          k.update(a, d, reversed);
          assertBytes(a, want, `${blocks} blocks${reversed ? ', reversed' : ''}`);
          assertBytes(outside(a), aAround, `${blocks} blocks: wrote outside acc`);
          assertBytes(backing(d), dBefore, `${blocks} blocks: changed data or the bytes around it`);
          // Cut into two calls at every place for the short ones, a few places for the long ones.
          const cuts = blocks <= 19 ? Array.from({ length: blocks + 1 }, (_, i) => i) : [1, 7, 8, 9, blocks - 1];
          for (const cut of cuts) {
            const b = acc.slice();
            k.update(b, data.subarray(0, 16 * cut), reversed);
            k.update(b, data.subarray(16 * cut), reversed);
            assertBytes(b, want, `${blocks} blocks cut after ${cut}`);
          }
          k.dispose();
        }
      }
    });

    it('keys and data of special values: zero, one, all ones, x^127, the field polynomial bits', () => {
      const specials = ['00', '01', 'ff', '80', '40', '02'].flatMap((b) => {
        const lo = new Uint8Array(16),
          hi = new Uint8Array(16),
          all = new Uint8Array(16).fill(Number.parseInt(b, 16));
        lo[0] = Number.parseInt(b, 16);
        hi[15] = Number.parseInt(b, 16);
        return [lo, hi, all];
      });
      for (const h of specials) {
        const data = new Uint8Array(16 * specials.length);
        for (const [i, x] of specials.entries()) data.set(x, 16 * i);
        for (const reversed of [false, true]) {
          assertBytes(
            update(h, new Uint8Array(16).fill(0xff), data, reversed),
            refPolyval(h, new Uint8Array(16).fill(0xff), data, reversed),
            `key ${hex16(h)}`,
          );
        }
      }
    });

    it('several keys at once, calls interleaved; disposing one leaves the others working', () => {
      const hs = [random(16), random(16), random(16)];
      const ks = hs.map((h) => loadPolyval(h));
      const check = (i: number) => {
        const acc = random(16),
          data = random(16 * 11);
        const a = acc.slice();
        ks[i].update(a, data, i === 1);
        assertBytes(a, refPolyval(hs[i], acc, data, i === 1), `key ${i}`);
      };
      for (let round = 0; round < 2; round++) for (let i = 0; i < 3; i++) check(i);
      ks[1].dispose();
      check(0);
      check(2);
      ks[0].dispose();
      ks[2].dispose();
    });

    it(`random keys, accumulators, lengths and offsets (${runs} runs)`, () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 16, maxLength: 16 }),
          fc.uint8Array({ minLength: 16, maxLength: 16 }),
          fc.integer({ min: 0, max: 40 }),
          fc.boolean(),
          (h, acc, blocks, reversed) => {
            const data = random(16 * blocks);
            assertBytes(update(h, acc, data, reversed), refPolyval(h, acc, data, reversed), `${blocks} blocks`);
          },
        ),
        { numRuns: runs },
      );
    });

    if (callCount) {
      it('one update over 1 MiB is one native call', () => {
        const k = loadPolyval(random(16));
        const before = callCount();
        k.update(new Uint8Array(16), new Uint8Array(1 << 20), true);
        assert.equal(callCount() - before, 1);
        k.dispose();
      });
    }
  });
}

/** HCTR2's bin(x): 16 bytes little-endian (x < 2^53 here). */
function bin(x: number): Uint8Array {
  const b = new Uint8Array(16);
  for (let i = 0, v = x; i < 8; i++, v = Math.floor(v / 256)) b[i] = v % 256;
  return b;
}

/** A keyed kernel with `hctr2`, and what the fast path takes besides: its POLYVAL key of hbar, and L. */
interface Hctr2Key {
  key: Uint8Array;
  k: AesKeyedKernel;
  hash: PolyvalKernel;
  l: Uint8Array;
}

/**
 * The kernel contract's `hctr2` (ePrint 2021/1441 §3) against the paper's pseudocode over slow references
 * (`refHctr2`): one message of every length around the batch, tweaks of 0 to 47 bytes, many sectors in one
 * call with 32-byte tweaks, both directions, in place and not, odd offsets and guard bytes; and one
 * native call for 2048 sectors where the kernel counts them.
 */
function hctr2Suite(kernel: AesKernel, { describe, it }: Suite, options: KernelSuiteOptions): void {
  const p = kernel.parallelBlocks;
  const loadPolyval = kernel.loadPolyval?.bind(kernel);

  /** Keys `key`: hbar = E_K(bin(0)) and L = E_K(bin(1)) from node:crypto, hbar bound with the kernel's loadPolyval. */
  const setup = (key: Uint8Array): Hctr2Key => {
    assert.ok(loadPolyval, `${kernel.name} has hctr2 but no loadPolyval, whose key hctr2 takes`);
    const hl = refEcb(true, key, Uint8Array.from([...bin(0), ...bin(1)]));
    return { key, k: load(kernel, key), hash: loadPolyval(hl.subarray(0, 16)), l: hl.slice(16) };
  };
  const done = (K: Hctr2Key) => {
    K.k.dispose();
    K.hash.dispose();
  };
  /** POLYVAL's state after the length block bin(2·8·tlen + 2 + (unit mod 16 ≠ 0)): the `start` argument. */
  const start = (K: Hctr2Key, tlen: number, unit: number) => {
    const acc = new Uint8Array(16);
    K.hash.update(acc, bin(16 * tlen + 2 + (unit % 16 === 0 ? 0 : 1)), false);
    return acc;
  };
  /** `k.hctr2` over src (messages of `unit` bytes), with guard bytes around every argument it reads. */
  const call = (
    K: Hctr2Key,
    dst: Uint8Array,
    src: Uint8Array,
    unit: number,
    tweaks: Uint8Array,
    tlen: number,
    decrypt: boolean,
    label: string,
    offset = 0,
  ) => {
    const st = placed(start(K, tlen, unit), (offset + 5) & 15),
      l = placed(K.l, (offset + 9) & 15),
      tw = placed(tweaks, (offset + 3) & 15);
    const before = [backing(st), backing(l), backing(tw)];
    (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>)(dst, src, unit, tw, tlen, K.hash, st, l, decrypt);
    for (const [i, a] of [st, l, tw].entries()) {
      assertBytes(backing(a), before[i], `${label}: changed ${['start', 'l', 'tweaks'][i]} or the bytes around it`);
    }
  };
  /** Messages of `unit` bytes in `src`, each checked against the reference: separate buffers, then in place. */
  const exercise = (
    K: Hctr2Key,
    src: Uint8Array,
    unit: number,
    tweaks: Uint8Array,
    tlen: number,
    decrypt: boolean,
    want: Uint8Array,
    i: number,
    label: string,
  ) => {
    const [so, dso] = offsets(i);
    const n = src.length;
    const s = placed(src, so),
      d = placed(random(n + 16), dso);
    const srcBefore = backing(s),
      around = outside(d.subarray(0, n));
    call(K, d, s, unit, tweaks, tlen, decrypt, label, i);
    assertBytes(d.subarray(0, n), want, `${label}, separate buffers`);
    assertBytes(outside(d.subarray(0, n)), around, `${label}: wrote outside dst[0, src.length)`);
    assertBytes(backing(s), srcBefore, `${label}: changed src or the bytes around it`);
    const buf = placed(src, dso ^ 1);
    const bufAround = outside(buf);
    call(K, buf, buf, unit, tweaks, tlen, decrypt, `${label}, in place`, i + 1);
    assertBytes(buf, want, `${label}, in place`);
    assertBytes(outside(buf), bufAround, `${label}, in place: wrote outside dst`);
  };
  /** The reference of every message of `src`. */
  const model = (
    key: Uint8Array,
    src: Uint8Array,
    unit: number,
    tweaks: Uint8Array,
    tlen: number,
    decrypt: boolean,
  ) => {
    const out = new Uint8Array(src.length);
    for (let u = 0; u < src.length / unit; u++) {
      const msg = src.subarray(u * unit, (u + 1) * unit);
      out.set(refHctr2(key, tweaks.subarray(u * tlen, (u + 1) * tlen), msg, decrypt), u * unit);
    }
    return out;
  };

  describe(`${kernel.name}: HCTR2 in one call (hctr2)`, () => {
    const TWEAKS = [0, 1, 16, 17, 32, 47];
    const longest = 16 * (2 * p + 3) + 15;
    for (const n of KEY_BYTES) {
      it(`AES-${n * 8}: one message of every length 16..${longest} bytes, tweaks of ${TWEAKS.join(', ')} bytes by turns; separate, in place, odd offsets, guard bytes`, () => {
        const K = setup(random(n));
        for (let len = 16; len <= longest; len++) {
          const i = len - 16;
          const tlen = TWEAKS[i % TWEAKS.length];
          const data = random(len),
            tweak = random(tlen);
          const want = refHctr2(K.key, tweak, data, false);
          exercise(K, data, len, tweak, tlen, false, want, i, `encrypt of ${len} bytes, ${tlen}-byte tweak`);
          // Decryption gives the message back (against the model itself in the next tests).
          exercise(K, want, len, tweak, tlen, true, data, i + 7, `decrypt of ${len} bytes, ${tlen}-byte tweak`);
        }
        done(K);
      });
    }

    it(`tweaks of ${TWEAKS.join(', ')} bytes, messages of 16, 17, 31, 32, ${16 * p + 5} bytes, both ways against the model, every key size`, () => {
      let i = 0;
      for (const n of KEY_BYTES) {
        const K = setup(random(n));
        for (const tlen of TWEAKS) {
          for (const len of [16, 17, 31, 32, 16 * p + 5]) {
            const data = random(len),
              tweak = random(tlen);
            for (const decrypt of [false, true]) {
              const label = `AES-${n * 8} ${decrypt ? 'decrypt' : 'encrypt'} of ${len} bytes, ${tlen}-byte tweak`;
              exercise(K, data, len, tweak, tlen, decrypt, refHctr2(K.key, tweak, data, decrypt), i++, label);
            }
          }
        }
        done(K);
      }
    });

    it(`many sectors of 16, 48, 512 and 4096 bytes in one call, 32-byte tweaks, both ways: every sector against the model`, () => {
      const shapes: [number, number[]][] = [
        [16, [0, 1, 2, p - 1, p, p + 1, 2 * p + 1]],
        [48, [1, 3, p, p + 1, 2 * p + 1]],
        [512, [1, 2, 9, p + 1]],
        [4096, [1, 3]],
      ];
      let i = 0;
      for (const n of KEY_BYTES) {
        const K = setup(random(n));
        for (const [unit, sectorCounts] of shapes) {
          for (const count of sectorCounts) {
            const src = random(unit * count),
              tweaks = random(32 * count);
            for (const decrypt of [false, true]) {
              const want = model(K.key, src, unit, tweaks, 32, decrypt);
              const label = `AES-${n * 8} ${decrypt ? 'decrypt' : 'encrypt'} of ${count} × ${unit}-byte sectors`;
              exercise(K, src, unit, tweaks, 32, decrypt, want, i++, label);
            }
          }
        }
        done(K);
      }
    });

    it('identical sectors under identical tweaks come out identical; a different tweak changes only its sector', () => {
      const K = setup(random(32));
      const count = 2 * p + 3;
      const one = random(512),
        tweak = random(32);
      const src = new Uint8Array(512 * count),
        tweaks = new Uint8Array(32 * count);
      for (let s = 0; s < count; s++) {
        src.set(one, 512 * s);
        tweaks.set(tweak, 32 * s);
      }
      tweaks[32 * p] ^= 1;
      const out = new Uint8Array(src.length);
      call(K, out, src, 512, tweaks, 32, false, 'identical sectors');
      const want = refHctr2(K.key, tweak, one, false);
      for (let s = 0; s < count; s++) {
        const got = out.subarray(512 * s, 512 * s + 512);
        if (s === p) assert.notDeepEqual(got, want, `sector ${s} has another tweak`);
        else assertBytes(got, want, `sector ${s}`);
      }
      done(K);
    });

    if (options.throwsAfterDispose) {
      it('refuses a call after dispose() of the keyed kernel or of the POLYVAL key', () => {
        const K = setup(random(16));
        const hctr2 = (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>).bind(K.k);
        const src = random(32),
          dst = new Uint8Array(32),
          tweak = random(32),
          st = start(K, 32, 32);
        K.hash.dispose();
        assert.throws(() => hctr2(dst, src, 32, tweak, 32, K.hash, st, K.l, false), /disposed/, 'disposed hash');
        K.k.dispose();
        assert.throws(() => hctr2(dst, src, 32, tweak, 32, K.hash, st, K.l, false), /disposed/, 'disposed kernel');
        assert.ok(
          dst.every((b) => b === 0),
          'wrote dst',
        );
      });
    }

    const count = options.callCount;
    if (count) {
      it('one hctr2 call over 2048 sectors of 512 bytes is one native call', () => {
        const K = setup(random(32));
        const src = random(2048 * 512),
          tweaks = random(32 * 2048);
        const dst = new Uint8Array(src.length);
        const st = start(K, 32, 512);
        const before = count();
        (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>)(dst, src, 512, tweaks, 32, K.hash, st, K.l, false);
        assert.equal(count() - before, 1);
        for (const s of [0, 1, 7, 8, 9, 1023, 2047]) {
          const want = refHctr2(
            K.key,
            tweaks.subarray(32 * s, 32 * s + 32),
            src.subarray(512 * s, 512 * s + 512),
            false,
          );
          assertBytes(dst.subarray(512 * s, 512 * s + 512), want, `sector ${s}`);
        }
        done(K);
      });
    }
  });
}
