// Reading a Core Storage physical volume down to the FileVault 2 logical volume it holds. Sources of the
// layout (facts only; no code taken): libfvde's "FileVault Drive Encryption (FVDE)" document (libyal/libfvde,
// documentation/FileVault Drive Encryption (FVDE).asciidoc) and cryptsetup's lib/fvault2/fvault2.c.
//
//   block 0          physical volume header, 512 bytes (libfvde "Volume header"): CRC-32C, "CS" at 88,
//                    block size, metadata size, four metadata ("disk label") block numbers, key data,
//                    physical volume UUID, logical volume group UUID
//   metadata block   8192 bytes, type 0x0011, CRC-32C; the volume groups descriptor at its offset 156
//                    points to the encrypted metadata (libfvde "Volume groups descriptor")
//   encrypted        8192-byte blocks, XTS-AES-128 with key1 = the header's key data and key2 = the physical
//   metadata         volume UUID, tweak = the block's index from the start (libfvde "Encryption methods";
//                    cryptsetup _read_encrypted_metadata); each block CRC-32C'd once decrypted. Up to the first
//                    block of zeros. Type 0x0019: the encryption context plist (crypto users with a
//                    PassphraseWrappedKEKStruct, wrapped volume keys); 0x001a: the logical volume plist
//                    (family UUID, size, UUID); 0x0305: the logical volume's first block.
import { ImageError, readBytes, toSource, type ByteSource, type ImageInput } from '@x/byte-source';
import { newXts } from '@x/xts';
import { allZero, u16le, u32le } from '@x/disk-format';
import { canonicalUuid, plistData, u64, uuidAt } from './bytes.js';
import { checksumProblem } from './crc32c.js';
import { hasSignature, VOLUME_HEADER_SIZE } from './detect.js';
import { HeaderError } from './errors.js';
import { Plist, type PlistValue, xmlText } from './plist.js';

/** Size of a metadata block, plain or encrypted (cryptsetup FVAULT2_MD_BLOCK_SIZE). */
export const METADATA_BLOCK_SIZE = 8192;
/** Encrypted metadata blocks read and decrypted per batch. */
const BATCH = 32;
/**
 * The furthest offset, in bytes, at which a metadata block, the volume groups descriptor or an encrypted
 * metadata block may start: 1 GiB, cryptsetup's FVAULT2_MAX_OFF. Core Storage puts them near the start of
 * the physical volume (the fixture's end before 9 MiB); it bounds what a header can make us read.
 */
export const MAX_METADATA_OFFSET = 1 << 30;
/**
 * The most passphrase-protected users an encryption context may list: each is a PBKDF2 to try, so this
 * with `maxIterations` bounds the work a wrong passphrase costs (a Mac lists one per FileVault user and
 * the recovery key; LUKS2 has 32 keyslots).
 */
export const MAX_CRYPTO_USERS = 64;

/** PBKDF2 parameters of a passphrase-protected user (PBKDF2-HMAC-SHA256, 16-byte key). */
export interface FileVault2Pbkdf2 {
  readonly hash: 'sha256';
  readonly iterations: number;
  readonly salt: Uint8Array;
}

/**
 * A passphrase-protected user of the encryption context (`CryptoUsers`): its PassphraseWrappedKEKStruct
 * holds the PBKDF2 salt and iterations and the key-encrypting key wrapped (RFC 3394) under the key PBKDF2
 * derives from the passphrase.
 *
 * @example
 * ```ts
 * for (const u of header.cryptoUsers) console.log(u.userIdent, u.pbkdf2.iterations);
 * ```
 */
export interface FileVault2CryptoUser {
  readonly index: number;
  readonly userIdent: string | undefined;
  readonly userType: number | undefined;
  /** `KeyEncryptingKeyIdent`: which wrapped volume key its KEK opens. */
  readonly kekIdent: string | undefined;
  readonly passphraseHint: string | undefined;
  readonly pbkdf2: FileVault2Pbkdf2;
  /** The 24-byte RFC 3394 wrapping of the 16-byte KEK. */
  readonly wrappedKek: Uint8Array;
}

