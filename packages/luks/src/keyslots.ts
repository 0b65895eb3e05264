// Adding and removing keyslots in place, as cryptsetup 2.6's luksAddKey and luksRemoveKey do, over an image
// that can be written (`WritableByteSource` of @x/byte-source: bytes in memory, a file opened writable).
//
// The order of writes keeps a volume that both tools open at every step, whenever the process stops:
// - add: the new key material first, into an area no keyslot uses (so the header on disk does not see
//   it), flushed; then the header that names it. LUKS1: the 592-byte phdr, one write. LUKS2: both header
//   copies with seqid + 1, the primary then the secondary, each flushed before the next (cryptsetup's
//   order, LUKS2_disk_hdr_write). A copy cut short fails its checksum, and the other one, whole (old or
//   new), is used.
// - remove: the header without the keyslot first, flushed; then its key material overwritten with random
//   bytes (as cryptsetup wipes it), flushed.
import { toSource, type WritableByteSource, writableBytes } from '@x/byte-source';
import { secretBytes } from '@x/disk-format';
import { newSectorCipher } from '@x/dm-crypt';
import { afSplit, fillRandom } from './af.js';
import { keyslotJson } from './create.js';
import { HeaderError, LuksError } from './errors.js';
import { digest, hashByName } from './hashes.js';
import { chooseKdf, deriveKey, type KdfOptions, planKdf } from './kdf-cost.js';
import type { Luks1Header } from './luks1.js';
import { LUKS2_BINARY_SIZE, LUKS2_KEYSLOTS_MAX, type Luks2Header } from './luks2.js';
import { type OpenOptions, unlockLuks } from './volume.js';

const PREFIX = '@x/luks';
const STRIPES = 4000;
const SALT_BYTES = 32;
const SECTOR = 512;
const PHDR = 592; // LUKS1 phdr size: keyslot 7 ends at 592
const LUKS1_KEY_ENABLED = 0x00ac71f3;
const LUKS1_KEY_DISABLED = 0x0000dead;
const CSUM_OFFSET = 448;
const CSUM_LENGTH = 64;

/** An image {@link addKey} and {@link removeKey} rewrite: its bytes (changed in place) or a writable source. */
export type WritableLuksImage = Uint8Array | WritableByteSource;

/** The bounds and keyslot choice of {@link OpenOptions} that apply to unlocking with the current secret. */
type UnlockBounds = Pick<OpenOptions, 'keyslot' | 'maxMemory' | 'maxIterations' | 'maxTimeCost'>;

/**
 * Options of {@link addKey}: a secret the volume opens with now (a passphrase, or the volume key), the new
 * passphrase, and the new keyslot's key derivation (cryptsetup's defaults: argon2id for 2 s with up to
 * 1 GiB; LUKS1 pbkdf2-sha256 for 2 s, with the header's hash).
 *
 * @example
 * ```ts
 * const options: AddKeyOptions = { passphrase: 'old', newPassphrase: 'new', pbkdf: 'pbkdf2', iterTime: 1000 };
 * ```
 */
export interface AddKeyOptions extends KdfOptions, UnlockBounds {
  /** A passphrase the volume opens with (`keyslot` picks which keyslot to try). */
  passphrase?: string | Uint8Array;
  /** Or the volume key itself. */
  volumeKey?: Uint8Array;
  /** The passphrase to add; a string is encoded as UTF-8, bytes are used as they are. */
  newPassphrase: string | Uint8Array;
  /** The keyslot to put it in (LUKS1: 0 … 7; LUKS2: 0 … 31). Default: the first free one. */
  newKeyslot?: number;
}

/**
 * Options of {@link removeKey}: the passphrase to remove (the keyslot it opens is removed, as cryptsetup
 * luksRemoveKey does).
 *
 * @example
 * ```ts
 * const options: RemoveKeyOptions = { passphrase: 'old' };
 * ```
 */
export interface RemoveKeyOptions extends UnlockBounds {
  passphrase: string | Uint8Array;
  /**
   * Remove the keyslot even when it is the last one that opens the volume, which leaves a volume nobody
   * can open (cryptsetup asks first). Default false: refused.
   */
  allowLast?: boolean;
}

function writable(image: WritableLuksImage): WritableByteSource {
  if (image instanceof Uint8Array) return writableBytes(image);
  const src = toSource(image);
  if (typeof (src as WritableByteSource).write !== 'function')
    throw new TypeError(`${PREFIX}: the image must be a Uint8Array or a writable source { size, read, write }`);
  return src as WritableByteSource;
}

const bytesOf = (p: unknown, name: string): Uint8Array => secretBytes(p, name, PREFIX);

