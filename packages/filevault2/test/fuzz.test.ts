// Fuzzing detection, readFileVault2Header, the DiskFormat and openFileVault2 over cryptsetup's FileVault 2
// image (its user re-wrapped for 1000 PBKDF2 iterations of the same passphrase, so that a run that opens
// costs little): random byte changes in the physical volume header, the metadata block and the volume
// groups descriptor (each CRC-32C recomputed, or left as it is), in the encrypted metadata as stored
// (its checksums then fail) and in its plaintext — the blocks' binary fields and XML text, changed once
// decrypted, given a valid CRC-32C and encrypted again with the metadata key, so that the damage reaches
// the plist parser and the rules —, inside the PassphraseWrappedKEKStruct and KEKWrappedVolumeKeyStruct
// (decoded, changed, encoded again), XML values and element names replaced, and truncation at every
// length where something starts or ends. Every run must end in a value or in one of @x/filevault2's errors
// (a TypeError/RangeError only with an "@x/filevault2: " message), with every PBKDF2 it asks for within the
// bound (set low here, counted through a logging src/kdf.js, kdf-work.ts, never timed), at most one per
// crypto user, and memory growth under 256 MiB. A few hundred changed images are also given to
// `cryptsetup fvault2Dump` and `cryptsetup open --test-passphrase --type fvault2`: where ours accepts,
// cryptsetup must too (stricter is allowed, and counted by reason; README.md lists them). fast-check runs
// from fixed seeds; X_FUZZ_RUNS sets the runs per property.
//
// A failure the fuzzer finds is kept in fixtures/fuzz/ as a JSON Mutation and replayed by the last test.
import { execFile } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cryptsetupStatus, describeWithCryptsetup, mapLimit } from '@x/containers';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32cWeak } from '../src/crc32c.js';
import { openFileSource } from '../src/file.js';
import { MAX_CRYPTO_USERS } from '../src/header.js';
import {
  type ByteSource,
  describeFileVault2,
  FileVault2Error,
  fileVault2Format,
  fileVault2ToJson,
  isFileVault2,
  openFileVault2,
  readFileVault2Header,
} from '../src/index.js';
import {
  editXml,
  FACTS,
  fixChecksum,
  fixtureImage,
  HEADER_BYTES,
  imagePrefix,
  passphraseWrappedKek,
  rewrapKek,
  rewriteEncryptedBlock,
} from './helpers.js';
import { derivations, failAbove, resetDerivations } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

const FIXTURES = fileURLToPath(new URL('./fixtures/fuzz/', import.meta.url));
const MiB = 1024 * 1024;
const RUNS = Number(process.env.X_FUZZ_RUNS ?? 40);
/** The PBKDF2 bound of the runs: the base's 1000 iterations open; a changed count is refused rather than computed. */
const MAX_ITERATIONS = 100_000;
const PASS = FACTS.passphrase;
const KEY = new Uint8Array(Buffer.from(FACTS.volumeKey, 'hex'));
/** The image's size (the header says so; the logical volume ends at 224 MiB of it). */
const IMAGE_SIZE = 536829952;
/** The fixture's layout: the metadata block, the volume groups descriptor, the encrypted metadata (4 blocks, then zeros). */
const LABEL = 4096;
const DESCRIPTOR = LABEL + 8192;
const ENCRYPTED = 2049 * 4096;
const BLOCKS = 4;

/** A change to the base image: what a fixture in fixtures/fuzz/ records. */
interface Mutation {
  /** [offset, xor] changes to the image as stored. */
  readonly flips?: readonly (readonly [number, number])[];
  /** Recompute the CRC-32C of the physical volume header / the metadata block after the flips. */
  readonly fixHeader?: boolean;
  readonly fixLabel?: boolean;
  /** Changes to encrypted metadata block `index` once decrypted ([offset, xor] in the block), CRC-32C recomputed, encrypted again. */
  readonly block?: { readonly index: number; readonly flips: readonly (readonly [number, number])[] };
  /** Changes inside the decoded PassphraseWrappedKEKStruct (284 bytes) or KEKWrappedVolumeKeyStruct (256 bytes). */
  readonly struct?: { readonly which: 'pwk' | 'kwvk'; readonly flips: readonly (readonly [number, number])[] };
  /** The `node`-th text (between two tags) or element name of block `index`'s XML replaced by `value`. */
  readonly xml?: {
    readonly index: number;
    readonly kind: 'text' | 'name';
    readonly node: number;
    readonly value: string;
  };
  /** Keep only this many bytes of the image. */
  readonly truncate?: number;
}

