// Every resource bounded before it is spent, and the LUKS2 layout rules, on headers cryptsetup makes in the
// test run: each case breaks one rule or bound in a copy of a real container (both JSON copies rewritten
// with valid checksums by @x/containers' editLuks2Json, or the JSON area bytes by hand, or the file cut),
// then checks that
// - readHeader (what `x-luks dump` prints) accepts or refuses it with the expected message;
// - openLuks refuses it with the expected message and error class, before any key derivation (each of the
//   two calls is watched for a derivation or a large allocation slipping in: the derivations are counted
//   through a logging src/kdf.js, kdf-work.ts, and the ArrayBuffer memory measured, not the time taken,
//   so that the checks hold on a loaded machine);
// - `cryptsetup luksDump` (cryptsetup 2.6, the oracle) agrees with readHeader: both accept or both refuse,
//   unless the case is listed in DELIBERATELY_STRICTER with the reason we refuse what cryptsetup shows.
// Then the bounds themselves: maxIterations, maxMemory, maxTimeCost at their edges, a keyslot above a bound
// passed over for one that opens, and the options' own checks. (`x-luks` refusing such headers in one line is
// tested with the command, in @x/cli.)
//
// The cryptsetup sources the rules come from (v2.6.1): lib/luks2/luks2_disk_metadata.c (validate_json_area,
// LUKS2_disk_hdr_read), lib/luks2/luks2_json_metadata.c (LUKS2_hdr_validate and its hdr_validate_* checks,
// validate_intervals), lib/luks2/luks2_keyslot.c (LUKS2_keyslots_validate), lib/luks2/luks2.h
// (LUKS2_KEYSLOTS_MAX, LUKS2_MAX_KEYSLOTS_SIZE), lib/crypto_backend/pbkdf_check.c (Argon2 limits).
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { argon2Runtime } from '@x/kdf';
import {
  type Container,
  convertToLuks1,
  describeWithCryptsetup,
  editLuks2Json,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  runCryptsetup,
  resealLuks2Copy,
} from '@x/containers';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  HeaderError,
  LuksError,
  type Luks2Header,
  type OpenOptions,
  openLuks,
  readHeader,
  WrongPassphraseError,
} from '../src/index.js';
import { sameBytes } from './helpers.js';
import { aboveLimits, type Derivation, derivations, failAbove, resetDerivations } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

// biome-ignore lint/suspicious/noExplicitAny: the cases rewrite arbitrary fields of the header's JSON
type Json = any;

/** Cases where readHeader refuses a header `cryptsetup luksDump` shows, and why. */
const DELIBERATELY_STRICTER: Record<string, string> = {
  '33 keyslots':
    'cryptsetup 2.6 never makes more than 32 keyslots (LUKS2_KEYSLOTS_MAX; luksAddKey refuses a 33rd) and its ' +
    'luksDump and open only ever look at keyslots 0 … 31; a header with more was not made by cryptsetup, and ' +
    'each keyslot would cost a key derivation',
  'keyslot id 32':
    'cryptsetup skips a keyslot numbered 32 or more everywhere (its loops run to LUKS2_KEYSLOTS_MAX): luksDump ' +
    'does not show it; we refuse the header rather than silently ignore part of it',
};

const MiB = 1024 * 1024;
/** The costs of the containers made here (cryptsetup's forced minimums): a case that opens derives no more. */
const BASE_COST = { maxIterations: 1000, maxTimeCost: 4, maxMemory: 32 };
/** ArrayBuffer growth over one call that counts as a large allocation (the cases' images are 64 KiB of data). */
const LARGE = 256 * MiB;

let base: { pbkdf2: Container; argon2: Container; two: Container; luks1: Container };
let dir: string;
const pass = randomBytes(9).toString('hex');
const pass2 = randomBytes(9).toString('hex');

/** The LUKS2 geometry of a container: hdr_size, where its keyslots area ends, keyslot 0's area. */
function geometry(image: Uint8Array, json: Json) {
  const hdr = Number(Buffer.from(image.buffer, image.byteOffset, 16).readBigUInt64BE(8));
  const end = 2 * hdr + Number(json.config.keyslots_size);
  const area = { offset: Number(json.keyslots['0'].area.offset), size: Number(json.keyslots['0'].area.size) };
  return { hdr, end, area, segment: Number(json.segments['0'].offset) };
}

