// The LUKS2 header: two copies of (binary header, JSON area), the secondary right after the primary
// (LUKS2 on-disk format, "Binary header" and "JSON area"; libluksde "Volume header - format version 2",
// "JSON area", "Backup volume header"). Each copy carries a checksum over its hdr_size bytes; a damaged
// copy is passed over for the other, and of two good copies the one with the higher seqid wins.
//
// A copy is read as cryptsetup 2.6.1 reads it, rule for rule, so that what `cryptsetup luksDump` shows
// readHeader shows and what it refuses readHeader refuses (lib/luks2/luks2_disk_metadata.c:
// hdr_disk_sanity_check_pre, hdr_read_disk, parse_json_len, validate_json_area, LUKS2_disk_hdr_read;
// lib/luks2/luks2_json_metadata.c: LUKS2_hdr_validate and its hdr_validate_* checks, validate_intervals;
// lib/luks2/luks2_keyslot.c LUKS2_keyslots_validate with the keyslot handlers' validate and repair in
// luks2_keyslot_luks2.c and luks2_keyslot_reenc.c). The JSON text is parsed as json-c 0.16 parses it
// (json_tokener_parse_ex, not strict: cryptsetup's parser), not by JSON.parse: json-c takes single quotes,
// comments, trailing commas, raw control bytes and any bytes in strings, and tells integers from doubles,
// which the rules depend on. What only a key derivation uses (counts, salts, unknown KDF types) is
// checked by `openLuks`, before any derivation, not here: `cryptsetup luksDump` shows it whatever it is.
import { cString, equalBytes, fromBase64, hex, u16be, u32be } from '@x/disk-format';
import { HeaderError } from './errors.js';
import { digest, hashByName, type LuksHash } from './hashes.js';
import { readBytes, type ByteSource } from './source.js';
import { doubles, type Json, memberOrder, parseJsonArea } from './json-c.js';

/** Binary header size: 4096 bytes (magic … csum, then padding). */
export const LUKS2_BINARY_SIZE = 4096;
const MAGIC_PRIMARY = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe]; // "LUKS\xba\xbe"
const MAGIC_SECONDARY = [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe]; // "SKUL\xba\xbe"
/** The hdr_size values (binary header + JSON area) the format allows; the secondary copy starts at one. */
export const LUKS2_HEADER_SIZES = [0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000];
const CSUM_OFFSET = 448;
const CSUM_LENGTH = 64;
/** cryptsetup's LUKS2_KEYSLOTS_MAX (lib/luks2/luks2.h): keyslots 0 … 31. */
export const LUKS2_KEYSLOTS_MAX = 32;
/** LUKS2_MAX_KEYSLOTS_SIZE (lib/luks2/luks2.h), 128 MiB: the largest config.keyslots_size. */
const LUKS2_MAX_KEYSLOTS_SIZE = 0x800_0000n;
const U32_MAX = 0xffff_ffff;
const U64 = 1n << 64n;
/** LUKS_STRIPES: cryptsetup merges every LUKS2 keyslot with 4000 stripes, whatever af.stripes says. */
export const LUKS2_STRIPES = 4000;

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

/**
 * A LUKS2 keyslot. Those of type "luks2" have `area`, `af` and (for the KDF types cryptsetup knows) `kdf`;
 * other types (e.g. "reencrypt") keep `id`, `type`, `keySize` and `priority`.
 */
export interface Luks2Keyslot {
  readonly id: string;
  readonly type: string;
  /** Volume key length in bytes. */
  readonly keySize: number;
  /**
   * 0 ignore (used only when asked for), 1 normal, 2 prefer; any other value (cryptsetup reads the field
   * as json-c's json_object_get_int) is never tried unless asked for.
   */
  readonly priority: number;
  readonly area?: {
    readonly type: string;
    readonly offset: number;
    readonly size: number;
    readonly encryption: string;
    readonly keySize: number;
  };
  /** The anti-forensic splitter as stored; cryptsetup (and openLuks) merge with 4000 stripes whatever `stripes` says. */
  readonly af?: { readonly type: string; readonly stripes: number; readonly hash: string };
  readonly kdf?: Luks2Kdf;
  /**
   * Why `openLuks` cannot use this keyslot although the header is valid (cryptsetup shows it and fails
   * only when it tries it): e.g. a KDF type it does not know, or a salt that is not base64.
   */
  readonly problem?: string;
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
  /** Bytes: a multiple of 512 (any, as cryptsetup's validation takes; dm-crypt opens powers of two to 4096). */
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
  /**
   * Why `openLuks` cannot use this digest although the header is valid (cryptsetup does not validate a
   * digest's own fields when it reads a header): e.g. a salt that is not base64, a missing hash.
   */
  readonly problem?: string;
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
  /** The copy's sequence ID (a 64-bit counter; above 2^53 the nearest number). */
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
  /** The JSON metadata as stored (as json-c reads it: strings end at a \u0000, numbers are JavaScript numbers). */
  readonly json: unknown;
}

function bad(msg: string): never {
  throw new HeaderError(`@x/luks: LUKS2 metadata: ${msg}`);
}

// ---------------------------------------------------------------------------------------------- validation

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** json_contains(…, json_type_object): a member that is an object. */
function object(o: Json, key: string, what: string): Json {
  const v = o[key];
  if (!isObject(v)) bad(`${what} is ${v === undefined ? 'missing' : 'not an object'}`);
  return v;
}

