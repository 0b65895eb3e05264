// Making a LUKS2 volume from plaintext, laid out as cryptsetup 2.6's `luksFormat` lays it out (LUKS2 on-disk
// format, "Binary header", "JSON area", "Keyslots area"; checked against `cryptsetup luksFormat` output here):
//
//   0          primary binary header (4096) + JSON area (12288): hdr_size 16384
//   16384      secondary binary header + JSON area, "SKUL\xba\xbe", hdr_offset 16384
//   32768      keyslots area (16 MiB − 32 KiB), random bytes; keyslot 0's key material at its start,
//              258,048 bytes for a 512-bit key (4000 stripes, rounded up to 4096)
//   16 MiB     the payload: the plaintext, encrypted with the volume key, one "crypt" segment of size "dynamic"
//
// Each header copy has its own random 64-byte salt and a SHA-256 checksum over its hdr_size bytes with the
// csum field zeroed (what ./luks2.ts verifies). Keyslot 0: kdf (argon2id/argon2i/pbkdf2) of the passphrase
// keys the area cipher (the segment's cipher and key size, as cryptsetup chooses) over the AF-split volume
// key (4000 stripes, sha256); digest 0: PBKDF2-SHA256 of the volume key, 32 bytes, binds keyslot and segment.
import { newSectorCipher, parseCipherSpec, type SectorCipher } from '@x/dm-crypt';
import { afSplit, fillRandom } from './af.js';
import { hex, toBase64 } from './bytes.js';
import { digest, hashByName } from './hashes.js';
import { argon2, pbkdf2 } from './kdf.js';
import { LUKS2_BINARY_SIZE, readLuks2, type Luks2Header } from './luks2.js';
import { bytesSource, toSource, type LuksInput } from './source.js';

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
const DIGEST_MS = 125; // LUKS_MKD_ITERATIONS_MS: the digest's PBKDF2 is benchmarked for this long
const PBKDF2_MIN = 1000; // cryptsetup's minimum PBKDF2 iterations (keyslot and digest)
const ARGON2_MIN_TIME = 4; // cryptsetup's argon2 limits: time ≥ 4, memory 32 KiB … 4 GiB, 1 … 4 lanes
const ARGON2_MIN_MEMORY = 32;
const ARGON2_MAX_MEMORY = 4 * 1024 * 1024;
const ARGON2_MAX_PARALLEL = 4;
const DEFAULT_MEMORY = 1024 * 1024; // KiB: cryptsetup's default argon2 memory (1 GiB)
const DEFAULT_ITER_TIME = 2000; // ms: cryptsetup's default --iter-time for LUKS2

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
export interface CreateOptions {
  /** The passphrase; a string is encoded as UTF-8, bytes are used as they are (like a key file). */
  passphrase: string | Uint8Array;
  /** The payload's dm-crypt cipher spec (any that `@x/dm-crypt` runs). Default `aes-xts-plain64`. */
  cipher?: string;
  /** Volume key size in bits. Default 512 for XTS, else 256 (cryptsetup's rule). */
  keySize?: number;
  /** 512, 1024, 2048 or 4096. Default 4096 when the plaintext is a multiple of it, else 512. */
  sectorSize?: number;
  /** The keyslot's key derivation. Default `argon2id`. */
  pbkdf?: 'argon2id' | 'argon2i' | 'pbkdf2';
  /** PBKDF2's hash (keyslot). Default `sha256`. */
  hash?: string;
  /** Benchmark the KDF to take this long, ms (cryptsetup --iter-time). Default 2000; ignored with `iterations`. */
  iterTime?: number;
  /** Forced cost, no benchmark: PBKDF2 iterations (≥ 1000) or Argon2 time cost (≥ 4) (--pbkdf-force-iterations). */
  iterations?: number;
  /** Argon2 memory, KiB (32 … 4194304; --pbkdf-memory). Default 1048576, capped at half the machine's memory. */
  memory?: number;
  /** Argon2 lanes (1 … 4; --pbkdf-parallel). Default 4, capped at the number of CPUs. */
  parallelism?: number;
  /** Label in both binary headers, up to 47 bytes of UTF-8. */
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

type Kdf =
  | { type: 'pbkdf2'; hash: string; iterations: number }
  | { type: 'argon2i' | 'argon2id'; time: number; memory: number; cpus: number };

interface RuntimeFacts {
  memoryKiB?: number;
  cpus: number;
}

/** Physical memory and CPU count where the runtime tells them (node:os via getBuiltinModule, else navigator). */
function runtimeFacts(): RuntimeFacts {
  const g = globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
    navigator?: { hardwareConcurrency?: number; deviceMemory?: number };
  };
  try {
    const os = g.process?.getBuiltinModule?.('node:os') as
      | { totalmem?: () => number; availableParallelism?: () => number; cpus?: () => unknown[] }
      | undefined;
    if (os?.totalmem) {
      const cpus = os.availableParallelism?.() ?? os.cpus?.().length ?? 1;
      return { memoryKiB: Math.floor(os.totalmem() / 1024), cpus: Math.max(1, cpus) };
    }
  } catch {
    // not Node: fall through
  }
  const dm = g.navigator?.deviceMemory;
  return {
    memoryKiB: typeof dm === 'number' ? dm * 1024 * 1024 : undefined,
    cpus: Math.max(1, g.navigator?.hardwareConcurrency ?? 1),
  };
}

