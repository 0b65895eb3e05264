// Unlocking a FileVault 2 logical volume and reading it.
//
// Passphrase (libfvde "Keys"; cryptsetup FVAULT2_get_volume_key): for each passphrase-protected user,
// PBKDF2-HMAC-SHA256(passphrase, salt, iterations, 16) is the key that unwraps (RFC 3394) the user's
// key-encrypting key; the unwrap's integrity check is what tells a wrong passphrase. The KEK unwraps the
// 16-byte volume key from the KEKWrappedVolumeKeyStruct of the same KeyEncryptingKeyIdent. The logical
// volume is XTS-AES-128 with key1 = the volume key and key2 = the first 16 bytes of SHA-256(volume key ‖
// family UUID) (libfvde "Volume tweak key"), the tweak of each 512-byte sector its number from the start
// of the logical volume, 64-bit little-endian: dm-crypt's aes-xts-plain64 over the logical volume, as
// cryptsetup maps it. The 32-byte key1 ‖ key2 is what `cryptsetup fvault2Dump --dump-volume-key` prints.
import { toSource, type ByteSource, type ImageInput } from '@x/byte-source';
import { kernels } from '@x/cbc';
import { newSectorCipher } from '@x/dm-crypt';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  equalBytes,
  type FormatVolume,
  iterationsProblem,
  type KdfLimitOptions,
  type KdfLimits,
  kdfLimits,
  notTried,
  payloadLayout,
  SectorVolume,
  secretBytes,
  triable,
} from '@x/disk-format';
import { uuidBytes } from './bytes.js';
import { errors, FileVault2Error, HeaderError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
import { type FileVault2CryptoUser, type FileVault2Header, MAX_CRYPTO_USERS, readHeaderFrom } from './header.js';
import { pbkdf2Sha256 } from './kdf.js';
import { aesKeyUnwrap } from './keywrap.js';

const PREFIX = '@x/filevault2';
const SECTOR = 512;
/** Bytes of the logical volume decrypted to check a raw volume key: HFS+ puts its header at 1024, APFS its superblock at 0. */
const PROBE = 4096;

/**
 * Options of {@link openFileVault2}: a passphrase or the raw volume key.
 *
 * @example
 * ```ts
 * const byPassphrase: FileVault2OpenOptions = { passphrase: 'secret' };
 * const byKey: FileVault2OpenOptions = { volumeKey: keyFromCryptsetupDump }; // 32 bytes
 * ```
 */
export interface FileVault2OpenOptions {
  /** The passphrase; a string is encoded as UTF-8, bytes are used as they are. */
  passphrase?: string | Uint8Array;
  /** The 32-byte XTS volume key (key1 ‖ key2) instead, as `cryptsetup fvault2Dump --dump-volume-key` prints it. */
  volumeKey?: Uint8Array;
  /** Forces an AES kernel (see `@x/cbc`'s `kernels()`), for the metadata, the key unwrapping and the volume. */
  kernel?: string;
  /** Keep a copy of the volume key in the volume for `volume.share()` (decrypt threads); `close()` wipes it if not taken. */
  share?: boolean;
  /**
   * The most PBKDF2 iterations a crypto user may ask for, as for every format (`KdfLimitOptions` of
   * `@x/disk-format`). Default 2^26 = 67,108,864 (macOS calibrates a user to a fraction of a second of
   * native PBKDF2: 204,222 on the test image); a user above it is not tried.
   */
  maxIterations?: KdfLimitOptions['maxIterations'];
}

/**
 * An unlocked logical volume. Sector numbers count 512-byte sectors from the start of the logical volume.
 *
 * @example
 * ```ts
 * const v: FileVault2Volume = await openFileVault2(image, { passphrase });
 * const chunk = new Uint8Array(4 << 20);
 * for (let s = 0; s * 512 < v.payloadSize; s += chunk.length / 512) {
 *   const n = Math.min(chunk.length, v.payloadSize - s * 512);
 *   await v.read(chunk.subarray(0, n), s);
 * }
 * v.close();
 * ```
 */
export interface FileVault2Volume extends FormatVolume {
  readonly header: FileVault2Header;
  /** The logical volume's cipher: XTS-AES-128 (`keySize` 32, key1 ‖ key2; `header.keySize` is the AES key size, 16). */
  readonly cipher: 'aes-xts-plain64';
  readonly sectorSize: 512;
}

class Volume extends SectorVolume implements FileVault2Volume {
  readonly uuid: string;
  readonly cipher = 'aes-xts-plain64' as const;
  readonly keySize = 32;
  declare readonly sectorSize: 512;
  readonly payloadOffset: number;

  constructor(
    readonly header: FileVault2Header,
    init: ConstructorParameters<typeof SectorVolume>[0],
  ) {
    super(init);
    this.uuid = header.logicalVolumeUuid;
    this.payloadOffset = header.logicalVolumeOffset;
  }
}

function checkKernel(kernel: unknown): string | undefined {
  if (kernel === undefined) return undefined;
  if (typeof kernel !== 'string') throw new TypeError('@x/filevault2: kernel must be a string');
  const usable = kernels();
  if (!usable.includes(kernel))
    throw new RangeError(`@x/filevault2: kernel "${kernel}" is not available here (${usable.join(', ')})`);
  return kernel;
}

/** The XTS key of the logical volume: volume key ‖ SHA-256(volume key ‖ family UUID)[0..16) (libfvde "Volume tweak key"). */
function xtsKey(volumeKey: Uint8Array, familyUuid: string): Uint8Array {
  const h = sha256.create().update(volumeKey).update(uuidBytes(familyUuid)).digest();
  const key = new Uint8Array(32);
  key.set(volumeKey, 0);
  key.set(h.subarray(0, 16), 16);
  h.fill(0);
  return key;
}

/** Refuses what the header says cannot be read, before any key derivation. */
function checkOpenable(h: FileVault2Header, source: ByteSource): void {
  if (h.logicalVolumeOffset + h.logicalVolumeSize > source.size) {
    throw new HeaderError(
      `@x/filevault2: the image is truncated: the logical volume (${h.logicalVolumeSize} bytes at ${h.logicalVolumeOffset}) ends past the end of the image (${source.size} bytes)`,
    );
  }
  if (h.conversionStatus === 'Converting' || h.conversionStatus === 'Pending') {
    throw new HeaderError(
      `@x/filevault2: the logical volume is not fully encrypted (ConversionStatus ${h.conversionStatus}), not supported`,
    );
  }
  if (!h.wrappedVolumeKeys.some((k) => k.blockAlgorithm === 'AES-XTS'))
    throw new HeaderError('@x/filevault2: the encryption context has no AES-XTS wrapped volume key');
}

/**
 * Why a crypto user is not tried: its PBKDF2 above the bounds (or, in a header a caller made, not a whole
 * number), checked for every user before any derivation.
 */
function userProblem(user: FileVault2CryptoUser, limits: KdfLimits) {
  const what = `crypto user ${user.index}.pbkdf2`,
    n = user.pbkdf2.iterations;
  const message = Number.isSafeInteger(n)
    ? iterationsProblem(what, n, limits)
    : `${what}.iterations ${n} is not a whole number`;
  return message === undefined ? undefined : { message, runtime: false };
}

async function unlock(
  h: FileVault2Header,
  passphrase: Uint8Array,
  kernel: string | undefined,
  limits: KdfLimits,
): Promise<Uint8Array> {
  if (h.cryptoUsers.length > MAX_CRYPTO_USERS)
    throw new HeaderError(
      `@x/filevault2: the header lists ${h.cryptoUsers.length} crypto users; at most ${MAX_CRYPTO_USERS} are tried`,
    );
  const { ok, skipped } = triable(h.cryptoUsers, (u) => userProblem(u, limits), false, PREFIX, errors);
  for (const user of ok) {
    const passKey = await pbkdf2Sha256(passphrase, user.pbkdf2.salt, user.pbkdf2.iterations, 16);
    let kek: Uint8Array | undefined;
    try {
      kek = aesKeyUnwrap(passKey, user.wrappedKek, { kernel });
    } finally {
      passKey.fill(0);
    }
    if (kek === undefined) continue; // RFC 3394 integrity check failed: not this user's passphrase
    try {
      const keys = h.wrappedVolumeKeys.filter(
        (k) =>
          k.blockAlgorithm === 'AES-XTS' &&
          (user.kekIdent === undefined || k.kekIdent === undefined || k.kekIdent === user.kekIdent),
      );
      for (const k of keys) {
        const vk = aesKeyUnwrap(kek, k.wrappedKey, { kernel });
        if (vk === undefined) continue;
        try {
          return xtsKey(vk, h.familyUuid);
        } finally {
          vk.fill(0);
        }
      }
      throw new HeaderError(
        `@x/filevault2: the passphrase opens crypto user ${user.index}, but its key-encrypting key unwraps no AES-XTS volume key (damaged metadata)`,
      );
    } finally {
      kek.fill(0);
    }
  }
  throw new WrongPassphraseError(
    `@x/filevault2: the passphrase opens no crypto user of the volume (tried ${ok.length}${notTried(skipped)})`,
  );
}

/**
 * The 32-byte XTS volume key (key1 ‖ key2) of a FileVault 2 volume, from its header and a passphrase: what
 * `cryptsetup fvault2Dump --dump-volume-key` prints. The caller owns the result and should wipe it.
 *
 * @throws WrongPassphraseError when no passphrase-protected user opens; HeaderError for damaged key metadata.
 * @example
 * ```ts
 * import { deriveFileVault2VolumeKey, readFileVault2Header } from '@x/filevault2';
 * const key = await deriveFileVault2VolumeKey(await readFileVault2Header(image), 'secret');
 * // … later: openFileVault2(image, { volumeKey: key }) opens without PBKDF2
 * key.fill(0);
 * ```
 */
export async function deriveFileVault2VolumeKey(
  header: FileVault2Header,
  passphrase: string | Uint8Array,
  options: { kernel?: string; maxIterations?: number } = {},
): Promise<Uint8Array> {
  if (header === null || typeof header !== 'object' || !Array.isArray(header.cryptoUsers))
    throw new TypeError('@x/filevault2: header must be a FileVault2Header');
  const kernel = checkKernel(options?.kernel);
  const limits = kdfLimits({ maxIterations: options?.maxIterations }, PREFIX);
  const pass = secretBytes(passphrase, 'passphrase', PREFIX);
  try {
    return await unlock(header, pass, kernel, limits);
  } finally {
    pass.fill(0);
  }
}

/** Whether the first bytes of a logical volume hold a file system this package recognises. */
function knownFileSystem(b: Uint8Array): boolean {
  // HFS+ / HFSX volume header at 1024: signature "H+" version 4, or "HX" version 5 (Apple TN1150).
  const hfs =
    b.length >= 1028 &&
    b[1024] === 0x48 &&
    ((b[1025] === 0x2b && b[1027] === 4) || (b[1025] === 0x58 && b[1027] === 5)) &&
    b[1026] === 0;
  // APFS container superblock: nx_magic "NXSB" after the 32-byte object header (Apple File System Reference).
  const apfs = b.length >= 36 && b[32] === 0x4e && b[33] === 0x58 && b[34] === 0x53 && b[35] === 0x42;
  return hfs || apfs;
}

/**
 * Opens the logical volume of a FileVault 2 (Core Storage) image: reads and checks the header, recovers
 * the volume key with the passphrase (every passphrase-protected user in turn) or takes the raw
 * `options.volumeKey`, and returns a volume whose `read` decrypts 512-byte sectors through `@x/dm-crypt`
 * (aes-xts-plain64). Keys derived on the way are wiped as soon as they are used; the volume keeps only
 * the cipher's round keys.
 *
 * A raw volume key cannot be checked against anything the format stores (it keeps the key only wrapped
 * under the users' KEKs). It is checked as far as it can be: its second half must be the tweak key Core
 * Storage derives from its first half and the family UUID, and the first 4096 bytes of the logical volume
 * must decrypt to a file system Core Storage holds — an HFS+ or HFSX volume header at 1024 ("H+"/"HX") or
 * an APFS container superblock ("NXSB" at 32). A right key on a logical volume holding anything else is
 * refused too.
 *
 * @throws WrongPassphraseError when no user opens; WrongVolumeKeyError for a volume key that fails the
 *   checks above; HeaderError for an image that is not a FileVault 2 volume this package reads (damaged,
 *   truncated, unsupported); TypeError/RangeError for bad options.
 * @example
 * ```ts
 * import { openFileVault2 } from '@x/filevault2';
 * const volume = await openFileVault2(imageBytesOrBlob, { passphrase: 'correct horse battery staple' });
 * const first = new Uint8Array(512 * 8);
 * await volume.read(first, 0);          // the first 8 sectors of the logical volume, decrypted
 * volume.close();
 * ```
 */
export async function openFileVault2(input: ImageInput, options: FileVault2OpenOptions): Promise<FileVault2Volume> {
  const source = toSource(input);
  if (options === null || typeof options !== 'object') throw new TypeError('@x/filevault2: options must be an object');
  const { passphrase, volumeKey } = options;
  if ((passphrase === undefined) === (volumeKey === undefined))
    throw new TypeError('@x/filevault2: give either options.passphrase or options.volumeKey');
  if (volumeKey !== undefined && !(volumeKey instanceof Uint8Array))
    throw new TypeError('@x/filevault2: volumeKey must be a Uint8Array');
  if (passphrase !== undefined && typeof passphrase !== 'string' && !(passphrase instanceof Uint8Array))
    throw new TypeError('@x/filevault2: passphrase must be a string or a Uint8Array');
  const kernel = checkKernel(options.kernel);
  kdfLimits({ maxIterations: options.maxIterations }, PREFIX); // a bad bound is refused before the image is read

  const h = await readHeaderFrom(source, kernel);
  checkOpenable(h, source);

  let key: Uint8Array;
  if (volumeKey !== undefined) {
    if (volumeKey.length !== 32)
      throw new WrongVolumeKeyError(`@x/filevault2: the volume key must be 32 bytes, got ${volumeKey.length}`);
    key = Uint8Array.from(volumeKey);
    const derived = xtsKey(key.subarray(0, 16), h.familyUuid);
    const ok = equalBytes(derived.subarray(16), key.subarray(16));
    derived.fill(0);
    if (!ok) {
      key.fill(0);
      throw new WrongVolumeKeyError(
        "@x/filevault2: the volume key's second half is not the tweak key of its first half for this volume's family UUID",
      );
    }
  } else {
    key = await deriveFileVault2VolumeKey(h, passphrase!, { kernel, maxIterations: options.maxIterations });
  }
  let volume: Volume;
  try {
    volume = new Volume(h, {
      source,
      layout: payloadLayout('aes-xts-plain64', SECTOR, h.logicalVolumeOffset, h.logicalVolumeSize),
      cipher: newSectorCipher('aes-xts-plain64', key, { sectorSize: SECTOR, kernel }),
      shareKey: options.share === true ? Uint8Array.from(key) : undefined,
      prefix: '@x/filevault2',
      what: 'the logical volume',
      error: FileVault2Error,
    });
  } finally {
    key.fill(0);
  }
  if (volumeKey !== undefined) {
    const probe = new Uint8Array(Math.min(PROBE, h.logicalVolumeSize));
    try {
      await volume.read(probe, 0);
      if (!knownFileSystem(probe)) {
        volume.close();
        throw new WrongVolumeKeyError(
          '@x/filevault2: the volume key does not decrypt the logical volume to a known file system (no HFS+/HFSX header at 1024, no APFS superblock at 0)',
        );
      }
    } catch (e) {
      volume.close();
      throw e;
    } finally {
      probe.fill(0);
    }
  }
  return volume;
}
