// Fuzzing readBitlockerHeader, the dump, detection and openBitlocker over cryptsetup's Windows-made images
// (test/fixtures via @x/testkit): byte changes in the boot sector (which nothing authenticates), and in the
// FVE metadata blocks with their CRC-32 made anew AND their validation re-sealed with the VMK (AES-CCM over
// the block's SHA-256, as BitLocker authenticates its metadata: ./reseal.ts), so that the damage reaches
// every field of the deep parser and of the key code; field values set to edge values; damage to copy 0
// only (the fallback copies); truncation at every edge. Every run must end in a value or in one of
// @x/bitlocker's errors (a TypeError/RangeError only with an "@x/bitlocker: " message), with at most one
// key stretch per salt (counted through a memoizing src/stretch.js, not timed, so the bound holds on a loaded
// machine) and memory growth under 256 MiB. Where cryptsetup answers (`bitlkDump`, and
// `open --test-passphrase --type bitlk` on image files), we may refuse more, never accept more, but for the
// differences README.md lists ("Beyond cryptsetup").
//
// fast-check runs from fixed seeds; X_FUZZ_RUNS=N runs N cases per property (default 60).
import { open as openFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ByteSource, toSource } from '@x/byte-source';
import { describeWithCryptsetup, runCryptsetup } from '@x/containers';
import { bitlockerImages } from '@x/testkit/disk-images';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { bitlockerFormat } from '../src/format.js';
import {
  type BitlockerHeader,
  BitlockerError,
  bitlockerToJson,
  describeBitlocker,
  openBitlocker,
  readBitlockerHeader,
} from '../src/index.js';
import { unlockVmk } from '../src/keys.js';
import { blockSize, copyOffsets, recrc, resealCopy } from './reseal.js';

/** Every stretch the runs ask for (initial value ‖ salt, hex), and the cache that answers repeats. */
const stretches: string[] = [];
vi.mock('../src/stretch.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/stretch.js')>();
  const cache = new Map<string, Uint8Array>();
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  return {
    ...real,
    stretchKey: (initial: Uint8Array, salt: Uint8Array, rounds?: number) => {
      const id = `${hex(initial)}${hex(salt)}${rounds ?? ''}`;
      stretches.push(id);
      let key = cache.get(id);
      if (!key) {
        key = real.stretchKey(initial, salt, rounds);
        cache.set(id, key);
      }
      return Uint8Array.from(key);
    },
  };
});

const RUNS = Number(process.env.X_FUZZ_RUNS ?? 60);
const MiB = 1024 * 1024;
const AREA = 65536;

type Base = 'clear' | 'password' | 'togo';
const IMAGES: Record<Base, string> = {
  clear: 'bitlk-aes-xts-128-clearkey-only',
  password: 'bitlk-aes-xts-128',
  togo: 'bitlk-togo-aes-cbc-128',
};

/** A change to one of the images: what a failure prints, to be replayed. */
interface Mutation {
  readonly base: Base;
  /** [offset, xor] in the boot sector. */
  readonly boot?: readonly (readonly [number, number])[];
  /** [offset, xor] in the metadata block (taken modulo its size, so the validation after it is kept). */
  readonly block?: readonly (readonly [number, number])[];
  /** [offset, bytes, value] little-endian fields of the block set (offset modulo its size). */
  readonly fields?: readonly (readonly [number, 1 | 2 | 4 | 8, number])[];
  /** Which copies get the block changes. */
  readonly copies: 'all' | 'first';
  /** After the block changes: nothing, the CRC-32, or the CRC-32 and the validation sealed with the VMK. */
  readonly seal: 'none' | 'crc' | 'vmk';
  /** Keep only this many bytes. */
  readonly truncate?: number;
}

const { images } = bitlockerImages();
const facts = (b: Base) => images.find((i) => i.name === IMAGES[b])!;
const bases = {} as Record<Base, { bytes: Uint8Array; vmk: Uint8Array; offsets: number[]; file: string }>;

/** A changed region of the image: the bytes at `at`. */
type Region = { at: number; bytes: Uint8Array };