/** json_contains_string: a string of at least one byte. */
function string(o: Json, key: string, what: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') bad(`${what} is ${v === undefined ? 'missing' : 'not a non-empty string'}`);
  return v;
}

/** json_contains(…, json_type_array). */
function array(o: Json, key: string, what: string): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) bad(`${what} is ${v === undefined ? 'missing' : 'not an array'}`);
  return v;
}

/** A JSON integer as json-c holds it (json_type_int: written without ".", "e" or "E"). */
const isInt = (o: Json, key: string) => typeof o[key] === 'number' && !doubles.get(o)?.has(key);

/** json_contains(…, json_type_int). */
function int(o: Json, key: string, what: string): number {
  if (!isInt(o, key)) bad(`${what} is ${o[key] === undefined ? 'missing' : 'not an integer'}`);
  return o[key] as number;
}

/** json_contains(…, json_type_int) and validate_json_uint32. */
function u32(o: Json, key: string, what: string): number {
  const n = int(o, key, what);
  if (n < 0 || n > U32_MAX) bad(`${what} ${n} is not within 0 … 2^32 − 1`);
  return n;
}

/** An array of strings, where cryptsetup requires one ("flags", "mandatory"). */
function strings(o: Json, key: string, what: string): string[] {
  const v = array(o, key, what);
  for (const [i, x] of v.entries()) if (typeof x !== 'string') bad(`${what}[${i}] is not a string`);
  return v as string[];
}

/** cryptsetup's numbered(): decimal digits only (the empty string passes). */
const numbered = (s: string) => /^[0-9]*$/.test(s);

/**
 * C's strtoull(s, &end, 10) as json_str_to_uint64 uses it: leading white space, a sign (a "-" negates
 * modulo 2^64), digits, and nothing after them; undefined where it fails (trailing bytes, overflow).
 */
function strtoull(s: string): bigint | undefined {
  const m = /^[ \t\n\v\f\r]*([+-]?)([0-9]*)$/.exec(s);
  if (!m) return undefined;
  if (m[2] === '') return s === '' ? 0n : undefined; // no digits: end is s itself
  const v = BigInt(m[2]);
  if (v >= U64) return undefined; // ERANGE
  return m[1] === '-' ? (U64 - v) % U64 : v;
}

/** A 64-bit field LUKS2 writes as a string of digits (segment and area offsets and sizes, iv_tweak). */
function u64(o: Json, key: string, what: string): bigint {
  const s = string(o, key, what);
  if (!numbered(s)) bad(`${what} is not a non-negative integer`);
  const v = strtoull(s);
  if (v === undefined) bad(`${what} ${s} is above 2^64 − 1`);
  return v;
}

/** A string read with crypt_jobj_get_uint64 (config sizes, shift_size): strtoull, 0 where it fails. */
const jobjU64 = (v: unknown) => (typeof v === 'string' ? (strtoull(v) ?? 0n) : 0n);

/** json-c's json_object_get_int (what cryptsetup reads a keyslot's priority with). */
function cInt(v: unknown): number {
  const clamp = (x: number) => (x <= -0x8000_0000 ? -0x8000_0000 : x >= 0x7fff_ffff ? 0x7fff_ffff : Math.trunc(x));
  if (typeof v === 'number') return Number.isNaN(v) ? -0x8000_0000 : clamp(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)/.exec(v);
    return m ? clamp(Number(m[1])) : 0;
  }
  return 0;
}

/** C's atoi on a numbered key, as cryptsetup turns keyslot and segment names into numbers. */
const atoi = (s: string) => (s === '' ? 0 : Number(s));

/** The requirement names cryptsetup 2.6.1 knows (requirements_flags in luks2_json_metadata.c). */
const ONLINE_REENCRYPT = new Set(['online-reencrypt', 'online-reencrypt-v2', 'online-reencrypt-v3']);
/** reencrypt_candidate_flag: online-reencrypt, or online-reencrypt-v followed by digits. */
const reencryptCandidate = (f: string) => f === 'online-reencrypt' || /^online-reencrypt-v[0-9]+$/.test(f);

const flagsOf = (s: Json): string[] =>
  Array.isArray(s.flags) ? (s.flags as unknown[]).filter((f): f is string => typeof f === 'string') : [];
const isBackup = (s: Json) => flagsOf(s).some((f) => f.startsWith('backup-'));

/** json_segment_cmp: the same type, and for crypt segments the same sector size and cipher. */
function sameSegment(a: Json, b: Json): boolean {
  if (typeof a.type !== 'string' || typeof b.type !== 'string' || a.type !== b.type) return false;
  if (a.type !== 'crypt') return true;
  const sector = (s: Json) => (s.sector_size === undefined ? 512 : cInt(s.sector_size) < 0 ? 512 : cInt(s.sector_size));
  const cipher = (s: Json) => (s.encryption === undefined ? 'null' : String(s.encryption));
  return sector(a) === sector(b) && cipher(a) === cipher(b);
}

/** What the checks hand on to the header: the parsed keyslot areas and the sizes config states. */
interface Validated {
  readonly metadataSize: bigint;
  readonly keyslotsSize: bigint;
  readonly requirements: string[];
}

/** What the section checks hand on to each other: the JSON's main objects, and the sizes config states. */
interface Sections {
  readonly config: Json;
  readonly digests: Json;
  readonly keyslots: Json;
  readonly segments: Json;
  /** config.requirements.mandatory. */
  readonly mandatory: string[];
}

