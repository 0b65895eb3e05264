// An unlocked BitLocker volume, read as cryptsetup maps it (lib/bitlk/bitlk.c, _activate): the whole image,
// with
//   - the first `volume header size` bytes decrypted from where BitLocker moved them (the volume header
//     block), their IVs those of that location;
//   - the three 64 KiB FVE metadata areas and the moved volume header's own location as zeros;
//   - every other byte decrypted in place, the IV sector being the byte offset / the sector size
//     (dm-crypt's iv_large_sectors for 4096-byte sectors).
// Beyond cryptsetup, which refuses such volumes: in a conversion paused (state 5, an encryption or a
// decryption), bytes past the metadata's "encrypted volume size" are not encrypted, and are given as they
// are (conversionProblem says which states open).
// A volume BitLocker turned on in "encrypt on write" mode (the identifier 92a84d3b-…, which cryptsetup
// also refuses) encrypts only what is written after that moment; its moved volume header, written before,
// is then stored as it was, and is given as it is when it reads as a boot record. Which other sectors were
// never written since is not in the metadata: they come out decrypted, i.e. as noise, and they are the
// file system's free space.
import { type ByteSource, type ImageInput, toSource } from '@x/byte-source';
import {
  type Extent,
  type FormatVolume,
  type KdfLimitOptions,
  type KdfLimits,
  kdfLimits,
  SectorVolume,
} from '@x/disk-format';
import { newSectorCipher, type SectorCipher } from '@x/dm-crypt';
import { BitlockerError, HeaderError, WrongVolumeKeyError } from './errors.js';
import { authenticates, unlockVmk, unsealFvek, xtsHalvesEqual } from './keys.js';
import { type BitlockerHeader, METADATA_AREA_SIZE, type Metadata, readHeaderFrom } from './metadata.js';

const PREFIX = '@x/bitlocker';

export type { Extent };

/**
 * The plaintext volume's layout: `size` bytes in sorted extents that cover it exactly. Byte offsets; all
 * of them multiples of `sectorSize`.
 */
export function layout(m: Metadata, sectorSize: number, imageSize: number, headerPlain = false): Extent[] {
  const size = imageSize - (imageSize % sectorSize);
  const vh = m.volumeHeader;
  const holes = [
    ...m.metadataOffsets.map((o) => ({ start: o, end: o + METADATA_AREA_SIZE })),
    { start: vh.offset, end: vh.offset + vh.size },
  ]
    .filter((h) => h.end > h.start)
    .sort((a, b) => a.start - b.start);
  for (const h of holes) {
    if (h.start % sectorSize !== 0 || h.end % sectorSize !== 0)
      throw new HeaderError(`@x/bitlocker: the area ${h.start}..${h.end} is not aligned to ${sectorSize}-byte sectors`);
    if (h.end > size)
      throw new HeaderError(`@x/bitlocker: the area ${h.start}..${h.end} is past the end of the image (truncated?)`);
  }
  if (vh.size > 0 && vh.size > holes[0].start)
    throw new HeaderError('@x/bitlocker: the moved volume header overlaps the metadata');
  const out: Extent[] = [];
  const crypt = (start: number, end: number, from: number) => {
    // split at the encrypted size: what lies past it on the image is not encrypted
    const enc = m.encryptedSize;
    const cut = Math.min(Math.max(enc - from, 0), end - start);
    if (cut > 0) out.push({ start, end: start + cut, kind: 'crypt', from });
    if (start + cut < end) out.push({ start: start + cut, end, kind: 'plain', from: from + cut });
  };
  if (vh.size > 0) {
    if (headerPlain) out.push({ start: 0, end: vh.size, kind: 'plain', from: vh.offset });
    else crypt(0, vh.size, vh.offset);
  }
  let at = vh.size;
  for (const h of holes) {
    if (h.end <= at) continue;
    if (h.start > at) crypt(at, h.start, at);
    out.push({ start: Math.max(h.start, at), end: h.end, kind: 'zero', from: 0 });
    at = h.end;
  }
  if (at < size) crypt(at, size, at);
  return out;
}

/**
 * An unlocked BitLocker volume: the plaintext volume as `cryptsetup open --type bitlk` maps it. Sector
 * numbers count `sectorSize` units from the start of the volume.
 *
 * @example
 * ```ts
 * const v: BitlockerVolume = await openBitlocker(image, { recoveryPassword });
 * const boot = new Uint8Array(v.sectorSize);
 * await v.read(boot, 0);                 // the NTFS (or FAT) boot sector
 * v.close();
 * ```
 */