function checkInt(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number') throw new TypeError(`${PREFIX}: ${name} must be a number`);
  if (!Number.isSafeInteger(v) || v < min || v > max)
    throw new RangeError(`${PREFIX}: ${name} ${v} is not an integer in ${min} … ${max}`);
  return v;
}

/** Runs `f` and returns how long it took, ms. */
async function timed(f: () => Promise<Uint8Array>): Promise<number> {
  const t = performance.now();
  (await f()).fill(0);
  return performance.now() - t;
}

/**
 * PBKDF2 iterations that take `ms` on this machine (as cryptsetup's benchmark: at least 1000): the count
 * doubles from 1000 until one run takes 50 ms or more, then is scaled to `ms`.
 */
async function benchmarkPbkdf2(hash: string, keyLength: number, ms: number): Promise<number> {
  const pass = new Uint8Array(8),
    salt = new Uint8Array(SALT_BYTES);
  let iterations = PBKDF2_MIN;
  for (;;) {
    const e = await timed(() => pbkdf2(hash, pass, salt, iterations, keyLength));
    if (e >= 50 || iterations >= 1 << 30)
      return Math.max(PBKDF2_MIN, Math.round((iterations * ms) / Math.max(e, 1e-3)));
    iterations *= 2;
  }
}

/**
 * Argon2 time cost for `ms` with `memory` KiB, as cryptsetup's benchmark decides it: time ≥ 4, and when even
 * time 4 is too slow, less memory at time 4. Measured at up to 64 MiB (the cost is about linear in memory ×
 * time) so that the benchmark never allocates the full memory; memory × time is scaled to `ms`.
 */