/** The changed regions of `m`: the first 4 KiB and the three metadata areas, changed and sealed. */
function regions(m: Mutation): Region[] {
  const { bytes, vmk, offsets } = bases[m.base];
  const boot = { at: 0, bytes: bytes.slice(0, 4096) };
  for (const [o, x] of m.boot ?? []) boot.bytes[o % 512] ^= x;
  const out = [boot];
  offsets.forEach((at, i) => {
    if (m.copies === 'first' && i > 0) return;
    const r = { at, bytes: bytes.slice(at, at + AREA) };
    const size = blockSize(r.bytes, 0);
    const view = new DataView(r.bytes.buffer);
    for (const [o, x] of m.block ?? []) r.bytes[o % size] ^= x;
    for (const [o, n, v] of m.fields ?? []) {
      const p = o % (size - 8);
      if (n === 1) r.bytes[p] = v & 0xff;
      else if (n === 2) view.setUint16(p, v & 0xffff, true);
      else if (n === 4) view.setUint32(p, v >>> 0, true);
      else view.setBigUint64(p, BigInt(v), true);
    }
    if (m.seal === 'vmk') resealCopy(r.bytes, 0, size, vmk);
    else if (m.seal === 'crc') recrc(r.bytes, 0, size);
    out.push(r);
  });
  return out;
}

/** The image of `m` as a ByteSource: the base with the changed regions laid over it (no 100 MiB copy). */
function sourceOf(m: Mutation): ByteSource {
  const base = bases[m.base].bytes;
  const inner = toSource(m.truncate === undefined ? base : base.subarray(0, m.truncate));
  const changed = regions(m);
  return {
    size: inner.size,
    read: async (offset, dst) => {
      await inner.read(offset, dst);
      for (const r of changed) {
        const from = Math.max(offset, r.at);
        const to = Math.min(offset + dst.length, r.at + r.bytes.length);
        if (from < to) dst.set(r.bytes.subarray(from - r.at, to - r.at), from - offset);
      }
    },
  };
}

/** What an outcome may be: a value, or one of our errors. Anything else is returned as a failure. */
function unexpected(e: unknown): string | undefined {
  const ours = (e as Error)?.message?.startsWith('@x/bitlocker: ');
  if (ours && (e as Error).message.indexOf('@x/bitlocker: ', 1) > 0) return `prefix twice: ${(e as Error).message}`;
  if (e instanceof BitlockerError) return ours ? undefined : `unprefixed: ${(e as Error).message}`;
  if ((e instanceof TypeError || e instanceof RangeError) && ours) return undefined;
  return `${(e as Error)?.name}: ${(e as Error)?.message}`;
}

let baseline = { rss: 0, arrayBuffers: 0 };
let peak = { rss: 0, arrayBuffers: 0 };
let slowest = 0; // ms, reported (not a bound: the time of a run depends on the machine's load)
const outcomes = new Map<string, number>();

/** The outcome of one run: whether the header reads and the volume opens, and the rules it broke. */
interface Outcome {
  header: boolean;
  opened: boolean;
  /** The metadata copy the volume opened with. */
  copy?: number;
  state?: string;
  problems: string[];
}

