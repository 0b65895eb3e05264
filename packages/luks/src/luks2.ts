// The LUKS2 header: two copies of (binary header, JSON area), the secondary right after the primary
// (LUKS2 on-disk format, "Binary header" and "JSON area"; libluksde "Volume header - format version 2",
// "JSON area", "Backup volume header"). Each copy carries a checksum over its hdr_size bytes; a damaged
// copy is passed over for the other, and of two good copies the one with the higher seqid wins.
//
// The JSON is validated as cryptsetup 2.6 validates it before it uses a copy (lib/luks2/luks2_disk_metadata.c
// validate_json_area, lib/luks2/luks2_json_metadata.c LUKS2_hdr_validate, lib/luks2/luks2_keyslot.c
// LUKS2_keyslots_validate): a copy whose JSON breaks a rule is passed over for the other copy, as cryptsetup
// does. Numbers that only a key derivation uses (iterations, Argon2 costs) are bounded by `openLuks`, before
// any derivation, not here: `cryptsetup luksDump` shows them whatever they are.
import { cString, fromBase64, hex, u16be, u32be, u64be } from './bytes.js';
import { HeaderError } from './errors.js';
import { digest, equalBytes, hashByName, type LuksHash } from './hashes.js';
import { readBytes, type ByteSource } from './source.js';

/** Binary header size: 4096 bytes (magic … csum, then padding). */
export const LUKS2_BINARY_SIZE = 4096;
const MAGIC_SECONDARY = [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe]; // "SKUL\xba\xbe"
/** The hdr_size values (binary header + JSON area) the format allows; the secondary copy starts at one. */
export const LUKS2_HEADER_SIZES = [0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000];
const CSUM_OFFSET = 448;
const CSUM_LENGTH = 64;
/** cryptsetup's LUKS2_KEYSLOTS_MAX (lib/luks2/luks2.h): keyslots 0 … 31. */
export const LUKS2_KEYSLOTS_MAX = 32;
/** LUKS2_MAX_KEYSLOTS_SIZE (lib/luks2/luks2.h), 128 MiB: the largest config.keyslots_size. */
const LUKS2_MAX_KEYSLOTS_SIZE = 0x800_0000;
/**
 * json-c's JSON_TOKENER_DEFAULT_DEPTH: cryptsetup parses the JSON area with json_tokener_new()
 * (luks2_disk_metadata.c parse_json_len), which refuses a value nested under 32 or more others.
 */
const JSON_MAX_DEPTH = 32;
const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;

/**
 * LUKS2 keyslot key derivation ("kdf"). The counts are the JSON integers as stored, whatever they are
 * (`cryptsetup luksDump` shows any): `openLuks` checks them against cryptsetup's limits and its own
 * bounds before deriving anything.
 */
export type Luks2Kdf =
  | { readonly type: 'pbkdf2'; readonly hash: string; readonly iterations: number; readonly salt: Uint8Array }
  | {
      readonly type: 'argon2i' | 'argon2id';
      readonly time: number;
      readonly memory: number;
      readonly cpus: number;
      readonly salt: Uint8Array;
    };

/** A LUKS2 keyslot of type "luks2" (other types, e.g. "reencrypt", keep only `id` and `type`). */
export interface Luks2Keyslot {
  readonly id: string;
  readonly type: string;
  /** Volume key length in bytes. */
  readonly keySize: number;
  /** 0 ignore (used only when asked for), 1 normal, 2 prefer. */
  readonly priority: number;
  readonly area?: {
    readonly type: string;
    readonly offset: number;
    readonly size: number;
    readonly encryption: string;
    readonly keySize: number;
  };
  readonly af?: { readonly type: string; readonly stripes: number; readonly hash: string };
  readonly kdf?: Luks2Kdf;
}

/** A LUKS2 segment. */
export interface Luks2Segment {
  readonly id: string;
  readonly type: string;
  /**
   * Byte offset of the encrypted data in the device. LUKS2 allows any 64-bit value: a bigint when it is
   * beyond Number.MAX_SAFE_INTEGER (no image a JavaScript program can address reaches it).
   */
  readonly offset: number | bigint;
  /** Bytes, or `'dynamic'` (to the end of the device); a bigint beyond Number.MAX_SAFE_INTEGER, like `offset`. */
  readonly size: number | bigint | 'dynamic';
  /** dm-crypt's iv_offset, 512-byte units. */
  readonly ivTweak: bigint;
  readonly encryption: string;
  readonly sectorSize: number;
  readonly integrity?: unknown;
  readonly flags: readonly string[];
}

