// Fuzzing readHeader and openLuks over headers cryptsetup makes in the test run: random byte changes (with
// the LUKS2 checksums left as they are, so the copies are passed over, and recomputed, so that the JSON
// parser and the rules are reached; anywhere in the binary headers or inside the JSON text), LUKS1 headers
// and key material, and truncation at every length where something starts or ends. Every run must end in a
// value or in one of @x/luks's errors (a TypeError/RangeError only with an "@x/luks: " message), with every
// key derivation it asks for within the KDF bounds (set low here: a flipped iteration count must be refused,
// not computed for minutes; the derivations are counted through a logging src/kdf.js, kdf-work.ts, not
// timed, so that the check holds on a loaded machine), and with memory growth under 256 MiB beyond the
// KDF's own. fast-check runs from fixed seeds.
//
// Every failure the fuzzer has found is kept in fixtures/fuzz/ as a small JSON description of the change
// (base image, byte changes, which checksums were recomputed, a truncation) and replayed by the last test.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  convertToLuks1,
  describeWithCryptsetup,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  runCryptsetup,
  resealLuks2Copy,
} from '@x/containers';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { LuksError, openLuks, readHeader } from '../src/index.js';
import { aboveLimits, derivations, failAbove, resetDerivations } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

const FIXTURES = fileURLToPath(new URL('./fixtures/fuzz/', import.meta.url));
const MiB = 1024 * 1024;
/** KDF bounds for the runs: a changed count is refused rather than computed (cryptsetup-made costs are 1000). */
const LIMITS = { maxIterations: 100_000, maxTimeCost: 16, maxMemory: 64 * 1024 };
/** The most derivations a run may ask for: one per keyslot tried (LUKS2 has at most 32) and one digest check each. */
const MAX_DERIVATIONS = 2 * 32;
const RUNS = Number(process.env.X_LUKS_FUZZ_RUNS ?? 120);

/** A change to a cryptsetup-made image: what a fixture in fixtures/fuzz/ records. */
interface Mutation {
  readonly base: 'luks2' | 'luks1' | 'argon2';
  /** [offset, xor] byte changes. */
  readonly flips: readonly (readonly [number, number])[];
  /** Which LUKS2 copies get their checksum recomputed after the changes. */
  readonly checksum?: 'none' | 'primary' | 'both';
  /** Keep only this many bytes. */
  readonly truncate?: number;
}

const pass = randomBytes(9).toString('hex');
const bases: Record<Mutation['base'], Uint8Array> = {} as never;
const hdr = 16384; // every base here has hdr_size 16384

function apply(m: Mutation): Uint8Array {
  const b = Uint8Array.from(bases[m.base]);
  for (const [at, x] of m.flips) if (at < b.length) b[at] ^= x;
  if (m.checksum === 'primary' || m.checksum === 'both') recompute(b, 0);
  if (m.checksum === 'both') recompute(b, hdr);
  return m.truncate === undefined ? b : b.subarray(0, m.truncate);
}

function recompute(b: Uint8Array, off: number) {
  resealLuks2Copy(b, off, hdr);
}

/** What an outcome may be: a value, or one of our errors. Anything else is returned as a failure. */
function unexpected(e: unknown): string | undefined {
  if (e instanceof LuksError) return e.message.startsWith('@x/luks: ') ? undefined : `unprefixed: ${e.message}`;
  if ((e instanceof TypeError || e instanceof RangeError) && e.message.startsWith('@x/luks: ')) return undefined;
  return `${(e as Error)?.name}: ${(e as Error)?.message}`;
}

let baseline = { rss: 0, arrayBuffers: 0 };
let peak = { rss: 0, arrayBuffers: 0 };
let slowest = 0; // ms, reported (not a bound: the time of a run depends on the machine's load)

/** readHeader and openLuks on the image; the reasons it failed the rules, or []. */
async function run(image: Uint8Array): Promise<string[]> {
  const problems: string[] = [];
  const t0 = performance.now();
  resetDerivations();
  try {
    await readHeader(image);
  } catch (e) {
    const u = unexpected(e);
    if (u) problems.push(`readHeader: ${u}`);
  }
  try {
    const v = await openLuks(image, { passphrase: pass, ...LIMITS });
    const dst = new Uint8Array(v.sectorSize);
    if (v.payloadSize >= dst.length) await v.read(dst, 0);
    v.close();
  } catch (e) {
    const u = unexpected(e);
    if (u) problems.push(`openLuks: ${u}`);
  }
  slowest = Math.max(slowest, performance.now() - t0);
  // the work: no derivation above the bounds, and no more derivations than keyslots allow
  const above = aboveLimits(derivations, LIMITS);
  if (above.length) problems.push(`derived above the bounds: ${JSON.stringify(above)}`);
  if (derivations.length > MAX_DERIVATIONS) problems.push(`${derivations.length} key derivations`);
  const mem = process.memoryUsage();
  peak = { rss: Math.max(peak.rss, mem.rss), arrayBuffers: Math.max(peak.arrayBuffers, mem.arrayBuffers) };
  // beyond the KDF's own memory (at most LIMITS.maxMemory KiB of Argon2)
  if (mem.arrayBuffers - baseline.arrayBuffers > 256 * MiB + LIMITS.maxMemory * 1024)
    problems.push(`arrayBuffers grew by ${mem.arrayBuffers - baseline.arrayBuffers}`);
  if (mem.rss - baseline.rss > 256 * MiB + LIMITS.maxMemory * 1024)
    problems.push(`rss grew by ${mem.rss - baseline.rss}`);
  return problems;
}

