// Making a LUKS volume from plaintext, laid out as cryptsetup 2.6's `luksFormat` lays it out (checked against
// `cryptsetup luksFormat` output here).
//
// LUKS2 (LUKS2 on-disk format, "Binary header", "JSON area", "Keyslots area"):
//   0          primary binary header (4096) + JSON area (12288): hdr_size 16384
//   16384      secondary binary header + JSON area, "SKUL\xba\xbe", hdr_offset 16384
//   32768      keyslots area (16 MiB − 32 KiB), random bytes; keyslot 0's key material at its start,
//              258,048 bytes for a 512-bit key (4000 stripes, rounded up to 4096)
//   16 MiB     the payload: the plaintext, encrypted with the volume key, one "crypt" segment of size "dynamic"
// Each header copy has its own random 64-byte salt and a SHA-256 checksum over its hdr_size bytes with the
// csum field zeroed (what ./luks2.ts verifies). Keyslot 0: kdf (argon2id/argon2i/pbkdf2) of the passphrase
// keys the area cipher (the segment's cipher and key size, as cryptsetup chooses) over the AF-split volume
// key (4000 stripes, sha256); digest 0: PBKDF2-SHA256 of the volume key, 32 bytes, binds keyslot and segment.
//
// LUKS1 (LUKS1 On-Disk Format Specification 1.2.3, Figure 1; cryptsetup's LUKS_generate_phdr):
//   0          the 592-byte phdr, then zeros to 4096
//   4096       eight key material areas of AF_split_sectors(key bytes, 4000) sectors each, every one starting
//              on a 4096-byte boundary (sectors 8, 264, 520, … for a 256-bit key; 8, 512, 1016, … for 512):
//              keyslot 0's encrypted material, random bytes in the seven unused ones, zeros between
//   payload    at the first 1 MiB boundary after the eighth area (2 MiB for 256- and 512-bit keys); sectors
//              of 512 bytes. One hash (hash-spec) for the keyslot's PBKDF2, the AF diffuser and the
//              20-byte mk-digest.
import { newSectorCipher, parseCipherSpec, type SectorCipher } from '@x/dm-crypt';
import { afSplit, fillRandom } from './af.js';
import { hex, secretBytes, toBase64 } from '@x/disk-format';
import { digest, hashByName } from './hashes.js';
import { pbkdf2 } from './kdf.js';
import { checkInt, chooseKdf, deriveKey, digestIterations, type Kdf, type KdfOptions, planKdf } from './kdf-cost.js';
import { type Luks1Header, parseLuks1 } from './luks1.js';
import { LUKS2_BINARY_SIZE, readLuks2, type Luks2Header } from './luks2.js';
import { type ByteSource, bytesSource, toSource, type LuksInput } from './source.js';

const PREFIX = '@x/luks';
const HDR_SIZE = 0x4000; // cryptsetup's default metadata size: 4 KiB binary header + 12 KiB JSON
const DATA_OFFSET = 16 << 20; // cryptsetup 2.6's default LUKS2 data offset (alignment)
const KEYSLOTS_OFFSET = 2 * HDR_SIZE;
const STRIPES = 4000; // LUKS_STRIPES
const AF_HASH = 'sha256';
const SALT_BYTES = 32; // LUKS_SALTSIZE: keyslot and digest salts
const HEADER_SALT_BYTES = 64; // binary header salt
const KEY_MATERIAL_SECTOR = 512;
const CHUNK_BYTES = 4 << 20; // payload bytes encrypted and written at a time
const LUKS1_ALIGN_KEYSLOTS = 4096; // LUKS_ALIGN_KEYSLOTS: each LUKS1 key material area starts on it
const LUKS1_ALIGN_PAYLOAD = 1 << 20; // cryptsetup's default data alignment (DEFAULT_DISK_ALIGNMENT)
const LUKS1_DIGEST_BYTES = 20; // LUKS_DIGESTSIZE
const LUKS1_KEY_ENABLED = 0x00ac71f3;
const LUKS1_KEY_DISABLED = 0x0000dead;