/** A LUKS2 digest: the check that a candidate volume key is the right one. */
export interface Luks2Digest {
  readonly id: string;
  readonly type: string;
  readonly keyslots: readonly string[];
  readonly segments: readonly string[];
  readonly hash: string;
  readonly iterations: number;
  readonly salt: Uint8Array;
  readonly digest: Uint8Array;
}

/**
 * A LUKS2 header: the binary header fields and the JSON metadata of the copy in use.
 *
 * @example
 * ```ts
 * const h = await readHeader(bytes);
 * if (h.version === 2 && h.copy === 'secondary') console.warn(h.problems.join('; '));
 * ```
 */
export interface Luks2Header {
  readonly version: 2;
  /** Binary header + JSON area, bytes (also the secondary copy's offset). */
  readonly headerSize: number;
  readonly seqid: number;
  readonly label: string;
  readonly subsystem: string;
  readonly uuid: string;
  readonly checksumAlgorithm: string;
  readonly checksum: string;
  /** Which copy is in use. */
  readonly copy: 'primary' | 'secondary';
  /** What is wrong with the copy not in use, if anything (e.g. a checksum mismatch). */
  readonly problems: readonly string[];
  readonly keyslots: readonly Luks2Keyslot[];
  readonly segments: readonly Luks2Segment[];
  readonly digests: readonly Luks2Digest[];
  readonly tokens: Readonly<Record<string, unknown>>;
  readonly config: {
    readonly jsonSize: number;
    readonly keyslotsSize: number;
    readonly flags: readonly string[];
    readonly requirements: readonly string[];
  };
  /** The JSON metadata as stored. */
  readonly json: unknown;
}

type Json = Record<string, unknown>;

function bad(msg: string): never {
  throw new HeaderError(`@x/luks: LUKS2 metadata: ${msg}`);
}

function obj(v: unknown, what: string): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(`${what} is not an object`);
  return v as Json;
}

/** A non-empty string (cryptsetup's json_contains_string). */
function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') bad(`${what} is not a string`);
  return v;
}

/**
 * A 64-bit field LUKS2 writes as a decimal string (offsets, sizes, json_size, keyslots_size, iv_tweak):
 * digits only (cryptsetup's numbered()) and at most 2^64 − 1 (its strtoull check), exactly, as a bigint.
 */
function u64(v: unknown, what: string): bigint {
  if (typeof v !== 'string') bad(`${what} is not a string of decimal digits (LUKS2 writes 64-bit values as strings)`);
  if (!/^\d+$/.test(v)) bad(`${what} is not a non-negative integer`);
  const n = BigInt(v);
  if (n > U64_MAX) bad(`${what} ${v} is above 2^64 − 1`);
  return n;
}

/** A bigint as a number when JavaScript holds it exactly, else as it is. */
const exact = (n: bigint): number | bigint => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);

/**
 * A JSON integer (cryptsetup's json_type_int): kdf and digest counts, stripes, priority. Its value is not
 * bounded here (luksDump shows any); openLuks bounds the ones a derivation uses before deriving.
 */
function jsonInt(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) bad(`${what} is not an integer`);
  return v;
}

/** A JSON integer of 0 … 2^32 − 1 (cryptsetup's validate_json_uint32: key_size, sector_size). */
function u32(v: unknown, what: string): number {
  const n = jsonInt(v, what);
  if (n < 0 || n > U32_MAX) bad(`${what} ${n} is not within 0 … 2^32 − 1`);
  return n;
}

/** An array of strings (required, as cryptsetup requires it, unless `optional`). */
function strings(v: unknown, what: string, optional = true): string[] {
  if (v === undefined && optional) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) bad(`${what} is not an array of strings`);
  return v as string[];
}