/**
 * A volume key wrapped under a KEK (`WrappedVolumeKeys`, a KEKWrappedVolumeKeyStruct).
 *
 * @example
 * ```ts
 * const aes = header.wrappedVolumeKeys.filter((k) => k.blockAlgorithm === 'AES-XTS');
 * ```
 */
export interface FileVault2WrappedVolumeKey {
  readonly index: number;
  readonly volumeKeyIdent: string | undefined;
  readonly kekIdent: string | undefined;
  /** `BlockAlgorithm`: 'AES-XTS' for the key of an encrypted volume. */
  readonly blockAlgorithm: string;
  /** The 24-byte RFC 3394 wrapping of the 16-byte volume key. */
  readonly wrappedKey: Uint8Array;
}

/**
 * What this package reads of a FileVault 2 volume: the Core Storage physical volume header, the logical
 * volume (where it is, its size, its UUIDs) and the encryption context (users and wrapped keys).
 *
 * @example
 * ```ts
 * const h: FileVault2Header = await readFileVault2Header(image);
 * h.logicalVolumeOffset; h.logicalVolumeSize; h.pbkdf2.iterations;
 * ```
 */
export interface FileVault2Header {
  /** The physical volume UUID (header offset 304): the tweak key of the encrypted metadata. */
  readonly physicalVolumeUuid: string;
  /** The logical volume group UUID (header offset 320; the plists' groupUUID). */
  readonly groupUuid: string;
  /** The logical volume family UUID (`com.apple.corestorage.lv.familyUUID`): it derives the volume's tweak key. */
  readonly familyUuid: string;
  /** The Core Storage logical volume UUID (`com.apple.corestorage.lv.uuid`). */
  readonly logicalVolumeUuid: string;
  /** `com.apple.corestorage.lv.name`, e.g. "Untitled". */
  readonly logicalVolumeName: string | undefined;
  /** `com.apple.corestorage.lv.contenthint`, e.g. "Apple_HFS". */
  readonly contentHint: string | undefined;
  /** Where the logical volume starts in the image, in bytes. */
  readonly logicalVolumeOffset: number;
  /** The logical volume's size in bytes (`com.apple.corestorage.lv.size`). */
  readonly logicalVolumeSize: number;
  /** The physical volume's size in bytes, as its header says. */
  readonly physicalVolumeSize: number;
  /** Core Storage block size in bytes (block numbers count these). */
  readonly blockSize: number;
  /** Size of each metadata area in bytes. */
  readonly metadataSize: number;
  /** Block numbers of the four metadata areas; the first is read. */
  readonly metadataBlocks: readonly number[];
  /** Where the encrypted metadata starts (bytes), its size in 8192-byte blocks, and the types of the blocks read. */
  readonly encryptedMetadata: {
    readonly offset: number;
    readonly blocks: number;
    readonly blockTypes: readonly number[];
  };
  /** The block checksum: CRC-32C (the only one known). */
  readonly checksum: 'crc32c';
  /** The logical volume's dm-crypt cipher: XTS-AES-128, sector numbers from the start of the logical volume. */
  readonly cipher: 'aes-xts-plain64';
  /** AES key size in bytes (the header's key data size): XTS-AES-128, so the XTS volume key is 2 × 16 bytes. */
  readonly keySize: 16;
  /** PBKDF2 of the first crypto user (what `cryptsetup fvault2Dump` shows). */
  readonly pbkdf2: FileVault2Pbkdf2;
  /** Every passphrase-protected user. */
  readonly cryptoUsers: readonly FileVault2CryptoUser[];
  /** Every wrapped volume key with a key (`KEKWrappedVolumeKeyStruct` not empty). */
  readonly wrappedVolumeKeys: readonly FileVault2WrappedVolumeKey[];
  /** `ConversionInfo.ConversionStatus`, e.g. "Complete". */
  readonly conversionStatus: string | undefined;
}

/** The fields of the physical volume header (block 0). */
interface PhysicalVolumeHeader {
  physicalVolumeSize: number;
  blockSize: number;
  metadataSize: number;
  metadataBlocks: number[];
  keyData: Uint8Array;
  physicalVolumeUuid: string;
  uuidBytes: Uint8Array;
  groupUuid: string;
}