/** hdr_validate_requirements: at most one online-reencrypt requirement. */
function validateRequirements(config: Json): string[] {
  let mandatory: string[] = [];
  if (config.requirements !== undefined) {
    const r = object(config, 'requirements', 'config.requirements');
    if (r.mandatory !== undefined) mandatory = strings(r, 'mandatory', 'config.requirements.mandatory');
  }
  if (mandatory.filter(reencryptCandidate).length > 1)
    bad('config.requirements.mandatory names more than one online-reencrypt requirement');
  return mandatory;
}

/** hdr_validate_tokens: each token has a type and names keyslots that exist. */
function validateTokens(j: Json, tokens: Json): void {
  const slotsRaw = j.keyslots;
  const slotExists = (id: unknown) => isObject(slotsRaw) && typeof id === 'string' && isObject(slotsRaw[id]);
  for (const [id, t] of Object.entries(tokens)) {
    if (!numbered(id)) bad(`tokens: "${id}" is not a decimal number`);
    if (!isObject(t)) bad(`token ${id} is not an object`);
    string(t, 'type', `token ${id}.type`);
    array(t, 'keyslots', `token ${id}.keyslots`).forEach((k, i) => {
      if (typeof k !== 'string') bad(`token ${id}.keyslots[${i}] is not a string`);
      if (!slotExists(k)) bad(`token ${id}.keyslots names keyslot ${k}, which does not exist`);
    });
  }
}

/** hdr_validate_digests: each digest has a type and names keyslots and segments that exist. */
function validateDigests({ digests, keyslots, segments }: Sections): void {
  for (const [id, d] of Object.entries(digests)) {
    if (!numbered(id)) bad(`digests: "${id}" is not a decimal number`);
    if (!isObject(d)) bad(`digest ${id} is not an object`);
    string(d, 'type', `digest ${id}.type`);
    const ks = array(d, 'keyslots', `digest ${id}.keyslots`);
    const ss = array(d, 'segments', `digest ${id}.segments`);
    ks.forEach((k, i) => {
      if (typeof k !== 'string') bad(`digest ${id}.keyslots[${i}] is not a string`);
      if (!isObject(keyslots[k])) bad(`digest ${id}.keyslots names keyslot ${k}, which does not exist`);
    });
    ss.forEach((s, i) => {
      if (typeof s !== 'string') bad(`digest ${id}.segments[${i}] is not a string`);
      if (!isObject(segments[s])) bad(`digest ${id}.segments names segment ${s}, which does not exist`);
    });
  }
}

/** hdr_validate_crypt_segment: the fields of crypt segment `id` (of `size` bytes), and a digest that names it. */
function validateCryptSegment(s: Json, id: string, size: bigint, digests: Json): void {
  const iv = string(s, 'iv_tweak', `segment ${id}.iv_tweak`);
  string(s, 'encryption', `segment ${id}.encryption`);
  int(s, 'sector_size', `segment ${id}.sector_size`);
  if (s.integrity !== undefined) {
    const g = object(s, 'integrity', `segment ${id}.integrity`);
    for (const k of ['type', 'journal_encryption', 'journal_integrity']) string(g, k, `segment ${id}.integrity.${k}`);
  }
  const sector = u32(s, 'sector_size', `segment ${id}.sector_size`);
  if (sector === 0 || sector % 512 !== 0) bad(`segment ${id}.sector_size ${sector} is not a positive multiple of 512`);
  if (!numbered(iv) || strtoull(iv) === undefined) bad(`segment ${id}.iv_tweak "${iv}" is not a 64-bit integer`);
  if (size % BigInt(sector) !== 0n) bad(`segment ${id}.size ${size} is not a multiple of its sector_size ${sector}`);
  const named = Object.values(digests).some((d) => isObject(d) && Array.isArray(d.segments) && d.segments.includes(id));
  if (!named) bad(`segment ${id} is a crypt segment that no digest names`);
}

/**
 * validate_segment_intervals: segments 0 … count − 1 numbered without gaps; of the `regular` first ones, only
 * the last may be dynamic, and none overlaps another.
 */
function validateSegmentIntervals(segments: Json, count: number, regular: number): void {
  const intervals: { offset: bigint; length: bigint; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const s = segments[String(i)];
    if (!isObject(s)) bad(`segments: there is no segment ${i} (segments are numbered 0, 1, … without gaps)`);
    if (i < regular) {
      const length = s.size === 'dynamic' ? U64 - 1n : jobjU64(s.size);
      intervals.push({ offset: jobjU64(s.offset), length: length === 0n ? U64 - 1n : length, id: String(i) });
    }
  }
  // validate_segment_intervals: only the last regular segment may be dynamic, and none overlaps another
  for (const [i, a] of intervals.entries()) {
    if (a.length === U64 - 1n && i !== intervals.length - 1)
      bad(`segment ${a.id}.size is "dynamic" but segment ${a.id} is not the last regular segment`);
    for (const b of intervals) {
      if (a === b) continue;
      if (b.length !== U64 - 1n && b.offset + b.length >= U64) bad(`segment ${b.id}: offset + size is above 2^64 − 1`);
      if (a.offset >= b.offset && (b.length === U64 - 1n || a.offset < b.offset + b.length))
        bad(`segment ${a.id} overlaps segment ${b.id}`);
    }
  }
}

