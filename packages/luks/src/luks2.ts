// The LUKS2 header: two copies of (binary header, JSON area), the secondary right after the primary
// (LUKS2 on-disk format, "Binary header" and "JSON area"; libluksde "Volume header - format version 2",
// "JSON area", "Backup volume header"). Each copy carries a checksum over its hdr_size bytes; a damaged
// copy is passed over for the other, and of two good copies the one with the higher seqid wins.
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

/** LUKS2 keyslot key derivation ("kdf"). */
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
  /** Byte offset of the encrypted data in the device. */
  readonly offset: number;
  /** Bytes, or `'dynamic'` (to the end of the device). */
  readonly size: number | 'dynamic';
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

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') bad(`${what} is not a string`);
  return v;
}

/** A JSON integer (LUKS2 writes 64-bit values as decimal strings, small ones as numbers). */
function int(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
  }
  bad(`${what} is not a non-negative integer`);
}

function positive(v: unknown, what: string): number {
  const n = int(v, what);
  if (n === 0) bad(`${what} is 0`);
  return n;
}

function strings(v: unknown, what: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) bad(`${what} is not an array of strings`);
  return v as string[];
}

const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

function parseKdf(k: Json, what: string): Luks2Kdf {
  const type = str(k.type, `${what}.type`);
  const salt = fromBase64(k.salt, `${what}.salt`);
  if (type === 'pbkdf2')
    return { type, hash: str(k.hash, `${what}.hash`), iterations: int(k.iterations, `${what}.iterations`), salt };
  if (type === 'argon2i' || type === 'argon2id') {
    const memory = int(k.memory, `${what}.memory`),
      time = int(k.time, `${what}.time`),
      cpus = int(k.cpus, `${what}.cpus`);
    // cryptsetup's own bounds (4 GiB, 1 … 16 lanes): a header asking for more is not one cryptsetup made
    if (memory > 4 * 1024 * 1024 || cpus < 1 || cpus > 16 || time < 1)
      bad(`${what}: argon2 cost out of range (time ${time}, memory ${memory} KiB, cpus ${cpus})`);
    return { type, time, memory, cpus, salt };
  }
  bad(`${what}.type "${type}" is not supported (pbkdf2, argon2i, argon2id)`);
}

function parseKeyslot(id: string, v: unknown): Luks2Keyslot {
  const k = obj(v, `keyslot ${id}`);
  const type = str(k.type, `keyslot ${id}.type`);
  const keySize = positive(k.key_size, `keyslot ${id}.key_size`);
  const priority = k.priority === undefined ? 1 : int(k.priority, `keyslot ${id}.priority`);
  if (type !== 'luks2') return Object.freeze({ id, type, keySize, priority });
  const area = obj(k.area, `keyslot ${id}.area`);
  const af = obj(k.af, `keyslot ${id}.af`);
  return Object.freeze({
    id,
    type,
    keySize,
    priority,
    area: Object.freeze({
      type: str(area.type, `keyslot ${id}.area.type`),
      offset: int(area.offset, `keyslot ${id}.area.offset`),
      size: int(area.size, `keyslot ${id}.area.size`),
      encryption: str(area.encryption, `keyslot ${id}.area.encryption`),
      keySize: positive(area.key_size, `keyslot ${id}.area.key_size`),
    }),
    af: Object.freeze({
      type: str(af.type, `keyslot ${id}.af.type`),
      stripes: positive(af.stripes, `keyslot ${id}.af.stripes`),
      hash: str(af.hash, `keyslot ${id}.af.hash`),
    }),
    kdf: Object.freeze(parseKdf(obj(k.kdf, `keyslot ${id}.kdf`), `keyslot ${id}.kdf`)),
  });
}