/** Where {@link createLuks} writes the image: `write(offset, bytes)` puts `bytes` at `offset` (and may keep
 * no reference to `bytes` once its promise settles). Every byte from 0 to the end of the image is written once.
 *
 * @example
 * ```ts
 * const fh = await open('disk.img', 'w');
 * const sink: LuksSink = { async write(offset, bytes) { await fh.write(bytes, 0, bytes.length, offset); } };
 * ```
 */
export interface LuksSink {
  write(offset: number, bytes: Uint8Array): Promise<void>;
}

/**
 * Options of {@link createLuks}. Defaults are cryptsetup 2.6 `luksFormat`'s: aes-xts-plain64, a 512-bit key
 * (256 bits for non-XTS ciphers), argon2id benchmarked for 2000 ms with up to 1 GiB (at most half the
 * machine's memory) and min(4, CPUs) lanes, 4096-byte sectors when the plaintext is a whole number of them
 * (else 512).
 *
 * @example
 * ```ts
 * const fast: CreateOptions = { passphrase: 'pw', pbkdf: 'pbkdf2', iterations: 1000, sectorSize: 512 };
 * ```
 */
export interface CreateOptions extends KdfOptions {
  /** The passphrase; a string is encoded as UTF-8, bytes are used as they are (like a key file). */
  passphrase: string | Uint8Array;
  /** `luks2` (default) or `luks1` (512-byte sectors, PBKDF2, no label; what GRUB 2.06 and older open). */
  type?: 'luks2' | 'luks1';
  /** The payload's dm-crypt cipher spec (any that `@x/dm-crypt` runs). Default `aes-xts-plain64`. */
  cipher?: string;
  /** Volume key size in bits. Default 512 for XTS, else 256 (cryptsetup's rule). */
  keySize?: number;
  /** 512, 1024, 2048 or 4096 (LUKS1: 512 only). Default 4096 when the plaintext is a multiple of it, else 512. */
  sectorSize?: number;
  /** Label in both binary headers, up to 47 bytes of UTF-8 (LUKS2 only). */
  label?: string;
  /** The volume UUID (lowercase canonical form). Default a random version 4 UUID. */
  uuid?: string;
  /** Use this volume key instead of a random one (cryptsetup --volume-key-file); copied, not kept. */
  volumeKey?: Uint8Array;
  /** Called after each chunk of payload written, with bytes done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Forces an AES kernel for the payload (see `@x/cbc`'s `kernels()`). */
  kernel?: string;
}