/** The physical volume header (libfvde "Volume header"; offsets in bytes, little-endian). */
function parseVolumeHeader(b: Uint8Array): PhysicalVolumeHeader {
  if (!hasSignature(b))
    throw new HeaderError(
      '@x/filevault2: not a Core Storage volume (no "CS" signature at offset 88 of the first sector)',
    );
  const algorithm = u32le(b, 90);
  if (algorithm !== 1)
    throw new HeaderError(`@x/filevault2: checksum algorithm ${algorithm} is not supported (1: CRC-32C)`);
  const bad = checksumProblem(b);
  if (bad) throw new HeaderError(`@x/filevault2: the physical volume header is damaged: ${bad}`);
  const version = u16le(b, 8);
  if (version !== 1) throw new HeaderError(`@x/filevault2: Core Storage version ${version} is not supported (1)`);
  const keyDataSize = u32le(b, 168),
    method = u32le(b, 172);
  if (method !== 2) throw new HeaderError(`@x/filevault2: encryption method ${method} is not supported (2: AES-XTS)`);
  if (keyDataSize !== 16)
    throw new HeaderError(`@x/filevault2: key data size ${keyDataSize} is not supported (16: AES-128)`);
  const blockSize = u32le(b, 96);
  if (blockSize < 512 || blockSize > 1 << 20 || (blockSize & (blockSize - 1)) !== 0)
    throw new HeaderError(`@x/filevault2: block size ${blockSize} is not a power of two from 512 to 1 MiB`);
  return {
    physicalVolumeSize: u64(b, 64, 'the physical volume size'),
    blockSize,
    metadataSize: u32le(b, 100),
    metadataBlocks: [104, 112, 120, 128].map((o) => u64(b, o, 'a metadata block number')),
    keyData: b.slice(176, 192),
    physicalVolumeUuid: uuidAt(b, 304),
    uuidBytes: b.slice(304, 320),
    groupUuid: uuidAt(b, 320),
  };
}

/** Reads `length` bytes, a truncated image or a failed read becoming a HeaderError that says what was read. */
async function read(source: ByteSource, offset: number, length: number, what: string): Promise<Uint8Array> {
  if (offset + length > source.size) {
    throw new HeaderError(
      `@x/filevault2: the image is truncated: ${what} (bytes ${offset}..${offset + length}) is past its end (${source.size} bytes)`,
    );
  }
  try {
    return await readBytes(source, offset, length);
  } catch (e) {
    if (e instanceof ImageError)
      throw new HeaderError(`@x/filevault2: ${what}: ${e.message.replace(/^@x\/byte-source: /, '')}`, { cause: e });
    throw e;
  }
}

function safeNumber(v: bigint | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new HeaderError(`@x/filevault2: ${what} ${v} is out of range`);
  return Number(v);
}

/** The logical volume plist of a 0x001a block (libfvde "Metadata block data type 0x001a"). */
interface LogicalVolumeRecord {
  familyUuid: string;
  uuid: string;
  size: number;
  sequence: number;
  name: string | undefined;
  contentHint: string | undefined;
}

function parseLogicalVolume(block: Uint8Array, index: number): LogicalVolumeRecord {
  const what = `encrypted metadata block ${index} (type 0x001a)`;
  const p = new Plist(xmlText(block, u32le(block, 64 + 64), u32le(block, 64 + 68), what), what);
  const family = p.string(p.root, 'com.apple.corestorage.lv.familyUUID');
  const uuid = p.string(p.root, 'com.apple.corestorage.lv.uuid');
  const size = safeNumber(p.integer(p.root, 'com.apple.corestorage.lv.size'), 'the logical volume size');
  if (family === undefined || uuid === undefined || size === undefined)
    throw new HeaderError(`@x/filevault2: ${what}: no familyUUID, uuid or size of the logical volume`);
  return {
    familyUuid: canonicalUuid(family, 'com.apple.corestorage.lv.familyUUID'),
    uuid: canonicalUuid(uuid, 'com.apple.corestorage.lv.uuid'),
    size,
    sequence: safeNumber(p.integer(p.root, 'com.apple.corestorage.lv.sequence'), 'lv.sequence') ?? 0,
    name: p.string(p.root, 'com.apple.corestorage.lv.name'),
    contentHint: p.string(p.root, 'com.apple.corestorage.lv.contenthint'),
  };
}