let base: Uint8Array; // the first 9 MiB of the image, the user re-wrapped for 1000 iterations
let file: ByteSource & { close(): Promise<void> };

/** Encrypted metadata block `index` of `image` decrypted, changed by `edit`, given a valid CRC-32C and encrypted back. */
const rewrite = (image: Uint8Array, index: number, edit: (b: Buffer) => void) =>
  rewriteEncryptedBlock(image, index, edit, crc32cWeak);

function structEdit(xml: string, which: 'pwk' | 'kwvk', flips: readonly (readonly [number, number])[]): string {
  if (which === 'pwk') {
    const { struct, put } = passphraseWrappedKek(xml);
    for (const [at, x] of flips) struct[at % struct.length] ^= x;
    return put(struct);
  }
  const m = /<key>KEKWrappedVolumeKeyStruct<\/key><data[^>]*>([^<]+)<\/data>/.exec(xml)!;
  const struct = Buffer.from(m[1], 'base64');
  for (const [at, x] of flips) struct[at % struct.length] ^= x;
  const at = m.index + m[0].length - '</data>'.length - m[1].length;
  return xml.slice(0, at) + struct.toString('base64') + xml.slice(at + m[1].length);
}

function xmlEdit(xml: string, kind: 'text' | 'name', node: number, value: string): string {
  const re = kind === 'text' ? />([^<]*)</g : /<\/?([A-Za-z][\w.-]*)/g;
  const all = [...xml.matchAll(re)];
  const m = all[node % all.length];
  const at = m.index + m[0].length - m[1].length - (kind === 'text' ? 1 : 0);
  return xml.slice(0, at) + value + xml.slice(at + m[1].length);
}

function apply(m: Mutation): Uint8Array {
  let b = base;
  if (m.block) {
    const { index, flips } = m.block;
    b = rewrite(b, index, (block) => {
      for (const [at, x] of flips) block[at] ^= x;
    });
  }
  if (m.struct) {
    const { which, flips } = m.struct;
    b = rewrite(b, 1, (block) => editXml(block, (xml) => structEdit(xml, which, flips)));
  }
  if (m.xml) {
    const { index, kind, node, value } = m.xml;
    b = rewrite(b, index, (block) => editXml(block, (xml) => xmlEdit(xml, kind, node, value)));
  }
  if (b === base) b = Uint8Array.from(base);
  for (const [at, x] of m.flips ?? []) if (at < b.length) b[at] ^= x;
  if (m.fixHeader) fixChecksum(b.subarray(0, 512), crc32cWeak);
  if (m.fixLabel) fixChecksum(b.subarray(LABEL, LABEL + 8192), crc32cWeak);
  return b;
}

/** The image of `head` (the rest from the fixture file), `size` bytes long; a read outside it is a plain Error (a bug). */
function sourceOf(head: Uint8Array, size: number): ByteSource {
  return {
    size,
    async read(offset, dst) {
      if (!Number.isSafeInteger(offset) || offset < 0 || offset + dst.length > size)
        throw new Error(`read of ${dst.length} bytes at ${offset}, outside the ${size}-byte image`);
      const inHead = Math.max(0, Math.min(dst.length, head.length - offset));
      if (inHead > 0) dst.set(head.subarray(offset, offset + inHead));
      if (inHead < dst.length) await file.read(offset + inHead, dst.subarray(inHead));
    },
  };
}

/** What an outcome may be: a value, or one of our errors. Anything else is returned as a failure. */
function unexpected(e: unknown): string | undefined {
  if (e instanceof FileVault2Error)
    return e.message.startsWith('@x/filevault2: ') ? undefined : `unprefixed: ${e.message}`;
  if ((e instanceof TypeError || e instanceof RangeError) && e.message.startsWith('@x/filevault2: ')) return undefined;
  return `${(e as Error)?.name}: ${(e as Error)?.message}`;
}

let baseline = { rss: 0, arrayBuffers: 0 };
let peak = { rss: 0, arrayBuffers: 0 };
let slowest = 0; // ms, reported (not a bound: the time of a run depends on the machine's load)
const outcomes = new Map<string, number>(); // the first words of each refusal, counted (reported)