/** The JSON of a container's primary copy. */
function jsonOf(image: Uint8Array): Json {
  const hdr = Number(Buffer.from(image.buffer, image.byteOffset, 16).readBigUInt64BE(8));
  const area = image.subarray(4096, hdr);
  return JSON.parse(Buffer.from(area.subarray(0, area.indexOf(0))).toString());
}

/** Rewrites the JSON area bytes of both copies (or of `only` one) and recomputes their checksums. */
async function rewriteAreas(path: string, edit: (area: Uint8Array) => void, only?: 0 | 1): Promise<void> {
  const b = new Uint8Array(await readFile(path));
  const hdr = Number(Buffer.from(b.buffer, b.byteOffset, 16).readBigUInt64BE(8));
  expect(Buffer.from(b.subarray(72, 78)).toString()).toBe('sha256'); // csum_alg, as cryptsetup writes it
  for (const [i, off] of [0, hdr].entries()) {
    if (only !== undefined && i !== only) continue;
    edit(b.subarray(off + 4096, off + hdr));
    resealLuks2Copy(b, off, hdr);
  }
  await writeFile(path, b);
}

const nested = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
};

/** A copy of keyslot 0 as keyslot `id`, its area `size` bytes at `offset`, named by digest 0 unless `orphan`. */
function addKeyslot(j: Json, id: string, offset: number, size: number, orphan = false) {
  const k = structuredClone(j.keyslots['0']);
  k.area.offset = String(offset);
  k.area.size = String(size);
  j.keyslots[id] = k;
  if (!orphan) j.digests['0'].keyslots.push(id);
}

interface Case {
  readonly name: string;
  readonly base?: 'pbkdf2' | 'argon2';
  /** Changes both JSON copies (editLuks2Json); `g` is the container's geometry. */
  readonly json?: (j: Json, g: ReturnType<typeof geometry>) => void;
  /** Changes the file some other way. */
  readonly file?: (path: string, g: ReturnType<typeof geometry>) => Promise<void>;
  /** What readHeader says: 'accepts', or the message it refuses with. */
  readonly header: 'accepts' | RegExp;
  /** What openLuks says: 'opens', or the message it refuses with. */
  readonly open: 'opens' | RegExp;
  /** The class openLuks refuses with (default HeaderError). */
  readonly error?: typeof LuksError;
  readonly options?: Partial<OpenOptions>;
}

