/**
 * The harness of the kernel suite's block and fast-path sections: the contract's methods as operations
 * (how to call each, what node:crypto says it gives), the inputs each runs at (lengths and sector layouts
 * derived from the kernel's `parallelBlocks` and its chunks), and the one check every input goes through
 * (separate, in place, aliased, guard bytes). The sections (`kernel-blocks.ts`, `kernel-fast-paths.ts`)
 * share it; POLYVAL and HCTR2 have their own (`kernel-polyval.ts`, `kernel-hctr2.ts`).
 */
import assert from 'node:assert/strict';
import type { AesKernel, AesKeyedKernel, FastPath } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, backing, outside, placed, random } from './bytes.js';
import { CTR_COUNTERS, keyPair, refCbc, refCbcSectors, refCtr, refEcb, refXtsBlocks } from './reference.js';
import type { Suite } from './suite.js';

/** Options of `kernelConformance`. */
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

/** What every section of the suite is given: the kernel, the runner, the options, what the kernel has. */
export interface KernelContext {
  kernel: AesKernel;
  suite: Suite;
  options: KernelSuiteOptions;
  /** fast-check runs of the random tests. */
  runs: number;
  /** The kernel's `parallelBlocks`. */
  p: number;
  /** The methods of {@link OPERATIONS} the keyed kernel has (the block primitives and its fast paths). */
  present: Method[];
  /** Whether the keyed kernel has the `hctr2` fast path. */
  hasHctr2: boolean;
}

export const KEY_BYTES = [16, 24, 32] as const;

export const hex16 = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The methods of the block and fast-path sections; `hctr2` has its own (`kernel-hctr2.ts`): it needs `loadPolyval` too. */
export type Method = 'encryptBlocks' | 'decryptBlocks' | Exclude<FastPath, 'hctr2' | 'gcmSeal' | 'gcmOpen'>;

/** One call's input: `src`, the IV, IVs or tweaks it reads besides (`side`), and the sector or data unit size. */
export interface Input {
  src: Uint8Array;
  side: Uint8Array;
  unit: number;
}

/** key1 is the kernel's key; key2 is XTS's tweak key, from which the reference derives the sequence numbers. */
export interface Keys {
  key1: Uint8Array;
  key2: Uint8Array;
}

/** A keyed kernel as an operation sees it: the suite calls a fast path only where the kernel has it. */
export type Full = Required<AesKeyedKernel>;

/** A contract method, how to call it and what node:crypto says it gives. */
export interface Operation {
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
export const OPERATIONS = {
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

export const METHODS = Object.keys(OPERATIONS) as Method[];
export const op = (m: Method): Operation => OPERATIONS[m];

/** Block counts around a batch of p: 0, every tail 1..p-1, p, p+1, 2p-1, 2p, 2p+1, 4p+3; around each chunk c: c-1, c, c+1, 2c+p+1. */
export function counts(p: number, chunks: readonly number[] = []): number[] {
  const all = new Set<number>([0, p, p + 1, 2 * p - 1, 2 * p, 2 * p + 1, 4 * p + 3]);
  for (let i = 1; i < p; i++) all.add(i);
  for (const c of chunks) for (const n of [c - 1, c, c + 1, 2 * c + p + 1]) all.add(n);
  return [...all].filter((n) => n >= 0).sort((a, b) => a - b);
}

/** A random input: `blocks` blocks, or `units` units of `blocks` blocks with `extra` IVs past the last. */
export function input(o: Operation, blocks: number, units = 1, extra = 0, tweak = 2): Input {
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
export function inputs(o: Operation, p: number, options: KernelSuiteOptions): Input[] {
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
export function describeInput(o: Operation, x: Input): string {
  if (o.kind === 'stream') return `${x.src.length} bytes, ${CTR_COUNTERS[x.unit]} from iv ${hex16(x.side)}`;
  if (o.kind !== 'units') return `${x.src.length / 16} blocks`;
  return `${x.src.length / x.unit} × ${x.unit}-byte ${o.side === 'ivs' ? 'sectors' : 'units'}`;
}

/** Loads `key` and wipes the schedule, as the modes do: the kernel keeps its own copy. */
export function load(kernel: AesKernel, key: Uint8Array): AesKeyedKernel {
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
export function exercise(
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
export const offsets = (i: number) => [(5 * i + 1) & 15, (3 * i + 7) & 15, (7 * i + 3) & 15] as const;

/**
 * The tests of one method: at every input of {@link inputs}, for each key size, checked by {@link exercise};
 * or, when the kernel lacks it, a test that says so (the modes run their own generic code there).
 */
export function methodTests({ kernel, suite: { it }, options, p, present }: KernelContext, m: Method): void {
  if (!present.includes(m)) {
    it(`no ${m}: generic path (the modes run their own code over encryptBlocks/decryptBlocks)`, () => {
      const k = load(kernel, new Uint8Array(16));
      assert.equal(k[m], undefined);
      k.dispose();
    });
    return;
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