async function flushed(image: WritableByteSource, offset: number, bytes: Uint8Array): Promise<void> {
  await image.write(offset, bytes);
  await image.flush?.();
}

/**
 * The AF-split `volumeKey` encrypted under `kdf(passphrase)` with `cipher` (512-byte sectors from 0), in
 * whole sectors: the key material of a keyslot. Returns it with the keyslot's salt.
 */
async function keyMaterial(
  volumeKey: Uint8Array,
  passphrase: Uint8Array,
  kdf: Awaited<ReturnType<typeof chooseKdf>>,
  cipher: string,
  afHash: string,
): Promise<{ material: Uint8Array; salt: Uint8Array }> {
  const salt = fillRandom(new Uint8Array(SALT_BYTES));
  const slotKey = await deriveKey(kdf, passphrase, salt, volumeKey.length);
  const split = afSplit(volumeKey, STRIPES, afHash);
  const material = new Uint8Array(Math.ceil(split.length / SECTOR) * SECTOR);
  material.set(split);
  split.fill(0);
  const area = newSectorCipher(cipher, slotKey, { sectorSize: SECTOR });
  try {
    area.encrypt(material, material, 0);
  } finally {
    area.dispose();
    slotKey.fill(0);
  }
  return { material, salt };
}

/**
 * Adds a passphrase to a LUKS1 or LUKS2 volume, in a new keyslot, as `cryptsetup luksAddKey` does; the
 * image is changed in place (see the top of this file for the order of writes). The volume key is
 * recovered with `passphrase` (or checked, given as `volumeKey`) with openLuks's checks and bounds first.
 * Returns the new keyslot's id.
 *
 * @throws WrongPassphraseError/WrongVolumeKeyError when the secret does not open the volume; LuksError when
 *   no keyslot or no room in the keyslots area is free, or the keyslot asked for is in use; HeaderError
 *   for a header it cannot rewrite exactly; TypeError/RangeError for bad options (nothing written).
 * @example
 * ```ts
 * import { addKey } from '@x/luks';
 * import { openFileSource } from '@x/byte-source/file';
 * const image = await openFileSource('disk.img', { writable: true });
 * try {
 *   await addKey(image, { passphrase: 'old', newPassphrase: 'new' }); // '1'
 * } finally {
 *   await image.close();
 * }
 * ```
 */
export async function addKey(image: WritableLuksImage, options: AddKeyOptions): Promise<string> {
  const target = writable(image);
  if (options === null || typeof options !== 'object') throw new TypeError(`${PREFIX}: options must be an object`);
  const newPass = bytesOf(options.newPassphrase, 'newPassphrase');
  try {
    const { newKeyslot } = options;
    if (newKeyslot !== undefined && (!Number.isSafeInteger(newKeyslot) || newKeyslot < 0))
      throw new RangeError(`${PREFIX}: newKeyslot ${String(newKeyslot)} is not a keyslot number`);
    const { passphrase, volumeKey, keyslot, maxMemory, maxIterations, maxTimeCost } = options;
    const u = await unlockLuks(target, { passphrase, volumeKey, keyslot, maxMemory, maxIterations, maxTimeCost });
    try {
      const plan = planKdf(options, u.header.version === 1);
      return u.header.version === 1
        ? await addLuks1(target, u.header, u.volumeKey, newPass, plan, newKeyslot)
        : await addLuks2(target, u.header, u.volumeKey, newPass, plan, newKeyslot);
    } finally {
      u.volumeKey.fill(0);
    }
  } finally {
    newPass.fill(0);
  }
}

/**
 * Removes the keyslot that `passphrase` opens, as `cryptsetup luksRemoveKey` does: the header without it is
 * written first, then its key material is overwritten with random bytes. The last keyslot is kept unless
 * `allowLast`. Returns the removed keyslot's id.
 *
 * @throws WrongPassphraseError when no keyslot opens with the passphrase; LuksError for the last keyslot;
 *   HeaderError for a header it cannot rewrite exactly; TypeError/RangeError for bad options.
 * @example
 * ```ts
 * import { removeKey } from '@x/luks';
 * await removeKey(imageBytes, { passphrase: 'old' }); // '0'; imageBytes changed in place
 * ```
 */