/** The encryption context of a 0x0019 block (libfvde "Metadata block data type 0x0019", "The encryption context plist"). */
interface FamilyRecord {
  familyUuid: string | undefined;
  sequence: number;
  cryptoUsers: FileVault2CryptoUser[];
  wrappedVolumeKeys: FileVault2WrappedVolumeKey[];
  conversionStatus: string | undefined;
  hasContext: boolean;
}

function optionalUuid(p: Plist, d: PlistValue, key: string): string | undefined {
  const s = p.string(d, key);
  if (s === undefined) return undefined;
  try {
    return canonicalUuid(s, key);
  } catch {
    return s; // e.g. KeyEncryptingKeyIdent "none": kept as written
  }
}

/** PassphraseWrappedKEKStruct, 284 bytes (libfvde; cryptsetup struct passphrase_wrapped_kek). */
function parsePassphraseWrappedKek(b: Uint8Array, what: string): { pbkdf2: FileVault2Pbkdf2; wrappedKek: Uint8Array } {
  if (b.length !== 284) throw new HeaderError(`@x/filevault2: ${what}: ${b.length} bytes, not 284`);
  const saltSize = u32le(b, 4),
    wrappedSize = u32le(b, 28),
    iterations = u32le(b, 168);
  if (saltSize !== 16) throw new HeaderError(`@x/filevault2: ${what}: salt size ${saltSize}, not 16`);
  if (wrappedSize !== 24) throw new HeaderError(`@x/filevault2: ${what}: wrapped KEK size ${wrappedSize}, not 24`);
  if (iterations === 0) throw new HeaderError(`@x/filevault2: ${what}: 0 PBKDF2 iterations`);
  return { pbkdf2: { hash: 'sha256', iterations, salt: b.slice(8, 24) }, wrappedKek: b.slice(32, 56) };
}

function parseFamily(block: Uint8Array, index: number): FamilyRecord {
  const what = `encrypted metadata block ${index} (type 0x0019)`;
  const compressed = u32le(block, 64 + 40),
    uncompressed = u32le(block, 64 + 44),
    offset = u32le(block, 64 + 48),
    size = u32le(block, 64 + 52);
  if (compressed !== uncompressed)
    throw new HeaderError(
      `@x/filevault2: ${what}: the XML is compressed (${compressed} of ${uncompressed} bytes), not supported`,
    );
  if (size < uncompressed)
    throw new HeaderError(
      `@x/filevault2: ${what}: the XML continues in other blocks (${size} of ${uncompressed} bytes here), not supported`,
    );
  const p = new Plist(xmlText(block, offset, size, what), what);
  const context = p.get(p.root, 'com.apple.corestorage.lvf.encryption.context');
  const cryptoUsers: FileVault2CryptoUser[] = [];
  const wrappedVolumeKeys: FileVault2WrappedVolumeKey[] = [];
  for (const [i, u] of p.array(context, 'CryptoUsers').entries()) {
    const pwk = p.data(u, 'PassphraseWrappedKEKStruct');
    if (pwk === undefined || pwk.base64.trim() === '') continue;
    if (cryptoUsers.length === MAX_CRYPTO_USERS)
      throw new HeaderError(
        `@x/filevault2: ${what}: the encryption context lists more than ${MAX_CRYPTO_USERS} passphrase-protected crypto users (at most ${MAX_CRYPTO_USERS} are read)`,
      );
    const where = `crypto user ${i}: PassphraseWrappedKEKStruct`;
    const userType = safeNumber(p.integer(u, 'UserType'), 'UserType');
    cryptoUsers.push({
      index: i,
      userIdent: optionalUuid(p, u, 'UserIdent'),
      userType,
      kekIdent: optionalUuid(p, u, 'KeyEncryptingKeyIdent'),
      passphraseHint: p.string(u, 'PassphraseHint') || undefined,
      ...parsePassphraseWrappedKek(plistData(pwk.base64, where), where),
    });
  }
  for (const [i, k] of p.array(context, 'WrappedVolumeKeys').entries()) {
    const s = p.data(k, 'KEKWrappedVolumeKeyStruct');
    if (s === undefined || s.base64.trim() === '') continue; // BlockAlgorithm "None": no key
    const where = `wrapped volume key ${i}: KEKWrappedVolumeKeyStruct`;
    const b = plistData(s.base64, where);
    // KEKWrappedVolumeKeyStruct, 256 bytes (libfvde; cryptsetup struct kek_wrapped_volume_key)
    if (b.length !== 256) throw new HeaderError(`@x/filevault2: ${where}: ${b.length} bytes, not 256`);
    if (u32le(b, 4) !== 24) throw new HeaderError(`@x/filevault2: ${where}: wrapped key size ${u32le(b, 4)}, not 24`);
    wrappedVolumeKeys.push({
      index: i,
      volumeKeyIdent: optionalUuid(p, k, 'VolumeKeyIdent'),
      kekIdent: optionalUuid(p, k, 'KeyEncryptingKeyIdent'),
      blockAlgorithm: p.string(k, 'BlockAlgorithm') ?? '',
      wrappedKey: b.slice(8, 32),
    });
  }
  const family = p.string(p.root, 'com.apple.corestorage.lvf.uuid');
  return {
    familyUuid: family === undefined ? undefined : canonicalUuid(family, 'com.apple.corestorage.lvf.uuid'),
    sequence: safeNumber(p.integer(p.root, 'com.apple.corestorage.lvf.sequence'), 'lvf.sequence') ?? 0,
    cryptoUsers,
    wrappedVolumeKeys,
    conversionStatus: p.string(p.get(context, 'ConversionInfo'), 'ConversionStatus'),
    hasContext: context !== undefined,
  };
}