/** The entries of a keyslots/segments/digests/tokens object, whose names must be decimal (cryptsetup's numbered()). */
function numbered(v: unknown, what: string): [string, unknown][] {
  const entries = Object.entries(obj(v, what));
  for (const [id] of entries) if (!/^\d+$/.test(id)) bad(`${what}: "${id}" is not a decimal number`);
  return entries;
}

const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

function parseKdf(k: Json, what: string): Luks2Kdf {
  const type = str(k.type, `${what}.type`);
  const salt = fromBase64(k.salt, `${what}.salt`);
  if (type === 'pbkdf2')
    return { type, hash: str(k.hash, `${what}.hash`), iterations: jsonInt(k.iterations, `${what}.iterations`), salt };
  if (type === 'argon2i' || type === 'argon2id') {
    const time = jsonInt(k.time, `${what}.time`),
      memory = jsonInt(k.memory, `${what}.memory`),
      cpus = jsonInt(k.cpus, `${what}.cpus`);
    return { type, time, memory, cpus, salt };
  }
  bad(`${what}.type "${type}" is not supported (pbkdf2, argon2i, argon2id)`);
}

/** A keyslot area's place, as cryptsetup's hdr_validate_areas reads it (every keyslot type has one). */
interface Area {
  readonly id: string;
  readonly offset: bigint;
  readonly size: bigint;
}

function parseKeyslot(id: string, v: unknown, areas: Area[]): Luks2Keyslot {
  const k = obj(v, `keyslot ${id}`);
  const type = str(k.type, `keyslot ${id}.type`);
  const keySize = u32(k.key_size, `keyslot ${id}.key_size`);
  const priority = k.priority === undefined ? 1 : jsonInt(k.priority, `keyslot ${id}.priority`);
  const area = obj(k.area, `keyslot ${id}.area`);
  const areaType = str(area.type, `keyslot ${id}.area.type`);
  const offset = u64(area.offset, `keyslot ${id}.area.offset`);
  const size = u64(area.size, `keyslot ${id}.area.size`);
  areas.push({ id, offset, size });
  if (type !== 'luks2') return Object.freeze({ id, type, keySize, priority });
  const af = obj(k.af, `keyslot ${id}.af`);
  return Object.freeze({
    id,
    type,
    keySize,
    priority,
    // offset and size are inside the keyslots area (checked below), so numbers hold them exactly
    area: Object.freeze({
      type: areaType,
      offset: Number(offset),
      size: Number(size),
      encryption: str(area.encryption, `keyslot ${id}.area.encryption`),
      keySize: jsonInt(area.key_size, `keyslot ${id}.area.key_size`),
    }),
    af: Object.freeze({
      type: str(af.type, `keyslot ${id}.af.type`),
      stripes: jsonInt(af.stripes, `keyslot ${id}.af.stripes`),
      hash: str(af.hash, `keyslot ${id}.af.hash`),
    }),
    kdf: Object.freeze(parseKdf(obj(k.kdf, `keyslot ${id}.kdf`), `keyslot ${id}.kdf`)),
  });
}

/** A segment, with its offset and size exactly (cryptsetup's hdr_validate_segments, hdr_validate_crypt_segment). */
function parseSegment(id: string, v: unknown): { segment: Luks2Segment; offset: bigint } {
  const s = obj(v, `segment ${id}`);
  const type = str(s.type, `segment ${id}.type`);
  const offset = u64(s.offset, `segment ${id}.offset`);
  const size = s.size === 'dynamic' ? 'dynamic' : u64(s.size, `segment ${id}.size`);
  if (size === 0n) bad(`segment ${id}.size is 0`);
  // "all device-mapper devices are aligned to 512 sector size"
  if (offset % 512n !== 0n) bad(`segment ${id}.offset ${offset} is not a multiple of 512`);
  if (size !== 'dynamic' && size % 512n !== 0n) bad(`segment ${id}.size ${size} is not a multiple of 512`);
  const isCrypt = type === 'crypt';
  let sectorSize = 512;
  if (isCrypt) {
    sectorSize = u32(s.sector_size, `segment ${id}.sector_size`);
    if (sectorSize === 0 || sectorSize % 512 !== 0)
      bad(`segment ${id}.sector_size ${sectorSize} is not a positive multiple of 512`);
    if (size !== 'dynamic' && size % BigInt(sectorSize) !== 0n)
      bad(`segment ${id}.size ${size} is not a multiple of its sector_size ${sectorSize}`);
  }
  const ivTweak = s.iv_tweak === undefined ? 0n : u64(s.iv_tweak, `segment ${id}.iv_tweak`);
  const segment: Luks2Segment = Object.freeze({
    id,
    type,
    offset: exact(offset),
    size: size === 'dynamic' ? size : exact(size),
    ivTweak,
    encryption: isCrypt ? str(s.encryption, `segment ${id}.encryption`) : String(s.encryption ?? ''),
    sectorSize,
    integrity: s.integrity,
    flags: Object.freeze(strings(s.flags, `segment ${id}.flags`)),
  });
  return { segment, offset };
}