export interface BitlockerVolume extends FormatVolume {
  readonly header: BitlockerHeader;
  /** Bytes of the volume that are encrypted (from the start); the rest is given as it is on the image. */
  readonly encryptedSize: number;
  /** What opened it: `password`, `recovery password`, `startup key`, `clear key` or `FVEK`. */
  readonly protector: string;
  /** The runs of the plaintext volume (zeros, decrypted, copied). */
  readonly extents: readonly Extent[];
}

class Volume extends SectorVolume implements BitlockerVolume {
  readonly uuid: string;
  readonly cipher: string;
  readonly keySize: number;
  readonly payloadOffset = 0;
  readonly encryptedSize: number;
  readonly extents: readonly Extent[];

  constructor(
    readonly header: BitlockerHeader,
    readonly metadata: Metadata,
    readonly protector: string,
    init: ConstructorParameters<typeof SectorVolume>[0],
  ) {
    super(init);
    this.uuid = metadata.guid;
    this.cipher = metadata.encryption.cipher;
    this.keySize = metadata.encryption.keyBits / 8;
    this.extents = init.layout.extents;
    this.encryptedSize = Math.min(metadata.encryptedSize, this.payloadSize);
  }
}

/**
 * How {@link openBitlocker} unlocks a volume: one secret, or none for a volume with a clear key.
 *
 * @example
 * ```ts
 * const byPassword: BitlockerSecret = { passphrase: 'anaconda' };
 * const byRecovery: BitlockerSecret = { recoveryPassword: '042647-302313-590458-071500-554323-116567-412181-516978' };
 * const byStartupKey: BitlockerSecret = { startupKey: await readFile('4381F759-….BEK') };
 * const byFvek: BitlockerSecret = { fvek: keyFromBitlkDump };
 * ```
 */
export interface BitlockerSecret {
  /** The user password (a string, or UTF-8 bytes as read from a file). */
  passphrase?: string | Uint8Array;
  /** The 48-digit recovery password, with or without its dashes. */
  recoveryPassword?: string;
  /** The bytes of a startup key (.BEK) file. */
  startupKey?: Uint8Array;
  /**
   * The raw volume key as `cryptsetup bitlkDump --dump-volume-key` shows it (the FVEK; for Elephant the
   * data key then the diffuser key). Checked by decrypting the volume's boot sector.
   */
  fvek?: Uint8Array;
  /** Forces an AES kernel (see `kernels()` of `@x/cbc`). */
  kernel?: string;
  /** Keep a copy of the FVEK in the volume for `volume.share()` (decrypt threads); `close()` wipes it if not taken. */
  share?: boolean;
  /**
   * The most iterations a key derivation may run, as for every format (`KdfLimitOptions` of
   * `@x/disk-format`; default 2^26): a password or recovery password is stretched with 2^20 SHA-256 rounds
   * per protector (fixed by the format), so only a bound below that refuses it.
   */
  maxIterations?: KdfLimitOptions['maxIterations'];
}

/** A boot record: a known file system's OEM name, or the 55 AA signature behind an x86 jump. */
function looksLikeBootSector(b: Uint8Array): boolean {
  const oem = new TextDecoder('latin1').decode(b.subarray(3, 11));
  if (['NTFS    ', 'EXFAT   ', 'MSDOS5.0', 'MSWIN4.1', 'MSWIN4.0'].includes(oem)) return true;
  if (b.subarray(3, 7).every((x, i) => x === 'ReFS'.charCodeAt(i))) return true;
  return b[510] === 0x55 && b[511] === 0xaa && (b[0] === 0xeb || b[0] === 0xe9);
}

/**
 * Opens a BitLocker (Windows 7 and later, and BitLocker To Go) volume: reads its metadata, unlocks the
 * VMK with the password, the recovery password, the startup key file or the clear key, checks the
 * metadata's authentication with it, decrypts the FVEK, and returns the plaintext volume as cryptsetup
 * maps it. With `fvek`, the key is used directly. Keys derived on the way are wiped once used.
 *
 * @throws WrongPassphraseError for a wrong password, recovery password or startup key; WrongVolumeKeyError
 *   for a wrong FVEK; HeaderError for an image that is not BitLocker, is damaged or truncated, or whose
 *   metadata fails its authentication; BitlockerError for a volume without the protector asked for or a
 *   startup key file that is not a .BEK file; TypeError/RangeError for bad arguments.
 * @example
 * ```ts
 * import { openBitlocker } from '@x/bitlocker';
 * const volume = await openBitlocker(blobOrBytes, { passphrase: 'anaconda' });
 * const buf = new Uint8Array(1 << 20);
 * await volume.read(buf, 0);              // the first MiB of the plaintext volume
 * volume.close();
 * ```
 */