/** Refuses a metadata structure that starts past {@link MAX_METADATA_OFFSET} (as cryptsetup does). */
function pastMaxOffset(offset: number, what: string): void {
  if (offset > MAX_METADATA_OFFSET)
    throw new HeaderError(
      `@x/filevault2: ${what} would start at ${offset}, past 1 GiB, where Core Storage metadata is not read (as cryptsetup)`,
    );
}

/**
 * An encryption context with what opening needs: a passphrase-protected user and a wrapped volume key.
 * Every 0x0019 block is held to it, not only the newest (as cryptsetup, which reads each).
 */
function checkedFamily(f: FamilyRecord, index: number): FamilyRecord {
  if (!f.hasContext || f.cryptoUsers.length === 0)
    throw new HeaderError(
      '@x/filevault2: the logical volume has no passphrase-protected user (no PassphraseWrappedKEKStruct): not a FileVault 2 volume this package opens',
    );
  if (f.wrappedVolumeKeys.length === 0)
    throw new HeaderError(
      `@x/filevault2: encrypted metadata block ${index} (type 0x0019): the encryption context has no wrapped volume key (no KEKWrappedVolumeKeyStruct)`,
    );
  return f;
}

const LVF_WIPED = [0x4c, 0x56, 0x46, 0x77, 0x69, 0x70, 0x65, 0x64]; // "LVFwiped" (libfvde "LVFwiped")

/**
 * Where the encrypted metadata is: the first metadata area is a 0x0011 block whose offset 156 holds the
 * volume groups descriptor, which names it (bytes from the start of the image, and blocks).
 */
async function encryptedMetadataOf(source: ByteSource, pv: PhysicalVolumeHeader) {
  const labelOffset = pv.metadataBlocks[0] * pv.blockSize;
  pastMaxOffset(labelOffset, 'the metadata block');
  const label = await read(source, labelOffset, METADATA_BLOCK_SIZE, 'the metadata block');
  const labelBad = checksumProblem(label);
  if (labelBad) throw new HeaderError(`@x/filevault2: the metadata block at ${labelOffset} is damaged: ${labelBad}`);
  const labelType = u16le(label, 10);
  if (labelType !== 0x0011)
    throw new HeaderError(
      `@x/filevault2: the metadata block at ${labelOffset} has type 0x${labelType.toString(16)}, not 0x11`,
    );
  const descriptorOffset = labelOffset + u32le(label, 64 + 156);
  pastMaxOffset(descriptorOffset, 'the volume groups descriptor');
  const descriptor = await read(source, descriptorOffset, 48, 'the volume groups descriptor');
  const encryptedBlocks = u64(descriptor, 8, 'the encrypted metadata size');
  const encryptedOffset = u64(descriptor, 32, 'the encrypted metadata block number') * pv.blockSize;
  if (encryptedBlocks === 0 || encryptedOffset === 0 || !Number.isSafeInteger(encryptedOffset))
    throw new HeaderError('@x/filevault2: the volume groups descriptor names no encrypted metadata');
  pastMaxOffset(encryptedOffset, 'the encrypted metadata');
  return { encryptedOffset, encryptedBlocks };
}