function parseSegment(id: string, v: unknown): Luks2Segment {
  const s = obj(v, `segment ${id}`);
  const type = str(s.type, `segment ${id}.type`);
  const isCrypt = type === 'crypt';
  const ivTweak = s.iv_tweak === undefined ? '0' : str(s.iv_tweak, `segment ${id}.iv_tweak`);
  if (!/^\d+$/.test(ivTweak)) bad(`segment ${id}.iv_tweak is not a decimal string`);
  return Object.freeze({
    id,
    type,
    offset: int(s.offset, `segment ${id}.offset`),
    size: s.size === 'dynamic' ? 'dynamic' : int(s.size, `segment ${id}.size`),
    ivTweak: BigInt(ivTweak),
    encryption: isCrypt ? str(s.encryption, `segment ${id}.encryption`) : String(s.encryption ?? ''),
    sectorSize: isCrypt ? int(s.sector_size, `segment ${id}.sector_size`) : 512,
    integrity: s.integrity,
    flags: Object.freeze(strings(s.flags, `segment ${id}.flags`)),
  });
}

function parseDigest(id: string, v: unknown): Luks2Digest {
  const d = obj(v, `digest ${id}`);
  const type = str(d.type, `digest ${id}.type`);
  return Object.freeze({
    id,
    type,
    keyslots: Object.freeze(strings(d.keyslots, `digest ${id}.keyslots`)),
    segments: Object.freeze(strings(d.segments, `digest ${id}.segments`)),
    hash: type === 'pbkdf2' ? str(d.hash, `digest ${id}.hash`) : '',
    iterations: type === 'pbkdf2' ? int(d.iterations, `digest ${id}.iterations`) : 0,
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

function parseCopy(c: Copy, which: 'primary' | 'secondary', problems: string[]): Luks2Header {
  const b = c.bytes;
  let end = LUKS2_BINARY_SIZE;
  while (end < b.length && b[end] !== 0) end++;
  let json: Json;
  try {
    json = obj(
      JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(LUKS2_BINARY_SIZE, end))),
      'the JSON area',
    );
  } catch (e) {
    if (e instanceof HeaderError) throw e;
    bad(`the JSON area is not valid JSON (${(e as Error).message})`);
  }
  const section = (name: string) => Object.entries(obj(json[name], name));
  const config = obj(json.config, 'config');
  const requirements =
    config.requirements === undefined
      ? []
      : strings(obj(config.requirements, 'config.requirements').mandatory, 'config.requirements.mandatory');
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
    keyslots: Object.freeze(
      section('keyslots')
        .map(([id, v]) => parseKeyslot(id, v))
        .sort(byId),
    ),
    segments: Object.freeze(
      section('segments')
        .map(([id, v]) => parseSegment(id, v))
        .sort(byId),
    ),
    digests: Object.freeze(
      section('digests')
        .map(([id, v]) => parseDigest(id, v))
        .sort(byId),
    ),
    tokens: Object.freeze(json.tokens === undefined ? {} : obj(json.tokens, 'tokens')),
    config: Object.freeze({
      jsonSize: int(config.json_size, 'config.json_size'),
      keyslotsSize: int(config.keyslots_size, 'config.keyslots_size'),
      flags: Object.freeze(strings(config.flags, 'config.flags')),
      requirements: Object.freeze(requirements),
    }),
    json,
  });
}

/**
 * Reads a LUKS2 header: the primary copy if its checksum holds, else the secondary (looked for at the
 * primary's hdr_size, or at every allowed offset when the primary is unreadable); of two good copies the
 * higher seqid. Throws a HeaderError naming what is wrong with both when neither is usable.
 */
export async function readLuks2(source: ByteSource): Promise<Luks2Header> {
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
  if (typeof primary !== 'string' && (typeof secondary === 'string' || primary.seqid >= secondary.seqid)) {
    const problems = typeof secondary === 'string' ? [secondary] : [];
    if (typeof secondary !== 'string' && secondary.seqid !== primary.seqid)
      problems.push(`secondary header: older seqid ${secondary.seqid}`);
    return parseCopy(primary, 'primary', problems);
  }
  const sec = secondary as Copy;
  const problems = typeof primary === 'string' ? [primary] : [`primary header: older seqid ${primary.seqid}`];
  return parseCopy(sec, 'secondary', problems);
}