export async function openBitlocker(input: ImageInput, secret: BitlockerSecret = {}): Promise<BitlockerVolume> {
  const source = toSource(input);
  checkSecret(secret);
  const limits = kdfLimits({ maxIterations: secret.maxIterations }, PREFIX);
  const header = await readHeaderFrom(source);
  if (header.type === 'unknown')
    throw new HeaderError(
      `@x/bitlocker: the BitLocker identifier ${header.identifier} is not one this package knows (normal 4967d63b-…, encrypt-on-write 92a84d3b-…): the volume is not opened`,
    );
  if (header.metadata.encryptedSize > header.imageSize)
    throw new HeaderError(
      `@x/bitlocker: the image (${header.imageSize} bytes) is shorter than the encrypted volume (${header.metadata.encryptedSize} bytes): truncated`,
    );
  const { key, metadata, protector } = recoverFvek(header, secret, limits);
  try {
    const problem = conversionProblem(metadata);
    if (problem) throw new HeaderError(`@x/bitlocker: ${problem}`);
    return await volumeOf(source, header, metadata, protector, key, secret);
  } finally {
    key.fill(0);
  }
}

/** The conversion states of the block header (dislocker's names; cryptsetup opens state 4 only). */
const STATE = { none: 0, decrypted: 1, switching: 2, eowActivated: 3, encrypted: 4, paused: 5 } as const;
const STATE_NAMES = ['none', 'decrypted', 'switching', 'encrypt-on-write activated', 'encrypted', 'paused'];
const stateName = (n: number) => `state ${n}${n < STATE_NAMES.length ? ` (${STATE_NAMES[n]})` : ''}`;

/**
 * Why the metadata's conversion state cannot be opened, or undefined. Opened: 4 → 4, fully encrypted (as
 * cryptsetup); 5 → 4 and 5 → 1, an encryption or decryption paused: the bytes below the encrypted size are
 * encrypted and the rest is on the image as it is, and nothing moves while it is paused. Refused: 2 (a
 * conversion running when the image was taken: the data ahead of the recorded size may be either),
 * 1 (decrypted), 3 (encrypt-on-write being turned on), 0 and unknown states, and any other next state.
 */
export function conversionProblem(m: Metadata): string | undefined {
  const { current, next } = m.state;
  if (current === STATE.encrypted && next === STATE.encrypted) return undefined;
  if (current === STATE.paused && (next === STATE.encrypted || next === STATE.decrypted)) return undefined;
  const what =
    current === STATE.switching
      ? `the volume was being ${next === STATE.decrypted ? 'decrypted' : 'encrypted'} when the image was taken: the data ahead of the metadata's encrypted size may be either; let Windows finish or pause the conversion`
      : current === STATE.decrypted
        ? 'the volume is decrypted (nothing to open)'
        : current === STATE.eowActivated
          ? 'encrypt-on-write is being turned on'
          : current === STATE.encrypted || current === STATE.paused
            ? `the next state, ${stateName(next)}, is not one this package knows after ${stateName(current)}`
            : 'the state is not one this package knows';
  return `the conversion ${stateName(current)}, next ${stateName(next).replace('state ', '')}, is not supported: ${what}`;
}

/** Refuses a secret that is not one of the kinds {@link BitlockerSecret} names, or more than one. */
function checkSecret(secret: BitlockerSecret): void {
  if (secret === null || typeof secret !== 'object') throw new TypeError('@x/bitlocker: secret must be an object');
  const given = (['passphrase', 'recoveryPassword', 'startupKey', 'fvek'] as const).filter(
    (k) => secret[k] !== undefined,
  );
  if (given.length > 1) throw new TypeError(`@x/bitlocker: give one secret, not ${given.join(' and ')}`);
  const { passphrase, recoveryPassword, startupKey, fvek } = secret;
  if (passphrase !== undefined && typeof passphrase !== 'string' && !(passphrase instanceof Uint8Array))
    throw new TypeError('@x/bitlocker: passphrase must be a string or a Uint8Array');
  if (recoveryPassword !== undefined && typeof recoveryPassword !== 'string')
    throw new TypeError('@x/bitlocker: recoveryPassword must be a string');
  if (startupKey !== undefined && !(startupKey instanceof Uint8Array))
    throw new TypeError('@x/bitlocker: startupKey must be the bytes of a .BEK file (a Uint8Array)');
  if (fvek !== undefined && !(fvek instanceof Uint8Array))
    throw new TypeError('@x/bitlocker: fvek must be a Uint8Array');
}