/** What the encrypted metadata holds: the types of its blocks, and the records this package reads. */
interface EncryptedMetadata {
  readonly blockTypes: number[];
  readonly lvs: LogicalVolumeRecord[];
  readonly family: FamilyRecord | undefined;
  readonly firstBlock: number | undefined;
}

/**
 * Reads and decrypts the encrypted metadata: XTS-AES-128 (key data ‖ physical volume UUID), one tweak per
 * 8192-byte block, up to the first block of zeros; each block's checksum verified.
 */
async function readEncryptedMetadata(
  source: ByteSource,
  pv: PhysicalVolumeHeader,
  encryptedOffset: number,
  encryptedBlocks: number,
  kernel: string | undefined,
): Promise<EncryptedMetadata> {
  const metadataKey = new Uint8Array(32);
  metadataKey.set(pv.keyData, 0);
  metadataKey.set(pv.uuidBytes, 16);
  let xts: ReturnType<typeof newXts>;
  try {
    xts = newXts(metadataKey, { kernel });
  } finally {
    metadataKey.fill(0);
  }
  const blockTypes: number[] = [];
  const lvs: LogicalVolumeRecord[] = [];
  let family: FamilyRecord | undefined;
  let firstBlock: number | undefined;
  try {
    const tweak = new Uint8Array(16);
    const tweakView = new DataView(tweak.buffer);
    let done = false;
    for (let first = 0, count = 0; first < encryptedBlocks && !done; first += count) {
      const offset = encryptedOffset + first * METADATA_BLOCK_SIZE;
      pastMaxOffset(offset, `encrypted metadata block ${first}`);
      // Read no further than the image, nor past 1 GiB: the metadata ends at the first block of zeros, long before.
      count = Math.min(
        BATCH,
        encryptedBlocks - first,
        Math.floor((source.size - offset) / METADATA_BLOCK_SIZE),
        Math.floor((MAX_METADATA_OFFSET - offset) / METADATA_BLOCK_SIZE) + 1,
      );
      if (count <= 0) {
        throw new HeaderError(
          `@x/filevault2: the image is truncated: encrypted metadata block ${first} (at ${offset}) is past its end (${source.size} bytes)`,
        );
      }
      const batch = await read(source, offset, count * METADATA_BLOCK_SIZE, `encrypted metadata blocks ${first}…`);
      for (let i = 0; i < count; i++) {
        const block = batch.subarray(i * METADATA_BLOCK_SIZE, (i + 1) * METADATA_BLOCK_SIZE);
        if (allZero(block)) {
          done = true;
          break;
        }
        const index = first + i;
        tweakView.setBigUint64(0, BigInt(index), true); // the block's index, 128-bit little-endian
        xts.decryptSectors(block, block, METADATA_BLOCK_SIZE, tweak);
        if (LVF_WIPED.every((x, k) => block[k] === x)) continue; // a wiped block: header only, no data
        const bad = checksumProblem(block);
        if (bad) throw new HeaderError(`@x/filevault2: encrypted metadata block ${index} is damaged: ${bad}`);
        const type = u16le(block, 10);
        blockTypes.push(type);
        if (type === 0x0019) {
          const f = checkedFamily(parseFamily(block, index), index);
          if (family === undefined || f.sequence >= family.sequence) family = f;
        } else if (type === 0x001a) {
          lvs.push(parseLogicalVolume(block, index));
        } else if (type === 0x0305) {
          // libfvde "Metadata block data type 0x0305"; cryptsetup struct metadata_block_0x0305
          const entries = u32le(block, 64);
          if (entries !== 1)
            throw new HeaderError(
              `@x/filevault2: the logical volume has ${entries} extents (metadata block ${index}); only one is supported`,
            );
          firstBlock = u32le(block, 64 + 40);
        }
      }
    }
  } finally {
    xts.dispose();
  }
  return { blockTypes, lvs, family, firstBlock };
}