/**
 * hdr_validate_segments (hdr_validate_crypt_segment for crypt ones), validate_segment_intervals and
 * validate_reencrypt_segments. Returns the segments' ids in the JSON's order.
 */
function validateSegments({ digests, segments, mandatory }: Sections): string[] {
  const segIds = memberOrder.get(segments) ?? Object.keys(segments);
  const count = segIds.length;
  if (count < 1) bad('segments is empty');
  let firstBackup = -1;
  for (const id of segIds) {
    if (!numbered(id)) bad(`segments: "${id}" is not a decimal number`);
    const s = segments[id];
    if (!isObject(s)) bad(`segment ${id} is not an object`);
    const type = string(s, 'type', `segment ${id}.type`);
    const offset = u64(s, 'offset', `segment ${id}.offset`);
    string(s, 'size', `segment ${id}.size`);
    let size = 0n;
    if (s.size !== 'dynamic') {
      size = u64(s, 'size', `segment ${id}.size`);
      if (size === 0n) bad(`segment ${id}.size is 0`);
    }
    // "all device-mapper devices are aligned to 512 sector size"
    if (offset % 512n !== 0n) bad(`segment ${id}.offset ${offset} is not a multiple of 512`);
    if (size % 512n !== 0n) bad(`segment ${id}.size ${size} is not a multiple of 512`);
    if (s.flags !== undefined) strings(s, 'flags', `segment ${id}.flags`);
    const i = atoi(id);
    if (isBackup(s)) {
      if (firstBackup < 0 || i < firstBackup) firstBackup = i;
    } else if (firstBackup >= 0 && i >= firstBackup)
      bad(`segment ${id} is a regular segment after backup segment ${firstBackup}`);
    if (type === 'crypt') validateCryptSegment(s, id, size, digests);
  }
  if (firstBackup === 0) bad('segments: there is no regular segment, only backup ones');
  if (firstBackup >= count) bad(`segments: segment ${firstBackup} leaves a gap after the regular segments`);
  const regular = firstBackup < 0 ? count : firstBackup;
  validateSegmentIntervals(segments, count, regular);
  // validate_reencrypt_segments: an online reencryption keeps its backup segments, and the regular ones match them
  if (mandatory.some((f) => ONLINE_REENCRYPT.has(f))) {
    let final: Json | undefined, previous: Json | undefined;
    for (let i = regular; i < count; i++) {
      const s = segments[String(i)] as Json;
      if (flagsOf(s).includes('backup-final')) final = s;
      else if (flagsOf(s).includes('backup-previous')) previous = s;
    }
    if (!final || !previous)
      bad('an online reencryption (config.requirements) without its backup-final and backup-previous segments');
    for (let i = 0; i < regular; i++) {
      const s = segments[String(i)] as Json;
      const ok = flagsOf(s).includes('in-reencryption')
        ? sameSegment(s, final)
        : sameSegment(s, final) || sameSegment(s, previous);
      if (!ok) bad(`segment ${i} matches neither backup segment of the reencryption`);
    }
  }
  return segIds;
}

/** hdr_validate_config: the sizes it states, and the keyslots area before the first data segment. */
function validateConfig({ config, segments }: Sections, segIds: string[]) {
  const jsonSizeText = string(config, 'json_size', 'config.json_size');
  const jsonSize = strtoull(jsonSizeText);
  if (jsonSize === undefined) bad(`config.json_size "${jsonSizeText}" is not a 64-bit integer`);
  const keyslotsSizeText = string(config, 'keyslots_size', 'config.keyslots_size');
  const keyslotsSize = strtoull(keyslotsSizeText);
  if (keyslotsSize === undefined) bad(`config.keyslots_size "${keyslotsSizeText}" is not a 64-bit integer`);
  const metadataSize = (jsonSize + BigInt(LUKS2_BINARY_SIZE)) % U64;
  if (!LUKS2_HEADER_SIZES.includes(Number(metadataSize)))
    bad(
      `config.json_size ${jsonSize} + ${LUKS2_BINARY_SIZE} is not a header size LUKS2 allows (16 KiB … 4 MiB, powers of two)`,
    );
  if (keyslotsSize % 4096n !== 0n) bad(`config.keyslots_size ${keyslotsSize} is not a multiple of 4096`);
  if (keyslotsSize > LUKS2_MAX_KEYSLOTS_SIZE)
    bad(`config.keyslots_size ${keyslotsSize} is above ${LUKS2_MAX_KEYSLOTS_SIZE} (128 MiB, cryptsetup's maximum)`);
  // the keyslots area lies between the two header copies and the data, unless the header is detached (an
  // offset of 0); backup segments of a reencryption do not count (json_segments_get_minimal_offset)
  const keyslotsEnd = 2n * metadataSize + keyslotsSize;
  let minimal = U64 - 1n;
  for (const id of segIds) {
    const s = segments[id] as Json;
    if (isBackup(s)) continue;
    const o = jobjU64(s.offset);
    if (o === 0n) {
      minimal = 0n;
      break;
    }
    if (o < minimal) minimal = o;
  }
  if (minimal !== 0n && minimal < keyslotsEnd) {
    const id = segIds.find((x) => !isBackup(segments[x] as Json) && jobjU64((segments[x] as Json).offset) === minimal);
    bad(
      `segment ${id}.offset ${minimal} is inside the LUKS2 header and keyslots area, which ends at ${keyslotsEnd} (2 × hdr_size ${metadataSize} + config.keyslots_size ${keyslotsSize})`,
    );
  }
  if (config.flags !== undefined) strings(config, 'flags', 'config.flags');
  return { jsonSize, keyslotsSize, metadataSize, keyslotsEnd };
}