function randomUuid(): string {
  const b = fillRandom(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; // version 4 (RFC 9562 §5.4)
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const putU64 = (b: Uint8Array, o: number, v: number) => {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setBigUint64(o, BigInt(v));
};

/**
 * One header copy (binary header + JSON area, hdr_size bytes) with its checksum: magic, version 2, hdr_size,
 * seqid, label, "sha256", a random salt, uuid, hdr_offset, then the JSON, zero-padded; SHA-256 over all
 * hdr_size bytes with the csum field (448 … 511) zero.
 */
function headerCopy(json: string, seqid: number, label: Uint8Array, uuid: string, secondary: boolean): Uint8Array {
  const b = new Uint8Array(HDR_SIZE);
  b.set(secondary ? [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe] : [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe], 0);
  b[7] = 2; // version
  putU64(b, 8, HDR_SIZE);
  putU64(b, 16, seqid);
  b.set(label, 24);
  b.set(new TextEncoder().encode('sha256'), 72);
  fillRandom(b.subarray(104, 104 + HEADER_SALT_BYTES));
  b.set(new TextEncoder().encode(uuid), 168);
  putU64(b, 256, secondary ? HDR_SIZE : 0);
  b.set(new TextEncoder().encode(json), LUKS2_BINARY_SIZE);
  b.set(digest(hashByName('sha256'), b), 448);
  return b;
}

/** The options checked and completed, before anything is derived or written. */
function settle(options: CreateOptions, plainSize: number) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${PREFIX}: options must be an object`);
  const type = options.type ?? 'luks2';
  if (type !== 'luks2' && type !== 'luks1')
    throw new RangeError(`${PREFIX}: type "${String(type)}" is not luks2 or luks1`);
  const luks1 = type === 'luks1';
  const cipher = options.cipher ?? 'aes-xts-plain64';
  const spec = parseCipherSpec(cipher);
  const keyBits =
    options.keySize === undefined
      ? spec.chainMode === 'xts'
        ? 512
        : 256
      : checkInt(options.keySize, 'keySize', 8, 4096);
  if (keyBits % 8 !== 0) throw new RangeError(`${PREFIX}: keySize ${keyBits} is not a whole number of bytes`);
  const sectorSize =
    options.sectorSize === undefined
      ? plainSize % 4096 === 0 && !luks1
        ? 4096
        : 512
      : checkInt(options.sectorSize, 'sectorSize', 512, 4096);
  if (![512, 1024, 2048, 4096].includes(sectorSize))
    throw new RangeError(`${PREFIX}: sectorSize ${sectorSize} is not 512, 1024, 2048 or 4096`);
  const kdf = planKdf(options, luks1);
  if (typeof options.label !== 'undefined' && typeof options.label !== 'string')
    throw new TypeError(`${PREFIX}: label must be a string`);
  const label = new TextEncoder().encode(options.label ?? '');
  if (label.length > 47 || label.includes(0))
    throw new RangeError(`${PREFIX}: label is longer than 47 bytes or has a NUL`);
  if (luks1) {
    // what the 592-byte phdr can say: 512-byte sectors, "name-mode" in 31 bytes each, no label
    if (sectorSize !== 512) throw new RangeError(`${PREFIX}: LUKS1 has 512-byte sectors only, not ${sectorSize}`);
    if (label.length > 0) throw new RangeError(`${PREFIX}: LUKS1 has no label`);
    const dash = cipher.indexOf('-');
    if (cipher.startsWith('capi:') || dash < 1 || dash > 31 || cipher.length - dash - 1 > 31)
      throw new RangeError(
        `${PREFIX}: LUKS1 writes a cipher as name-mode, each at most 31 bytes: "${cipher}" cannot be written`,
      );
    if (kdf.hash.length > 31 || digest(hashByName(kdf.hash), new Uint8Array(0)).length < LUKS1_DIGEST_BYTES)
      throw new RangeError(`${PREFIX}: LUKS1 needs a hash of at least 20 bytes, not ${kdf.hash}`);
  }
  const uuid = options.uuid ?? randomUuid();
  if (typeof uuid !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid))
    throw new RangeError(`${PREFIX}: uuid is not a lowercase UUID (8-4-4-4-12 hex digits)`);
  if (options.volumeKey !== undefined) {
    if (!(options.volumeKey instanceof Uint8Array)) throw new TypeError(`${PREFIX}: volumeKey must be a Uint8Array`);
    if (options.volumeKey.length * 8 !== keyBits)
      throw new RangeError(`${PREFIX}: volumeKey is ${options.volumeKey.length * 8} bits, keySize is ${keyBits}`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new TypeError(`${PREFIX}: onProgress must be a function`);
  return { luks1, cipher, keyBytes: keyBits / 8, sectorSize, kdf, label, uuid };
}

type Settled = ReturnType<typeof settle>;

/** Sectors of one LUKS1 key material area: the AF material rounded up to LUKS_ALIGN_KEYSLOTS. */
function luks1AreaSectors(keyBytes: number): number {
  const align = LUKS1_ALIGN_KEYSLOTS / KEY_MATERIAL_SECTOR;
  return Math.ceil(Math.ceil((keyBytes * STRIPES) / KEY_MATERIAL_SECTOR) / align) * align;
}

/** Where the payload starts, bytes: after the metadata, on cryptsetup's data alignment. */
function payloadOffsetOf(o: Settled): number {
  if (!o.luks1) return DATA_OFFSET;
  const end = (LUKS1_ALIGN_KEYSLOTS / KEY_MATERIAL_SECTOR + 8 * luks1AreaSectors(o.keyBytes)) * KEY_MATERIAL_SECTOR;
  return Math.ceil(end / LUKS1_ALIGN_PAYLOAD) * LUKS1_ALIGN_PAYLOAD;
}

/**
 * Makes a LUKS2 (or, with `type: 'luks1'`, LUKS1) volume holding `plaintext` (bytes, a Blob/File or a
 * `ByteSource`), encrypted, and writes the image through `sink`: the payload first, in 4 MiB chunks, then the
 * keyslots area and the header last. The image is the metadata (16 MiB for LUKS2, 2 MiB for LUKS1 with a
 * 256- or 512-bit key) + the plaintext rounded up to whole sectors (the last sector padded with zeros). Laid
 * out as cryptsetup 2.6 `luksFormat` would (see the top of this file); cryptsetup opens it. The volume key
 * and salts come from `crypto.getRandomValues`; the volume key, passphrase, keyslot key and AF material are
 * wiped once used. Returns the header written (as {@link readHeader} parses it).
 *
 * @throws TypeError/RangeError for bad options (before anything is derived or written); whatever the
 *   source or the sink throws.
 * @example
 * ```ts
 * import { createLuks } from '@x/luks';
 * const chunks = new Map<number, Uint8Array>();
 * const header = await createLuks(plain, { write: async (o, b) => void chunks.set(o, b.slice()) }, {
 *   passphrase: 'correct horse', pbkdf: 'pbkdf2', iterTime: 1000,
 * });
 * header.version === 2 && header.segments[0].encryption; // 'aes-xts-plain64'
 * ```
 */
export async function createLuks(
  plaintext: LuksInput,
  sink: LuksSink,
  options: CreateOptions & { type: 'luks1' },
): Promise<Luks1Header>;
export async function createLuks(
  plaintext: LuksInput,
  sink: LuksSink,
  options: CreateOptions & { type?: 'luks2' },
): Promise<Luks2Header>;
export async function createLuks(
  plaintext: LuksInput,
  sink: LuksSink,
  options: CreateOptions,
): Promise<Luks1Header | Luks2Header>;
export async function createLuks(
  plaintext: LuksInput,
  sink: LuksSink,
  options: CreateOptions,
): Promise<Luks1Header | Luks2Header> {
  const source = toSource(plaintext);
  if (sink === null || typeof sink !== 'object' || typeof sink.write !== 'function')
    throw new TypeError(`${PREFIX}: sink must have a write(offset, bytes) method`);
  const o = settle(options, source.size);
  if (source.size === 0) throw new RangeError(`${PREFIX}: the plaintext is empty`);
  const pass = secretBytes(options.passphrase, 'passphrase', PREFIX);
  const volumeKey = options.volumeKey ? Uint8Array.from(options.volumeKey) : fillRandom(new Uint8Array(o.keyBytes));
  let payload: SectorCipher | undefined, area: SectorCipher | undefined;
  let slotKey: Uint8Array | undefined, material: Uint8Array | undefined;
  try {
    // both ciphers first: a key size the cipher does not take fails before any work
    try {
      payload = newSectorCipher(o.cipher, volumeKey, { sectorSize: o.sectorSize, kernel: options.kernel });
    } catch (e) {
      if (e instanceof RangeError && e.message.startsWith('@x/dm-crypt:'))
        throw new RangeError(`${PREFIX}: ${e.message.replace('@x/dm-crypt: ', '')}`, { cause: e });
      throw e;
    }
    const materialBytes = Math.ceil((o.keyBytes * STRIPES) / KEY_MATERIAL_SECTOR) * KEY_MATERIAL_SECTOR;

    // the keyslot's KDF, benchmarked as cryptsetup does unless the cost is forced; the digest's PBKDF2
    const kdf = await chooseKdf(o.kdf, o.keyBytes);
    const digestHash = o.luks1 ? o.kdf.hash : 'sha256';
    const digestBytes = o.luks1 ? LUKS1_DIGEST_BYTES : 32;
    const mkIterations = await digestIterations(o.kdf, digestHash, digestBytes);

    const dataOffset = payloadOffsetOf(o);
    await encryptPayload(source, sink, payload, o.sectorSize, dataOffset, options);

    // keyslot 0: the AF-split volume key, encrypted with the KDF's key (512-byte sectors from 0)
    const salt = fillRandom(new Uint8Array(SALT_BYTES));
    slotKey = await deriveKey(kdf, pass, salt, o.keyBytes);
    area = newSectorCipher(o.cipher, slotKey, { sectorSize: KEY_MATERIAL_SECTOR });
    // the AF material in whole 512-byte sectors (a 24-byte key's 96,000 bytes end mid-sector), encrypted
    const split = afSplit(volumeKey, STRIPES, o.luks1 ? o.kdf.hash : AF_HASH);
    material = new Uint8Array(materialBytes);
    material.set(split);
    split.fill(0);
    area.encrypt(material, material, 0);
    const mkSalt = fillRandom(new Uint8Array(SALT_BYTES));
    const mkDigest = await pbkdf2(digestHash, volumeKey, mkSalt, mkIterations, digestBytes);
    try {
      if (o.luks1)
        return await writeLuks1(
          sink,
          o,
          dataOffset,
          kdf,
          salt,
          material,
          materialBytes,
          mkSalt,
          mkDigest,
          mkIterations,
        );
      return await writeLuks2(sink, o, kdf, salt, material, materialBytes, mkSalt, mkDigest, mkIterations);
    } finally {
      mkDigest.fill(0);
    }
  } finally {
    pass.fill(0);
    volumeKey.fill(0);
    slotKey?.fill(0);
    material?.fill(0);
    payload?.dispose();
    area?.dispose();
  }
}

/**
 * The payload: plaintext chunks, zero-padded to whole sectors, encrypted in place and written from
 * `dataOffset`; one write in flight while the next chunk is read. The buffers are wiped after.
 */
async function encryptPayload(
  source: ByteSource,
  sink: LuksSink,
  payload: SectorCipher,
  sectorSize: number,
  dataOffset: number,
  options: Pick<CreateOptions, 'onProgress'>,
): Promise<void> {
  const plainSize = source.size;
  const payloadSize = Math.ceil(plainSize / sectorSize) * sectorSize;
  const bufs = [new Uint8Array(Math.min(CHUNK_BYTES, payloadSize)), new Uint8Array(Math.min(CHUNK_BYTES, payloadSize))];
  let pending: Promise<void> = Promise.resolve();
  try {
    for (let off = 0, i = 0; off < payloadSize; off += CHUNK_BYTES, i++) {
      const n = Math.min(CHUNK_BYTES, payloadSize - off);
      const buf = bufs[i & 1].subarray(0, n);
      const have = Math.min(n, plainSize - off);
      await source.read(off, buf.subarray(0, have));
      buf.fill(0, have);
      payload.encrypt(buf, buf, off / sectorSize);
      await pending;
      pending = sink.write(dataOffset + off, buf);
      pending.catch(() => {}); // awaited below; a read failing meanwhile must not leave it unhandled
      options.onProgress?.(Math.min(off + n, plainSize), plainSize);
    }
    await pending;
  } finally {
    for (const b of bufs) b.fill(0);
  }
}

/** The LUKS2 metadata: keyslots area (random, keyslot 0's material at its start), then both header copies. */
async function writeLuks2(
  sink: LuksSink,
  o: Settled,
  kdf: Kdf,
  salt: Uint8Array,
  material: Uint8Array,
  materialBytes: number,
  digestSalt: Uint8Array,
  vkDigest: Uint8Array,
  digestIterations: number,
): Promise<Luks2Header> {
  const areaSize = Math.ceil(materialBytes / 4096) * 4096; // cryptsetup rounds keyslot areas up to 4 KiB
  const keyslots = fillRandom(new Uint8Array(DATA_OFFSET - KEYSLOTS_OFFSET)); // cryptsetup wipes it with random bytes
  keyslots.set(material, 0);
  // JSON metadata, in cryptsetup's key order; 64-bit values as decimal strings
  const json = JSON.stringify({
    keyslots: { '0': keyslotJson(o.keyBytes, o.cipher, KEYSLOTS_OFFSET, areaSize, kdf, salt) },
    tokens: {},
    segments: {
      '0': {
        type: 'crypt',
        offset: String(DATA_OFFSET),
        size: 'dynamic',
        iv_tweak: '0',
        encryption: o.cipher,
        sector_size: o.sectorSize,
      },
    },
    digests: {
      '0': {
        type: 'pbkdf2',
        keyslots: ['0'],
        segments: ['0'],
        hash: 'sha256',
        iterations: digestIterations,
        salt: toBase64(digestSalt),
        digest: toBase64(vkDigest),
      },
    },
    config: { json_size: String(HDR_SIZE - LUKS2_BINARY_SIZE), keyslots_size: String(DATA_OFFSET - KEYSLOTS_OFFSET) },
  });
  const seqid = 1;
  const headers = new Uint8Array(KEYSLOTS_OFFSET);
  headers.set(headerCopy(json, seqid, o.label, o.uuid, false), 0);
  headers.set(headerCopy(json, seqid, o.label, o.uuid, true), HDR_SIZE);
  try {
    await sink.write(KEYSLOTS_OFFSET, keyslots);
  } finally {
    keyslots.fill(0);
  }
  await sink.write(0, headers);
  return await readLuks2(bytesSource(headers), { headersOnly: true });
}

/**
 * A LUKS2 keyslot object as cryptsetup writes it (key order included): type luks2, the AF split in 4000
 * stripes of sha256, a raw area with the segment's cipher, and the KDF.
 */
export function keyslotJson(
  keyBytes: number,
  cipher: string,
  offset: number,
  size: number,
  kdf: Kdf,
  salt: Uint8Array,
): Record<string, unknown> {
  return {
    type: 'luks2',
    key_size: keyBytes,
    af: { type: 'luks1', stripes: STRIPES, hash: AF_HASH },
    area: { type: 'raw', offset: String(offset), size: String(size), encryption: cipher, key_size: keyBytes },
    kdf:
      kdf.type === 'pbkdf2'
        ? { type: 'pbkdf2', hash: kdf.hash, iterations: kdf.iterations, salt: toBase64(salt) }
        : { type: kdf.type, time: kdf.time, memory: kdf.memory, cpus: kdf.cpus, salt: toBase64(salt) },
  };
}

/** The LUKS1 metadata: the phdr and the eight key material areas, one write from 0 to the payload. */
async function writeLuks1(
  sink: LuksSink,
  o: Settled,
  dataOffset: number,
  kdf: Kdf,
  salt: Uint8Array,
  material: Uint8Array,
  materialBytes: number,
  mkSalt: Uint8Array,
  mkDigest: Uint8Array,
  mkIterations: number,
): Promise<Luks1Header> {
  if (kdf.type !== 'pbkdf2') throw new Error('unreachable: LUKS1 keyslots are pbkdf2');
  const meta = new Uint8Array(dataOffset);
  const view = new DataView(meta.buffer);
  const text = (s: string, at: number) => meta.set(new TextEncoder().encode(s), at);
  meta.set([0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe], 0); // LUKS_MAGIC
  view.setUint16(6, 1);
  const dash = o.cipher.indexOf('-');
  text(o.cipher.slice(0, dash), 8); // cipher-name
  text(o.cipher.slice(dash + 1), 40); // cipher-mode
  text(o.kdf.hash, 72); // hash-spec
  view.setUint32(104, dataOffset / KEY_MATERIAL_SECTOR); // payload-offset
  view.setUint32(108, o.keyBytes);
  meta.set(mkDigest, 112);
  meta.set(mkSalt, 132);
  view.setUint32(164, mkIterations);
  text(o.uuid, 168);
  const areaSectors = luks1AreaSectors(o.keyBytes);
  for (let i = 0; i < 8; i++) {
    const at = 208 + 48 * i;
    const sector = LUKS1_ALIGN_KEYSLOTS / KEY_MATERIAL_SECTOR + i * areaSectors;
    view.setUint32(at, i === 0 ? LUKS1_KEY_ENABLED : LUKS1_KEY_DISABLED);
    if (i === 0) {
      view.setUint32(at + 4, kdf.iterations);
      meta.set(salt, at + 8);
    }
    view.setUint32(at + 40, sector);
    view.setUint32(at + 44, STRIPES);
    // keyslot 0's encrypted material; random bytes where the unused ones will go, as cryptsetup leaves them
    const where = meta.subarray(sector * KEY_MATERIAL_SECTOR, sector * KEY_MATERIAL_SECTOR + materialBytes);
    if (i === 0) where.set(material);
    else fillRandom(where);
  }
  try {
    await sink.write(0, meta);
    return parseLuks1(meta, dataOffset);
  } finally {
    meta.fill(0, LUKS1_ALIGN_KEYSLOTS);
  }
}
