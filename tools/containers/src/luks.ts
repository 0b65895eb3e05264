// Real LUKS2 and LUKS1 containers made by cryptsetup on plain temporary files, over random data that the
// caller gets back, so a test can check its own decryption against data that nobody here encrypted.
//
// How: random data followed by `reduce` spare bytes is written to a file; `cryptsetup reencrypt --encrypt
// --type luks2 --force-offline-reencrypt --reduce-device-size <reduce>` puts a LUKS2 header in front and
// encrypts the data in place (cryptsetup's own userspace implementation of the dm-crypt IV modes, so no
// device-mapper and no root are needed). The header takes reduce/2 bytes; the data follows it; whatever
// lies after the data is not part of the original, so the file is cut right after the data.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, open, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCryptsetup } from './cryptsetup.js';

/** Key derivation for the keyslots. Small costs by default, so that a container takes a fraction of a second. */
export type PbkdfSpec =
  | { readonly type: 'pbkdf2'; readonly iterations?: number; readonly hash?: string }
  | {
      readonly type: 'argon2i' | 'argon2id';
      /** KiB, default 32 (cryptsetup's minimum). */
      readonly memoryKiB?: number;
      /** Passes, default 4. */
      readonly iterations?: number;
      /** Lanes, default 1. */
      readonly parallel?: number;
    };

/** What to make. Every field has a default. */
export interface ContainerSpec {
  /** cryptsetup cipher spec, default `aes-cbc-essiv:sha256` (e.g. `aes-cbc-plain64`, `aes-xts-plain64`). */
  readonly cipher?: string;
  /** Volume key size in bits (`--key-size`), default 256; XTS takes 256 or 512. */
  readonly keySize?: number;
  /** Encryption sector size in bytes (`--sector-size`), 512 (default) … 4096. */
  readonly sectorSize?: number;
  /** Bytes of random data to encrypt, a multiple of `sectorSize`; default 256 KiB. */
  readonly dataSize?: number;
  /** Data to encrypt instead of random bytes (its length overrides `dataSize`). */
  readonly data?: Uint8Array;
  /** One passphrase per keyslot (the first one makes the container, the rest are added with luksAddKey). */
  readonly passphrases?: readonly (string | Uint8Array)[];
  /** Keyslot key derivation, default pbkdf2-sha256 with 1000 iterations. */
  readonly pbkdf?: PbkdfSpec;
  /** Leave room in the header for `cryptsetup convert --type luks1` (LUKS1 places 8 keyslots at fixed
   *  offsets). Default: true for 512-byte sectors with pbkdf2, the only containers LUKS1 can hold. */
  readonly luks1Compatible?: boolean;
  /** Directory for the files; default one temporary directory per process ({@link removeAllContainers}). */
  readonly dir?: string;
  /** File name stem, default derived from the cipher and sizes. */
  readonly name?: string;
}

/** A container on disk, with everything a test needs to check it. */
export interface Container {
  /** The image file. */
  readonly path: string;
  readonly format: 'luks1' | 'luks2';
  /** The data that cryptsetup encrypted: the whole payload decrypts to exactly this. */
  readonly original: Uint8Array;
  /** The volume (master) key, read back with `luksDump --dump-volume-key`. */
  readonly volumeKey: Uint8Array;
  /** Byte offset of the encrypted payload in the file (LUKS2 segment offset, LUKS1 payload offset × 512). */
  readonly payloadOffset: number;
  /** Bytes of payload: `original.length`; the file ends with it. */
  readonly payloadSize: number;
  /** Encryption sector size in bytes. */
  readonly sectorSize: number;
  /** Full cipher spec as cryptsetup reports it, e.g. `aes-cbc-essiv:sha256`. */
  readonly cipher: string;
  /** The block cipher, e.g. `aes`. */
  readonly cipherName: string;
  /** The chaining mode, e.g. `cbc`. */
  readonly chainMode: string;
  /** The IV mode in dm-crypt's words, e.g. `essiv:sha256`, `plain64`; empty for `ecb`. */
  readonly ivMode: string;
  /** LUKS2 segment `iv_tweak` (added to every IV sector number); 0 for LUKS1. */
  readonly ivTweak: bigint;
  /** Passphrases in keyslot order. */
  readonly passphrases: readonly Uint8Array[];
  /** `cryptsetup luksDump` output. */
  readonly dump: string;
  /** Reads the payload (the encrypted sectors) from the file. */
  readPayload(): Promise<Uint8Array>;
  /** Deletes the image and its key files. */
  remove(): Promise<void>;
}