/** hdr_validate_areas: every keyslot's area lies inside the keyslots area and overlaps no other. */
function validateAreas(keyslots: Json, metadataSize: bigint, keyslotsEnd: bigint): void {
  const areas: { id: string; offset: bigint; size: bigint }[] = [];
  for (const [id, k] of Object.entries(keyslots) as [string, Json][]) {
    const area = object(k, 'area', `keyslot ${id}.area`);
    string(area, 'type', `keyslot ${id}.area.type`);
    areas.push({
      id,
      offset: u64(area, 'offset', `keyslot ${id}.area.offset`),
      size: u64(area, 'size', `keyslot ${id}.area.size`),
    });
  }
  const start = 2n * metadataSize;
  for (const a of areas) {
    const where = `keyslot ${a.id}.area [${a.offset}, ${a.offset + a.size})`;
    if (a.offset < start) bad(`${where} is not inside the keyslots area [${start}, ${keyslotsEnd})`);
    if (a.size === 0n) bad(`keyslot ${a.id}.area.size is 0`);
    if (a.offset + a.size > keyslotsEnd) bad(`${where} is not inside the keyslots area [${start}, ${keyslotsEnd})`);
    for (const b of areas)
      if (b !== a && a.offset >= b.offset && a.offset < b.offset + b.size)
        bad(`${where} overlaps keyslot ${b.id}.area [${b.offset}, ${b.offset + b.size})`);
  }
}

/**
 * LUKS2_keyslots_validate: the checks of the keyslot types cryptsetup knows; then what this package refuses
 * beyond cryptsetup (packages/luks/README.md): keyslots it never makes nor shows.
 */
function validateKeyslotTypes({ keyslots, digests, mandatory }: Sections): void {
  let reencrypt = 0;
  for (const [id, k] of Object.entries(keyslots) as [string, Json][]) {
    if (k.type === 'luks2') {
      validateLuks2Keyslot(id, k);
      const num = String(atoi(id));
      const n = Object.values(digests).filter(
        (d) => isObject(d) && Array.isArray(d.keyslots) && d.keyslots.includes(num),
      ).length;
      if (n !== 1) bad(`keyslot ${id} is named by ${n} digests; a luks2 keyslot belongs to exactly one`);
    } else if (k.type === 'reencrypt') {
      validateReencryptKeyslot(id, k);
      reencrypt++;
    }
  }
  if (mandatory.some((f) => ONLINE_REENCRYPT.has(f)) && reencrypt === 0)
    bad('an online reencryption (config.requirements) without its reencrypt keyslot');
  if (reencrypt > 0 && !mandatory.some(reencryptCandidate))
    bad('a reencrypt keyslot without the online-reencrypt requirement (config.requirements.mandatory)');
  if (reencrypt > 1) bad(`${reencrypt} reencrypt keyslots; there is at most one`);

  // deliberately stricter than cryptsetup (packages/luks/README.md): keyslots it never makes nor shows
  const slotIds = Object.keys(keyslots);
  if (slotIds.length > LUKS2_KEYSLOTS_MAX)
    bad(`${slotIds.length} keyslots; LUKS2 has at most ${LUKS2_KEYSLOTS_MAX} (cryptsetup's LUKS2_KEYSLOTS_MAX)`);
  for (const id of slotIds)
    if (atoi(id) >= LUKS2_KEYSLOTS_MAX)
      bad(`keyslot ${id}: keyslots are numbered 0 … ${LUKS2_KEYSLOTS_MAX - 1} (cryptsetup's LUKS2_KEYSLOTS_MAX)`);
}

/**
 * LUKS2_hdr_validate, check for check and in its order (requirements, tokens, digests, segments,
 * keyslots, config, areas, then the JSON size and the keyslot handlers' own checks), with a message that
 * names the field and the rule for each refusal. Each section is a function named after cryptsetup's.
 */
function validate(j: Json, jsonAreaSize: number): Validated {
  const config = object(j, 'config', 'config');
  const mandatory = validateRequirements(config);
  const tokens = object(j, 'tokens', 'tokens');
  validateTokens(j, tokens);

  const digests = object(j, 'digests', 'digests');
  const keyslots = object(j, 'keyslots', 'keyslots');
  const segments = object(j, 'segments', 'segments');
  const sections: Sections = { config, digests, keyslots, segments, mandatory };
  validateDigests(sections);
  const segIds = validateSegments(sections);

  // hdr_validate_keyslots
  for (const [id, k] of Object.entries(keyslots)) {
    if (!numbered(id)) bad(`keyslots: "${id}" is not a decimal number`);
    if (!isObject(k)) bad(`keyslot ${id} is not an object`);
    string(k, 'type', `keyslot ${id}.type`);
    u32(k, 'key_size', `keyslot ${id}.key_size`);
  }

  const { jsonSize, keyslotsSize, metadataSize, keyslotsEnd } = validateConfig(sections, segIds);
  validateAreas(keyslots, metadataSize, keyslotsEnd);
  // hdr_validate_json_size (json-c's own serialization of the JSON is not measured: it is no longer than
  // the text read unless that text holds raw control bytes, which no LUKS2 writer puts there)
  if (jsonSize !== BigInt(jsonAreaSize))
    bad(
      `config.json_size ${jsonSize} is not the header's JSON area, ${jsonAreaSize} bytes (hdr_size ${jsonAreaSize + LUKS2_BINARY_SIZE} − ${LUKS2_BINARY_SIZE})`,
    );

  validateKeyslotTypes(sections);
  return { metadataSize, keyslotsSize, requirements: mandatory };
}

