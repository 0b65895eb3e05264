// Unlocking a LUKS volume and reading its payload.
//
// LUKS1 (spec §4.3, Figure 5): for each active keyslot, PBKDF2(passphrase, slot salt, slot iterations,
// key-bytes) keys the header's cipher over the key material (512-byte sectors from IV sector 0, Appendix
// B), AFmerge gives a candidate, and PBKDF2(candidate, mk-digest-salt, mk-digest-iter, 20) must equal
// mk-digest. LUKS2 is the same with per-keyslot parameters: the "kdf" (pbkdf2 or argon2), the "area"
// cipher and key size, the "af" stripes and hash, and a "digests" entry binding keyslot and segment.
import { newSectorCipher, parseCipherSpec, type SectorCipher } from '@x/dm-crypt';
import { afMerge } from './af.js';
import { HeaderError, LuksError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
import { equalBytes } from './hashes.js';
import { readHeaderFrom, type LuksHeader } from './header.js';
import { argon2, pbkdf2 } from './kdf.js';
import type { Luks1Header } from './luks1.js';
import type { Luks2Digest, Luks2Header, Luks2Keyslot, Luks2Segment } from './luks2.js';
import { readBytes, toSource, type ByteSource, type LuksInput } from './source.js';

const KEY_MATERIAL_SECTOR = 512; // key material is always in 512-byte sectors (LUKS1 §5 LUKS_SECTOR_SIZE)

/**
 * Options of {@link openLuks}: a passphrase or the raw volume key.
 *
 * @example
 * ```ts
 * const byPassphrase: OpenOptions = { passphrase: 'secret', keyslot: 1 };
 * const byKey: OpenOptions = { volumeKey: keyFromLuksDump };
 * ```
 */
export interface OpenOptions {
  /** The passphrase; a string is encoded as UTF-8, bytes are used as they are (like a key file). */
  passphrase?: string | Uint8Array;
  /** The raw volume (master) key instead of a passphrase; checked against the header's digest. */
  volumeKey?: Uint8Array;
  /** Try only this keyslot (LUKS1: 0 … 7; LUKS2: its id). Default: every active keyslot, by priority. */
  keyslot?: number | string;
  /** Forces an AES kernel for the payload (see `@x/cbc`'s `kernels()`). */
  kernel?: string;
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
export interface LuksVolume {
  readonly header: LuksHeader;
  readonly version: 1 | 2;
  readonly uuid: string;
  /** The payload's dm-crypt cipher spec, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  /** Volume key length in bytes. */
  readonly keySize: number;
  readonly sectorSize: number;
  /** Byte offset of the payload in the image. */
  readonly payloadOffset: number;
  /** Payload bytes (a whole number of sectors). */
  readonly payloadSize: number;
  /** The keyslot that opened the volume, or undefined when the volume key was given. */
  readonly keyslot: string | undefined;
  /** The AES kernel decrypting the payload. */
  readonly kernel: string;
  /**
   * Decrypts payload sectors `firstSector …` into `dst`, whose length must be a whole number of
   * sectors within the payload. The ciphertext is read into `dst` and decrypted in place: no allocation
   * (beyond what the source needs) and one IV batch + one kernel call per read. On failure `dst` is zeroed.
   */
  read(dst: Uint8Array, firstSector: number): Promise<void>;
  /** Wipes the key material held (round keys, IV scratch); later reads throw. The source stays open. */
  close(): void;
}

function checkDigestMatch(candidate: Uint8Array, computed: Uint8Array, stored: Uint8Array): boolean {
  const ok = equalBytes(computed, stored);
  computed.fill(0);
  if (!ok) candidate.fill(0);
  return ok;
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

async function unlockLuks1(
  h: Luks1Header,
  source: ByteSource,
  passphrase: Uint8Array,
  keyslot: number | undefined,
): Promise<{ key: Uint8Array; slot: string }> {
  let slots = h.keyslots.filter((k) => k.active);
  if (keyslot !== undefined) {
    const k = h.keyslots[keyslot];
    if (!k) throw new RangeError(`@x/luks: LUKS1 has keyslots 0 … 7, not ${keyslot}`);
    if (!k.active) throw new LuksError(`@x/luks: keyslot ${keyslot} is not active`);
    slots = [k];
  }
  if (slots.length === 0) throw new LuksError('@x/luks: the volume has no active keyslot');
  for (const k of slots) {
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
  throw new WrongPassphraseError(
    `@x/luks: no keyslot opens with this passphrase (tried ${slots.map((k) => k.index).join(', ')})`,
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
      `@x/luks: expected one crypt segment, found ${h.segments.map((s) => `${s.id}:${s.type}`).join(', ') || 'none'}`,
    );
  }
  const segment = crypt[0];
  if (segment.integrity !== undefined)
    throw new HeaderError(`@x/luks: segment ${segment.id} uses authenticated encryption (integrity), not supported`);
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
  return argon2(kdf, passphrase, kdf.salt, length);
}

async function unlockLuks2(
  h: Luks2Header,
  digest: Luks2Digest,
  source: ByteSource,
  passphrase: Uint8Array,
  keyslot: string | undefined,
): Promise<{ key: Uint8Array; slot: string }> {
  let slots: Luks2Keyslot[];
  if (keyslot !== undefined) {
    const k = h.keyslots.find((s) => s.id === keyslot);
    if (!k) throw new LuksError(`@x/luks: there is no keyslot ${keyslot}`);
    if (k.type !== 'luks2' || !digest.keyslots.includes(k.id))
      throw new LuksError(`@x/luks: keyslot ${keyslot} does not hold the volume key`);
    slots = [k];
  } else {
    // cryptsetup's order: priority 2 (prefer) first, then 1 (normal); 0 (ignore) only when asked for.
    slots = h.keyslots.filter((k) => k.type === 'luks2' && k.priority > 0 && digest.keyslots.includes(k.id));
    slots.sort((a, b) => b.priority - a.priority);
  }
  if (slots.length === 0) throw new LuksError('@x/luks: the volume has no active keyslot');
  for (const k of slots) {
    const af = k.af!,
      area = k.area!;
    if (af.type !== 'luks1')
      throw new HeaderError(`@x/luks: keyslot ${k.id}: af type "${af.type}" is not supported (luks1)`);
    if (area.type !== 'raw')
      throw new HeaderError(`@x/luks: keyslot ${k.id}: area type "${area.type}" is not supported (raw)`);
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
        af.stripes,
        af.hash,
        `keyslot ${k.id}`,
      );
    } finally {
      slotKey.fill(0);
    }
    if (await luks2Digest(digest, candidate)) return { key: candidate, slot: k.id };
  }
  throw new WrongPassphraseError(
    `@x/luks: no keyslot opens with this passphrase (tried ${slots.map((k) => k.id).join(', ')})`,
  );
}

// ---------------------------------------------------------------------------------------------- volume

class Volume implements LuksVolume {
  readonly version: 1 | 2;
  readonly uuid: string;
  readonly kernel: string;
  #cipher: SectorCipher | undefined;
  readonly #source: ByteSource;

  constructor(
    readonly header: LuksHeader,
    readonly cipher: string,
    readonly keySize: number,
    readonly sectorSize: number,
    readonly payloadOffset: number,
    readonly payloadSize: number,
    readonly keyslot: string | undefined,
    sectorCipher: SectorCipher,
    source: ByteSource,
  ) {
    this.#source = source;
    this.version = header.version;
    this.uuid = header.uuid;
    this.#cipher = sectorCipher;
    this.kernel = sectorCipher.kernel;
  }

  async read(dst: Uint8Array, firstSector: number): Promise<void> {
    const c = this.#cipher;
    if (!c) throw new LuksError('@x/luks: the volume is closed');
    if (!(dst instanceof Uint8Array)) throw new TypeError('@x/luks: dst must be a Uint8Array');
    if (dst.length % this.sectorSize !== 0)
      throw new RangeError(
        `@x/luks: dst is not a whole number of ${this.sectorSize}-byte sectors (${dst.length} bytes)`,
      );
    if (!Number.isSafeInteger(firstSector) || firstSector < 0)
      throw new RangeError(`@x/luks: firstSector ${firstSector} is not a non-negative integer`);
    const start = firstSector * this.sectorSize;
    if (start + dst.length > this.payloadSize) {
      throw new RangeError(
        `@x/luks: sectors ${firstSector} … past the payload (${this.payloadSize / this.sectorSize} sectors)`,
      );
    }
    try {
      await this.#source.read(this.payloadOffset + start, dst);
      if (this.#cipher !== c) throw new LuksError('@x/luks: the volume was closed during a read');
      c.decrypt(dst, dst, firstSector);
    } catch (e) {
      dst.fill(0);
      throw e;
    }
  }

  close(): void {
    this.#cipher?.dispose();
    this.#cipher = undefined;
  }
}

function passphraseBytes(p: string | Uint8Array): Uint8Array {
  if (typeof p === 'string') return new TextEncoder().encode(p);
  if (p instanceof Uint8Array) return Uint8Array.from(p);
  throw new TypeError('@x/luks: passphrase must be a string or a Uint8Array');
}

/**
 * Opens a LUKS1 or LUKS2 volume: reads the header, recovers the volume key with the passphrase (every
 * active keyslot in turn, or `options.keyslot`) or checks the raw `options.volumeKey`, and returns a
 * volume whose `read` decrypts payload sectors through `@x/dm-crypt`. Passphrase-derived keys and
 * candidate keys are wiped as soon as they are used; the volume keeps only the cipher's round keys.
 *
 * @throws WrongPassphraseError when no keyslot opens; WrongVolumeKeyError for a volume key that does not
 *   match; HeaderError for a truncated, corrupt or unsupported header; TypeError/RangeError for bad options.
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
  const source = toSource(input);
  if (options === null || typeof options !== 'object') throw new TypeError('@x/luks: options must be an object');
  const { passphrase, volumeKey, keyslot } = options;
  if ((passphrase === undefined) === (volumeKey === undefined))
    throw new TypeError('@x/luks: give either options.passphrase or options.volumeKey');
  if (volumeKey !== undefined && !(volumeKey instanceof Uint8Array))
    throw new TypeError('@x/luks: volumeKey must be a Uint8Array');
  if (keyslot !== undefined && typeof keyslot !== 'number' && typeof keyslot !== 'string')
    throw new TypeError('@x/luks: keyslot must be a number or a string');
  const h = await readHeaderFrom(source);

  let cipher: string,
    sectorSize: number,
    payloadOffset: number,
    payloadSize: number,
    keySize: number,
    ivOffset = 0n;
  let digest: Luks2Digest | undefined;
  if (h.version === 1) {
    cipher = h.cipher;
    sectorSize = 512; // LUKS1 §5 LUKS_SECTOR_SIZE
    payloadOffset = h.payloadOffset * 512;
    keySize = h.keyBytes;
    if (payloadOffset > source.size)
      throw new HeaderError(
        `@x/luks: the image (${source.size} bytes) ends before the payload offset ${payloadOffset} (truncated?)`,
      );
    payloadSize = Math.floor((source.size - payloadOffset) / sectorSize) * sectorSize;
  } else {
    const found = dataSegment(h);
    digest = found.digest;
    const seg = found.segment;
    cipher = seg.encryption;
    sectorSize = seg.sectorSize;
    payloadOffset = seg.offset;
    ivOffset = seg.ivTweak;
    const slot = h.keyslots.find((k) => digest!.keyslots.includes(k.id));
    keySize = slot?.keySize ?? volumeKey?.length ?? 0;
    if (payloadOffset > source.size)
      throw new HeaderError(
        `@x/luks: the image (${source.size} bytes) ends before the payload offset ${payloadOffset} (truncated?)`,
      );
    if (seg.size === 'dynamic') {
      payloadSize = Math.floor((source.size - payloadOffset) / sectorSize) * sectorSize;
    } else {
      payloadSize = seg.size;
      if (payloadOffset + payloadSize > source.size)
        throw new HeaderError(
          `@x/luks: the payload (${payloadSize} bytes at ${payloadOffset}) is past the end of the image (truncated?)`,
        );
    }
  }

  if (payloadOffset === 0) {
    // LUKS1 spec §3.1 footnote 6: an offset of 0 means a detached header, the data being elsewhere
    throw new HeaderError(
      '@x/luks: the payload offset is 0: a detached header, which this package does not open (the payload must follow the header in the same image)',
    );
  }
  try {
    parseCipherSpec(cipher); // an unsupported payload cipher is refused before any key derivation
  } catch (e) {
    throw new HeaderError(`@x/luks: payload: ${(e as Error).message}`, { cause: e });
  }

  let key: Uint8Array, slot: string | undefined;
  if (volumeKey !== undefined) {
    if (volumeKey.length !== keySize)
      throw new WrongVolumeKeyError(`@x/luks: the volume key must be ${keySize} bytes, got ${volumeKey.length}`);
    key = Uint8Array.from(volumeKey);
    const ok = h.version === 1 ? await luks1Digest(h, key) : await luks2Digest(digest!, key);
    if (!ok) throw new WrongVolumeKeyError('@x/luks: the volume key does not match the header digest');
  } else {
    const pass = passphraseBytes(passphrase!);
    try {
      const r =
        h.version === 1
          ? await unlockLuks1(h, source, pass, keyslot === undefined ? undefined : Number(keyslot))
          : await unlockLuks2(h, digest!, source, pass, keyslot === undefined ? undefined : String(keyslot));
      key = r.key;
      slot = r.slot;
    } finally {
      pass.fill(0);
    }
  }
  try {
    const sc = newSectorCipher(cipher, key, { sectorSize, ivOffset, kernel: options.kernel });
    return new Volume(h, cipher, keySize, sectorSize, payloadOffset, payloadSize, slot, sc, source);
  } catch (e) {
    if (e instanceof RangeError && e.message.startsWith('@x/dm-crypt:'))
      throw new HeaderError(`@x/luks: payload: ${e.message}`, { cause: e });
    throw e;
  } finally {
    key.fill(0);
  }
}