const AF_STRIPES = 4000; // LUKS1 §2.4 / LUKS2 keyslot "af.stripes", as cryptsetup writes them
const LUKS2_HEADERS = 2 * 16384; // primary + secondary binary header and JSON area, cryptsetup's default size
const LUKS1_SLOTS = 8;
const LUKS1_ALIGN = 4096; // LUKS1 key material areas start on 4096-byte boundaries
const DEFAULT_PASSPHRASE = 'x-aes container passphrase';

let defaultDir: Promise<string> | undefined;
let counter = 0;

function workDir(spec: ContainerSpec): Promise<string> {
  if (spec.dir) return Promise.resolve(spec.dir);
  defaultDir ??= mkdtemp(join(tmpdir(), 'x-aes-containers-'));
  return defaultDir;
}

/**
 * Deletes the per-process temporary directory that holds containers made without `dir`.
 *
 * @example
 * ```ts
 * afterAll(removeAllContainers);
 * ```
 */
export async function removeAllContainers(): Promise<void> {
  if (!defaultDir) return;
  const dir = await defaultDir;
  defaultDir = undefined;
  await rm(dir, { recursive: true, force: true });
}

const roundUp = (n: number, m: number) => Math.ceil(n / m) * m;
const pow2AtLeast = (n: number) => 2 ** Math.ceil(Math.log2(n));

/** Header room (= payload offset) that cryptsetup needs: LUKS2 metadata and one key material area per
 *  keyslot, or LUKS1's header sector plus 8 fixed areas; a power of two, at least 256 KiB. */
function headerBytes(keyBytes: number, keyslots: number, luks1: boolean): number {
  const area = roundUp(keyBytes * AF_STRIPES, 4096);
  let need = LUKS2_HEADERS + keyslots * area;
  if (luks1) need = Math.max(need, LUKS1_ALIGN + LUKS1_SLOTS * roundUp(keyBytes * AF_STRIPES, LUKS1_ALIGN));
  return Math.max(256 * 1024, pow2AtLeast(need));
}

function pbkdfArgs(p: PbkdfSpec): string[] {
  if (p.type === 'pbkdf2') {
    return [
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      String(p.iterations ?? 1000),
      '--hash',
      p.hash ?? 'sha256',
    ];
  }
  return [
    '--pbkdf',
    p.type,
    '--pbkdf-memory',
    String(p.memoryKiB ?? 32),
    '--pbkdf-force-iterations',
    String(p.iterations ?? 4),
    '--pbkdf-parallel',
    String(p.parallel ?? 1),
  ];
}

const toBytes = (p: string | Uint8Array) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p));

/**
 * Parses the volume key out of `cryptsetup luksDump --dump-volume-key` output (cryptsetup 2.6 says
 * "MK dump:", later versions "Volume key:"; hex bytes over several lines).
 *
 * @example
 * ```ts
 * parseVolumeKey('MK bits: 128\nMK dump:\t00 01 02 03 04 05 06 07 \n\t\t08 09 0a 0b 0c 0d 0e 0f \n');
 * ```
 */
export function parseVolumeKey(dump: string): Uint8Array {
  const m = /(?:MK dump|Volume key):\s*((?:[0-9a-fA-F]{2}\s+)*[0-9a-fA-F]{2})/.exec(dump);
  if (!m) throw new Error(`@x/containers: no volume key in luksDump output:\n${dump}`);
  return Uint8Array.from(Buffer.from(m[1].replace(/\s+/g, ''), 'hex'));
}

/** cryptsetup's options for a run with a key file and no questions: `--batch-mode --disable-locks --key-file FILE`. */
const keyFileArgs = (keyFile: string) => ['--batch-mode', '--disable-locks', '--key-file', keyFile];

/**
 * What `cryptsetup luksDump --dump-volume-key` prints for a container, unlocking a keyslot with `keyFile`;
 * `header`, a detached header of the data at `path`. {@link parseVolumeKey} finds the key in it.
 *
 * @example
 * ```ts
 * const dump = await dumpWithVolumeKey('/tmp/volume.img', '/tmp/volume.key');
 * const cipherName = /^Cipher name:\s+(\S+)$/m.exec(dump)?.[1];
 * ```
 */
export async function dumpWithVolumeKey(path: string, keyFile: string, header?: string): Promise<string> {
  const args = ['luksDump', '--dump-volume-key', ...keyFileArgs(keyFile)];
  const { stdout } = await runCryptsetup([...args, ...(header === undefined ? [] : ['--header', header]), path]);
  return stdout;
}