/**
 * luks2_keyslot_validate (after luks2_keyslot_repair, which drops the members a KDF type does not have):
 * kdf, af and area objects; the KDF's members for the types cryptsetup knows (any other type passes, and
 * fails only when the keyslot is tried); af of type luks1; area of type raw.
 */
function validateLuks2Keyslot(id: string, k: Json): void {
  const what = `keyslot ${id}`;
  const kdf = object(k, 'kdf', `${what}.kdf`);
  const af = object(k, 'af', `${what}.af`);
  const area = object(k, 'area', `${what}.area`);
  const type = string(kdf, 'type', `${what}.kdf.type`);
  if (type === 'pbkdf2') {
    string(kdf, 'hash', `${what}.kdf.hash`);
    int(kdf, 'iterations', `${what}.kdf.iterations`);
    string(kdf, 'salt', `${what}.kdf.salt`);
  } else if (type === 'argon2i' || type === 'argon2id') {
    for (const m of ['time', 'memory', 'cpus']) int(kdf, m, `${what}.kdf.${m}`);
    string(kdf, 'salt', `${what}.kdf.salt`);
  }
  const afType = string(af, 'type', `${what}.af.type`);
  if (afType !== 'luks1') bad(`${what}.af.type "${afType}" is not luks1`);
  string(af, 'hash', `${what}.af.hash`);
  int(af, 'stripes', `${what}.af.stripes`);
  const areaType = string(area, 'type', `${what}.area.type`);
  if (areaType !== 'raw') bad(`${what}.area.type "${areaType}" is not raw`);
  string(area, 'encryption', `${what}.area.encryption`);
  int(area, 'key_size', `${what}.area.key_size`);
}

/** reenc_keyslot_validate (luks2_keyslot_reenc.c): the keyslot that records a reencryption in progress. */
function validateReencryptKeyslot(id: string, k: Json): void {
  const what = `keyslot ${id}`;
  const area = k.area as Json; // checked by hdr_validate_areas
  const keySize = int(k, 'key_size', `${what}.key_size`);
  const mode = string(k, 'mode', `${what}.mode`);
  const direction = string(k, 'direction', `${what}.direction`);
  if (keySize !== 1) bad(`${what}.key_size ${keySize} is not 1 (a reencrypt keyslot)`);
  if (!['reencrypt', 'encrypt', 'decrypt'].includes(mode))
    bad(`${what}.mode "${mode}" is not reencrypt, encrypt or decrypt`);
  if (direction !== 'forward' && direction !== 'backward')
    bad(`${what}.direction "${direction}" is not forward or backward`);
  const type = area.type;
  if (type === 'checksum' || type === 'datashift-checksum') {
    string(area, 'hash', `${what}.area.hash`);
    const sector = u32(area, 'sector_size', `${what}.area.sector_size`);
    if (sector < 512 || (sector & (sector - 1)) !== 0)
      bad(`${what}.area.sector_size ${sector} is not a power of two of at least 512`);
  } else if (type === 'datashift' || type === 'datashift-journal') {
    const shift = jobjU64(string(area, 'shift_size', `${what}.area.shift_size`));
    if (shift === 0n || shift % 512n !== 0n) bad(`${what}.area.shift_size is not a positive multiple of 512`);
  }
}

// ---------------------------------------------------------------------------------------------- the header

/** A bigint as a number when JavaScript holds it exactly, else as it is. */
const exact = (n: bigint): number | bigint => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);
const byId = (a: { id: string }, b: { id: string }) => atoi(a.id) - atoi(b.id);

function toKeyslot(id: string, k: Json): Luks2Keyslot {
  const type = k.type as string;
  const keySize = k.key_size as number;
  const priority = k.priority === undefined ? 1 : cInt(k.priority);
  if (type !== 'luks2') return Object.freeze({ id, type, keySize, priority });
  const kdf = k.kdf as Json,
    af = k.af as Json,
    area = k.area as Json;
  let parsed: Luks2Kdf | undefined;
  let problem: string | undefined;
  const salt = fromBase64(kdf.salt);
  if (kdf.type === 'pbkdf2')
    parsed = {
      type: 'pbkdf2',
      hash: kdf.hash as string,
      iterations: kdf.iterations as number,
      salt: salt ?? new Uint8Array(0),
    };
  else if (kdf.type === 'argon2i' || kdf.type === 'argon2id') {
    const [time, memory, cpus] = [kdf.time, kdf.memory, kdf.cpus] as number[];
    parsed = { type: kdf.type, time, memory, cpus, salt: salt ?? new Uint8Array(0) };
  } else problem = `kdf.type "${kdf.type}" is not supported (pbkdf2, argon2i, argon2id)`;
  if (parsed && !salt) problem = 'kdf.salt is not base64';
  return Object.freeze({
    id,
    type,
    keySize,
    priority,
    // offset and size are inside the keyslots area (validated), so numbers hold them exactly
    area: Object.freeze({
      type: area.type as string,
      offset: Number(area.offset),
      size: Number(area.size),
      encryption: area.encryption as string,
      keySize: area.key_size as number,
    }),
    af: Object.freeze({ type: af.type as string, stripes: af.stripes as number, hash: af.hash as string }),
    ...(parsed ? { kdf: Object.freeze(parsed) } : {}),
    ...(problem ? { problem } : {}),
  });
}