/**
 * The FVEK (a copy the caller wipes), the metadata copy to read the volume with (with a protector: the first
 * copy the VMK authenticates), and what opened it.
 */
function recoverFvek(
  header: BitlockerHeader,
  secret: BitlockerSecret,
  limits: KdfLimits,
): { key: Uint8Array; metadata: Metadata; protector: string } {
  const m = header.metadata;
  const { fvek, kernel } = secret;
  if (fvek !== undefined) {
    if (fvek.length !== m.encryption.keyBits / 8)
      throw new WrongVolumeKeyError(
        `@x/bitlocker: ${m.encryption.cipher} takes a ${m.encryption.keyBits / 8}-byte key, got ${fvek.length}`,
      );
    if (m.encryption.cipher === 'aes-xts-plain64' && xtsHalvesEqual(fvek))
      throw new WrongVolumeKeyError(
        '@x/bitlocker: the FVEK is not a valid key for aes-xts-plain64: its two halves are equal (XTS takes two different AES keys)',
      );
    return { key: Uint8Array.from(fvek), metadata: m, protector: 'FVEK' };
  }
  // the VMK from the first copy whose protector opens (a damaged VMK entry gives way to the next copy)
  const { vmk, protector } = unlockVmk([m, ...header.fallbacks], secret, kernel, limits);
  try {
    // the first copy (in order) that the VMK authenticates: a copy changed by anyone without the VMK fails
    const authentic = [m, ...header.fallbacks].find((c) => authenticates(c, vmk, kernel));
    if (!authentic)
      throw new HeaderError(
        '@x/bitlocker: the FVE metadata fails its authentication with the VMK (tampered or damaged)',
      );
    return { key: unsealFvek(authentic, vmk, kernel), metadata: authentic, protector: protector.protection };
  } finally {
    vmk.fill(0);
  }
}

/** The sector cipher of the volume; a key the cipher refuses (XTS with two equal halves) cannot be the FVEK given. */
function cipherOf(m: Metadata, key: Uint8Array, sectorSize: number, secret: BitlockerSecret): SectorCipher {
  try {
    return newSectorCipher(m.encryption.cipher, key, { sectorSize, ivLargeSectors: true, kernel: secret.kernel });
  } catch (e) {
    if (secret.fvek !== undefined && e instanceof RangeError)
      throw new WrongVolumeKeyError(
        `@x/bitlocker: the FVEK is not a valid key for ${m.encryption.cipher}: ${e.message}`,
        {
          cause: e,
        },
      );
    throw e;
  }
}

/** The volume over `key` (which it copies into its cipher); with an FVEK given, checked on the boot sector. */
async function volumeOf(
  source: ByteSource,
  header: BitlockerHeader,
  m: Metadata,
  protector: string,
  key: Uint8Array,
  secret: BitlockerSecret,
): Promise<Volume> {
  const { sectorSize } = header;
  let cipher: SectorCipher | undefined;
  let volume: Volume | undefined;
  try {
    cipher = cipherOf(m, key, sectorSize, secret);
    let headerPlain = false;
    if (header.type === 'encrypt-on-write' && m.volumeHeader.size > 0) {
      const raw = new Uint8Array(sectorSize);
      await source.read(m.volumeHeader.offset, raw);
      headerPlain = looksLikeBootSector(raw);
    }
    const extents = layout(m, sectorSize, header.imageSize, headerPlain);
    volume = new Volume(header, m, protector, {
      source,
      // the IV sector of a byte is its offset in the image / the sector size (cryptsetup's _activate)
      layout: { cipher: m.encryption.cipher, sectorSize, ivLargeSectors: true, ivOrigin: 0, extents },
      cipher,
      shareKey: secret.share === true ? Uint8Array.from(key) : undefined,
      prefix: PREFIX,
      what: 'the volume',
      error: BitlockerError,
    });
    if (secret.fvek !== undefined && !headerPlain) {
      const boot = new Uint8Array(sectorSize);
      await volume.read(boot, 0);
      const ok = looksLikeBootSector(boot);
      boot.fill(0);
      if (!ok)
        throw new WrongVolumeKeyError('@x/bitlocker: the FVEK does not decrypt the boot sector to a boot record');
    }
    return volume;
  } catch (e) {
    if (volume)
      volume.close(); // its cipher, and the key it kept to share
    else cipher?.dispose();
    throw e;
  }
}