export async function removeKey(image: WritableLuksImage, options: RemoveKeyOptions): Promise<string> {
  const target = writable(image);
  if (options === null || typeof options !== 'object') throw new TypeError(`${PREFIX}: options must be an object`);
  if (options.passphrase === undefined) throw new TypeError(`${PREFIX}: removeKey needs options.passphrase`);
  const { passphrase, keyslot, maxMemory, maxIterations, maxTimeCost } = options;
  const u = await unlockLuks(target, { passphrase, keyslot, maxMemory, maxIterations, maxTimeCost });
  u.volumeKey.fill(0);
  const id = u.keyslot!;
  const h = u.header;
  const holders =
    h.version === 1
      ? h.keyslots.filter((k) => k.active).length
      : h.digests.filter((d) => d.keyslots.includes(id)).flatMap((d) => d.keyslots).length;
  if (holders <= 1 && options.allowLast !== true)
    throw new LuksError(
      `${PREFIX}: keyslot ${id} is the last one that opens the volume: removing it leaves a volume nobody can open (allowLast: true to do it anyway)`,
    );
  if (h.version === 1) {
    const k = h.keyslots[Number(id)];
    const phdr = new Uint8Array(PHDR);
    await target.read(0, phdr);
    const at = 208 + 48 * k.index;
    const view = new DataView(phdr.buffer);
    view.setUint32(at, LUKS1_KEY_DISABLED);
    view.setUint32(at + 4, 0);
    phdr.fill(0, at + 8, at + 40); // the salt
    await flushed(target, 0, phdr);
    const length = Math.ceil((h.keyBytes * STRIPES) / SECTOR) * SECTOR;
    await flushed(target, k.keyMaterialOffset * SECTOR, fillRandom(new Uint8Array(length)));
    return id;
  }
  const area = h.keyslots.find((k) => k.id === id)!.area!;
  const json = editableJson(h);
  delete json.keyslots[id];
  for (const d of Object.values(json.digests)) d.keyslots = d.keyslots.filter((s) => s !== id);
  // a token names keyslots too (cryptsetup unassigns a removed keyslot from its tokens)
  for (const t of Object.values(json.tokens))
    if (Array.isArray(t.keyslots)) t.keyslots = t.keyslots.filter((s) => s !== id);
  await writeLuks2Headers(target, h, json);
  await flushed(target, area.offset, fillRandom(new Uint8Array(area.size)));
  return id;
}

async function addLuks1(
  target: WritableByteSource,
  h: Luks1Header,
  volumeKey: Uint8Array,
  passphrase: Uint8Array,
  plan: ReturnType<typeof planKdf>,
  newKeyslot: number | undefined,
): Promise<string> {
  let slot: number;
  if (newKeyslot !== undefined) {
    if (newKeyslot > 7) throw new RangeError(`${PREFIX}: LUKS1 has keyslots 0 … 7, not ${newKeyslot}`);
    if (h.keyslots[newKeyslot].active) throw new LuksError(`${PREFIX}: keyslot ${newKeyslot} is in use`);
    slot = newKeyslot;
  } else {
    slot = h.keyslots.findIndex((k) => !k.active);
    if (slot < 0) throw new LuksError(`${PREFIX}: all 8 LUKS1 keyslots are in use`);
  }
  // LUKS1 has one hash for everything: the header's, whatever `hash` says
  const kdf = await chooseKdf({ ...plan, hash: h.hashSpec }, h.keyBytes);
  if (kdf.type !== 'pbkdf2') throw new Error('unreachable: LUKS1 keyslots are pbkdf2');
  const { material, salt } = await keyMaterial(volumeKey, passphrase, kdf, h.cipher, h.hashSpec);
  try {
    await flushed(target, h.keyslots[slot].keyMaterialOffset * SECTOR, material);
  } finally {
    material.fill(0);
  }
  const phdr = new Uint8Array(PHDR);
  await target.read(0, phdr);
  const at = 208 + 48 * slot;
  const view = new DataView(phdr.buffer);
  view.setUint32(at, LUKS1_KEY_ENABLED);
  view.setUint32(at + 4, kdf.iterations);
  phdr.set(salt, at + 8);
  await flushed(target, 0, phdr);
  return String(slot);
}

/** The parts of the stored JSON that adding and removing keyslots edit (readLuks2 checked their types). */
interface JsonObject {
  keyslots: Record<string, unknown>;
  digests: Record<string, { keyslots: string[]; segments: string[] }>;
  tokens: Record<string, { keyslots?: unknown }>;
}

/**
 * The header's JSON, to be edited and written back. Every number in it must be a safe integer, so that
 * writing it back changes nothing but what is edited (a JSON number beyond 2^53 would come back rounded).
 */
function editableJson(h: Luks2Header): JsonObject {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'number' && !Number.isSafeInteger(v))
      throw new HeaderError(`${PREFIX}: ${path} is ${v}, a number this package cannot write back exactly`);
    if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(h.json, 'json');
  return structuredClone(h.json) as JsonObject;
}