function parseDigest(id: string, v: unknown): Luks2Digest {
  const d = obj(v, `digest ${id}`);
  const type = str(d.type, `digest ${id}.type`);
  return Object.freeze({
    id,
    type,
    keyslots: Object.freeze(strings(d.keyslots, `digest ${id}.keyslots`, false)),
    segments: Object.freeze(strings(d.segments, `digest ${id}.segments`, false)),
    hash: type === 'pbkdf2' ? str(d.hash, `digest ${id}.hash`) : '',
    iterations: type === 'pbkdf2' ? jsonInt(d.iterations, `digest ${id}.iterations`) : 0,
    salt: type === 'pbkdf2' ? fromBase64(d.salt, `digest ${id}.salt`) : new Uint8Array(0),
    digest: type === 'pbkdf2' ? fromBase64(d.digest, `digest ${id}.digest`) : new Uint8Array(0),
  });
}

/** One copy's binary header fields, once its checksum has been verified. */
interface Copy {
  readonly bytes: Uint8Array;
  readonly headerSize: number;
  readonly seqid: number;
  readonly checksumAlgorithm: string;
}

const hasMagic = (b: Uint8Array, magic: number[]) => magic.every((x, i) => b[i] === x);

/**
 * Reads and checks the copy at `offset`: magic, version 2, hdr_offset = offset, an allowed hdr_size
 * (= offset for the secondary), and the checksum over hdr_size bytes with the csum field zeroed.
 * Returns the copy or the reason it is unusable.
 */