function toSegment(id: string, s: Json): Luks2Segment {
  const crypt = s.type === 'crypt';
  return Object.freeze({
    id,
    type: s.type as string,
    offset: exact(BigInt(s.offset as string)),
    size: s.size === 'dynamic' ? 'dynamic' : exact(BigInt(s.size as string)),
    ivTweak: typeof s.iv_tweak === 'string' ? (strtoull(s.iv_tweak) ?? 0n) : 0n,
    encryption: typeof s.encryption === 'string' ? s.encryption : '',
    sectorSize: crypt ? (s.sector_size as number) : 512,
    integrity: s.integrity,
    flags: Object.freeze(flagsOf(s)),
  });
}

function toDigest(id: string, d: Json): Luks2Digest {
  const type = d.type as string;
  const pbkdf2 = type === 'pbkdf2';
  const salt = pbkdf2 ? fromBase64(d.salt) : new Uint8Array(0);
  const value = pbkdf2 ? fromBase64(d.digest) : new Uint8Array(0);
  let problem: string | undefined;
  if (pbkdf2) {
    if (typeof d.hash !== 'string') problem = 'hash is not a string';
    else if (!isInt(d, 'iterations')) problem = 'iterations is not an integer';
    else if (!salt) problem = 'salt is not base64';
    else if (!value) problem = 'digest is not base64';
  }
  return Object.freeze({
    id,
    type,
    keyslots: Object.freeze([...(d.keyslots as string[])]),
    segments: Object.freeze([...(d.segments as string[])]),
    hash: pbkdf2 && typeof d.hash === 'string' ? d.hash : '',
    iterations: pbkdf2 && isInt(d, 'iterations') ? (d.iterations as number) : 0,
    salt: salt ?? new Uint8Array(0),
    digest: value ?? new Uint8Array(0),
    ...(problem ? { problem } : {}),
  });
}

// ---------------------------------------------------------------------------------------------- the copies

/** One copy's binary header fields, once its checksum has been verified. */
interface Copy {
  readonly bytes: Uint8Array;
  readonly headerSize: number;
  readonly seqid: bigint;
  readonly checksumAlgorithm: string;
}

const hasMagic = (b: Uint8Array, magic: number[]) => magic.every((x, i) => b[i] === x);
const be64 = (b: Uint8Array, o: number) => (BigInt(u32be(b, o)) << 32n) | BigInt(u32be(b, o + 4));

/**
 * Reads and checks the copy at `offset` as hdr_read_disk does: magic, version 2, hdr_offset = offset,
 * hdr_size within 16 KiB … 4 MiB (= offset for the secondary), and the checksum over hdr_size bytes with
 * the csum field zeroed. Returns the copy or the reason it is unusable.
 */
async function readCopy(source: ByteSource, offset: number, secondary: boolean): Promise<Copy | string> {
  const which = secondary ? `secondary header at ${offset}` : 'primary header';
  if (offset + LUKS2_BINARY_SIZE > source.size) return `${which}: the image is truncated`;
  const bin = await readBytes(source, offset, LUKS2_BINARY_SIZE);
  if (!hasMagic(bin, secondary ? MAGIC_SECONDARY : MAGIC_PRIMARY)) return `${which}: no magic`;
  if (u16be(bin, 6) !== 2) return `${which}: version ${u16be(bin, 6)} is not 2`;
  const size = be64(bin, 8);
  if (be64(bin, 256) !== BigInt(offset)) return `${which}: hdr_offset ${be64(bin, 256)} does not match its place`;
  if (size < BigInt(LUKS2_HEADER_SIZES[0]) || size > BigInt(LUKS2_HEADER_SIZES.at(-1)!))
    return `${which}: hdr_size ${size} is not within 16 KiB … 4 MiB`;
  const headerSize = Number(size);
  if (secondary && headerSize !== offset) return `${which}: hdr_size ${headerSize} does not match its place`;
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
  return { bytes, headerSize, seqid: be64(bin, 16), checksumAlgorithm };
}

interface Parsed {
  readonly header: Omit<Luks2Header, 'copy' | 'problems'>;
  /** Both copies and the keyslots area (LUKS2_hdr_and_areas_size): the least the device must hold. */
  readonly needed: bigint;
  readonly firstOffset: bigint | undefined;
}