/** Reads the whole header from a source (used by {@link readFileVault2Header} and `openFileVault2`). */
export async function readHeaderFrom(source: ByteSource, kernel?: string): Promise<FileVault2Header> {
  if (source.size < VOLUME_HEADER_SIZE) {
    throw new HeaderError(
      `@x/filevault2: the image is ${source.size} bytes, too short for a Core Storage volume header (truncated?)`,
    );
  }
  const pv = parseVolumeHeader(await read(source, 0, VOLUME_HEADER_SIZE, 'the physical volume header'));
  const { encryptedOffset, encryptedBlocks } = await encryptedMetadataOf(source, pv);
  const { blockTypes, lvs, family, firstBlock } = await readEncryptedMetadata(
    source,
    pv,
    encryptedOffset,
    encryptedBlocks,
    kernel,
  );

  const missing = [
    family === undefined ? '0x0019 (encryption context)' : '',
    lvs.length === 0 ? '0x001a (logical volume)' : '',
    firstBlock === undefined ? '0x0305 (logical volume extent)' : '',
  ].filter(Boolean);
  if (missing.length > 0)
    throw new HeaderError(`@x/filevault2: the encrypted metadata has no block of type ${missing.join(', ')}`);
  const uuids = [...new Set(lvs.map((l) => l.uuid))];
  if (uuids.length > 1)
    throw new HeaderError(
      `@x/filevault2: the volume group has ${uuids.length} logical volumes (${uuids.join(', ')}); only one is supported`,
    );
  // The newest record of the logical volume (its highest sequence; the last of equals).
  const lv = lvs.reduce((a, b) => (b.sequence >= a.sequence ? b : a));
  const f = family!;
  if (f.familyUuid !== undefined && f.familyUuid !== lv.familyUuid)
    throw new HeaderError(
      `@x/filevault2: the encryption context is for family ${f.familyUuid}, the logical volume is in family ${lv.familyUuid}`,
    );
  if (lv.size === 0 || lv.size % 512 !== 0)
    throw new HeaderError(
      `@x/filevault2: the logical volume size ${lv.size} is not a whole number of 512-byte sectors`,
    );
  const logicalVolumeOffset = firstBlock! * pv.blockSize;
  if (logicalVolumeOffset === 0) throw new HeaderError('@x/filevault2: the logical volume starts at block 0');

  return {
    physicalVolumeUuid: pv.physicalVolumeUuid,
    groupUuid: pv.groupUuid,
    familyUuid: lv.familyUuid,
    logicalVolumeUuid: lv.uuid,
    logicalVolumeName: lv.name,
    contentHint: lv.contentHint,
    logicalVolumeOffset,
    logicalVolumeSize: lv.size,
    physicalVolumeSize: pv.physicalVolumeSize,
    blockSize: pv.blockSize,
    metadataSize: pv.metadataSize,
    metadataBlocks: pv.metadataBlocks,
    encryptedMetadata: { offset: encryptedOffset, blocks: encryptedBlocks, blockTypes },
    checksum: 'crc32c',
    cipher: 'aes-xts-plain64',
    keySize: 16,
    pbkdf2: f.cryptoUsers[0].pbkdf2,
    cryptoUsers: f.cryptoUsers,
    wrappedVolumeKeys: f.wrappedVolumeKeys,
    conversionStatus: f.conversionStatus,
  };
}

/**
 * Reads the header of a FileVault 2 (Core Storage) image given as bytes, a Blob/File or a `ByteSource`:
 * the physical volume header, the first metadata area and the encrypted metadata (decrypted with the
 * key data of the header), every checksum verified. Needs no passphrase.
 *
 * @throws HeaderError for anything that is not a readable FileVault 2 volume (the message says what).
 * @example
 * ```ts
 * import { readFileVault2Header } from '@x/filevault2';
 * const h = await readFileVault2Header(imageBytes);
 * console.log(h.logicalVolumeUuid, h.logicalVolumeOffset, h.logicalVolumeSize, h.pbkdf2.iterations);
 * ```
 */
export async function readFileVault2Header(input: ImageInput): Promise<FileVault2Header> {
  return readHeaderFrom(toSource(input));
}