async function readCopy(source: ByteSource, offset: number, secondary: boolean): Promise<Copy | string> {
  const which = secondary ? `secondary header at ${offset}` : 'primary header';
  if (offset + LUKS2_BINARY_SIZE > source.size) return `${which}: the image is truncated`;
  const bin = await readBytes(source, offset, LUKS2_BINARY_SIZE);
  if (!hasMagic(bin, secondary ? MAGIC_SECONDARY : [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe])) return `${which}: no magic`;
  if (u16be(bin, 6) !== 2) return `${which}: version ${u16be(bin, 6)} is not 2`;
  let headerSize: number, hdrOffset: number, seqid: number;
  try {
    headerSize = u64be(bin, 8, 'hdr_size');
    seqid = u64be(bin, 16, 'seqid');
    hdrOffset = u64be(bin, 256, 'hdr_offset');
  } catch (e) {
    return `${which}: ${(e as Error).message}`;
  }
  if (!LUKS2_HEADER_SIZES.includes(headerSize)) return `${which}: hdr_size ${headerSize} is not one LUKS2 allows`;
  if (hdrOffset !== offset || (secondary && headerSize !== offset))
    return `${which}: hdr_offset ${hdrOffset} does not match its place`;
  if (offset + headerSize > source.size) return `${which}: the image is truncated (hdr_size ${headerSize})`;
  const checksumAlgorithm = cString(bin, 72, 32);
  let hash: LuksHash;
  try {
    hash = hashByName(checksumAlgorithm);
  } catch {
    return `${which}: checksum algorithm "${checksumAlgorithm}" is not supported`;
  }
  const bytes = await readBytes(source, offset, headerSize);
  const stored = bytes.slice(CSUM_OFFSET, CSUM_OFFSET + hash.size);
  bytes.fill(0, CSUM_OFFSET, CSUM_OFFSET + CSUM_LENGTH);
  const computed = digest(hash, bytes);
  bytes.set(stored, CSUM_OFFSET);
  if (!equalBytes(computed, stored)) return `${which}: checksum mismatch (corrupt)`;
  return { bytes, headerSize, seqid, checksumAlgorithm };
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * The JSON text of a JSON area, checked as cryptsetup checks it before parsing (validate_json_area): it
 * starts with "{", it ends at the first zero byte, and only zero bytes follow to the end of the area. It is
 * also scanned, without recursion, for nesting: json-c refuses a value under 32 or more others, and a
 * text nested thousands deep must not reach JSON.parse's recursion.
 */
function jsonText(area: Uint8Array): Uint8Array {
  if (area[0] !== 0x7b) bad('the JSON area does not start with "{"');
  const end = area.indexOf(0);
  if (end < 0) bad(`the JSON area (${area.length} bytes) has no terminating zero byte`);
  for (let i = end + 1; i < area.length; i++)
    if (area[i] !== 0) bad(`the JSON area holds non-zero bytes after its JSON text (at byte ${i})`);
  let open = 0,
    inString = false,
    escaped = false;
  for (let i = 0; i < end; i++) {
    const c = area[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      open--;
      continue;
    }
    if (c === 0x2c || c === 0x3a || isSpace(c)) continue;
    // a value (or an object key, which comes with a value at the same depth) starts here
    if (open >= JSON_MAX_DEPTH)
      bad(`the JSON is nested deeper than ${JSON_MAX_DEPTH} levels (cryptsetup's JSON parser, json-c, stops there)`);
    if (c === 0x7b || c === 0x5b) open++;
    else if (c === 0x22) inString = true;
  }
  return area.subarray(0, end);
}

/** The checks that relate keyslots, segments, digests and config (cryptsetup's LUKS2_hdr_validate). */
function checkLayout(
  headerSize: number,
  keyslotsSize: bigint,
  keyslots: readonly Luks2Keyslot[],
  areas: readonly Area[],
  segments: readonly { segment: Luks2Segment; offset: bigint }[],
  digests: readonly Luks2Digest[],
): void {
  // digests name keyslots and segments that exist (hdr_validate_digests); a luks2 keyslot belongs to exactly
  // one digest (LUKS2_keyslots_validate), a crypt segment to one at least (hdr_validate_crypt_segment's
  // segment_has_digest). Counted in one pass: the arrays may be long, the checks stay linear.
  const slotIds = new Set(keyslots.map((k) => k.id));
  const segIds = new Set(segments.map((s) => s.segment.id));
  const digestsOf = new Map<string, number>();
  const named = new Set<string>();
  for (const d of digests) {
    for (const k of new Set(d.keyslots)) {
      if (!slotIds.has(k)) bad(`digest ${d.id}.keyslots names keyslot ${k}, which does not exist`);
      digestsOf.set(k, (digestsOf.get(k) ?? 0) + 1);
    }
    for (const s of d.segments) {
      if (!segIds.has(s)) bad(`digest ${d.id}.segments names segment ${s}, which does not exist`);
      named.add(s);
    }
  }
  for (const k of keyslots) {
    const n = digestsOf.get(k.id) ?? 0;
    if (k.type === 'luks2' && n !== 1)
      bad(`keyslot ${k.id} is named by ${n} digests; a luks2 keyslot belongs to exactly one`);
  }
  for (const { segment: s } of segments)
    if (s.type === 'crypt' && !named.has(s.id)) bad(`segment ${s.id} is a crypt segment that no digest names`);

  // the keyslots area follows the two header copies (LUKS2_hdr_and_areas_size)
  const start = 2n * BigInt(headerSize);
  const end = start + keyslotsSize;
  // data starts after it, unless the header is detached (an offset of 0); backup segments of a
  // reencryption do not count (hdr_validate_config, json_segments_get_minimal_offset)
  const data = segments.filter((s) => !s.segment.flags.some((f) => f.startsWith('backup-')));
  if (!data.some((s) => s.offset === 0n)) {
    for (const { segment: s, offset } of data)
      if (offset < end)
        bad(
          `segment ${s.id}.offset ${offset} is inside the LUKS2 header and keyslots area, which ends at ${end} (2 × hdr_size ${headerSize} + config.keyslots_size ${keyslotsSize})`,
        );
  }
  // every keyslot area is inside the keyslots area, not empty, and overlaps no other (validate_intervals)
  for (const a of areas) {
    const where = `keyslot ${a.id}.area [${a.offset}, ${a.offset + a.size})`;
    if (a.size === 0n) bad(`keyslot ${a.id}.area.size is 0`);
    if (a.offset < start || a.offset + a.size > end) bad(`${where} is not inside the keyslots area [${start}, ${end})`);
    for (const b of areas)
      if (b !== a && a.offset >= b.offset && a.offset < b.offset + b.size)
        bad(`${where} overlaps keyslot ${b.id}.area [${b.offset}, ${b.offset + b.size})`);
  }
}

function parseCopy(c: Copy, which: 'primary' | 'secondary', problems: string[], imageSize: number | undefined) {
  const b = c.bytes;
  let json: Json;
  try {
    const text = jsonText(b.subarray(LUKS2_BINARY_SIZE));
    json = obj(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(text)), 'the JSON area');
  } catch (e) {
    if (e instanceof HeaderError) throw e;
    bad(`the JSON area is not valid JSON (${(e as Error).message})`);
  }
  const config = obj(json.config, 'config');
  const jsonSize = u64(config.json_size, 'config.json_size');
  if (jsonSize !== BigInt(c.headerSize - LUKS2_BINARY_SIZE))
    bad(
      `config.json_size ${jsonSize} is not the header's JSON area, ${c.headerSize - LUKS2_BINARY_SIZE} bytes (hdr_size ${c.headerSize} − ${LUKS2_BINARY_SIZE})`,
    );
  const keyslotsSize = u64(config.keyslots_size, 'config.keyslots_size');
  if (keyslotsSize % 4096n !== 0n) bad(`config.keyslots_size ${keyslotsSize} is not a multiple of 4096`);
  if (keyslotsSize > BigInt(LUKS2_MAX_KEYSLOTS_SIZE))
    bad(`config.keyslots_size ${keyslotsSize} is above ${LUKS2_MAX_KEYSLOTS_SIZE} (128 MiB, cryptsetup's maximum)`);
  const requirements =
    config.requirements === undefined
      ? []
      : strings(obj(config.requirements, 'config.requirements').mandatory, 'config.requirements.mandatory');

  // more keyslots than cryptsetup handles: it never makes them, and each would cost a key derivation
  const slotEntries = numbered(json.keyslots, 'keyslots');
  if (slotEntries.length > LUKS2_KEYSLOTS_MAX)
    bad(`${slotEntries.length} keyslots; LUKS2 has at most ${LUKS2_KEYSLOTS_MAX} (cryptsetup's LUKS2_KEYSLOTS_MAX)`);
  for (const [id] of slotEntries)
    if (Number(id) >= LUKS2_KEYSLOTS_MAX)
      bad(`keyslot ${id}: keyslots are numbered 0 … ${LUKS2_KEYSLOTS_MAX - 1} (cryptsetup's LUKS2_KEYSLOTS_MAX)`);
  const areas: Area[] = [];
  const keyslots = slotEntries.map(([id, v]) => parseKeyslot(id, v, areas)).sort(byId);
  const segs = numbered(json.segments, 'segments')
    .map(([id, v]) => parseSegment(id, v))
    .sort((x, y) => byId(x.segment, y.segment));
  const digests = numbered(json.digests, 'digests')
    .map(([id, v]) => parseDigest(id, v))
    .sort(byId);
  checkLayout(c.headerSize, keyslotsSize, keyslots, areas, segs, digests);

  // the device holds both copies and the keyslots area (LUKS2_disk_hdr_read's device_check_size)
  const needed = 2n * BigInt(c.headerSize) + keyslotsSize;
  if (imageSize !== undefined && BigInt(imageSize) < needed) {
    const first = segs.map((s) => s.offset).find((o) => o > BigInt(imageSize));
    throw new HeaderError(
      `@x/luks: the image (${imageSize} bytes) ends ${first === undefined ? 'inside its LUKS2 keyslots area' : `before the payload offset ${first}`} (truncated?): its two LUKS2 header copies and keyslots area take ${needed} bytes`,
    );
  }

  return Object.freeze({
    version: 2,
    headerSize: c.headerSize,
    seqid: c.seqid,
    label: cString(b, 24, 48),
    subsystem: cString(b, 208, 48),
    uuid: cString(b, 168, 40),
    checksumAlgorithm: c.checksumAlgorithm,
    checksum: hex(b.subarray(CSUM_OFFSET, CSUM_OFFSET + hashByName(c.checksumAlgorithm).size)),
    copy: which,
    problems: Object.freeze(problems),
    keyslots: Object.freeze(keyslots),
    segments: Object.freeze(segs.map((s) => s.segment)),
    digests: Object.freeze(digests),
    tokens: Object.freeze(json.tokens === undefined ? {} : obj(json.tokens, 'tokens')),
    config: Object.freeze({
      jsonSize: Number(jsonSize),
      keyslotsSize: Number(keyslotsSize),
      flags: Object.freeze(strings(config.flags, 'config.flags')),
      requirements: Object.freeze(requirements),
    }),
    json,
  } satisfies Luks2Header);
}