/** Numbers in a message, left out when messages are counted by kind. */
const NUMBERS = /\b0x[0-9a-f]+\b|\b[0-9]+\b|"[^"]*"/g;

function count(e: unknown): void {
  const key = (e as Error).message
    .replace(/^@x\/filevault2: /, '')
    .replace(NUMBERS, 'N')
    .slice(0, 60);
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}

/** Every entry point on the image; the reasons it broke the rules, or []. */
async function run(image: Uint8Array, size = IMAGE_SIZE): Promise<string[]> {
  const problems: string[] = [];
  const t0 = performance.now();
  resetDerivations();
  const step = async (name: string, f: () => Promise<unknown>) => {
    try {
      await f();
    } catch (e) {
      const u = unexpected(e);
      if (u) problems.push(`${name}: ${u}`);
      else count(e);
    }
  };
  const source = sourceOf(image, size);
  await step('isFileVault2', async () => isFileVault2(image.subarray(0, Math.min(512, size))));
  await step('readFileVault2Header', async () => {
    const h = await readFileVault2Header(source);
    JSON.stringify(fileVault2ToJson(h));
    describeFileVault2(h);
  });
  await step('fileVault2Format.readHeader', async () => {
    const h = await fileVault2Format.readHeader(source);
    h.describe();
    JSON.stringify(h.toJson());
  });
  for (const how of ['passphrase', 'volumeKey'] as const) {
    await step(`openFileVault2 (${how})`, async () => {
      const options = how === 'passphrase' ? { passphrase: PASS } : { volumeKey: KEY };
      const v = await openFileVault2(source, { ...options, maxIterations: MAX_ITERATIONS });
      try {
        const dst = new Uint8Array(512);
        if (v.payloadSize >= 512) await v.read(dst, 0);
        if (v.payloadSize >= 1024) await v.read(dst, v.payloadSize / 512 - 1);
      } finally {
        v.close();
      }
    });
  }
  slowest = Math.max(slowest, performance.now() - t0);
  const above = derivations.filter((n) => n > MAX_ITERATIONS);
  if (above.length) problems.push(`derived above the bound: ${above.join(', ')}`);
  if (derivations.length > MAX_CRYPTO_USERS) problems.push(`${derivations.length} key derivations`);
  const mem = process.memoryUsage();
  peak = { rss: Math.max(peak.rss, mem.rss), arrayBuffers: Math.max(peak.arrayBuffers, mem.arrayBuffers) };
  if (mem.arrayBuffers - baseline.arrayBuffers > 256 * MiB)
    problems.push(`arrayBuffers grew by ${mem.arrayBuffers - baseline.arrayBuffers}`);
  if (mem.rss - baseline.rss > 256 * MiB) problems.push(`rss grew by ${mem.rss - baseline.rss}`);
  return problems;
}

/** A property over mutations: each must run cleanly; a failure is reported with its mutation as JSON. */
async function fuzz(arb: fc.Arbitrary<Mutation>, seed: number, numRuns = RUNS): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (m) => {
      const problems = await run(apply(m), m.truncate);
      if (problems.length) throw new Error(`${problems.join('; ')}\nmutation: ${JSON.stringify(m)}`);
    }),
    { seed, numRuns, endOnFailure: true },
  );
}

const flip = (from: number, to: number) =>
  fc.tuple(fc.integer({ min: from, max: to - 1 }), fc.integer({ min: 1, max: 255 }));
const flips = (from: number, to: number, most = 4) => fc.array(flip(from, to), { minLength: 1, maxLength: most });

/** Values that XML texts are replaced with: numbers at the edges, other names, markup, entities. */
const XML_VALUES = [
  '',
  '0',
  '0x0',
  '-1',
  '0x1',
  '0xffffffff',
  '0xffffffffffffffff',
  '0x20000000000000',
  '18446744073709551616',
  '99999999999999999999999999999999',
  'AES-XTS',
  'None',
  'none',
  'Complete',
  'Converting',
  'Pending',
  '33A76CAA-1481-4BC5-8D04-1AC1707C19C0',
  'E82EC3B4-6FA6-4A43-AA98-ECA628DD3941',
  '33a76caa14814bc58d041ac1707c19c0',
  'AAAA',
  'A===',
  'not base64!',
  '&amp;&lt;&#x41;',
  '&#xFFFFFFFF;',
  '&bogus;',
  '<dict>',
  '</array>',
  '<reference IDREF="0"/>',
  '<reference IDREF="99"/>',
  '<!--',
  ' ',
];
const XML_NAMES = [
  'dict',
  'array',
  'string',
  'integer',
  'data',
  'key',
  'true',
  'false',
  'reference',
  'real',
  'date',
  'plist',
  'x',
];