/** Both LUKS2 header copies with `json` and seqid + 1: the primary, flushed, then the secondary, flushed. */
async function writeLuks2Headers(target: WritableByteSource, h: Luks2Header, json: JsonObject): Promise<void> {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonSize = h.headerSize - LUKS2_BINARY_SIZE;
  if (text.length >= jsonSize)
    throw new LuksError(
      `${PREFIX}: the new metadata (${text.length} bytes of JSON) does not fit the ${jsonSize}-byte JSON area`,
    );
  const hash = hashByName(h.checksumAlgorithm);
  const seqid = BigInt(h.seqid) + 1n;
  for (const secondary of [false, true]) {
    const offset = secondary ? h.headerSize : 0;
    // each copy keeps its own salt (cryptsetup's salt1/salt2); a copy that is no header gets a new one
    const old = new Uint8Array(LUKS2_BINARY_SIZE);
    await target.read(offset, old);
    const magic = secondary ? [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe] : [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe];
    const salt = magic.every((x, i) => old[i] === x) ? old.slice(104, 168) : fillRandom(new Uint8Array(64));
    const b = new Uint8Array(h.headerSize);
    const view = new DataView(b.buffer);
    const put = (s: string, at: number) => b.set(new TextEncoder().encode(s), at);
    b.set(magic, 0);
    view.setUint16(6, 2);
    view.setBigUint64(8, BigInt(h.headerSize));
    view.setBigUint64(16, seqid);
    put(h.label, 24);
    put(h.checksumAlgorithm, 72);
    b.set(salt, 104);
    put(h.uuid, 168);
    put(h.subsystem, 208);
    view.setBigUint64(256, BigInt(offset));
    b.set(text, LUKS2_BINARY_SIZE);
    b.fill(0, CSUM_OFFSET, CSUM_OFFSET + CSUM_LENGTH);
    b.set(digest(hash, b), CSUM_OFFSET);
    await flushed(target, offset, b);
  }
}

async function addLuks2(
  target: WritableByteSource,
  h: Luks2Header,
  volumeKey: Uint8Array,
  passphrase: Uint8Array,
  plan: ReturnType<typeof planKdf>,
  newKeyslot: number | undefined,
): Promise<string> {
  const segment = h.segments[0]; // unlockLuks opened it: one crypt segment
  const used = new Set(h.keyslots.map((k) => k.id));
  let id: string;
  if (newKeyslot !== undefined) {
    if (newKeyslot >= LUKS2_KEYSLOTS_MAX)
      throw new RangeError(`${PREFIX}: LUKS2 has keyslots 0 … ${LUKS2_KEYSLOTS_MAX - 1}, not ${newKeyslot}`);
    id = String(newKeyslot);
    if (used.has(id)) throw new LuksError(`${PREFIX}: keyslot ${id} is in use`);
  } else {
    const free = Array.from({ length: LUKS2_KEYSLOTS_MAX }, (_, i) => String(i)).find((s) => !used.has(s));
    if (free === undefined) throw new LuksError(`${PREFIX}: all ${LUKS2_KEYSLOTS_MAX} LUKS2 keyslots are in use`);
    id = free;
  }
  // the area: the lowest 4 KiB-aligned gap in the keyslots area that holds the key material (cryptsetup's
  // LUKS2_find_area_gap), the material rounded up to 4 KiB
  const keyBytes = volumeKey.length;
  const size = Math.ceil((keyBytes * STRIPES) / 4096) * 4096;
  const start = 2 * h.headerSize,
    end = start + h.config.keyslotsSize;
  const areas = h.keyslots
    .flatMap((k) => (k.area ? [{ offset: k.area.offset, end: k.area.offset + k.area.size }] : []))
    .sort((a, b) => a.offset - b.offset);
  let offset = start;
  for (const a of areas) {
    if (offset + size <= a.offset) break;
    offset = Math.max(offset, Math.ceil(a.end / 4096) * 4096);
  }
  if (offset + size > end)
    throw new LuksError(`${PREFIX}: the keyslots area has no room for another ${size}-byte keyslot`);

  const json = editableJson(h);
  const digestEntry = Object.values(json.digests).find((d) => d.segments.includes(segment.id));
  if (!digestEntry) throw new HeaderError(`${PREFIX}: no digest covers segment ${segment.id}`);
  const kdf = await chooseKdf(plan, keyBytes);
  const { material, salt } = await keyMaterial(volumeKey, passphrase, kdf, segment.encryption, 'sha256');
  try {
    await flushed(target, offset, material);
  } finally {
    material.fill(0);
  }
  json.keyslots[id] = keyslotJson(keyBytes, segment.encryption, offset, size, kdf, salt);
  digestEntry.keyslots.push(id);
  await writeLuks2Headers(target, h, json);
  return id;
}