/** Detection, readBitlockerHeader and the dump, openBitlocker with the base's secret and a read of its ends. */
async function run(m: Mutation): Promise<Outcome> {
  const source = sourceOf(m);
  const out: Outcome = { header: false, opened: false, problems: [] };
  const t0 = performance.now();
  stretches.length = 0;
  const step = async (what: string, f: () => Promise<unknown>) => {
    try {
      await f();
      return true;
    } catch (e) {
      const u = unexpected(e);
      if (u) out.problems.push(`${what}: ${u}`);
      const key = `${what}: ${(e as Error).message?.replace(/[0-9a-f-]{36}|\d+/g, 'N').slice(0, 90)}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      return false;
    }
  };
  await step('detect', async () => {
    const first = new Uint8Array(Math.min(512, source.size));
    await source.read(0, first);
    await bitlockerFormat.detect!(first, source);
  });
  out.header = await step('readHeader', async () => {
    const h = await readBitlockerHeader(source);
    describeBitlocker(h);
    JSON.stringify(bitlockerToJson(h));
  });
  out.opened = await step('open', async () => {
    const secret = m.base === 'clear' ? {} : { passphrase: facts(m.base).password };
    const v = await openBitlocker(source, secret);
    try {
      const meta = (v as unknown as { metadata: { index: number; state: { current: number; next: number } } }).metadata;
      out.copy = meta.index;
      out.state = `${meta.state.current}/${meta.state.next}`;
      const dst = new Uint8Array(v.sectorSize * 2);
      if (v.payloadSize >= dst.length) {
        await v.read(dst, 0);
        await v.read(dst, v.payloadSize / v.sectorSize - 2);
      }
    } finally {
      v.close();
    }
  });
  slowest = Math.max(slowest, performance.now() - t0);
  // the work: one stretch per salt at most (a password is tried on every copy, each stretched once)
  if (new Set(stretches).size > 3) out.problems.push(`${new Set(stretches).size} distinct key stretches`);
  const mem = process.memoryUsage();
  peak = { rss: Math.max(peak.rss, mem.rss), arrayBuffers: Math.max(peak.arrayBuffers, mem.arrayBuffers) };
  if (mem.arrayBuffers - baseline.arrayBuffers > 256 * MiB)
    out.problems.push(`arrayBuffers grew by ${mem.arrayBuffers - baseline.arrayBuffers}`);
  if (mem.rss - baseline.rss > 256 * MiB) out.problems.push(`rss grew by ${mem.rss - baseline.rss}`);
  return out;
}

/** A property over mutations: each must run cleanly; a failure is reported with its mutation as JSON. */
async function fuzz(arb: fc.Arbitrary<Mutation>, seed: number, numRuns = RUNS): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (m) => {
      const { problems } = await run(m);
      if (problems.length) throw new Error(`${problems.join('; ')}\nmutation: ${JSON.stringify(m)}`);
    }),
    { seed, numRuns, endOnFailure: true },
  );
}

const base = fc.constantFrom<Base>('clear', 'password', 'togo');
const flip = (max: number) => fc.tuple(fc.integer({ min: 0, max: max - 1 }), fc.integer({ min: 1, max: 255 }));
const flips = (max: number, n = 4) => fc.array(flip(max), { minLength: 1, maxLength: n });
/** Values that break things: zero, one, the states, powers of two, all ones, past 2^53. */
const edge = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 8, 16, 48, 64, 512, 4096, 0x8000, 0x8005, 0xffff, 0x10000, 0xffffffff),
  fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 63),
  fc.integer({ min: 0, max: 0xffffffff }),
);
/** The block header and metadata header fields (libbde), then any offset (entries). */
const FIELDS: readonly (readonly [number, 1 | 2 | 4 | 8])[] = [
  [8, 2],
  [10, 2],
  [12, 2],
  [14, 2],
  [16, 8],
  [24, 4],
  [28, 4],
  [32, 8],
  [40, 8],
  [48, 8],
  [56, 8],
  [64, 4],
  [68, 4],
  [72, 4],
  [76, 4],
  [96, 4],
  [100, 2],
  [102, 2],
];
const field = fc.oneof(
  fc.constantFrom(...FIELDS).chain(([o, n]) => edge.map((v) => [o, n, v] as const)),
  fc.tuple(fc.integer({ min: 112, max: 2000 }), fc.constantFrom<1 | 2 | 4 | 8>(1, 2, 4), edge),
);

describeWithCryptsetup('fuzzing @x/bitlocker', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-bitlk-fuzz-'));
    for (const b of Object.keys(IMAGES) as Base[]) {
      const bytes = new Uint8Array(await readFile(facts(b).path));
      const h = await readBitlockerHeader(bytes);
      const secret = b === 'clear' ? {} : { passphrase: facts(b).password };
      const { vmk } = unlockVmk(h.metadata, secret, undefined);
      const file = join(dir, `${b}.img`);
      await writeFile(file, bytes);
      bases[b] = { bytes, vmk, offsets: copyOffsets(bytes), file };
    }
    const mem = process.memoryUsage();
    baseline = { rss: mem.rss, arrayBuffers: mem.arrayBuffers };
    peak = { ...baseline };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    console.log(
      `fuzz: memory peak above the start: rss ${((peak.rss - baseline.rss) / MiB).toFixed(1)} MiB, arrayBuffers ${((peak.arrayBuffers - baseline.arrayBuffers) / MiB).toFixed(1)} MiB; slowest run ${Math.round(slowest)} ms`,
    );
    console.log(
      `fuzz: outcomes\n${[...outcomes]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${String(n).padStart(5)} ${k}`)
        .join('\n')}`,
    );
  });

  it('the bases open, and resealing an unchanged block changes nothing', async () => {
    for (const b of Object.keys(IMAGES) as Base[]) {
      const o = await run({ base: b, copies: 'all', seal: 'vmk' });
      expect(o).toEqual({ header: true, opened: true, copy: 0, state: '4/4', problems: [] });
    }
  });

  it('the boot sector: byte changes (nothing authenticates it)', async () => {
    await fuzz(
      fc.record({ base, boot: flips(512), copies: fc.constant('all' as const), seal: fc.constant('none' as const) }),
      0xb17a1,
    );
  });

  it('every copy: byte changes anywhere in the block, CRC-32 and validation sealed with the VMK', async () => {
    await fuzz(
      fc.record({ base, block: flips(4096), copies: fc.constant('all' as const), seal: fc.constant('vmk' as const) }),
      0xb17a2,
      RUNS * 2,
    );
  });

  it('every copy: header fields and entry words set to edge values, sealed with the VMK', async () => {
    await fuzz(
      fc.record({
        base,
        fields: fc.array(field, { minLength: 1, maxLength: 3 }),
        copies: fc.constant('all' as const),
        seal: fc.constant('vmk' as const),
      }),
      0xb17a3,
      RUNS * 2,
    );
  });

  it('copy 0 only: byte changes with the CRC-32 or the validation made anew (the backups take over)', async () => {
    await fuzz(
      fc.record({
        base,
        block: flips(4096),
        copies: fc.constant('first' as const),
        seal: fc.constantFrom('crc' as const, 'vmk' as const),
      }),
      0xb17a4,
    );
  });

  /** Runs cryptsetup `args` on the base file of `m` with its changed regions written in (then put back). */
  async function cryptsetupOn(m: Mutation, args: (file: string) => string[]): Promise<boolean> {
    const { file, bytes } = bases[m.base];
    const f = await openFile(file, 'r+');
    const changed = regions(m);
    try {
      for (const r of changed) await f.write(r.bytes, 0, r.bytes.length, r.at);
      return await runCryptsetup(args(file)).then(
        () => true,
        () => false,
      );
    } finally {
      for (const r of changed) await f.write(bytes, r.at, r.bytes.length, r.at);
      await f.close();
    }
  }

  /**
   * Where we accept what cryptsetup refuses, the reason README.md lists ("Beyond cryptsetup"), or undefined:
   * copy 0 damaged and a backup copy read (cryptsetup 2.6 reads copy 0 only), the VMK opened from a backup
   * copy's protector, a paused conversion, a clear key protector (cryptsetup activates no volume with one).
   */
  function listed(m: Mutation, o: Outcome, h: BitlockerHeader | undefined): string | undefined {
    if ((o.copy ?? h?.metadata.index ?? 0) > 0) return 'a backup copy';
    if (o.state !== undefined && o.state !== '4/4') return 'a paused conversion';
    if (h?.metadata.protectors.some((p) => p.protection === 'clear key')) return 'a clear key protector';
    if (o.opened && h) {
      try {
        unlockVmk(h.metadata, m.base === 'clear' ? {} : { passphrase: facts(m.base).password }, undefined);
      } catch {
        return "the VMK from a backup copy's protector";
      }
    }
    return undefined;
  }

  it('cryptsetup bitlkDump and open --test-passphrase: we accept nothing they refuse, but what README.md lists', async () => {
    const corpus: Mutation[] = [
      ...fc.sample(
        fc.record({
          base,
          boot: flips(512, 2),
          copies: fc.constant('all' as const),
          seal: fc.constant('none' as const),
        }),
        { seed: 0xb17a5, numRuns: Math.ceil(RUNS / 2) },
      ),
      ...fc.sample(
        fc.record({
          base,
          block: flips(4096, 2),
          copies: fc.constant('all' as const),
          seal: fc.constant('vmk' as const),
        }),
        { seed: 0xb17a6, numRuns: Math.ceil(RUNS / 2) },
      ),
      ...fc.sample(
        fc.record({
          base,
          fields: fc.array(field, { minLength: 1, maxLength: 2 }),
          copies: fc.constant('all' as const),
          seal: fc.constant('vmk' as const),
        }),
        { seed: 0xb17a7, numRuns: Math.ceil(RUNS / 2) },
      ),
      ...fc.sample(
        fc.record({
          base,
          block: flips(4096, 2),
          copies: fc.constant('first' as const),
          seal: fc.constantFrom('crc' as const, 'vmk' as const),
        }),
        { seed: 0xb17a8, numRuns: Math.ceil(RUNS / 2) },
      ),
    ];
    const passfile = join(dir, 'password');
    await writeFile(passfile, facts('password').password);
    const disagree: string[] = [];
    const tally = { dump: 0, stricterDump: 0, open: 0, stricterOpen: 0, listed: new Map<string, number>() };
    for (const m of corpus) {
      const o = await run(m);
      expect(o.problems).toEqual([]);
      const h = o.header ? await readBitlockerHeader(sourceOf(m)) : undefined;
      const dump = await cryptsetupOn(m, (file) => ['bitlkDump', '--disable-locks', file]);
      tally.dump++;
      if (o.header && !dump) {
        const why = listed(m, o, h);
        if (why) tally.listed.set(`dump: ${why}`, (tally.listed.get(`dump: ${why}`) ?? 0) + 1);
        else disagree.push(JSON.stringify({ m, ours: 'reads', cryptsetup: 'bitlkDump refuses' }));
      }
      if (!o.header && dump) tally.stricterDump++;
      // cryptsetup opens (without device-mapper) with --test-passphrase; the clear key it refuses to open
      if (m.base === 'clear') continue;
      const opened = await cryptsetupOn(m, (file) => [
        'open',
        '--test-passphrase',
        '--type',
        'bitlk',
        '--disable-locks',
        '--key-file',
        passfile,
        file,
      ]);
      tally.open++;
      if (o.opened && !opened) {
        const why = listed(m, o, h);
        if (why) tally.listed.set(`open: ${why}`, (tally.listed.get(`open: ${why}`) ?? 0) + 1);
        else disagree.push(JSON.stringify({ m, ours: 'opens', cryptsetup: 'refuses' }));
      }
      if (!o.opened && opened) tally.stricterOpen++;
    }
    console.log(
      `fuzz: ${tally.dump} changed images against bitlkDump (we refuse ${tally.stricterDump} it reads), ${tally.open} against open --test-passphrase (we refuse ${tally.stricterOpen} it opens); we accept what it refuses, as README.md lists: ${JSON.stringify(Object.fromEntries(tally.listed))}; ${disagree.length} other disagreements`,
    );
    expect(disagree).toEqual([]);
  });

  it('truncation at every length where something starts or ends', async () => {
    for (const b of Object.keys(IMAGES) as Base[]) {
      const { bytes, offsets } = bases[b];
      const h = await readBitlockerHeader(bytes);
      const vh = h.metadata.volumeHeader;
      const edges = new Set([0, 1, 11, 512, 4096, vh.offset, vh.offset + vh.size, h.metadata.encryptedSize]);
      for (const o of offsets)
        edges
          .add(o)
          .add(o + 64)
          .add(o + blockSize(bytes, o))
          .add(o + AREA);
      for (const e of edges)
        for (const d of [-1, 0, 1])
          if (e + d >= 0 && e + d <= bytes.length) {
            const o = await run({ base: b, copies: 'all', seal: 'none', truncate: e + d });
            expect({ b, length: e + d, problems: o.problems }).toEqual({ b, length: e + d, problems: [] });
          }
    }
  });
});