/** The JSON of a copy, parsed and validated (parse_and_validate_json), and the header it makes. */
function parseCopy(c: Copy): Parsed {
  const b = c.bytes;
  const json = parseJsonArea(b.subarray(LUKS2_BINARY_SIZE));
  const v = validate(json, c.headerSize - LUKS2_BINARY_SIZE);
  const keyslots = json.keyslots as Json,
    segments = json.segments as Json,
    digests = json.digests as Json;
  const segs = Object.entries(segments)
    .map(([id, s]) => toSegment(id, s as Json))
    .sort(byId);
  const config = json.config as Json;
  const header = {
    version: 2 as const,
    headerSize: c.headerSize,
    seqid: Number(c.seqid),
    label: cString(b, 24, 48),
    subsystem: cString(b, 208, 48),
    uuid: cString(b, 168, 40),
    checksumAlgorithm: c.checksumAlgorithm,
    checksum: hex(b.subarray(CSUM_OFFSET, CSUM_OFFSET + hashByName(c.checksumAlgorithm).size)),
    keyslots: Object.freeze(
      Object.entries(keyslots)
        .map(([id, k]) => toKeyslot(id, k as Json))
        .sort(byId),
    ),
    segments: Object.freeze(segs),
    digests: Object.freeze(
      Object.entries(digests)
        .map(([id, d]) => toDigest(id, d as Json))
        .sort(byId),
    ),
    tokens: Object.freeze(json.tokens as Json),
    config: Object.freeze({
      jsonSize: c.headerSize - LUKS2_BINARY_SIZE,
      keyslotsSize: Number(v.keyslotsSize),
      flags: Object.freeze(Array.isArray(config.flags) ? [...(config.flags as string[])] : []),
      requirements: Object.freeze(v.requirements),
    }),
    json,
  };
  const offsets = segs.filter((s) => !s.flags.some((f) => f.startsWith('backup-'))).map((s) => BigInt(s.offset));
  return {
    header,
    needed: 2n * v.metadataSize + v.keyslotsSize,
    firstOffset: offsets.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0],
  };
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
 * Reads a LUKS2 header as cryptsetup's LUKS2_disk_hdr_read does: the primary copy, and the secondary at
 * the primary's hdr_size (or, when the primary is unreadable, at the first allowed offset that holds one);
 * a copy whose checksum fails or whose JSON breaks a rule is passed over for the other; of two valid copies
 * the higher seqid wins (the primary when equal). The image must then hold both copies and the keyslots
 * area of the copy in use. Throws a HeaderError naming what is wrong when neither copy is usable: for
 * copies whose JSON is refused, the reason of the one that would have been used.
 */
export async function readLuks2(source: ByteSource, options: ReadLuks2Options = {}): Promise<Luks2Header> {
  const primary = await readCopy(source, 0, false);
  let secondary: Copy | string;
  if (typeof primary !== 'string') secondary = await readCopy(source, primary.headerSize, true);
  else {
    // the reason to report: the one at the offset the damaged primary still names, if it names one
    let declared: number | undefined;
    if (source.size >= 16) {
      const b = await readBytes(source, 8, 8);
      const size = u32be(b, 0) === 0 ? u32be(b, 4) : -1;
      if (LUKS2_HEADER_SIZES.includes(size)) declared = size;
    }
    secondary = 'secondary header: none at any offset LUKS2 allows';
    for (const off of LUKS2_HEADER_SIZES) {
      const c = await readCopy(source, off, true);
      if (typeof c !== 'string') {
        secondary = c;
        break;
      }
      if (off === declared) secondary = c;
    }
  }
  if (typeof primary === 'string' && typeof secondary === 'string')
    throw new HeaderError(`@x/luks: no usable LUKS2 header: ${primary}; ${secondary}`);

  const attempt = (c: Copy | string): Parsed | HeaderError | string => {
    if (typeof c === 'string') return c;
    try {
      return parseCopy(c);
    } catch (e) {
      if (e instanceof HeaderError) return e;
      throw e;
    }
  };
  const p = attempt(primary),
    s = attempt(secondary);
  const ok = (x: Parsed | HeaderError | string): x is Parsed => typeof x === 'object' && !(x instanceof HeaderError);
  const seq = (c: Copy | string) => (typeof c === 'string' ? -1n : c.seqid);
  let use: 'primary' | 'secondary';
  if (ok(p) && ok(s)) use = seq(secondary) > seq(primary) ? 'secondary' : 'primary';
  else if (ok(p) || ok(s)) use = ok(p) ? 'primary' : 'secondary';
  else {
    // neither is valid: the reason of the copy that would have been used
    const first = typeof secondary !== 'string' && seq(secondary) > seq(primary) ? s : p;
    throw first instanceof HeaderError ? first : (s as HeaderError);
  }
  const chosen = (use === 'primary' ? p : s) as Parsed;
  const other = use === 'primary' ? s : p;
  const otherName = use === 'primary' ? 'secondary' : 'primary';
  const problems: string[] = [];
  if (typeof other === 'string') problems.push(other);
  else if (other instanceof HeaderError)
    problems.push(`${otherName} header: ${other.message.replace(/^@x\/luks: /, '')}`);
  else if (other.header.seqid !== chosen.header.seqid)
    problems.push(`${otherName} header: older seqid ${other.header.seqid}`);

  // the device holds both copies and the keyslots area (LUKS2_disk_hdr_read's device_check_size)
  if (!options.headersOnly && BigInt(source.size) < chosen.needed) {
    const first =
      chosen.firstOffset !== undefined && chosen.firstOffset > BigInt(source.size) ? chosen.firstOffset : undefined;
    throw new HeaderError(
      `@x/luks: the image (${source.size} bytes) ends ${first === undefined ? 'inside its LUKS2 keyslots area' : `before the payload offset ${first}`} (truncated?): its two LUKS2 header copies and keyslots area take ${chosen.needed} bytes`,
    );
  }
  return Object.freeze({ ...chosen.header, copy: use, problems: Object.freeze(problems) });
}