/**
 * Reads the volume key of a container with `cryptsetup luksDump --dump-volume-key`, unlocking a keyslot
 * with `keyFile`; `header`, a detached header of the data at `path`.
 *
 * @example
 * ```ts
 * const key = await dumpVolumeKey('/tmp/volume.img', '/tmp/volume.key');
 * const detached = await dumpVolumeKey('/tmp/data.img', '/tmp/volume.key', '/tmp/header.img');
 * ```
 */
export async function dumpVolumeKey(path: string, keyFile: string, header?: string): Promise<Uint8Array> {
  return parseVolumeKey(await dumpWithVolumeKey(path, keyFile, header));
}

/** Segment 0 facts from a LUKS2 container's JSON metadata (`luksDump --dump-json-metadata`). */
async function luks2Segment(path: string) {
  const { stdout } = await runCryptsetup(['luksDump', '--dump-json-metadata', '--disable-locks', path]);
  const json = JSON.parse(stdout) as {
    segments: Record<
      string,
      { type: string; offset: string; encryption: string; sector_size: number; iv_tweak: string }
    >;
  };
  const seg = json.segments['0'];
  if (seg?.type !== 'crypt') throw new Error(`@x/containers: ${path}: no crypt segment 0 in ${stdout}`);
  return {
    offset: Number(seg.offset),
    cipher: seg.encryption,
    sectorSize: seg.sector_size,
    ivTweak: BigInt(seg.iv_tweak),
  };
}

/** Payload offset and cipher from a LUKS1 container's luksDump ("Payload offset" counts 512-byte sectors). */
function luks1Facts(dump: string) {
  const field = (name: string) => {
    const m = new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(dump);
    if (!m) throw new Error(`@x/containers: no "${name}" in luksDump output:\n${dump}`);
    return m[1];
  };
  return { offset: Number(field('Payload offset')) * 512, cipher: `${field('Cipher name')}-${field('Cipher mode')}` };
}

function splitCipher(cipher: string) {
  const [cipherName, chainMode, ...iv] = cipher.split('-');
  return { cipherName, chainMode: chainMode ?? '', ivMode: iv.join('-') };
}

function makeContainer(fields: Omit<Container, 'readPayload' | 'remove'>, files: string[]): Container {
  return {
    ...fields,
    async readPayload() {
      const fh = await open(fields.path, 'r');
      try {
        const out = new Uint8Array(fields.payloadSize);
        const { bytesRead } = await fh.read(out, 0, out.length, fields.payloadOffset);
        if (bytesRead !== out.length) throw new Error(`@x/containers: ${fields.path} is shorter than its payload`);
        return out;
      } finally {
        await fh.close();
      }
    },
    async remove() {
      await Promise.all([fields.path, ...files].map((f) => rm(f, { force: true })));
    },
  };
}

/**
 * Makes a LUKS2 container with cryptsetup: random data (or `spec.data`) encrypted in place by
 * `cryptsetup reencrypt --encrypt --type luks2 --force-offline-reencrypt`, then reads back its volume key
 * and payload offset with `luksDump`. Extra passphrases become keyslots 1, 2, … via `luksAddKey`.
 *
 * @example
 * ```ts
 * const c = await makeLuks2Container({ cipher: 'aes-cbc-essiv:sha256', keySize: 128, sectorSize: 4096 });
 * const ciphertext = await c.readPayload(); // c.original encrypted under c.volumeKey
 * await c.remove();
 * ```
 */