/** Options of {@link readLuks2}. */
export interface ReadLuks2Options {
  /**
   * The source holds the two header copies only (a header just built, not an image): skip the checks
   * that the image holds the keyslots area. Default false.
   */
  readonly headersOnly?: boolean;
}

/**
 * Reads a LUKS2 header: the primary copy if its checksum holds and its JSON is valid, else the secondary
 * (looked for at the primary's hdr_size, or at every allowed offset when the primary is unreadable); of
 * two good copies the higher seqid, and the other one when the JSON of that one breaks a rule (as
 * cryptsetup's LUKS2_disk_hdr_read treats a copy that fails validation). Throws a HeaderError naming what
 * is wrong when neither copy is usable: for two copies whose JSON is refused, the reason of the one that
 * would have been used.
 */
export async function readLuks2(source: ByteSource, options: ReadLuks2Options = {}): Promise<Luks2Header> {
  const imageSize = options.headersOnly ? undefined : source.size;
  const primary = await readCopy(source, 0, false);
  // Where to look for the secondary: at the primary's hdr_size when that field is still readable, else at
  // every offset the format allows.
  let declared: number | undefined;
  if (typeof primary !== 'string') declared = primary.headerSize;
  else if (source.size >= 16) {
    const b = await readBytes(source, 8, 8);
    const size = u32be(b, 0) === 0 ? u32be(b, 4) : -1;
    if (LUKS2_HEADER_SIZES.includes(size)) declared = size;
  }
  const offsets =
    typeof primary !== 'string' ? [declared!] : [...new Set([...(declared ? [declared] : []), ...LUKS2_HEADER_SIZES])];
  let secondary: Copy | string = 'secondary header: none at any offset LUKS2 allows';
  for (const off of offsets) {
    const c = await readCopy(source, off, true);
    if (typeof c !== 'string' || off === declared) secondary = c;
    if (typeof c !== 'string') break;
  }
  if (typeof primary === 'string' && typeof secondary === 'string') {
    throw new HeaderError(`@x/luks: no usable LUKS2 header: ${primary}; ${secondary}`);
  }
  // the copy to use first, and the other one (if its checksum holds) to fall back on
  const primaryFirst =
    typeof primary !== 'string' && (typeof secondary === 'string' || primary.seqid >= secondary.seqid);
  const order: ['primary' | 'secondary', Copy | string][] = primaryFirst
    ? [
        ['primary', primary],
        ['secondary', secondary],
      ]
    : [
        ['secondary', secondary],
        ['primary', primary],
      ];
  const [[firstName, first], [otherName, other]] = order;
  const problems: string[] = [];
  if (typeof other === 'string') problems.push(other);
  else if (other.seqid !== (first as Copy).seqid) problems.push(`${otherName} header: older seqid ${other.seqid}`);
  try {
    return parseCopy(first as Copy, firstName, problems, imageSize);
  } catch (e) {
    if (!(e instanceof HeaderError) || typeof other === 'string') throw e;
    // the copy in use breaks a rule: cryptsetup uses the other one if that one is valid
    const reason = e.message.replace(/^@x\/luks: /, '');
    try {
      return parseCopy(other, otherName, [`${firstName} header: ${reason}`], imageSize);
    } catch {
      throw e;
    }
  }
}