describe('fuzzing detection, readFileVault2Header, the DiskFormat and openFileVault2', () => {
  beforeAll(async () => {
    file = await openFileSource(fixtureImage());
    const head = imagePrefix(HEADER_BYTES);
    base = rewrite(head, 1, (block) =>
      editXml(block, (xml) => {
        const { struct, put } = passphraseWrappedKek(xml);
        return put(rewrapKek(struct, PASS, 1000));
      }),
    );
    const mem = process.memoryUsage();
    baseline = { rss: mem.rss, arrayBuffers: mem.arrayBuffers };
    peak = { ...baseline };
    failAbove(MAX_ITERATIONS); // a missed bound fails its run at once (and is reported) rather than deriving for minutes
  });
  afterAll(async () => {
    failAbove(undefined);
    await file?.close();
    const top = [...outcomes].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(
      `fuzz: memory peak above the start: rss ${((peak.rss - baseline.rss) / MiB).toFixed(1)} MiB, arrayBuffers ${((peak.arrayBuffers - baseline.arrayBuffers) / MiB).toFixed(1)} MiB; slowest run ${Math.round(slowest)} ms; most frequent refusals:\n  ${top.map(([k, n]) => `${n}× ${k}`).join('\n  ')}`,
    );
  });

  it('the base opens with the passphrase (one PBKDF2 of 1000 iterations) and with the volume key', async () => {
    expect(await run(base)).toEqual([]);
    expect(derivations).toEqual([1000]);
    const h = await readFileVault2Header(sourceOf(base, IMAGE_SIZE));
    expect(h.pbkdf2.iterations).toBe(1000);
    expect(h.encryptedMetadata.blockTypes).toHaveLength(BLOCKS);
    const v = await openFileVault2(sourceOf(base, IMAGE_SIZE), { passphrase: PASS });
    const sector = new Uint8Array(4096);
    await v.read(sector, 0);
    expect(String.fromCharCode(sector[1024], sector[1025])).toBe('H+');
    v.close();
  });

  it('the physical volume header: byte changes, its CRC-32C recomputed or left as it is', async () => {
    await fuzz(fc.record({ flips: flips(0, 512), fixHeader: fc.boolean() }), 0xf5ed1);
  });

  it('the metadata block and the volume groups descriptor: byte changes, the CRC-32C recomputed or not', async () => {
    await fuzz(
      fc.record({
        flips: fc.array(
          fc.oneof(flip(LABEL, LABEL + 256), flip(LABEL, DESCRIPTOR), flip(DESCRIPTOR, DESCRIPTOR + 48)),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fixLabel: fc.boolean(),
      }),
      0xf5ed2,
    );
  });

  it('the encrypted metadata as stored: byte changes (the checksums fail after decryption)', async () => {
    await fuzz(fc.record({ flips: flips(ENCRYPTED, ENCRYPTED + (BLOCKS + 1) * 8192, 2) }), 0xf5ed3, RUNS / 2);
  });

  it('the encrypted metadata in plaintext: byte changes in its binary fields and XML, CRC-32C recomputed, encrypted again', async () => {
    await fuzz(
      fc.record({
        block: fc.record({
          index: fc.integer({ min: 0, max: BLOCKS - 1 }),
          // the 64-byte block header and the type-specific fields after it, or anywhere (the XML)
          flips: fc.array(fc.oneof(flip(8, 200), flip(8, 8192)), { minLength: 1, maxLength: 4 }),
        }),
      }),
      0xf5ed4,
      RUNS * 2,
    );
  });

  it('the keys in the plist: byte changes inside the PassphraseWrappedKEKStruct and KEKWrappedVolumeKeyStruct', async () => {
    await fuzz(
      fc.record({
        struct: fc.record({
          which: fc.constantFrom('pwk' as const, 'kwvk' as const),
          // the sizes and the iteration count (PWK 0…32, 168…172; KWVK 0…8), or anywhere
          flips: fc.array(fc.oneof(flip(0, 32), flip(164, 176), flip(0, 284)), { minLength: 1, maxLength: 3 }),
        }),
      }),
      0xf5ed5,
      RUNS * 2,
    );
  });

  it('the plists: a text or an element name replaced', async () => {
    await fuzz(
      fc.record({
        xml: fc.record({
          index: fc.integer({ min: 1, max: BLOCKS - 1 }),
          kind: fc.constantFrom('text' as const, 'name' as const),
          node: fc.nat(400),
          value: fc.oneof(fc.constantFrom(...XML_VALUES), fc.constantFrom(...XML_NAMES), fc.string({ maxLength: 12 })),
        }),
      }),
      0xf5ed6,
      RUNS * 2,
    );
  });

  it('truncation at every length where something starts or ends', async () => {
    const edges = [0, 1, 88, 90, 511, 512, LABEL - 1, LABEL, DESCRIPTOR, DESCRIPTOR + 48, ENCRYPTED];
    for (let i = 1; i <= BLOCKS + 1; i++) edges.push(ENCRYPTED + i * 8192);
    edges.push(FACTS.logicalVolumeOffset, FACTS.logicalVolumeOffset + 4096);
    edges.push(FACTS.logicalVolumeOffset + FACTS.logicalVolumeSize);
    for (const e of edges)
      for (const d of [-1, 0, 1]) {
        const length = e + d;
        if (length < 0) continue;
        const problems = await run(base, length);
        expect({ length, problems }).toEqual({ length, problems: [] });
      }
  });

  it('replays the failures kept in fixtures/fuzz/', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json')).sort();
    for (const f of files) {
      const m = JSON.parse(await readFile(join(FIXTURES, f), 'utf8')) as Mutation & { expect?: string };
      const image = apply(m);
      expect({ f, problems: await run(image, m.truncate) }).toEqual({ f, problems: [] });
      if (m.expect !== undefined) {
        const got = await readFileVault2Header(sourceOf(image, m.truncate ?? IMAGE_SIZE)).then(
          () => 'accepts',
          (e: Error) => e.message,
        );
        expect({ f, got }).toEqual({ f, got: expect.stringMatching(new RegExp(m.expect)) });
      }
    }
  });
});