const CASES: Case[] = [
  // ------------------------------------------------------------------ keyslots
  {
    name: '33 keyslots',
    json: (j, g) => {
      for (let i = 1; i < 33; i++) addKeyslot(j, String(i), g.area.offset + g.area.size + (i - 1) * 4096, 4096);
    },
    header: /^@x\/luks: LUKS2 metadata: 33 keyslots; LUKS2 has at most 32 \(cryptsetup's LUKS2_KEYSLOTS_MAX\)$/,
    open: /33 keyslots; LUKS2 has at most 32/,
  },
  {
    name: 'keyslot id 32',
    json: (j) => {
      j.keyslots['32'] = j.keyslots['0'];
      delete j.keyslots['0'];
      j.digests['0'].keyslots = ['32'];
    },
    header: /^@x\/luks: LUKS2 metadata: keyslot 32: keyslots are numbered 0 … 31/,
    open: /keyslot 32: keyslots are numbered 0 … 31/,
  },
  {
    name: 'keyslot key_size 10^9',
    json: (j) => {
      j.keyslots['0'].key_size = 1e9;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.key_size 1000000000 is not within 1 … 512 bytes \(4096 bits\)$/,
  },
  {
    name: 'keyslot key_size 2^32',
    json: (j) => {
      j.keyslots['0'].key_size = 2 ** 32;
    },
    header: /^@x\/luks: LUKS2 metadata: keyslot 0\.key_size 4294967296 is not within 0 … 2\^32 − 1$/,
    open: /key_size 4294967296 is not within 0 … 2\^32 − 1/,
  },
  {
    name: 'keyslot key_size 48, not one the segment cipher takes',
    json: (j) => {
      j.keyslots['0'].key_size = 48;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.key_size 48: aes-xts-plain64 takes a key of 32 or 64 bytes, got 48$/,
  },
  {
    name: 'area key_size 48, not one the area cipher takes',
    json: (j) => {
      j.keyslots['0'].area.key_size = 48;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.area\.key_size 48: aes-xts-plain64 takes a key of 32 or 64 bytes, got 48$/,
  },
  {
    name: 'area key_size 10^9 (a KDF output of 1 GB)',
    json: (j) => {
      j.keyslots['0'].area.key_size = 1e9;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.area\.key_size 1000000000 is not within 1 … 512 bytes/,
  },
  // ------------------------------------------------------------------ keyslot areas
  {
    name: 'area at offset 0',
    json: (j) => {
      j.keyslots['0'].area.offset = '0';
    },
    header: /^@x\/luks: LUKS2 metadata: keyslot 0\.area \[0, \d+\) is not inside the keyslots area \[32768, \d+\)$/,
    open: /is not inside the keyslots area/,
  },
  {
    name: 'area inside the secondary header',
    json: (j, g) => {
      j.keyslots['0'].area.offset = String(g.hdr);
    },
    header: /keyslot 0\.area \[16384, \d+\) is not inside the keyslots area/,
    open: /is not inside the keyslots area/,
  },
  {
    name: 'area past the keyslots area',
    json: (j, g) => {
      j.keyslots['0'].area.offset = String(g.end - 4096);
    },
    header: /keyslot 0\.area \[\d+, \d+\) is not inside the keyslots area \[32768, \d+\)/,
    open: /is not inside the keyslots area/,
  },
  {
    name: 'area of size 0',
    json: (j) => {
      j.keyslots['0'].area.size = '0';
    },
    header: /^@x\/luks: LUKS2 metadata: keyslot 0\.area\.size is 0$/,
    open: /keyslot 0\.area\.size is 0/,
  },
  {
    name: 'overlapping areas',
    json: (j, g) => addKeyslot(j, '1', g.area.offset + 4096, g.area.size),
    header: /^@x\/luks: LUKS2 metadata: keyslot 1\.area \[\d+, \d+\) overlaps keyslot 0\.area \[32768, \d+\)$/,
    open: /overlaps keyslot 0\.area/,
  },
  {
    name: 'area smaller than its key material',
    json: (j) => {
      j.keyslots['0'].area.size = '4096';
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0: key material \(128000 bytes\) does not fit its area \(4096\)$/,
  },
  {
    name: 'image that ends inside the keyslots area',
    file: (path, g) => truncate(path, g.area.offset + g.area.size + 4096),
    header:
      /^@x\/luks: the image \(\d+ bytes\) ends before the payload offset \d+ \(truncated\?\): its two LUKS2 header copies and keyslots area take \d+ bytes$/,
    open: /ends before the payload offset/,
  },
  // ------------------------------------------------------------------ segments
  {
    name: 'segment that starts inside the keyslots area',
    json: (j) => {
      j.segments['0'].offset = '65536';
    },
    header:
      /^@x\/luks: LUKS2 metadata: segment 0\.offset 65536 is inside the LUKS2 header and keyslots area, which ends at \d+ \(2 × hdr_size 16384 \+ config\.keyslots_size \d+\)$/,
    open: /segment 0\.offset 65536 is inside the LUKS2 header and keyslots area/,
  },
  {
    name: 'segment size 2^64 − 512 (valid LUKS2)',
    json: (j) => {
      j.segments['0'].size = String(2n ** 64n - 512n);
    },
    header: 'accepts',
    open: /^@x\/luks: the payload \(18446744073709551104 bytes at \d+\) is past the end of the image \(truncated\?\)$/,
  },
  {
    name: 'segment size 2^64',
    json: (j) => {
      j.segments['0'].size = String(2n ** 64n);
    },
    header: /^@x\/luks: LUKS2 metadata: segment 0\.size 18446744073709551616 is above 2\^64 − 1$/,
    open: /is above 2\^64 − 1/,
  },
  {
    name: 'segment offset 2^60 (valid LUKS2)',
    json: (j) => {
      j.segments['0'].offset = String(2n ** 60n);
    },
    header: 'accepts',
    open: /^@x\/luks: the image \(\d+ bytes\) ends before the payload offset 1152921504606846976 \(truncated\?\)$/,
  },
  // ------------------------------------------------------------------ digests
  {
    name: 'digest that names a missing keyslot',
    json: (j) => {
      j.digests['0'].keyslots.push('5');
    },
    header: /^@x\/luks: LUKS2 metadata: digest 0\.keyslots names keyslot 5, which does not exist$/,
    open: /names keyslot 5, which does not exist/,
  },
  {
    name: 'digest that names a missing segment',
    json: (j) => {
      j.digests['0'].segments.push('3');
    },
    header: /^@x\/luks: LUKS2 metadata: digest 0\.segments names segment 3, which does not exist$/,
    open: /names segment 3, which does not exist/,
  },
  {
    name: 'keyslot that no digest names',
    json: (j, g) => addKeyslot(j, '1', g.area.offset + g.area.size, g.area.size, true),
    header: /^@x\/luks: LUKS2 metadata: keyslot 1 is named by 0 digests; a luks2 keyslot belongs to exactly one$/,
    open: /keyslot 1 is named by 0 digests/,
  },
  {
    name: 'crypt segment that no digest names',
    json: (j) => {
      j.digests['0'].segments = [];
    },
    header: /^@x\/luks: LUKS2 metadata: segment 0 is a crypt segment that no digest names$/,
    open: /no digest names/,
  },
  {
    name: 'digest with 2^32 iterations',
    json: (j) => {
      j.digests['0'].iterations = 2 ** 32;
    },
    header: 'accepts',
    open: /^@x\/luks: digest 0\.iterations 4294967296 is above 2\^32 − 1 \(cryptsetup counts PBKDF2 iterations in 32 bits\)$/,
  },
  {
    name: 'digest with 2^32 − 1 iterations',
    json: (j) => {
      j.digests['0'].iterations = 2 ** 32 - 1;
    },
    header: 'accepts',
    open: /^@x\/luks: digest 0\.iterations 4294967295 is above maxIterations, 67108864 \(raise options\.maxIterations to try it\)$/,
  },
  {
    name: 'digest with 0 iterations',
    json: (j) => {
      j.digests['0'].iterations = 0;
    },
    header: 'accepts',
    open: /^@x\/luks: digest 0\.iterations is 0; PBKDF2 needs at least 1$/,
  },
  {
    name: 'digest of 10 bytes',
    json: (j) => {
      j.digests['0'].digest = Buffer.alloc(10).toString('base64');
    },
    header: 'accepts',
    open: /^@x\/luks: digest 0\.digest is 10 bytes, not 20 or 32 \(the sha256 size\)$/,
  },
  // ------------------------------------------------------------------ PBKDF2 keyslots
  {
    name: 'keyslot with 0 iterations',
    json: (j) => {
      j.keyslots['0'].kdf.iterations = 0;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf\.iterations is 0; PBKDF2 needs at least 1$/,
  },
  {
    name: 'keyslot with 2^26 + 1 iterations',
    json: (j) => {
      j.keyslots['0'].kdf.iterations = 2 ** 26 + 1;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf\.iterations 67108865 is above maxIterations, 67108864/,
  },
  {
    name: 'keyslot with 2^64 iterations',
    json: (j) => {
      j.keyslots['0'].kdf.iterations = 2 ** 64;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf\.iterations \d+ is above 2\^32 − 1/,
  },
  {
    name: 'keyslot salt of 10 bytes',
    json: (j) => {
      j.keyslots['0'].kdf.salt = Buffer.alloc(10).toString('base64');
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf\.salt is 10 bytes, not 32$/,
  },
  // ------------------------------------------------------------------ Argon2 keyslots
  {
    name: 'argon2 memory above cryptsetup’s 4 GiB',
    base: 'argon2',
    json: (j) => {
      j.keyslots['0'].kdf.memory = 4 * MiB + 1;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf: argon2 cost out of range: memory 4194305 KiB is above 4194304 KiB \(4 GiB\), cryptsetup's maximum$/,
  },
  {
    name: 'argon2 memory above maxMemory',
    base: 'argon2',
    options: { maxMemory: 16 },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf: argon2 cost out of range: memory 32 KiB is above maxMemory, 16 KiB \(raise options\.maxMemory to try it\)$/,
  },
  {
    name: 'argon2 time 2^32',
    base: 'argon2',
    json: (j) => {
      j.keyslots['0'].kdf.time = 2 ** 32;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf: argon2 cost out of range: time 4294967296 is not within 1 … 2\^32 − 1$/,
  },
  {
    name: 'argon2 time above maxTimeCost',
    base: 'argon2',
    json: (j) => {
      j.keyslots['0'].kdf.time = 2 ** 16 + 1;
    },
    header: 'accepts',
    open: /^@x\/luks: keyslot 0\.kdf: argon2 cost out of range: time 65537 is above maxTimeCost, 65536/,
  },
  {
    name: 'argon2 time 0',
    base: 'argon2',
    json: (j) => {
      j.keyslots['0'].kdf.time = 0;
    },
    header: 'accepts',
    open: /argon2 cost out of range: time 0 is not within 1 … 2\^32 − 1$/,
  },
  {
    name: 'argon2 cpus 0',
    base: 'argon2',
    json: (j) => {
      j.keyslots['0'].kdf.cpus = 0;
    },
    header: 'accepts',
    open: /argon2 cost out of range: cpus 0 is not within 1 … 16$/,
  },
  // ------------------------------------------------------------------ the JSON area and config
  {
    name: 'JSON nested 31 levels below the top object (json-c’s limit)',
    json: (j) => {
      j.x = nested(31);
    },
    header: 'accepts',
    open: 'opens',
  },
  {
    name: 'JSON nested 32 levels below the top object',
    json: (j) => {
      j.x = nested(32);
    },
    header:
      /^@x\/luks: LUKS2 metadata: the JSON is nested deeper than 32 levels \(cryptsetup's JSON parser, json-c, stops there\)$/,
    open: /nested deeper than 32 levels/,
  },
  {
    name: 'JSON nested 3000 deep',
    json: (j) => {
      j.tokens = { '0': { type: 'x', keyslots: [], deep: nested(3000) } };
    },
    header: /the JSON is nested deeper than 32 levels/,
    open: /nested deeper than 32 levels/,
  },
  {
    name: 'non-zero bytes after the JSON text',
    file: (path) =>
      rewriteAreas(path, (area) => {
        area[area.length - 10] = 0x41;
      }),
    header: /^@x\/luks: LUKS2 metadata: the JSON area holds non-zero bytes after its JSON text \(at byte \d+\)$/,
    open: /non-zero bytes after its JSON text/,
  },
  {
    name: 'JSON area that does not start with "{"',
    file: (path) =>
      rewriteAreas(path, (area) => {
        area.copyWithin(1, 0, area.indexOf(0));
        area[0] = 0x20;
      }),
    header: /^@x\/luks: LUKS2 metadata: the JSON area does not start with "\{"$/,
    open: /does not start with/,
  },
  {
    name: 'config.json_size that is not the header’s',
    json: (j) => {
      j.config.json_size = '8192';
    },
    header:
      /^@x\/luks: LUKS2 metadata: config\.json_size 8192 \+ 4096 is not a header size LUKS2 allows \(16 KiB … 4 MiB, powers of two\)$/,
    open: /config\.json_size 8192/,
  },
  {
    name: 'config.json_size as a number',
    json: (j) => {
      j.config.json_size = 12288;
    },
    header: /^@x\/luks: LUKS2 metadata: config\.json_size is not a non-empty string$/,
    open: /config\.json_size is not a non-empty string/,
  },
  {
    name: 'config.keyslots_size not a multiple of 4096',
    json: (j) => {
      j.config.keyslots_size = String(Number(j.config.keyslots_size) - 512);
    },
    header: /^@x\/luks: LUKS2 metadata: config\.keyslots_size \d+ is not a multiple of 4096$/,
    open: /is not a multiple of 4096/,
  },
  {
    name: 'config.keyslots_size above 128 MiB',
    json: (j) => {
      j.config.keyslots_size = String(128 * MiB + 4096);
    },
    header:
      /^@x\/luks: LUKS2 metadata: config\.keyslots_size 134221824 is above 134217728 \(128 MiB, cryptsetup's maximum\)$/,
    open: /above 134217728/,
  },
  {
    name: 'config.keyslots_size that reaches into the segment',
    json: (j, g) => {
      j.config.keyslots_size = String(g.segment - 2 * g.hdr + 4096);
    },
    header: /segment 0\.offset \d+ is inside the LUKS2 header and keyslots area/,
    open: /is inside the LUKS2 header and keyslots area/,
  },
];

/** The default maxMemory here: cryptsetup's 4 GiB, at most half of this machine's memory. */
const defaultMaxMemory = () => Math.min(4 * MiB, Math.floor(totalmem() / 2048));

describeWithCryptsetup('bounded resources and LUKS2 layout rules, against cryptsetup luksDump', () => {
  beforeAll(async () => {
    // a derivation above openLuks' default bounds fails at once by name, rather than running for minutes
    failAbove({ maxIterations: 2 ** 26, maxTimeCost: 2 ** 16, maxMemory: defaultMaxMemory() });
    dir = await mkdtemp(join(tmpdir(), 'x-luks-bounds-'));
    const common = { cipher: 'aes-xts-plain64', keySize: 256, dataSize: 64 * 1024 };
    const [pbkdf2, argon2, two] = await mapLimit(
      [
        { ...common, sectorSize: 512, passphrases: [pass], pbkdf: { type: 'pbkdf2' as const } },
        {
          ...common,
          sectorSize: 4096,
          passphrases: [pass],
          pbkdf: { type: 'argon2id' as const, memoryKiB: 32, iterations: 4 },
        },
        { ...common, sectorSize: 512, passphrases: [pass, pass2], pbkdf: { type: 'pbkdf2' as const } },
      ],
      3,
      (spec) => makeLuks2Container(spec),
    );
    base = { pbkdf2, argon2, two, luks1: await convertToLuks1(pbkdf2) };
  });
  afterAll(async () => {
    failAbove(undefined);
    await removeAllContainers();
    await rm(dir, { recursive: true, force: true });
  });

  /** A copy of a base container with `c` applied; its bytes. */
  async function make(c: Case, i: number): Promise<{ path: string; image: Uint8Array }> {
    const from = base[c.base ?? 'pbkdf2'];
    const path = join(dir, `case-${i}.img`);
    await copyFile(from.path, path);
    const original = new Uint8Array(await readFile(path));
    const g = geometry(original, jsonOf(original));
    if (c.json) await editLuks2Json(path, (j) => c.json!(j, g));
    if (c.file) await c.file(path, g);
    return { path, image: new Uint8Array(await readFile(path)) };
  }

  async function luksDumpAccepts(path: string): Promise<boolean> {
    return runCryptsetup(['luksDump', '--disable-locks', path]).then(
      () => true,
      () => false,
    );
  }

  /** What `f` gives, with the key derivations it asked for and how much its ArrayBuffer memory grew. */
  async function watched<T>(
    f: () => Promise<T>,
  ): Promise<{ value: T | undefined; error: unknown; derived: Derivation[]; grew: number }> {
    resetDerivations();
    const before = process.memoryUsage().arrayBuffers;
    const outcome = await f().then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    return { ...outcome, derived: [...derivations], grew: process.memoryUsage().arrayBuffers - before };
  }

  it('the cases are what the containers are: aes-xts-plain64 with 32-byte keys, hdr_size 16384', async () => {
    for (const c of [base.pbkdf2, base.argon2]) {
      const image = new Uint8Array(await readFile(c.path));
      const j = jsonOf(image);
      expect(geometry(image, j).hdr).toBe(16384);
      expect(j.keyslots['0'].key_size).toBe(32);
      expect(j.segments['0'].encryption).toBe('aes-xts-plain64');
      expect(j.segments['0'].sector_size).toBe(c === base.pbkdf2 ? 512 : 4096);
    }
    expect(jsonOf(new Uint8Array(await readFile(base.argon2.path))).keyslots['0'].kdf).toMatchObject({
      type: 'argon2id',
      memory: 32,
      time: 4,
    });
  });

  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (name, c, i) => {
    const { path, image } = await make(c, i);

    const h = await watched(() => readHeader(image));
    expect(h.derived).toEqual([]);
    expect(h.grew).toBeLessThan(LARGE);
    if (c.header === 'accepts') expect(h.error).toBeUndefined();
    else {
      expect(h.error).toBeInstanceOf(HeaderError);
      expect((h.error as Error).message).toMatch(c.header);
    }

    const o = await watched(() => openLuks(image, { passphrase: pass, ...c.options }));
    expect(o.grew).toBeLessThan(LARGE);
    if (c.open === 'opens') {
      expect(o.error).toBeUndefined();
      expect(o.derived.length).toBeGreaterThan(0); // the derivations are counted (the mock is in place)
      expect(aboveLimits(o.derived, BASE_COST)).toEqual([]);
      const v = o.value!;
      const plain = new Uint8Array(v.payloadSize);
      await v.read(plain, 0);
      expect(sameBytes(plain, base[c.base ?? 'pbkdf2'].original)).toBe(true);
    } else {
      expect(o.derived).toEqual([]); // refused before any key derivation
      expect(o.error).toBeInstanceOf(c.error ?? HeaderError);
      expect((o.error as Error).message).toMatch(c.open);
      expect((o.error as Error).message).not.toMatch(/\n|Maximum call stack/);
    }

    // cryptsetup luksDump, the oracle: it agrees, or the case is listed as deliberately stricter
    const cryptsetup = await luksDumpAccepts(path);
    const ours = c.header === 'accepts';
    if (name in DELIBERATELY_STRICTER) {
      expect({ cryptsetup, ours }).toEqual({ cryptsetup: true, ours: false });
    } else {
      expect({ name, cryptsetup }).toEqual({ name, cryptsetup: ours });
    }
  });

  it('the DELIBERATELY_STRICTER table names only cases that exist', () => {
    for (const name of Object.keys(DELIBERATELY_STRICTER)) expect(CASES.map((c) => c.name)).toContain(name);
  });

  it('argon2 memory of 4 GiB, cryptsetup’s maximum: opened where the runtime can, else refused in one line', async () => {
    const c: Case = {
      name: 'argon2 4 GiB',
      base: 'argon2',
      json: (j) => {
        j.keyslots['0'].kdf.memory = 4 * MiB;
      },
      header: 'accepts',
      open: /./,
    };
    const { path, image } = await make(c, 1000);
    expect(((await readHeader(image)) as Luks2Header).keyslots[0].kdf).toMatchObject({ memory: 4 * MiB });
    expect(await luksDumpAccepts(path)).toBe(true);
    const runtime = argon2Runtime();
    // where the machine or the runtime cannot, the refusal comes first; where both can (a native Argon2 and
    // 8 GiB of memory or more) the derivation would run for seconds over 4 GiB: maxMemory stops it here
    const canAllocate = defaultMaxMemory() >= 4 * MiB && runtime.maxMemory >= 4 * MiB;
    const o = await watched(() =>
      openLuks(image, { passphrase: pass, ...(canAllocate ? { maxMemory: 4 * MiB - 1 } : {}) }),
    );
    expect(o.derived).toEqual([]); // refused before the derivation, whichever the reason
    expect(o.grew).toBeLessThan(LARGE);
    if (canAllocate) {
      expect(o.error).toBeInstanceOf(HeaderError);
      expect((o.error as Error).message).toMatch(/memory 4194304 KiB is above maxMemory, 4194303 KiB/);
    } else if (defaultMaxMemory() < 4 * MiB) {
      expect(o.error).toBeInstanceOf(HeaderError);
      expect((o.error as Error).message).toMatch(`memory 4194304 KiB is above maxMemory, ${defaultMaxMemory()} KiB`);
    } else {
      expect(runtime).toEqual({ backend: 'hash-wasm', maxMemory: 4194175 });
      expect(o.error).toBeInstanceOf(LuksError);
      expect(o.error).not.toBeInstanceOf(HeaderError);
      expect((o.error as Error).message).toBe(
        '@x/luks: keyslot 0: Argon2 memory of 4194304 KiB cannot be allocated in this runtime (its Argon2, hash-wasm, holds at most 4194175 KiB; Node ≥ 24.7 has a native Argon2 that can)',
      );
    }
  });

  it('maxIterations, maxTimeCost and maxMemory: a volume at the bound opens, one above is refused', async () => {
    const img = new Uint8Array(await readFile(base.pbkdf2.path));
    const j = jsonOf(img);
    const most = Math.max(j.keyslots['0'].kdf.iterations, j.digests['0'].iterations);
    expect((await openLuks(img, { passphrase: pass, maxIterations: most })).keyslot).toBe('0');
    await expect(openLuks(img, { passphrase: pass, maxIterations: most - 1 })).rejects.toThrow(
      new RegExp(`iterations ${most} is above maxIterations, ${most - 1}`),
    );
    const a = new Uint8Array(await readFile(base.argon2.path));
    expect((await openLuks(a, { passphrase: pass, maxTimeCost: 4, maxMemory: 32 })).keyslot).toBe('0');
    await expect(openLuks(a, { passphrase: pass, maxTimeCost: 3 })).rejects.toThrow(/time 4 is above maxTimeCost, 3/);
    await expect(openLuks(a, { passphrase: pass, maxMemory: 31 })).rejects.toThrow(/memory 32 KiB is above maxMemory/);
    // the volume key needs the digest only: its bound applies, the keyslots' do not
    await expect(
      openLuks(img, { volumeKey: base.pbkdf2.volumeKey, maxIterations: j.digests['0'].iterations - 1 }),
    ).rejects.toThrow(/digest 0\.iterations \d+ is above maxIterations/);
  });

  it('a keyslot above a bound is passed over for one that opens, and named when none does', async () => {
    const path = join(dir, 'two.img');
    await copyFile(base.two.path, path);
    await editLuks2Json(path, (j: Json) => {
      j.keyslots['0'].kdf.iterations = 2 ** 27;
    });
    const img = new Uint8Array(await readFile(path));
    resetDerivations();
    expect((await openLuks(img, { passphrase: pass2 })).keyslot).toBe('1');
    const err = await openLuks(img, { passphrase: pass }).catch((e: unknown) => e);
    // keyslot 1 derived (for both passphrases), keyslot 0's 2^27 iterations never
    expect(derivations.length).toBeGreaterThan(0);
    expect(aboveLimits(derivations, BASE_COST)).toEqual([]);
    expect(err).toBeInstanceOf(WrongPassphraseError);
    expect((err as Error).message).toBe(
      '@x/luks: no keyslot opens with this passphrase (tried 1; not tried: keyslot 0.kdf.iterations 134217728 is above maxIterations, 67108864 (raise options.maxIterations to try it))',
    );
    await expect(openLuks(img, { passphrase: pass, keyslot: 0 })).rejects.toThrow(HeaderError);
  });

  it('falls back to the secondary copy when the primary’s JSON breaks a rule (as cryptsetup does)', async () => {
    const path = join(dir, 'primary-bad.img');
    await copyFile(base.pbkdf2.path, path);
    let copy = 0;
    await editLuks2Json(path, (j: Json) => {
      if (copy++ === 0) j.keyslots['0'].area.offset = '0';
    });
    const img = new Uint8Array(await readFile(path));
    const h = (await readHeader(img)) as Luks2Header;
    expect(h.copy).toBe('secondary');
    expect(h.problems).toEqual([
      expect.stringMatching(
        /^primary header: LUKS2 metadata: keyslot 0\.area \[0, \d+\) is not inside the keyslots area/,
      ),
    ]);
    expect((await openLuks(img, { passphrase: pass })).keyslot).toBe('0');
    expect(await luksDumpAccepts(path)).toBe(true);
    // both copies broken, each its own way: the reason of the primary, the copy that would be used
    copy = 0;
    await editLuks2Json(path, (j: Json) => {
      if (copy++ === 1) j.segments['0'].offset = '65536';
    });
    await expect(readHeader(new Uint8Array(await readFile(path)))).rejects.toThrow(
      /^@x\/luks: LUKS2 metadata: keyslot 0\.area \[0, \d+\) is not inside the keyslots area/,
    );
  });

  it('LUKS1: the mk-digest and keyslot iterations are bounded too, before any derivation', async () => {
    const path = join(dir, 'luks1.img');
    for (const [at, what] of [
      [164, 'mk-digest'], // mk-digest-iter (LUKS1 spec §3.1, Figure 1)
      [208 + 4, 'keyslot 0'], // key-slot-1's iterations (Figure 2)
    ] as const) {
      await copyFile(base.luks1.path, path);
      const img = new Uint8Array(await readFile(path));
      new DataView(img.buffer, img.byteOffset).setUint32(at, 2 ** 32 - 1);
      await writeFile(path, img);
      expect((await readHeader(img)).version).toBe(1);
      expect(await luksDumpAccepts(path)).toBe(true);
      const o = await watched(() => openLuks(img, { passphrase: pass }));
      expect(o.derived).toEqual([]);
      expect(o.grew).toBeLessThan(LARGE);
      expect(o.error).toBeInstanceOf(HeaderError);
      expect((o.error as Error).message).toBe(
        `@x/luks: ${what}.iterations 4294967295 is above maxIterations, 67108864 (raise options.maxIterations to try it)`,
      );
    }
  });

  it('checks its options', async () => {
    const img = new Uint8Array(await readFile(base.pbkdf2.path));
    for (const [k, v, E, m] of [
      ['maxMemory', 0, RangeError, /options\.maxMemory must be a positive whole number, got 0/],
      ['maxIterations', 1.5, RangeError, /options\.maxIterations must be a positive whole number, got 1\.5/],
      ['maxTimeCost', -1, RangeError, /options\.maxTimeCost must be a positive whole number, got -1/],
      ['maxMemory', '1', TypeError, /options\.maxMemory must be a number/],
    ] as const) {
      const err = await openLuks(img, { passphrase: pass, [k]: v }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(E);
      expect((err as Error).message).toMatch(m);
    }
  });
});