/** A property over mutations: each must run cleanly; a failure is reported with its mutation as JSON. */
async function fuzz(arb: fc.Arbitrary<Mutation>, seed: number, numRuns = RUNS): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (m) => {
      const problems = await run(apply(m));
      if (problems.length) throw new Error(`${problems.join('; ')}\nmutation: ${JSON.stringify(m)}`);
    }),
    { seed, numRuns, endOnFailure: true },
  );
}

const flip = (from: number, to: number) =>
  fc.tuple(fc.integer({ min: from, max: to - 1 }), fc.integer({ min: 1, max: 255 }));
const flips = (from: number, to: number) => fc.array(flip(from, to), { minLength: 1, maxLength: 6 });

describeWithCryptsetup('fuzzing readHeader and openLuks', () => {
  let jsonLength = 0;
  beforeAll(async () => {
    const common = {
      cipher: 'aes-xts-plain64',
      keySize: 256,
      dataSize: 16 * 1024,
      sectorSize: 512,
      passphrases: [pass],
    };
    const l2 = await makeLuks2Container({ ...common, pbkdf: { type: 'pbkdf2' } });
    const a2 = await makeLuks2Container({
      ...common,
      sectorSize: 4096,
      pbkdf: { type: 'argon2id', memoryKiB: 32, iterations: 4 },
    });
    const l1 = await convertToLuks1(l2);
    bases.luks2 = new Uint8Array(await readFile(l2.path));
    bases.argon2 = new Uint8Array(await readFile(a2.path));
    bases.luks1 = new Uint8Array(await readFile(l1.path));
    jsonLength = bases.luks2.indexOf(0, 4096) - 4096;
    const mem = process.memoryUsage();
    baseline = { rss: mem.rss, arrayBuffers: mem.arrayBuffers };
    peak = { ...baseline };
    failAbove(LIMITS); // a missed bound fails its run at once (and is reported) rather than deriving for minutes
  });
  afterAll(async () => {
    failAbove(undefined);
    await removeAllContainers();
    console.log(
      `fuzz: memory peak above the start: rss ${((peak.rss - baseline.rss) / MiB).toFixed(1)} MiB, arrayBuffers ${((peak.arrayBuffers - baseline.arrayBuffers) / MiB).toFixed(1)} MiB; slowest run ${Math.round(slowest)} ms`,
    );
  });

  it('the bases open', async () => {
    for (const b of Object.values(bases)) {
      expect(await run(b)).toEqual([]);
      expect(derivations.length).toBeGreaterThan(0); // the derivations are counted (the mock is in place)
    }
  });

  it('LUKS2: byte changes anywhere in both header copies, checksums left as they are', async () => {
    await fuzz(
      fc.record({ base: fc.constantFrom('luks2' as const, 'argon2' as const), flips: flips(0, 2 * hdr) }),
      0x5eed1,
    );
  });

  it('LUKS2: byte changes in the binary headers, checksums recomputed', async () => {
    await fuzz(
      fc.record({
        base: fc.constant('luks2' as const),
        flips: fc.array(fc.oneof(flip(0, 512), flip(hdr, hdr + 512)), { minLength: 1, maxLength: 4 }),
        checksum: fc.constantFrom('primary' as const, 'both' as const),
      }),
      0x5eed2,
    );
  });

  it('LUKS2: byte changes inside the JSON text, checksums recomputed (the JSON parser and the rules reached)', async () => {
    const inText = (n: number) =>
      fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: 255 })), {
        minLength: 1,
        maxLength: 3,
      });
    await fuzz(
      fc
        .record({
          base: fc.constantFrom('luks2' as const, 'argon2' as const),
          text: inText(jsonLength + 8),
          both: fc.boolean(),
        })
        .map(({ base, text, both }) => ({
          base,
          // the same change in both copies, or in the primary only (then the secondary takes over)
          flips: text.flatMap(([at, x]) =>
            both ? [[4096 + at, x] as const, [hdr + 4096 + at, x] as const] : [[4096 + at, x] as const],
          ),
          checksum: both ? ('both' as const) : ('primary' as const),
        })),
      0x5eed3,
      RUNS * 2,
    );
  });

  it('LUKS1: byte changes in the phdr and the key material', async () => {
    await fuzz(
      fc.record({
        base: fc.constant('luks1' as const),
        flips: fc.array(fc.oneof(flip(0, 592), flip(592, 4096), flip(4096, 4096 + 128_000)), {
          minLength: 1,
          maxLength: 6,
        }),
      }),
      0x5eed4,
    );
  });

  it('truncation at every length where something starts or ends', async () => {
    for (const base of ['luks2', 'argon2', 'luks1'] as const) {
      const b = bases[base];
      const h = await readHeader(b);
      const edges = new Set([0, 1, 6, 8, 511, 512, 592, 1023, 1024, 4095, 4096, 4097]);
      if (h.version === 2) {
        for (const k of h.keyslots) if (k.area) edges.add(k.area.offset).add(k.area.offset + k.area.size);
        edges
          .add(hdr)
          .add(2 * hdr)
          .add(2 * hdr + h.config.keyslotsSize)
          .add(hdr + 4096);
        edges.add(Number(h.segments[0].offset));
      } else {
        for (const k of h.keyslots)
          if (k.active) edges.add(k.keyMaterialOffset * 512).add(k.keyMaterialOffset * 512 + 128_000);
        edges.add(h.payloadOffset * 512);
      }
      for (const e of [...edges])
        for (const d of [-1, 0, 1])
          if (e + d >= 0 && e + d <= b.length) {
            const problems = await run(b.subarray(0, e + d));
            expect({ base, length: e + d, problems }).toEqual({ base, length: e + d, problems: [] });
          }
    }
  });

  it('cryptsetup luksDump and readHeader agree on changed headers with valid checksums', async () => {
    // a larger generated corpus than luks2-validation.test.ts: changes in the JSON text and in the binary
    // headers, checksums recomputed (or not), each compared with the oracle; a disagreement fails unless
    // README.md lists it as deliberately stricter (none of these is)
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-fuzz-'));
    try {
      const text = fc.record({
        base: fc.constantFrom('luks2' as const, 'argon2' as const),
        flips: fc
          .array(fc.tuple(fc.integer({ min: 0, max: jsonLength + 3 }), fc.integer({ min: 1, max: 255 })), {
            minLength: 1,
            maxLength: 2,
          })
          .map((f) => f.flatMap(([at, x]) => [[4096 + at, x] as const, [hdr + 4096 + at, x] as const])),
        checksum: fc.constant('both' as const),
      });
      const binary = fc.record({
        base: fc.constant('luks2' as const),
        flips: fc.array(fc.oneof(flip(0, 512), flip(hdr, hdr + 512)), { minLength: 1, maxLength: 2 }),
        checksum: fc.constantFrom('none' as const, 'both' as const),
      });
      const corpus = [
        ...fc.sample(text, { seed: 0x5eed5, numRuns: RUNS * 2 }),
        ...fc.sample(binary, { seed: 0x5eed6, numRuns: RUNS }),
      ];
      const disagree: string[] = [];
      await mapLimit(corpus, 2, async (m, i) => {
        const image = apply(m);
        const path = join(dir, `c${i}.img`);
        await writeFile(path, image);
        const ours = await readHeader(image).then(
          () => true,
          () => false,
        );
        const cryptsetup = await runCryptsetup(['luksDump', '--disable-locks', path]).then(
          () => true,
          () => false,
        );
        if (ours !== cryptsetup) disagree.push(JSON.stringify({ ...m, ours, cryptsetup }));
        await rm(path);
      });
      console.log(`fuzz: ${corpus.length} changed headers, ${disagree.length} disagreements with cryptsetup luksDump`);
      expect(disagree).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('replays the failures kept in fixtures/fuzz/', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json')).sort();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const m = JSON.parse(await readFile(join(FIXTURES, f), 'utf8')) as Mutation & { expect?: string };
      const image = apply(m);
      expect({ f, problems: await run(image) }).toEqual({ f, problems: [] });
      // the outcome the fix gave, where the fixture states one
      if (m.expect !== undefined) {
        const got = await readHeader(image).then(
          () => 'accepts',
          (e: Error) => e.message,
        );
        expect({ f, got }).toEqual({ f, got: expect.stringMatching(new RegExp(m.expect)) });
      }
    }
  });
});