/** Runs cryptsetup with `input` on standard input; whether it exited 0, and its output. */
function cryptsetup(args: string[], input = ''): Promise<{ ok: boolean; out: string }> {
  const bin = cryptsetupStatus().path!;
  return new Promise((resolve) => {
    const child = execFile(bin, args, { encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: `${stdout}${stderr}` }),
    );
    child.stdin!.on('error', () => {}); // cryptsetup may exit before it reads the passphrase
    child.stdin!.end(input);
  });
}

/** Writes the image as a sparse file of `size` bytes: only the 4 KiB pages of `head` that are not zeros. */
async function writeSparse(path: string, head: Uint8Array, size: number): Promise<void> {
  const f = await open(path, 'w');
  try {
    await f.truncate(size);
    for (let at = 0; at < Math.min(head.length, size); at += 4096) {
      const page = head.subarray(at, Math.min(at + 4096, size));
      if (page.some((x) => x !== 0)) await f.write(page, 0, page.length, at);
    }
  } finally {
    await f.close();
  }
}

describeWithCryptsetup('against cryptsetup fvault2Dump and open --test-passphrase', () => {
  beforeAll(async () => {
    file ??= await openFileSource(fixtureImage());
    if (base === undefined) {
      base = rewrite(imagePrefix(HEADER_BYTES), 1, (block) =>
        editXml(block, (xml) => {
          const { struct, put } = passphraseWrappedKek(xml);
          return put(rewrapKek(struct, PASS, 1000));
        }),
      );
    }
  });

  it('where @x/filevault2 reads a header or opens with the passphrase, cryptsetup does too', async () => {
    const seeds: [fc.Arbitrary<Mutation>, number][] = [
      [fc.record({ flips: flips(0, 512, 2), fixHeader: fc.constant(true) }), 0xc5ed1],
      [
        fc.record({
          flips: fc.array(fc.oneof(flip(LABEL, LABEL + 256), flip(DESCRIPTOR, DESCRIPTOR + 48)), {
            minLength: 1,
            maxLength: 2,
          }),
          fixLabel: fc.constant(true),
        }),
        0xc5ed2,
      ],
      [
        fc.record({
          block: fc.record({
            index: fc.integer({ min: 0, max: BLOCKS - 1 }),
            flips: fc.array(fc.oneof(flip(8, 200), flip(8, 8192)), { minLength: 1, maxLength: 2 }),
          }),
        }),
        0xc5ed3,
      ],
      [
        fc.record({
          struct: fc.record({
            which: fc.constantFrom('pwk' as const, 'kwvk' as const),
            flips: fc.array(fc.oneof(flip(0, 32), flip(164, 176), flip(0, 284)), { minLength: 1, maxLength: 2 }),
          }),
        }),
        0xc5ed4,
      ],
      [
        fc.record({
          xml: fc.record({
            index: fc.integer({ min: 1, max: BLOCKS - 1 }),
            kind: fc.constantFrom('text' as const, 'name' as const),
            node: fc.nat(400),
            value: fc.oneof(fc.constantFrom(...XML_VALUES), fc.constantFrom(...XML_NAMES)),
          }),
        }),
        0xc5ed5,
      ],
    ];
    const corpus = seeds.flatMap(([arb, seed]) => fc.sample(arb, { seed, numRuns: Math.ceil(RUNS / 2) }));
    const dir = await mkdtemp(join(tmpdir(), 'x-fvault2-fuzz-'));
    const lenient: string[] = [];
    const stricter = new Map<string, number>();
    let bothAccept = 0;

    try {
      await mapLimit(corpus, 2, async (m, i) => {
        const image = apply(m);
        const path = join(dir, `c${i}.img`);
        await writeSparse(path, image, IMAGE_SIZE);
        const source = sourceOf(image, IMAGE_SIZE);
        const ours = {
          dump: await readFileVault2Header(source).then(
            () => '',
            (e: Error) => e.message,
          ),
          open: await openFileVault2(source, { passphrase: PASS, maxIterations: MAX_ITERATIONS }).then(
            (v) => {
              v.close();
              return '';
            },
            (e: Error) => e.message,
          ),
        };
        const dump = await cryptsetup(['fvault2Dump', '--disable-locks', path]);
        // cryptsetup's iteration count, so that it is not asked to derive above the bound (it has none)
        const iterations = Number(/PBKDF2 iterations:\s*(\d+)/.exec(dump.out)?.[1] ?? Number.NaN);
        // open --test-passphrase where it can tell something: where ours opens (it must too), or where ours
        // reads the header and refuses to open (a difference to count); not where ours refused the header
        const test =
          dump.ok && iterations <= MAX_ITERATIONS && (ours.open === '' || ours.dump === '')
            ? await cryptsetup(
                ['open', '--test-passphrase', '--disable-locks', '--type', 'fvault2', '--key-file', '-', path],
                PASS,
              )
            : undefined;
        await rm(path);
        const record = (what: string, oursMessage: string, theirs: boolean | undefined) => {
          if (oursMessage === '' && theirs === false) lenient.push(JSON.stringify({ what, ...m }));
          if (oursMessage !== '' && theirs === true) {
            const key = `${what}: ${oursMessage
              .replace(/^@x\/filevault2: /, '')
              .replace(NUMBERS, 'N')
              .slice(0, 70)}`;
            stricter.set(key, (stricter.get(key) ?? 0) + 1);
          }
        };
        record('dump', ours.dump, dump.ok);
        if (test === undefined && dump.ok && ours.open === '' && iterations > MAX_ITERATIONS)
          lenient.push(JSON.stringify({ what: 'open above the bound', ...m }));
        record('open', ours.open, test?.ok);
        if (ours.open === '' && test?.ok) bothAccept++;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    console.log(
      `fuzz: ${corpus.length} changed images against cryptsetup: ${bothAccept} open in both, ${lenient.length} accepted by us and refused by cryptsetup; stricter than cryptsetup:\n  ${[
        ...stricter,
      ]
        .sort()
        .map(([k, n]) => `${n}× ${k}`)
        .join('\n  ')}`,
    );
    expect(lenient).toEqual([]);
  });
});
