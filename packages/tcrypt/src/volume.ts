// Opening a TrueCrypt or VeraCrypt volume: the header chosen by the options (primary, hidden, backup,
// system), decrypted by the first derivation and AES mode that shows its magic and key CRC (unlock.ts),
// its fields checked against the image, and the encrypted area read through @x/dm-crypt.
//
// Where the volume is (cryptsetup TCRYPT_get_data_offset, TCRYPT_get_iv_offset and TCRYPT_activate): the
// master key scope offset of the header, `volumeSize` bytes (a hidden volume: its header's
// `hiddenVolumeSize`); a hidden volume of header version 3 (TrueCrypt 5) or of a legacy mode (LRW, CBC:
// TrueCrypt 1.0–4.3) ends 1536 bytes before the end of the image instead, and a legacy outer volume whose
// header says size 0 (TrueCrypt 1.0–4.3 write 0) runs to the end of the image. The IV sector of a 512-byte
// unit, whatever the header's sector size: XTS its sector number from the start of the image (the drive,
// for system encryption), LRW from the start of the volume, CBC from the header's master key offset
// (modes.ts). With a detached header (`header`) for system encryption the image is the system partition
// alone: the volume starts at 0 and its IV sectors at the partition's place on the drive.
import { type ByteSource, type ImageInput, toSource } from '@x/byte-source';
import { kernels } from '@x/cbc';
import { newSectorCipher } from '@x/dm-crypt';
import {
  type FormatVolume,
  iterationsProblem,
  type KdfLimitOptions,
  type KdfLimits,
  type KdfProblem,
  argon2Problem,
  kdfLimits,
  notTried,
  SectorVolume,
  secretBytes,
  triable,
  type VolumeLayout,
} from '@x/disk-format';
import { argon2Runtime } from '@x/kdf';
import { errors, HeaderError, TcryptError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
import { HEADER_BYTES, HEADER_OFFSETS, type HeaderLocation, readHeaderFields, type TcryptHeader } from './header.js';
import { candidateName, type KdfCandidate, kdfCandidates, prfOf, type TcryptPrf } from './kdf.js';
import { tcryptPassword } from './keyfiles.js';
import { type HeaderMode, MODES, OTHER_CIPHERS } from './modes.js';
import { decryptHeader } from './unlock.js';

const PREFIX = '@x/tcrypt';
/** XTS data unit: TrueCrypt and VeraCrypt encrypt 512-byte units whatever the drive's sector size. */
const UNIT = 512;
/** TrueCrypt 6+ and VeraCrypt containers: 128 KiB of headers at the start, 128 KiB of backup headers at the end. */
const HEADER_AREA = 131_072;

/**
 * Options of {@link openTcrypt}: the secrets (passphrase, keyfiles, PIM) or the raw volume key, and which
 * header to use.
 *
 * @example
 * ```ts
 * const options: TcryptOpenOptions = { passphrase: 'secret', keyfiles: [kf1, kf2], pim: 485, prf: 'sha512' };
 * ```
 */
export interface TcryptOpenOptions extends KdfLimitOptions {
  /** The password; a string is encoded as UTF-8. Empty (or absent) with keyfiles: the keyfiles alone. */
  passphrase?: string | Uint8Array;
  /** Keyfiles, in order (their first 1 MiB counts): bytes, a Blob/File or a ByteSource (`@x/tcrypt/file`). */
  keyfiles?: readonly ImageInput[];
  /** VeraCrypt's PIM (1 … 2,147,468); only VeraCrypt's derivations are then tried. */
  pim?: number;
  /** Open the hidden volume (its header, with the hidden volume's password). */
  hidden?: boolean;
  /** System (boot) encryption: the header in sector 62 of the drive image. */
  system?: boolean;
  /** Use the backup header at the end of the image (of the hidden volume with `hidden`). */
  backup?: boolean;
  /**
   * A second source that holds the header (cryptsetup's `--header`): bytes, a Blob/File or a ByteSource. The
   * header the other options choose is read from it (its own size places those counted from the end), the
   * volume from the image. With `system` it is the drive and the image the system partition alone.
   */
  header?: ImageInput;
  /**
   * With `system` and `header`: where the image (a partition) starts on the drive, in bytes (default: the
   * header's master key offset, the start of the encrypted system partition). Give it for a partition cut
   * from a drive whose whole area is encrypted.
   */
  partitionOffset?: number;
  /** The PRF to try alone (`sha512`, `sha256`, `sha1`, `ripemd160`, `whirlpool`, `blake2s-256`, `stribog512`, `argon2id`). */
  prf?: string;
  /** VeraCrypt headers and counts too (default true; false is cryptsetup's `--disable-veracrypt`). */
  veracrypt?: boolean;
  /**
   * The raw volume key instead of the secrets, as cryptsetup's `--dump-volume-key` gives it: XTS-AES-256
   * key1 ‖ key2 (64 bytes), LRW-AES K1 ‖ K2 (48 bytes) or CBC-AES key ‖ IV seed ‖ whitening (64 bytes,
   * with `mode: 'cbc-tcw'`).
   */
  volumeKey?: Uint8Array;
  /** With `volumeKey`: the mode as the dump names it (`xts-plain64`, `lrw-benbi`, `cbc-tcw`); default by the key's length. */
  mode?: string;
  /**
   * With `volumeKey`: where the encrypted area starts (default 131072; LRW and CBC: 512) and its size
   * (default: up to the backup headers; LRW and CBC: up to the end of the image).
   */
  offset?: number;
  size?: number;
  /** Forces an AES kernel (see `@x/cbc`'s `kernels()`). */
  kernel?: string;
  /** Keep a copy of the volume key for `volume.share()`; `close()` wipes it if not taken. */
  share?: boolean;
  /** Cancels the unlock (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Told each derivation as it starts (the page shows which PRF is being tried). */
  onProgress?: (kdf: { readonly prf: TcryptPrf; readonly iterations: number; readonly memory: number }) => void;
}

/**
 * An unlocked TrueCrypt or VeraCrypt volume; sectors count 512-byte units from the start of the volume.
 *
 * @example
 * ```ts
 * const v: TcryptVolume = await openTcrypt(image, { passphrase });
 * const boot = new Uint8Array(512);
 * await v.read(boot, 0);
 * v.close();
 * ```
 */
export interface TcryptVolume extends FormatVolume {
  /** The header that opened it; undefined when opened with a raw volume key. */
  readonly header: TcryptHeader | undefined;
  readonly cipher: string;
}

class Volume extends SectorVolume implements TcryptVolume {
  readonly uuid = '';
  readonly cipher: string;
  readonly keySize: number;
  readonly payloadOffset: number;

  constructor(
    readonly header: TcryptHeader | undefined,
    cipher: string,
    keySize: number,
    init: ConstructorParameters<typeof SectorVolume>[0],
  ) {
    super(init);
    this.cipher = cipher;
    this.keySize = keySize;
    this.payloadOffset = init.layout.extents[0]?.from ?? 0;
  }
}

function checkKernel(kernel: unknown): string | undefined {
  if (kernel === undefined) return undefined;
  if (typeof kernel !== 'string') throw new TypeError('@x/tcrypt: kernel must be a string');
  const usable = kernels();
  if (!usable.includes(kernel))
    throw new RangeError(`@x/tcrypt: kernel "${kernel}" is not available here (${usable.join(', ')})`);
  return kernel;
}

function checkFlag(options: TcryptOpenOptions, name: 'hidden' | 'system' | 'backup' | 'veracrypt' | 'share'): void {
  const v = options[name];
  if (v !== undefined && typeof v !== 'boolean') throw new TypeError(`@x/tcrypt: options.${name} must be a boolean`);
}

function checkPim(pim: unknown): number | undefined {
  if (pim === undefined || pim === 0) return undefined;
  if (typeof pim !== 'number') throw new TypeError('@x/tcrypt: options.pim must be a number');
  if (!Number.isInteger(pim) || pim < 1 || pim > 2_147_468)
    throw new RangeError(`@x/tcrypt: options.pim must be a whole number from 1 to 2147468 (VeraCrypt's), got ${pim}`);
  return pim;
}

/** `partitionOffset`: only with a detached system header, a whole number of sectors. */
function checkPartitionOffset(o: TcryptOpenOptions): void {
  const at = o.partitionOffset;
  if (at === undefined) return;
  if (typeof at !== 'number') throw new TypeError('@x/tcrypt: options.partitionOffset must be a number');
  if (!o.system || o.header === undefined)
    throw new TypeError('@x/tcrypt: options.partitionOffset goes with system and header (a system partition image)');
  if (!Number.isSafeInteger(at) || at < 0 || at % UNIT !== 0)
    throw new RangeError(`@x/tcrypt: options.partitionOffset must be a multiple of 512, got ${at}`);
}

/** The headers to try, in order, for the options. */
export function headerLocations(o: { hidden?: boolean; system?: boolean; backup?: boolean }): HeaderLocation[] {
  if (o.system) {
    if (o.hidden || o.backup)
      throw new TypeError('@x/tcrypt: system encryption has one header (sector 62); hidden and backup do not apply');
    return ['system'];
  }
  if (o.hidden) return o.backup ? ['hiddenBackup'] : ['hidden', 'hiddenOld'];
  return o.backup ? ['backup'] : ['primary'];
}

const offsetIn = (loc: HeaderLocation, size: number) => {
  const o = HEADER_OFFSETS[loc];
  return o < 0 ? size + o : o;
};

/** Why a derivation is not run: its cost above the bounds (a PIM makes the counts the caller's). */
function kdfProblem(c: KdfCandidate, limits: KdfLimits): KdfProblem | undefined {
  const what = candidateName(c);
  if (c.prf === 'argon2id')
    return argon2Problem(
      what,
      what,
      { time: c.iterations, memory: c.memory, cpus: c.parallelism },
      limits,
      argon2Runtime(),
    );
  const message = iterationsProblem(what, c.iterations, limits);
  return message === undefined ? undefined : { message, runtime: false };
}

/** Where a volume is in the image, and the IV sector of its first 512-byte unit. */
export interface VolumeArea {
  readonly offset: number;
  readonly size: number;
  readonly ivSector: number;
}

/** How the image and the header's source relate, for {@link volumeArea}. */
export interface AreaContext {
  /** The size of the source the header was read from (default: the image's). */
  readonly headerSize?: number;
  /** The header came from another source than the image (`header`). */
  readonly detached?: boolean;
  /** With a detached system header: where the image starts on the drive (default: the master key offset). */
  readonly partitionOffset?: number;
}

function systemPartition(h: TcryptHeader, imageSize: number, at: number | undefined): VolumeArea {
  const fail = (why: string) => new HeaderError(`@x/tcrypt: the ${h.location} header ${why}`);
  if (h.volumeSize === 0) throw fail('has a volume size of 0');
  const start = at ?? h.mkOffset;
  const end = h.mkOffset + h.volumeSize;
  if (start < h.mkOffset || start >= end)
    throw new RangeError(
      `@x/tcrypt: options.partitionOffset ${start} is outside the encrypted area of the drive (${h.volumeSize} bytes at ${h.mkOffset})`,
    );
  const size = at === undefined ? h.volumeSize : Math.min(imageSize, end - start);
  if (size > imageSize)
    throw fail(
      `describes a system partition of ${size} bytes, longer than the image (${imageSize} bytes): a truncated image, or a partition of a drive encrypted whole (give options.partitionOffset)`,
    );
  return { offset: 0, size, ivSector: start / UNIT };
}

/** The encrypted area a checked header describes, checked against the image. */
export function volumeArea(h: TcryptHeader, imageSize: number, ctx: AreaContext = {}): VolumeArea {
  const mode = MODES.find((m) => m.mode === h.mode);
  if (mode === undefined) throw new HeaderError(`@x/tcrypt: the ${h.location} header has mode ${h.mode}`);
  if (h.location === 'system' && ctx.detached) return systemPartition(h, imageSize, ctx.partitionOffset);
  const hidden = h.location === 'hidden' || h.location === 'hiddenOld' || h.location === 'hiddenBackup';
  const legacy = h.version < 3;
  const headerSize = ctx.headerSize ?? imageSize;
  let size = hidden ? h.hiddenVolumeSize : h.volumeSize;
  const offset = hidden && h.version <= 3 ? headerSize - h.hiddenVolumeSize + HEADER_OFFSETS.hiddenOld : h.mkOffset;
  if (size === 0 && legacy && !hidden) size = imageSize - offset; // TrueCrypt 1.0–4.3: the rest of the image
  const fail = (why: string) => new HeaderError(`@x/tcrypt: the ${h.location} header ${why}`);
  if (size <= 0) throw fail(`has a ${hidden ? 'hidden volume' : 'volume'} size of 0`);
  if (offset < UNIT || offset % UNIT !== 0)
    throw fail(`puts the encrypted area at ${offset}, which is not a sector after the first`);
  if (offset + size > imageSize)
    throw fail(
      `puts the encrypted area (${size} bytes at ${offset}) past the end of the image (${imageSize} bytes): a truncated image`,
    );
  if (
    !ctx.detached &&
    h.location !== 'system' &&
    offset < h.headerOffset + HEADER_BYTES &&
    offset + size > h.headerOffset
  )
    throw fail(`puts the encrypted area (${size} bytes at ${offset}) over the header itself`);
  return { offset, size, ivSector: mode.ivSector(offset, h.mkOffset) };
}

/** The layout of the area: one run, its IV sectors from `ivSector` on. */
const areaLayout = (cipher: string, a: VolumeArea): VolumeLayout => ({
  cipher,
  sectorSize: UNIT,
  ivOffset: a.ivSector,
  ivOrigin: a.offset,
  extents: [{ start: 0, end: a.size, kind: 'crypt', from: a.offset }],
});

/** The header read with the secrets, and the volume key from it (the caller wipes it). */
export async function unlockTcrypt(
  source: ByteSource,
  options: TcryptOpenOptions,
): Promise<{ header: TcryptHeader; volumeKey: Uint8Array; cipher: string }> {
  const kernel = checkKernel(options.kernel);
  for (const f of ['hidden', 'system', 'backup', 'veracrypt'] as const) checkFlag(options, f);
  const pim = checkPim(options.pim);
  const keyfiles = options.keyfiles ?? [];
  if (!Array.isArray(keyfiles)) throw new TypeError('@x/tcrypt: options.keyfiles must be an array');
  const prf = options.prf === undefined ? undefined : prfOf(options.prf);
  const veracrypt = options.veracrypt !== false;
  const limits = kdfLimits(options, PREFIX);
  const locations = headerLocations(options);
  checkPartitionOffset(options);
  const from = options.header === undefined ? source : toSource(options.header);
  const what = options.header === undefined ? 'image' : 'header source';
  const pass = secretBytes(options.passphrase ?? '', 'passphrase', PREFIX);
  let password: Uint8Array | undefined;
  try {
    password = await tcryptPassword(pass, keyfiles, veracrypt);
    const all = kdfCandidates({ prf, pim, system: options.system, veracrypt });
    const { ok, skipped } = triable(all, (c) => kdfProblem(c, limits), prf !== undefined, PREFIX, errors);
    const fitting = locations.filter((l) => {
      const at = offsetIn(l, from.size);
      return at >= 0 && at + HEADER_BYTES <= from.size;
    });
    if (fitting.length === 0)
      throw new HeaderError(
        `@x/tcrypt: the ${what} (${from.size} bytes) is too short to hold the ${locations[0]} header`,
      );
    for (const location of fitting) {
      const headerOffset = offsetIn(location, from.size);
      const raw = new Uint8Array(HEADER_BYTES);
      await from.read(headerOffset, raw);
      const d = await decryptHeader(raw, password, ok, {
        veracrypt,
        kernel,
        signal: options.signal,
        onProgress: options.onProgress,
      });
      if (!d) continue;
      try {
        const header = readHeaderFields(d.dec, { location, headerOffset, kdf: d.kdf, mode: d.mode });
        return { header, volumeKey: d.mode.volumeKey(d.dec.subarray(192, 448)), cipher: d.mode.cipher };
      } finally {
        d.dec.fill(0);
      }
    }
    const tried = `${ok.map(candidateName).join(', ')}; ${MODES.map((m) => `aes-${m.mode}`).join(', ')}`;
    throw new WrongPassphraseError(
      `@x/tcrypt: no ${fitting.join(' or ')} header decrypts: either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher this package does not open (${OTHER_CIPHERS}) (tried ${tried}${notTried(skipped)})`,
    );
  } finally {
    pass.fill(0);
    password?.fill(0);
  }
}

/** Whether a decrypted first sector (and the next ones) hold a file system: a boot sector (FAT, exFAT, NTFS) or an ext superblock. */
function knownFileSystem(b: Uint8Array): boolean {
  const boot = b[510] === 0x55 && b[511] === 0xaa && (b[0] === 0xeb || b[0] === 0xe9);
  const ext = b.length >= 1082 && b[1080] === 0x53 && b[1081] === 0xef;
  return boot || ext;
}

/** The mode of a raw volume key: `options.mode`, else XTS for 64 bytes and LRW for 48. */
function rawMode(options: TcryptOpenOptions, length: number): HeaderMode {
  const name = options.mode;
  if (name !== undefined && typeof name !== 'string') throw new TypeError('@x/tcrypt: options.mode must be a string');
  const mode = name === undefined ? MODES.find((m) => m.volumeKeyBytes === length) : MODES.find((m) => m.mode === name);
  if (mode === undefined && name !== undefined)
    throw new RangeError(`@x/tcrypt: options.mode "${name}" is not one of ${MODES.map((m) => m.mode).join(', ')}`);
  if (mode === undefined || mode.volumeKeyBytes !== length)
    throw new WrongVolumeKeyError(
      `@x/tcrypt: ${mode ? `an ${mode.cipher}` : 'a'} volume key is ${mode ? mode.volumeKeyBytes : '64 (XTS, or CBC with mode cbc-tcw) or 48 (LRW)'} bytes, got ${length}`,
    );
  return mode;
}

function rawArea(source: ByteSource, options: TcryptOpenOptions, mode: HeaderMode): VolumeArea {
  if (options.hidden || options.system)
    if (options.offset === undefined)
      throw new TypeError('@x/tcrypt: a hidden or system volume opened with its volume key needs options.offset');
  const xts = mode.cipher === 'aes-xts-plain64';
  const offset = options.offset ?? (xts ? HEADER_AREA : UNIT);
  const size = options.size ?? source.size - offset - (xts ? HEADER_AREA : 0);
  for (const [name, v] of [
    ['offset', offset],
    ['size', size],
  ] as const)
    if (!Number.isSafeInteger(v) || v <= 0 || v % UNIT !== 0)
      throw new RangeError(`@x/tcrypt: options.${name} must be a positive multiple of 512, got ${v}`);
  if (offset + size > source.size)
    throw new RangeError(`@x/tcrypt: the area (${size} bytes at ${offset}) ends past the image (${source.size} bytes)`);
  // TrueCrypt 1.0–4.3 headers give the master key offset 512 (or 0, read as 512), hidden volumes too
  return { offset, size, ivSector: mode.ivSector(offset, UNIT) };
}

/**
 * Opens a TrueCrypt or VeraCrypt volume: reads the header the options choose (the primary one at 0, the
 * hidden volume's at 64 KiB, the backups at the end, system encryption's in sector 62), derives the header
 * key from the passphrase, keyfiles and PIM under every PRF TrueCrypt and VeraCrypt use (or the one
 * `prf` names), decrypts the header with every AES mode of the table, checks every field against the
 * image and returns the volume, whose `read` decrypts 512-byte sectors through `@x/dm-crypt` (XTS, LRW or
 * CBC with whitening, as the header's mode). With `header` the header is read from that source instead (for
 * `system`: the drive, the image being the system partition alone). With `volumeKey` (XTS only) the header
 * is not read: the area is `offset`/`size` (a VeraCrypt or TrueCrypt 6+ container's by default) and must
 * decrypt to a file system.
 *
 * @throws WrongPassphraseError when no header decrypts (a wrong secret, or a cipher other than AES);
 *   WrongVolumeKeyError; HeaderError for a decrypted header that breaks the format or the image;
 *   TypeError/RangeError for bad options.
 * @example
 * ```ts
 * import { openTcrypt } from '@x/tcrypt';
 * const v = await openTcrypt(blob, { passphrase: 'secret', keyfiles: [keyfile], hidden: true });
 * const first = new Uint8Array(512);
 * await v.read(first, 0);
 * v.close();
 * ```
 */
export async function openTcrypt(input: ImageInput, options: TcryptOpenOptions): Promise<TcryptVolume> {
  const source = toSource(input);
  if (options === null || typeof options !== 'object') throw new TypeError('@x/tcrypt: options must be an object');
  const { volumeKey } = options;
  if (volumeKey !== undefined && !(volumeKey instanceof Uint8Array))
    throw new TypeError('@x/tcrypt: volumeKey must be a Uint8Array');
  let header: TcryptHeader | undefined;
  let key: Uint8Array;
  let cipher = 'aes-xts-plain64';
  let area: VolumeArea;
  if (volumeKey !== undefined) {
    checkKernel(options.kernel);
    if (options.header !== undefined)
      throw new TypeError('@x/tcrypt: options.header goes with the secrets, not with volumeKey');
    const mode = rawMode(options, volumeKey.length);
    area = rawArea(source, options, mode);
    cipher = mode.cipher;
    key = Uint8Array.from(volumeKey);
  } else {
    const u = await unlockTcrypt(source, options);
    header = u.header;
    key = u.volumeKey;
    cipher = u.cipher;
    try {
      area = volumeArea(header, source.size, {
        headerSize: options.header === undefined ? source.size : toSource(options.header).size,
        detached: options.header !== undefined,
        partitionOffset: options.partitionOffset,
      });
    } catch (e) {
      key.fill(0);
      throw e;
    }
  }
  if (cipher === 'aes-xts-plain64' && equalHalves(key)) {
    key.fill(0);
    const E = header ? HeaderError : WrongVolumeKeyError;
    throw new E('@x/tcrypt: the volume key has two equal XTS halves');
  }
  let volume: Volume;
  try {
    volume = new Volume(header, cipher, key.length, {
      source,
      layout: areaLayout(cipher, area),
      cipher: newSectorCipher(cipher, key, { sectorSize: UNIT, ivOffset: area.ivSector, kernel: options.kernel }),
      shareKey: options.share === true ? Uint8Array.from(key) : undefined,
      prefix: PREFIX,
      what: 'the volume',
      error: TcryptError,
    });
  } finally {
    key.fill(0);
  }
  if (volumeKey !== undefined) await probe(volume, area.size);
  return volume;
}

/** Whether the two halves of a 64-byte XTS key are equal (XTS refuses them), without a branch on the key. */
function equalHalves(key: Uint8Array): boolean {
  let d = 0;
  for (let i = 0; i < 32; i++) d |= key[i] ^ key[32 + i];
  return d === 0;
}

async function probe(volume: Volume, size: number): Promise<void> {
  const first = new Uint8Array(Math.min(4096, size));
  try {
    await volume.read(first, 0);
    if (!knownFileSystem(first))
      throw new WrongVolumeKeyError(
        '@x/tcrypt: the volume key does not decrypt the area to a file system (no FAT, exFAT or NTFS boot sector, no ext superblock)',
      );
  } catch (e) {
    volume.close();
    throw e;
  } finally {
    first.fill(0);
  }
}