async function benchmarkArgon2(
  type: 'argon2i' | 'argon2id',
  memory: number,
  cpus: number,
  keyLength: number,
  ms: number,
): Promise<{ time: number; memory: number }> {
  const pass = new Uint8Array(8),
    salt = new Uint8Array(SALT_BYTES);
  const m = Math.min(memory, 64 * 1024);
  let time = ARGON2_MIN_TIME;
  let e: number;
  for (;;) {
    e = await timed(() => argon2({ type, time, memory: m, cpus }, pass, salt, keyLength));
    if (e >= 50 || time >= 1 << 20) break;
    time *= 2;
  }
  const perKiBPass = e / (m * time); // ms per KiB per pass
  const t = Math.floor(ms / (perKiBPass * memory));
  if (t >= ARGON2_MIN_TIME) return { time: t, memory };
  const reduced = Math.floor(ms / (perKiBPass * ARGON2_MIN_TIME));
  return { time: ARGON2_MIN_TIME, memory: Math.max(ARGON2_MIN_MEMORY, 8 * cpus, Math.min(memory, reduced)) };
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

function passphraseBytes(p: unknown): Uint8Array {
  if (typeof p === 'string') return new TextEncoder().encode(p);
  if (p instanceof Uint8Array) return Uint8Array.from(p);
  throw new TypeError(`${PREFIX}: passphrase must be a string or a Uint8Array`);
}

/** The options checked and completed, before anything is derived or written. */
function settle(options: CreateOptions, plainSize: number) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${PREFIX}: options must be an object`);
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
      ? plainSize % 4096 === 0
        ? 4096
        : 512
      : checkInt(options.sectorSize, 'sectorSize', 512, 4096);
  if (![512, 1024, 2048, 4096].includes(sectorSize))
    throw new RangeError(`${PREFIX}: sectorSize ${sectorSize} is not 512, 1024, 2048 or 4096`);
  const pbkdf = options.pbkdf ?? 'argon2id';
  if (pbkdf !== 'argon2id' && pbkdf !== 'argon2i' && pbkdf !== 'pbkdf2')
    throw new RangeError(`${PREFIX}: pbkdf "${String(pbkdf)}" is not argon2id, argon2i or pbkdf2`);
  const hash = options.hash ?? 'sha256';
  if (typeof hash !== 'string') throw new TypeError(`${PREFIX}: hash must be a string`);
  try {
    hashByName(hash);
  } catch (e) {
    throw new RangeError((e as Error).message);
  }
  const iterTime =
    options.iterTime === undefined ? DEFAULT_ITER_TIME : checkInt(options.iterTime, 'iterTime', 1, 3_600_000);
  const iterations =
    options.iterations === undefined
      ? undefined
      : checkInt(options.iterations, 'iterations', pbkdf === 'pbkdf2' ? PBKDF2_MIN : ARGON2_MIN_TIME, 0xffffffff);
  const facts = runtimeFacts();
  let memory =
    options.memory === undefined
      ? DEFAULT_MEMORY
      : checkInt(options.memory, 'memory', ARGON2_MIN_MEMORY, ARGON2_MAX_MEMORY);
  // cryptsetup: at most half the physical memory, and no more lanes than CPUs
  if (facts.memoryKiB !== undefined)
    memory = Math.max(ARGON2_MIN_MEMORY, Math.min(memory, Math.floor(facts.memoryKiB / 2)));
  let cpus =
    options.parallelism === undefined
      ? ARGON2_MAX_PARALLEL
      : checkInt(options.parallelism, 'parallelism', 1, ARGON2_MAX_PARALLEL);
  cpus = Math.min(cpus, facts.cpus);
  memory = Math.max(memory, 8 * cpus); // Argon2: at least 8 KiB per lane (RFC 9106 §3.1)
  const label = new TextEncoder().encode(options.label ?? '');
  if (typeof options.label !== 'undefined' && typeof options.label !== 'string')
    throw new TypeError(`${PREFIX}: label must be a string`);
  if (label.length > 47 || label.includes(0))
    throw new RangeError(`${PREFIX}: label is longer than 47 bytes or has a NUL`);
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
  return { cipher, keyBytes: keyBits / 8, sectorSize, pbkdf, hash, iterTime, iterations, memory, cpus, label, uuid };
}

/**
 * Makes a LUKS2 volume holding `plaintext` (bytes, a Blob/File or a `ByteSource`), encrypted, and writes
 * the image through `sink`: the payload first, in 4 MiB chunks, then the keyslots area and the two header
 * copies last. The image is 16 MiB + the plaintext rounded up to whole sectors (the last sector padded with
 * zeros). Laid out as cryptsetup 2.6 `luksFormat` would (see the top of this file); cryptsetup opens it.
 * The volume key and salts come from `crypto.getRandomValues`; the volume key, passphrase, keyslot key and
 * AF material are wiped once used. Returns the header written (as {@link readHeader} parses it).
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
 * header.segments[0].encryption; // 'aes-xts-plain64'
 * ```
 */
export async function createLuks(plaintext: LuksInput, sink: LuksSink, options: CreateOptions): Promise<Luks2Header> {
  const source = toSource(plaintext);
  if (sink === null || typeof sink !== 'object' || typeof sink.write !== 'function')
    throw new TypeError(`${PREFIX}: sink must have a write(offset, bytes) method`);
  const o = settle(options, source.size);
  if (source.size === 0) throw new RangeError(`${PREFIX}: the plaintext is empty`);
  const pass = passphraseBytes(options.passphrase);
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
    const areaSize = Math.ceil(materialBytes / 4096) * 4096; // cryptsetup rounds keyslot areas up to 4 KiB

    // the keyslot's KDF, benchmarked as cryptsetup does unless the cost is forced
    let kdf: Kdf;
    if (o.pbkdf === 'pbkdf2')
      kdf = {
        type: 'pbkdf2',
        hash: o.hash,
        iterations: o.iterations ?? (await benchmarkPbkdf2(o.hash, o.keyBytes, o.iterTime)),
      };
    else if (o.iterations !== undefined) kdf = { type: o.pbkdf, time: o.iterations, memory: o.memory, cpus: o.cpus };
    else
      kdf = {
        type: o.pbkdf,
        ...(await benchmarkArgon2(o.pbkdf, o.memory, o.cpus, o.keyBytes, o.iterTime)),
        cpus: o.cpus,
      };
    // the digest: 1000 iterations when the keyslot's cost is forced (no benchmark), else 125 ms' worth
    const digestIterations = o.iterations !== undefined ? PBKDF2_MIN : await benchmarkPbkdf2('sha256', 32, DIGEST_MS);

    // payload: plaintext chunks encrypted in place; one write in flight while the next chunk is read
    const plainSize = source.size;
    const payloadSize = Math.ceil(plainSize / o.sectorSize) * o.sectorSize;
    const bufs = [
      new Uint8Array(Math.min(CHUNK_BYTES, payloadSize)),
      new Uint8Array(Math.min(CHUNK_BYTES, payloadSize)),
    ];
    let pending: Promise<void> = Promise.resolve();
    try {
      for (let off = 0, i = 0; off < payloadSize; off += CHUNK_BYTES, i++) {
        const n = Math.min(CHUNK_BYTES, payloadSize - off);
        const buf = bufs[i & 1].subarray(0, n);
        const have = Math.min(n, plainSize - off);
        await source.read(off, buf.subarray(0, have));
        buf.fill(0, have);
        payload.encrypt(buf, buf, off / o.sectorSize);
        await pending;
        pending = sink.write(DATA_OFFSET + off, buf);
        pending.catch(() => {}); // awaited below; a read failing meanwhile must not leave it unhandled
        options.onProgress?.(Math.min(off + n, plainSize), plainSize);
      }
      await pending;
    } finally {
      for (const b of bufs) b.fill(0);
    }

    // keyslot 0: the AF-split volume key, encrypted with the KDF's key (512-byte sectors from 0)
    const salt = fillRandom(new Uint8Array(SALT_BYTES));
    slotKey =
      kdf.type === 'pbkdf2'
        ? await pbkdf2(kdf.hash, pass, salt, kdf.iterations, o.keyBytes)
        : await argon2(kdf, pass, salt, o.keyBytes);
    area = newSectorCipher(o.cipher, slotKey, { sectorSize: KEY_MATERIAL_SECTOR });
    const keyslots = fillRandom(new Uint8Array(DATA_OFFSET - KEYSLOTS_OFFSET)); // cryptsetup wipes it with random bytes
    material = afSplit(volumeKey, STRIPES, AF_HASH);
    const sectors = keyslots.subarray(0, materialBytes);
    sectors.set(material);
    area.encrypt(sectors, sectors, 0);

    const digestSalt = fillRandom(new Uint8Array(SALT_BYTES));
    const vkDigest = await pbkdf2('sha256', volumeKey, digestSalt, digestIterations, 32);

    // JSON metadata, in cryptsetup's key order; 64-bit values as decimal strings
    const kdfJson =
      kdf.type === 'pbkdf2'
        ? { type: 'pbkdf2', hash: kdf.hash, iterations: kdf.iterations, salt: toBase64(salt) }
        : { type: kdf.type, time: kdf.time, memory: kdf.memory, cpus: kdf.cpus, salt: toBase64(salt) };
    const json = JSON.stringify({
      keyslots: {
        '0': {
          type: 'luks2',
          key_size: o.keyBytes,
          af: { type: 'luks1', stripes: STRIPES, hash: AF_HASH },
          area: {
            type: 'raw',
            offset: String(KEYSLOTS_OFFSET),
            size: String(areaSize),
            encryption: o.cipher,
            key_size: o.keyBytes,
          },
          kdf: kdfJson,
        },
      },
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
    vkDigest.fill(0);
    const seqid = 1;
    const headers = new Uint8Array(KEYSLOTS_OFFSET);
    headers.set(headerCopy(json, seqid, o.label, o.uuid, false), 0);
    headers.set(headerCopy(json, seqid, o.label, o.uuid, true), HDR_SIZE);

    await sink.write(KEYSLOTS_OFFSET, keyslots);
    keyslots.fill(0);
    await sink.write(0, headers);
    return await readLuks2(bytesSource(headers), { headersOnly: true });
  } finally {
    pass.fill(0);
    volumeKey.fill(0);
    slotKey?.fill(0);
    material?.fill(0);
    payload?.dispose();
    area?.dispose();
  }
}
