// Unlocking a LUKS volume and reading its payload.
//
// LUKS1 (spec §4.3, Figure 5): for each active keyslot, PBKDF2(passphrase, slot salt, slot iterations,
// key-bytes) keys the header's cipher over the key material (512-byte sectors from IV sector 0, Appendix
// B), AFmerge gives a candidate, and PBKDF2(candidate, mk-digest-salt, mk-digest-iter, 20) must equal
// mk-digest. LUKS2 is the same with per-keyslot parameters: the "kdf" (pbkdf2 or argon2), the "area"
// cipher and key size, the "af" stripes and hash, and a "digests" entry binding keyslot and segment.
import {
  argon2Problem,
  equalBytes,
  type FormatVolume,
  iterationsProblem,
  type KdfLimitOptions,
  type KdfLimits,
  type KdfProblem,
  kdfLimits,
  notTried,
  payloadLayout,
  SectorVolume,
  secretBytes,
  triable,
} from '@x/disk-format';
import { newSectorCipher, parseCipherSpec, type SectorCipher } from '@x/dm-crypt';
import { afMerge } from './af.js';
import { errors, HeaderError, LuksError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
import { hashByName } from './hashes.js';
import { readHeaderFrom, type LuksHeader } from './header.js';
import { argon2, argon2Runtime, pbkdf2 } from './kdf.js';
import type { Luks1Header, Luks1Keyslot } from './luks1.js';
import { LUKS2_STRIPES, type Luks2Digest, type Luks2Header, type Luks2Keyslot, type Luks2Segment } from './luks2.js';
import { readBytes, toSource, type ByteSource, type LuksInput } from './source.js';

const PREFIX = '@x/luks';
const KEY_MATERIAL_SECTOR = 512; // key material is always in 512-byte sectors (LUKS1 §5 LUKS_SECTOR_SIZE)

/** The longest volume or keyslot key looked at, 512 bytes (4096 bits): no cipher takes more (those here take 64 at most). */
const MAX_KEY_BYTES = 512;
/** LUKS_SALTSIZE (lib/luks1/luks.h): every LUKS2 keyslot and digest salt cryptsetup reads is 32 bytes. */
const SALT_BYTES = 32;

/**
 * Options of {@link openLuks}: a passphrase or the raw volume key.
 *
 * @example
 * ```ts
 * const byPassphrase: OpenOptions = { passphrase: 'secret', keyslot: 1 };
 * const byKey: OpenOptions = { volumeKey: keyFromLuksDump };
 * ```
 *
 * The bounds on a keyslot's or digest's key derivation, `maxIterations`, `maxTimeCost` and `maxMemory`, are
 * those of every format ({@link KdfLimitOptions} of `@x/disk-format`): a keyslot above one of them, or above
 * what this runtime's Argon2 can allocate, is not tried.
 */
export interface OpenOptions extends KdfLimitOptions {
  /** The passphrase; a string is encoded as UTF-8, bytes are used as they are (like a key file). */
  passphrase?: string | Uint8Array;
  /** The raw volume (master) key instead of a passphrase; checked against the header's digest. */
  volumeKey?: Uint8Array;
  /** Try only this keyslot (LUKS1: 0 … 7; LUKS2: its id). Default: every active keyslot, by priority. */
  keyslot?: number | string;
  /** Forces an AES kernel for the payload (see `@x/cbc`'s `kernels()`). */
  kernel?: string;
  /**
   * Keep a copy of the volume key in the volume for `volume.share()`, which hands it and the payload's layout
   * to another thread (decrypt threads) once; `close()` wipes it if it was not taken.
   */
  share?: boolean;
}

/**
 * An unlocked volume. Sector numbers count `sectorSize` units from the start of the payload.
 *
 * @example
 * ```ts
 * const v: LuksVolume = await openLuks(image, { passphrase });
 * const chunk = new Uint8Array(4 << 20);                 // a multiple of v.sectorSize
 * for (let s = 0; s * v.sectorSize < v.payloadSize; s += chunk.length / v.sectorSize) {
 *   const n = Math.min(chunk.length, v.payloadSize - s * v.sectorSize);
 *   await v.read(chunk.subarray(0, n), s);
 * }
 * v.close();
 * ```
 */
export interface LuksVolume extends FormatVolume {
  readonly header: LuksHeader;
  readonly version: 1 | 2;
  /** The keyslot that opened the volume, or undefined when the volume key was given. */
  readonly keyslot: string | undefined;
}

function checkDigestMatch(candidate: Uint8Array, computed: Uint8Array, stored: Uint8Array): boolean {
  const ok = equalBytes(computed, stored);
  computed.fill(0);
  if (!ok) candidate.fill(0);
  return ok;
}

/** Why a PBKDF2 of `iterations` with `hash` is not run (named `what`), or undefined. */
function pbkdf2Problem(what: string, hash: string, iterations: number, limits: KdfLimits): string | undefined {
  try {
    hashByName(hash);
  } catch (e) {
    return `${what}.hash: ${(e as Error).message.replace(/^@x\/luks: /, '')}`;
  }
  return iterationsProblem(what, iterations, limits);
}

/**
 * What is wrong with a key of `length` bytes (the header field `field`) for the dm-crypt cipher `spec`, or
 * undefined: the lengths a cipher takes are asked of @x/dm-crypt itself, with a key of that length.
 */
function keySizeProblem(field: string, spec: string, length: number): string | undefined {
  if (length < 1 || length > MAX_KEY_BYTES)
    return `${field} ${length} is not within 1 … ${MAX_KEY_BYTES} bytes (4096 bits)`;
  let c: SectorCipher | undefined;
  try {
    // a key that is not secret, only its length is asked about (distinct bytes: XTS refuses equal halves)
    const probe = new Uint8Array(length);
    for (let i = 0; i < length; i++) probe[i] = i;
    c = newSectorCipher(spec, probe);
    return undefined;
  } catch (e) {
    if (e instanceof RangeError) return `${field} ${length}: ${e.message.replace(/^@x\/dm-crypt: /, '')}`;
    throw e;
  } finally {
    c?.dispose();
  }
}

/** Why the LUKS2 digest is not used (a rule or a bound), or undefined: checked before any derivation. */
function luks2DigestProblem(d: Luks2Digest, limits: KdfLimits): string | undefined {
  const what = `digest ${d.id}`;
  if (d.problem) return `${what}.${d.problem}`;
  const p = pbkdf2Problem(what, d.hash, d.iterations, limits);
  if (p) return p;
  if (d.salt.length !== SALT_BYTES) return `${what}.salt is ${d.salt.length} bytes, not ${SALT_BYTES}`;
  // cryptsetup's PBKDF2_digest_verify: 20 bytes (LUKS_DIGESTSIZE) or the hash's size, at most 64
  const size = hashByName(d.hash).size;
  if (d.digest.length !== 20 && d.digest.length !== size)
    return `${what}.digest is ${d.digest.length} bytes, not 20 or ${size} (the ${d.hash} size)`;
  return undefined;
}

/**
 * Why LUKS2 keyslot `k` is not tried, or undefined: the rules and bounds its key derivation, its key
 * material and the key it yields must meet, all checked before anything is derived or allocated.
 */
function luks2KeyslotProblem(
  k: Luks2Keyslot,
  segmentCipher: string,
  limits: KdfLimits,
  source: ByteSource,
): KdfProblem | undefined {
  const fail = (message: string): KdfProblem => ({ message: `keyslot ${k.id}${message}`, runtime: false });
  if (k.problem) return fail(`.${k.problem}`);
  const af = k.af!,
    area = k.area!,
    kdf = k.kdf!;
  if (af.type !== 'luks1') return fail(`: af type "${af.type}" is not supported (luks1)`);
  if (area.type !== 'raw') return fail(`: area type "${area.type}" is not supported (raw)`);
  // the volume key it holds is one the data segment's cipher takes (its length sizes the key material), and
  // the derived key one the area's cipher takes (its length is what the KDF is asked for)
  const vk = keySizeProblem('.key_size', segmentCipher, k.keySize);
  if (vk) return fail(vk);
  const ak = keySizeProblem('.area.key_size', area.encryption, area.keySize);
  if (ak) return fail(ak);
  try {
    hashByName(af.hash);
  } catch (e) {
    return fail(`.af.hash: ${(e as Error).message.replace(/^@x\/luks: /, '')}`);
  }
  // cryptsetup merges with LUKS_STRIPES whatever af.stripes says (luks2_keyslot_get_key); so does unlockLuks2
  const length = Math.ceil((k.keySize * LUKS2_STRIPES) / KEY_MATERIAL_SECTOR) * KEY_MATERIAL_SECTOR;
  if (length > area.size) return fail(`: key material (${length} bytes) does not fit its area (${area.size})`);
  if (area.offset + length > source.size)
    return fail(`: key material at ${area.offset} is past the end of the image (truncated?)`);
  if (kdf.salt.length !== SALT_BYTES) return fail(`.kdf.salt is ${kdf.salt.length} bytes, not ${SALT_BYTES}`);
  if (kdf.type === 'pbkdf2') {
    const p = pbkdf2Problem('.kdf', kdf.hash, kdf.iterations, limits);
    return p ? fail(p) : undefined;
  }
  return argon2Problem(`keyslot ${k.id}.kdf`, `keyslot ${k.id}`, kdf, limits, argon2Runtime());
}

/** Key material of `keyLength × stripes` bytes from `offset`, whole 512-byte sectors, decrypted and AF-merged. */
async function mergeKeyMaterial(
  source: ByteSource,
  offset: number,
  areaSize: number | undefined,
  cipher: string,
  slotKey: Uint8Array,
  keyLength: number,
  stripes: number,
  hash: string,
  what: string,
): Promise<Uint8Array> {
  const length = Math.ceil((keyLength * stripes) / KEY_MATERIAL_SECTOR) * KEY_MATERIAL_SECTOR;
  if (areaSize !== undefined && length > areaSize)
    throw new HeaderError(`@x/luks: ${what}: key material (${length} bytes) does not fit its area (${areaSize})`);
  if (offset + length > source.size)
    throw new HeaderError(`@x/luks: ${what}: key material at ${offset} is past the end of the image (truncated?)`);
  const material = await readBytes(source, offset, length);
  let c: SectorCipher | undefined;
  try {
    c = newSectorCipher(cipher, slotKey, { sectorSize: KEY_MATERIAL_SECTOR });
    c.decrypt(material, material, 0);
    return afMerge(material, keyLength, stripes, hash);
  } catch (e) {
    if (e instanceof RangeError && e.message.startsWith('@x/dm-crypt:'))
      throw new HeaderError(`@x/luks: ${what}: ${e.message}`, { cause: e });
    throw e;
  } finally {
    c?.dispose();
    material.fill(0);
  }
}

// ---------------------------------------------------------------------------------------------- LUKS1

async function luks1Digest(h: Luks1Header, key: Uint8Array): Promise<boolean> {
  return checkDigestMatch(
    key,
    await pbkdf2(h.hashSpec, key, h.mkDigestSalt, h.mkDigestIterations, h.mkDigest.length),
    h.mkDigest,
  );
}

/** Why LUKS1 keyslot `k` is not tried (a bound, or key material outside the image), or undefined. */
function luks1KeyslotProblem(
  h: Luks1Header,
  k: Luks1Keyslot,
  limits: KdfLimits,
  source: ByteSource,
): KdfProblem | undefined {
  const p = pbkdf2Problem(`keyslot ${k.index}`, h.hashSpec, k.iterations, limits);
  if (p) return { message: p, runtime: false };
  const length = Math.ceil((h.keyBytes * k.stripes) / KEY_MATERIAL_SECTOR) * KEY_MATERIAL_SECTOR;
  if (k.stripes < 1 || k.keyMaterialOffset * KEY_MATERIAL_SECTOR + length > source.size)
    return {
      message: `keyslot ${k.index}: key material at sector ${k.keyMaterialOffset} (${k.stripes} stripes) is past the end of the image (truncated?)`,
      runtime: false,
    };
  return undefined;
}

function wrongPassphrase(tried: string[], skipped: KdfProblem[]): WrongPassphraseError {
  return new WrongPassphraseError(
    `${PREFIX}: no keyslot opens with this passphrase (tried ${tried.join(', ')}${notTried(skipped)})`,
  );
}

async function unlockLuks1(
  h: Luks1Header,
  source: ByteSource,
  passphrase: Uint8Array,
  keyslot: number | undefined,
  limits: KdfLimits,
): Promise<{ key: Uint8Array; slot: string }> {
  let slots = h.keyslots.filter((k) => k.active);
  if (keyslot !== undefined) {
    const k = h.keyslots[keyslot];
    if (!k) throw new RangeError(`@x/luks: LUKS1 has keyslots 0 … 7, not ${keyslot}`);
    if (!k.active) throw new LuksError(`@x/luks: keyslot ${keyslot} is not active`);
    slots = [k];
  }
  if (slots.length === 0) throw new LuksError('@x/luks: the volume has no active keyslot');
  const problem = (k: Luks1Keyslot) => luks1KeyslotProblem(h, k, limits, source);
  const { ok, skipped } = triable(slots, problem, keyslot !== undefined, PREFIX, errors);
  for (const k of ok) {
    const slotKey = await pbkdf2(h.hashSpec, passphrase, k.salt, k.iterations, h.keyBytes);
    let candidate: Uint8Array;
    try {
      candidate = await mergeKeyMaterial(
        source,
        k.keyMaterialOffset * KEY_MATERIAL_SECTOR,
        undefined,
        h.cipher,
        slotKey,
        h.keyBytes,
        k.stripes,
        h.hashSpec,
        `keyslot ${k.index}`,
      );
    } finally {
      slotKey.fill(0);
    }
    if (await luks1Digest(h, candidate)) return { key: candidate, slot: String(k.index) };
  }
  throw wrongPassphrase(
    ok.map((k) => String(k.index)),
    skipped,
  );
}

// ---------------------------------------------------------------------------------------------- LUKS2

/** The one crypt segment this package opens, and the digest that covers it. */
function dataSegment(h: Luks2Header): { segment: Luks2Segment; digest: Luks2Digest } {
  if (h.config.requirements.length > 0) {
    throw new HeaderError(
      `@x/luks: the volume has requirements this package does not meet: ${h.config.requirements.join(', ')} (e.g. a reencryption in progress)`,
    );
  }
  const crypt = h.segments.filter((s) => s.type === 'crypt');
  if (crypt.length !== 1 || h.segments.length !== 1) {
    throw new HeaderError(
      `@x/luks: the volume has segments ${h.segments.map((s) => `${s.id} (${s.type})`).join(', ')}; this package opens a volume of exactly one crypt segment`,
    );
  }
  const segment = crypt[0];
  if (segment.integrity !== undefined)
    throw new HeaderError(
      `@x/luks: segment ${segment.id} uses authenticated encryption (integrity), which this package does not decrypt`,
    );
  const digest = h.digests.find((d) => d.segments.includes(segment.id));
  if (!digest) throw new HeaderError(`@x/luks: no digest covers segment ${segment.id}`);
  if (digest.type !== 'pbkdf2')
    throw new HeaderError(`@x/luks: digest type "${digest.type}" is not supported (pbkdf2)`);
  return { segment, digest };
}

async function luks2Digest(d: Luks2Digest, key: Uint8Array): Promise<boolean> {
  return checkDigestMatch(key, await pbkdf2(d.hash, key, d.salt, d.iterations, d.digest.length), d.digest);
}

async function deriveLuks2(k: Luks2Keyslot, passphrase: Uint8Array): Promise<Uint8Array> {
  const kdf = k.kdf!,
    length = k.area!.keySize;
  if (kdf.type === 'pbkdf2') return pbkdf2(kdf.hash, passphrase, kdf.salt, kdf.iterations, length);
  try {
    return await argon2(kdf, passphrase, kdf.salt, length);
  } catch (e) {
    // an allocation the runtime refuses (a WebAssembly memory that cannot grow, an out-of-memory native
    // Argon2) is a RangeError: say so in one line, typed
    if (e instanceof RangeError)
      throw new LuksError(
        `@x/luks: keyslot ${k.id}: Argon2 memory of ${kdf.memory} KiB cannot be allocated in this runtime (${e.message})`,
        { cause: e },
      );
    throw e;
  }
}

async function unlockLuks2(
  h: Luks2Header,
  segment: Luks2Segment,
  digest: Luks2Digest,
  source: ByteSource,
  passphrase: Uint8Array,
  keyslot: string | undefined,
  limits: KdfLimits,
): Promise<{ key: Uint8Array; slot: string }> {
  let slots: Luks2Keyslot[];
  if (keyslot !== undefined) {
    const k = h.keyslots.find((s) => s.id === keyslot);
    if (!k) throw new LuksError(`@x/luks: there is no keyslot ${keyslot}`);
    if (k.type !== 'luks2' || !digest.keyslots.includes(k.id))
      throw new LuksError(`@x/luks: keyslot ${keyslot} does not hold the volume key`);
    slots = [k];
  } else {
    // cryptsetup's order (LUKS2_keyslot_open_priority): priority 2 (prefer) first, then 1 (normal); any other
    // value (0, ignore) only when asked for
    slots = h.keyslots.filter(
      (k) => k.type === 'luks2' && (k.priority === 1 || k.priority === 2) && digest.keyslots.includes(k.id),
    );
    slots.sort((a, b) => b.priority - a.priority);
  }
  if (slots.length === 0) throw new LuksError('@x/luks: the volume has no active keyslot');
  const problem = (k: Luks2Keyslot) => luks2KeyslotProblem(k, segment.encryption, limits, source);
  const { ok, skipped } = triable(slots, problem, keyslot !== undefined, PREFIX, errors);
  for (const k of ok) {
    const af = k.af!,
      area = k.area!;
    const slotKey = await deriveLuks2(k, passphrase);
    let candidate: Uint8Array;
    try {
      candidate = await mergeKeyMaterial(
        source,
        area.offset,
        area.size,
        area.encryption,
        slotKey,
        k.keySize,
        LUKS2_STRIPES,
        af.hash,
        `keyslot ${k.id}`,
      );
    } finally {
      slotKey.fill(0);
    }
    if (await luks2Digest(digest, candidate)) return { key: candidate, slot: k.id };
  }
  throw wrongPassphrase(
    ok.map((k) => k.id),
    skipped,
  );
}

// ---------------------------------------------------------------------------------------------- volume

class Volume extends SectorVolume implements LuksVolume {
  readonly version: 1 | 2;
  readonly uuid: string;

  constructor(
    readonly header: LuksHeader,
    readonly cipher: string,
    readonly keySize: number,
    readonly payloadOffset: number,
    readonly keyslot: string | undefined,
    init: ConstructorParameters<typeof SectorVolume>[0],
  ) {
    super(init);
    this.version = header.version;
    this.uuid = header.uuid;
  }
}

/**
 * Opens a LUKS1 or LUKS2 volume: reads the header, recovers the volume key with the passphrase (every
 * active keyslot in turn, or `options.keyslot`) or checks the raw `options.volumeKey`, and returns a
 * volume whose `read` decrypts payload sectors through `@x/dm-crypt`. Passphrase-derived keys and
 * candidate keys are wiped as soon as they are used; the volume keeps only the cipher's round keys.
 *
 * Every resource is bounded before it is spent: a keyslot or digest whose key derivation is above
 * `maxIterations`, `maxTimeCost` or `maxMemory` (or cryptsetup's own limits), whose key sizes are not
 * its ciphers', or whose key material does not fit its area is not tried — passed over when another
 * keyslot is left, as cryptsetup passes over a keyslot it cannot use, else refused — before any key is
 * derived or any key material read.
 *
 * @throws WrongPassphraseError when no keyslot opens (its message names the keyslots left out and why);
 *   WrongVolumeKeyError for a volume key that does not match; HeaderError for a truncated, corrupt or
 *   unsupported header and for a key derivation above a bound; LuksError for an Argon2 memory this runtime
 *   cannot allocate; TypeError/RangeError for bad options.
 * @example
 * ```ts
 * import { openLuks } from '@x/luks';
 * const volume = await openLuks(imageBytesOrBlob, { passphrase: 'correct horse battery staple' });
 * const first = new Uint8Array(volume.sectorSize * 8);
 * await volume.read(first, 0);          // the first 8 payload sectors, decrypted
 * volume.close();
 * ```
 */
export async function openLuks(input: LuksInput, options: OpenOptions): Promise<LuksVolume> {
  const u = await unlock(toSource(input), options);
  try {
    const layout = payloadLayout(u.cipher, u.sectorSize, u.payloadOffset, u.payloadSize, { ivOffset: u.ivOffset });
    const cipher = newSectorCipher(u.cipher, u.key, {
      sectorSize: u.sectorSize,
      ivOffset: u.ivOffset,
      kernel: options.kernel,
    });
    return new Volume(u.header, u.cipher, u.key.length, u.payloadOffset, u.slot, {
      source: u.source,
      layout,
      cipher,
      shareKey: options.share === true ? Uint8Array.from(u.key) : undefined,
      prefix: '@x/luks',
      what: 'the payload',
      error: LuksError,
    });
  } catch (e) {
    if (e instanceof RangeError && e.message.startsWith('@x/dm-crypt:'))
      throw new HeaderError(`@x/luks: payload: ${e.message}`, { cause: e });
    throw e;
  } finally {
    u.key.fill(0);
  }
}

/** What {@link unlockLuks} recovers. */
export interface UnlockedLuks {
  readonly header: LuksHeader;
  /** The volume key: a copy the caller owns and wipes (`fill(0)`) when done. */
  readonly volumeKey: Uint8Array;
  /** The keyslot that opened, or undefined when the volume key was given. */
  readonly keyslot: string | undefined;
}

/**
 * Recovers the volume key, as {@link openLuks} does and with the same checks, bounds and errors, without
 * making a volume: for tools that hand the key on (cryptsetup's `--dump-volume-key`, worker threads that
 * each open the volume with `{ volumeKey }`, adding a keyslot). The caller wipes `volumeKey`.
 *
 * @example
 * ```ts
 * const { volumeKey, keyslot } = await unlockLuks(image, { passphrase });
 * try { ... } finally { volumeKey.fill(0); }
 * ```
 */
export async function unlockLuks(input: LuksInput, options: OpenOptions): Promise<UnlockedLuks> {
  const u = await unlock(toSource(input), options);
  return { header: u.header, volumeKey: u.key, keyslot: u.slot };
}

/** The secret of one unlock call: a passphrase (and the keyslot to try), or the volume key. */
type Secret = Pick<OpenOptions, 'passphrase' | 'volumeKey' | 'keyslot'>;

/** Where a header puts the payload, and the length of its volume key. */
interface Payload {
  readonly cipher: string;
  readonly sectorSize: number;
  readonly ivOffset: bigint;
  readonly payloadOffset: number;
  readonly payloadSize: number;
  readonly keySize: number;
}

/** The volume key found, and the keyslot that gave it (undefined when the volume key was given). */
type Recovered = { key: Uint8Array; slot: string | undefined };

async function unlock(source: ByteSource, options: OpenOptions) {
  const secret = checkSecret(options);
  const limits = kdfLimits(options, PREFIX);
  const h = await readHeaderFrom(source);
  const opened =
    h.version === 1 ? await unlockVersion1(h, source, secret, limits) : await unlockVersion2(h, source, secret, limits);
  return { header: h, source, ...opened };
}

function checkSecret(options: OpenOptions): Secret {
  if (options === null || typeof options !== 'object') throw new TypeError('@x/luks: options must be an object');
  const { passphrase, volumeKey, keyslot } = options;
  if ((passphrase === undefined) === (volumeKey === undefined))
    throw new TypeError('@x/luks: give either options.passphrase or options.volumeKey');
  if (volumeKey !== undefined && !(volumeKey instanceof Uint8Array))
    throw new TypeError('@x/luks: volumeKey must be a Uint8Array');
  if (keyslot !== undefined && typeof keyslot !== 'number' && typeof keyslot !== 'string')
    throw new TypeError('@x/luks: keyslot must be a number or a string');
  return { passphrase, volumeKey, keyslot };
}

const pastEnd = (source: ByteSource, offset: number | bigint) =>
  new HeaderError(`@x/luks: the image (${source.size} bytes) ends before the payload offset ${offset} (truncated?)`);

/** The checks every version's payload must pass before any key derivation. */
function checkPayload(p: Payload): void {
  if (p.payloadOffset === 0) {
    // LUKS1 spec §3.1 footnote 6: an offset of 0 means a detached header, the data being elsewhere
    throw new HeaderError(
      '@x/luks: the payload offset is 0: a detached header, which this package does not open (the payload must follow the header in the same image)',
    );
  }
  try {
    parseCipherSpec(p.cipher); // an unsupported payload cipher is refused before any key derivation
  } catch (e) {
    throw new HeaderError(`@x/luks: payload: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The volume key from `secret`: the volume key given, checked by `digestMatches`, or the one a keyslot
 * yields for the passphrase (`byPassphrase`, which gets a copy of the passphrase that is wiped after).
 */
async function recoverKey(
  secret: Secret,
  keySize: number,
  digestMatches: (key: Uint8Array) => Promise<boolean>,
  byPassphrase: (passphrase: Uint8Array) => Promise<Recovered>,
): Promise<Recovered> {
  const { volumeKey } = secret;
  if (volumeKey !== undefined) {
    if (volumeKey.length !== keySize)
      throw new WrongVolumeKeyError(`@x/luks: the volume key must be ${keySize} bytes, got ${volumeKey.length}`);
    const key = Uint8Array.from(volumeKey);
    if (!(await digestMatches(key)))
      throw new WrongVolumeKeyError('@x/luks: the volume key does not match the header digest');
    return { key, slot: undefined };
  }
  const pass = secretBytes(secret.passphrase, 'passphrase', PREFIX);
  try {
    return await byPassphrase(pass);
  } finally {
    pass.fill(0);
  }
}

/** LUKS1: the payload after the header in 512-byte sectors, one mk-digest, keyslots 0 … 7. */
async function unlockVersion1(h: Luks1Header, source: ByteSource, secret: Secret, limits: KdfLimits) {
  const sectorSize = 512; // LUKS1 §5 LUKS_SECTOR_SIZE
  const payloadOffset = h.payloadOffset * 512;
  if (payloadOffset > source.size) throw pastEnd(source, payloadOffset);
  const dp = pbkdf2Problem('mk-digest', h.hashSpec, h.mkDigestIterations, limits);
  if (dp) throw new HeaderError(`@x/luks: ${dp}`);
  const payloadSize = Math.floor((source.size - payloadOffset) / sectorSize) * sectorSize;
  const payload: Payload = {
    cipher: h.cipher,
    sectorSize,
    ivOffset: 0n,
    payloadOffset,
    payloadSize,
    keySize: h.keyBytes,
  };
  checkPayload(payload);
  // a key-bytes the cipher cannot take (8, 48, …) is refused here, not after the keyslots' PBKDF2
  const kp = keySizeProblem('key-bytes', payload.cipher, payload.keySize);
  if (kp) throw new HeaderError(`@x/luks: LUKS1 ${kp}`);
  const keyslot = secret.keyslot === undefined ? undefined : Number(secret.keyslot);
  const found = await recoverKey(
    secret,
    payload.keySize,
    (key) => luks1Digest(h, key),
    (pass) => unlockLuks1(h, source, pass, keyslot, limits),
  );
  return { ...payload, ...found };
}

/** LUKS2: the one crypt segment (its sector size, IV tweak, offset and size) and the digest that covers it. */
async function unlockVersion2(h: Luks2Header, source: ByteSource, secret: Secret, limits: KdfLimits) {
  const { segment, digest } = dataSegment(h);
  const payload = segmentPayload(h, segment, digest, source, secret.volumeKey);
  // the digest is computed whatever the way in: its bounds first
  const dp = luks2DigestProblem(digest, limits);
  if (dp) throw new HeaderError(`@x/luks: ${dp}`);
  checkPayload(payload);
  const keyslot = secret.keyslot === undefined ? undefined : String(secret.keyslot);
  const found = await recoverKey(
    secret,
    payload.keySize,
    (key) => luks2Digest(digest, key),
    (pass) => unlockLuks2(h, segment, digest, source, pass, keyslot, limits),
  );
  return { ...payload, ...found };
}

/** Where the LUKS2 data segment lies in the image, checked against its size. */
function segmentPayload(
  h: Luks2Header,
  seg: Luks2Segment,
  digest: Luks2Digest,
  source: ByteSource,
  volumeKey: Uint8Array | undefined,
): Payload {
  const sectorSize = seg.sectorSize;
  // cryptsetup's validation takes any multiple of 512; dm-crypt opens powers of two from 512 to 4096
  if (sectorSize > 4096 || (sectorSize & (sectorSize - 1)) !== 0)
    throw new HeaderError(
      `@x/luks: segment ${seg.id}.sector_size ${sectorSize}: dm-crypt takes a power of two from 512 to 4096`,
    );
  const slot = h.keyslots.find((k) => digest.keyslots.includes(k.id));
  const keySize = slot?.keySize ?? volumeKey?.length ?? 0;
  // a 64-bit offset or size beyond 2^53 (a bigint) is past the end of any image this program can read
  if (typeof seg.offset === 'bigint' || seg.offset > source.size) throw pastEnd(source, seg.offset);
  const payloadOffset = seg.offset;
  let payloadSize: number;
  if (seg.size === 'dynamic') {
    payloadSize = Math.floor((source.size - payloadOffset) / sectorSize) * sectorSize;
  } else {
    if (typeof seg.size === 'bigint' || payloadOffset + seg.size > source.size)
      throw new HeaderError(
        `@x/luks: the payload (${seg.size} bytes at ${payloadOffset}) is past the end of the image (truncated?)`,
      );
    payloadSize = seg.size;
  }
  return { cipher: seg.encryption, sectorSize, ivOffset: seg.ivTweak, payloadOffset, payloadSize, keySize };
}