export async function makeLuks2Container(spec: ContainerSpec = {}): Promise<Container> {
  const cipher = spec.cipher ?? 'aes-cbc-essiv:sha256';
  const keyBits = spec.keySize ?? 256;
  const sectorSize = spec.sectorSize ?? 512;
  const pbkdf = spec.pbkdf ?? { type: 'pbkdf2' };
  const passphrases = (spec.passphrases ?? [DEFAULT_PASSPHRASE]).map(toBytes);
  if (passphrases.length === 0) throw new RangeError('@x/containers: at least one passphrase is needed');
  const original = spec.data ? Uint8Array.from(spec.data) : new Uint8Array(randomBytes(spec.dataSize ?? 256 * 1024));
  if (original.length === 0 || original.length % sectorSize !== 0) {
    throw new RangeError(`@x/containers: data size ${original.length} is not a positive multiple of ${sectorSize}`);
  }
  const luks1 = spec.luks1Compatible ?? (sectorSize === 512 && pbkdf.type === 'pbkdf2');
  const header = headerBytes(keyBits / 8, passphrases.length, luks1);

  const dir = await workDir(spec);
  const stem = join(
    dir,
    `${spec.name ?? cipher.replace(/[^a-z0-9]+/gi, '_')}-${keyBits}-${sectorSize}-${process.pid}-${counter++}`,
  );
  const path = `${stem}.luks2.img`;
  const keyFiles = passphrases.map((_, i) => `${stem}.key${i}`);
  await Promise.all(passphrases.map((p, i) => writeFile(keyFiles[i], p, { mode: 0o600 })));
  // the data, then 2 × header spare bytes (reencrypt reserves reduce/2 for the header and needs the rest)
  await writeFile(path, original);
  await truncate(path, original.length + 2 * header);

  await runCryptsetup([
    'reencrypt',
    '--encrypt',
    '--type',
    'luks2',
    '--force-offline-reencrypt',
    '--reduce-device-size',
    `${(2 * header) / 512}s`,
    '--cipher',
    cipher,
    '--key-size',
    String(keyBits),
    '--sector-size',
    String(sectorSize),
    ...pbkdfArgs(pbkdf),
    ...keyFileArgs(keyFiles[0]),
    path,
  ]);
  for (let i = 1; i < passphrases.length; i++)
    await runCryptsetup(['luksAddKey', ...pbkdfArgs(pbkdf), ...keyFileArgs(keyFiles[0]), path, keyFiles[i]]);
  const seg = await luks2Segment(path);
  // cryptsetup 2.6 puts the payload at reduce/2 = header; whatever it chose, the data must follow it
  const { size } = await stat(path);
  if (seg.offset + original.length > size) {
    throw new Error(
      `@x/containers: ${path}: payload at ${seg.offset} + ${original.length} bytes is past the end (${size})`,
    );
  }
  await truncate(path, seg.offset + original.length);
  const [volumeKey, { stdout: dump }] = await Promise.all([
    dumpVolumeKey(path, keyFiles[0]),
    runCryptsetup(['luksDump', '--disable-locks', path]),
  ]);
  return makeContainer(
    {
      path,
      format: 'luks2',
      original,
      volumeKey,
      payloadOffset: seg.offset,
      payloadSize: original.length,
      sectorSize: seg.sectorSize,
      cipher: seg.cipher,
      ...splitCipher(seg.cipher),
      ivTweak: seg.ivTweak,
      passphrases,
      dump,
    },
    keyFiles,
  );
}

/**
 * Copies a LUKS2 container and turns the copy into LUKS1 with `cryptsetup convert --type luks1` (possible
 * for 512-byte sectors, pbkdf2 keyslots and a header made `luks1Compatible`). The LUKS2 container stays.
 *
 * @example
 * ```ts
 * const v2 = await makeLuks2Container({ cipher: 'aes-cbc-plain64', keySize: 256 });
 * const v1 = await convertToLuks1(v2);
 * // v1.payloadOffset === v2.payloadOffset, same volume key, same ciphertext
 * ```
 */
export async function convertToLuks1(luks2: Container): Promise<Container> {
  if (luks2.format !== 'luks2') throw new TypeError('@x/containers: convertToLuks1 takes a LUKS2 container');
  const base = luks2.path.replace(/\.luks2\.img$/, '');
  const path = `${base}.luks1.img`;
  const keyFiles = luks2.passphrases.map((_, i) => `${base}.luks1.key${i}`);
  await Promise.all([
    copyFile(luks2.path, path),
    ...luks2.passphrases.map((p, i) => writeFile(keyFiles[i], p, { mode: 0o600 })),
  ]);
  await runCryptsetup(['convert', '--type', 'luks1', '--batch-mode', '--disable-locks', path]);
  const { stdout: dump } = await runCryptsetup(['luksDump', '--disable-locks', path]);
  const facts = luks1Facts(dump);
  const volumeKey = await dumpVolumeKey(path, keyFiles[0]);
  return makeContainer(
    {
      path,
      format: 'luks1',
      original: luks2.original,
      volumeKey,
      payloadOffset: facts.offset,
      payloadSize: luks2.payloadSize,
      sectorSize: 512,
      cipher: facts.cipher,
      ...splitCipher(facts.cipher),
      ivTweak: 0n,
      passphrases: luks2.passphrases,
      dump,
    },
    keyFiles,
  );
}

/**
 * Runs `task` over `items` with at most `limit` running at once (cryptsetup spends most of its time in
 * one process, so a pool as wide as the machine makes a container matrix about that many times faster).
 * Results keep the order of `items`.
 *
 * @example
 * ```ts
 * const made = await mapLimit(specs, os.availableParallelism(), makeLuks2Container);
 * ```
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
