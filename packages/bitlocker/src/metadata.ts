// The BitLocker metadata (libbde "BitLocker Drive Encryption (BDE) format"; cryptsetup lib/bitlk/bitlk.c):
//
//   volume header (sector 0): boot code EB 58 90, then "-FVE-FS-" (Windows 7 and later) or "MSWIN4.1"
//     (BitLocker To Go on FAT), bytes per sector at 11, and the BitLocker identifier GUID with the three
//     FVE metadata block offsets at 160 (To Go: 424).
//   each of the 3 FVE metadata blocks (64 KiB areas): a 64-byte block header ("-FVE-FS-", size in 16-byte
//     units, version 2, current and next state, encrypted volume size, volume header sectors, the three
//     block offsets, the volume header offset), a 48-byte metadata header (metadata size, volume GUID,
//     encryption method, creation time) and the metadata entries; right after the block (at size × 16), the
//     validation: its size, version and the CRC-32 of the block, then an AES-CCM encrypted SHA-256 of the
//     block (checked once the VMK is known, ./keys.ts).
//
// As Windows and cryptsetup do, the first copy whose structure and CRC-32 are right is used; the others
// are kept as fallbacks for the authentication check.
import { type ByteSource, ImageError, type ImageInput, readBytes, toSource } from '@x/byte-source';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex, u16le as u16, u32le as u32, utf16le as utf16 } from '@x/disk-format';
import { crc32, filetime, guid, u64 } from './bytes.js';
import { HeaderError } from './errors.js';

/** The size of each FVE metadata area, shown as zeros in the plaintext volume. */
export const METADATA_AREA_SIZE = 64 * 1024;
const BLOCK_HEADER = 64;
const METADATA_HEADER = 48;
const ENTRY_HEADER = 8;
/** How a copy's problem starts when it disagrees with the boot sector's bytes per sector. */
const SECTOR_SIZE_MISMATCH = 'the boot sector says';

/** The BitLocker identifier of a normal volume, and of one converted with "encrypt on write". */
const GUID_NORMAL = '4967d63b-2e29-4ad8-8399-f6a339e3d001';
const GUID_EOW = '92a84d3b-dd80-4d0e-9e4e-b1e3284eaed8';

/** Entry types (libbde "FVE metadata entry types"). */
export const ENTRY = {
  property: 0x0000,
  vmk: 0x0002,
  fvek: 0x0003,
  description: 0x0007,
  volumeHeader: 0x000f,
} as const;
/** Value types (libbde "FVE metadata value types"). */
export const VALUE = {
  key: 0x0001,
  string: 0x0002,
  stretchKey: 0x0003,
  aesCcmKey: 0x0005,
  vmk: 0x0008,
  externalKey: 0x0009,
  offsetSize: 0x000f,
  guid: 0x0017,
  useKey: 0x0004,
} as const;
/** The properties of a password, recovery password or startup key protector that are skipped: recovery time, hint. */
const SKIPPED = new Set([0x0015, 0x0018]);

/** One metadata entry: its type, value type and version, and the data after its 8-byte header. */
export interface Entry {
  readonly type: number;
  readonly valueType: number;
  readonly version: number;
  readonly data: Uint8Array;
}

/** The entries of `b[start, end)`; a size that runs past `end` or is below the header is refused. */
export function parseEntries(b: Uint8Array, start: number, end: number, where: string): Entry[] {
  const out: Entry[] = [];
  let o = start;
  while (end - o >= ENTRY_HEADER) {
    const size = u16(b, o);
    if (size === 0) break; // the padding after the last entry
    if (size < ENTRY_HEADER || o + size > end)
      throw new HeaderError(`@x/bitlocker: ${where}: an entry at ${o - start} of ${size} bytes does not fit`);
    out.push({
      type: u16(b, o + 2),
      valueType: u16(b, o + 4),
      version: u16(b, o + 6),
      data: b.subarray(o + 8, o + size),
    });
    o += size;
  }
  return out;
}

/** An AES-CCM encrypted key (value type 5): nonce, tag and ciphertext. */
export interface SealedKey {
  readonly nonce: Uint8Array;
  readonly tag: Uint8Array;
  readonly ciphertext: Uint8Array;
}

function sealedKey(data: Uint8Array, where: string): SealedKey {
  if (data.length < 12 + 16 + 1)
    throw new HeaderError(`@x/bitlocker: ${where}: the AES-CCM encrypted key is too short`);
  return { nonce: data.subarray(0, 12), tag: data.subarray(12, 28), ciphertext: data.subarray(28) };
}

/** How a VMK is protected (libbde "Key protection types"; cryptsetup's names in `bitlkDump`). */
export type Protection =
  | 'clear key'
  | 'TPM'
  | 'startup key'
  | 'TPM and PIN'
  | 'recovery password'
  | 'smart card'
  | 'password'
  | 'unknown';

const PROTECTIONS: Record<number, Protection> = {
  0: 'clear key',
  256: 'TPM',
  512: 'startup key',
  1280: 'TPM and PIN',
  2048: 'recovery password',
  4096: 'smart card',
  8192: 'password',
};

/** A VMK entry: one protector of the volume master key. */
export interface Protector {
  readonly guid: string;
  /** The protector's name string when it has one (e.g. "ExternalKey", "DiskPassword"). */
  readonly name: string | undefined;
  readonly protection: Protection;
  /** The raw protection type (0x2000 password, 0x0800 recovery password, …). */
  readonly protectionType: number;
  readonly modified: Date;
  /** The stretch key's salt (password, recovery password). */
  readonly salt: Uint8Array | undefined;
  /** The VMK, AES-CCM encrypted with the protector's key. */
  readonly vmk: SealedKey | undefined;
  /** The unprotected key of a clear-key protector (it decrypts `vmk`). */
  readonly clearKey: Uint8Array | undefined;
}

function parseProtector(e: Entry, where: string): Protector {
  const d = e.data;
  if (d.length < 28) throw new HeaderError(`@x/bitlocker: ${where}: a VMK entry is too short`);
  const type = u16(d, 26);
  const protection = PROTECTIONS[type] ?? 'unknown';
  // the protectors a secret opens are read strictly, as cryptsetup reads them; the others are skipped
  const strict = protection === 'password' || protection === 'recovery password' || protection === 'startup key';
  const at = `${where}: VMK ${guid(d, 0)}`;
  let name: string | undefined,
    salt: Uint8Array | undefined,
    vmk: SealedKey | undefined,
    clearKey: Uint8Array | undefined;
  for (const p of parseEntries(d, 28, d.length, at)) {
    if (strict && p.type !== ENTRY.property)
      throw new HeaderError(`@x/bitlocker: ${at}: an entry of type ${p.type} inside it, where properties belong`);
    if (p.valueType === VALUE.stretchKey) {
      if (p.data.length < 20) throw new HeaderError(`@x/bitlocker: ${where}: a stretch key is too short`);
      salt = p.data.subarray(4, 20);
    } else if (p.valueType === VALUE.aesCcmKey && p.type === ENTRY.property) {
      vmk = sealedKey(p.data, where);
    } else if (p.valueType === VALUE.key) {
      if (p.data.length < 4 + 32) throw new HeaderError(`@x/bitlocker: ${where}: a clear key is too short`);
      clearKey = p.data.subarray(4);
    } else if (p.valueType === VALUE.string && name === undefined) {
      name = utf16(p.data);
    } else if (strict && p.valueType === VALUE.string) {
      throw new HeaderError(`@x/bitlocker: ${at}: a second name string`);
    } else if (strict && !SKIPPED.has(p.valueType) && !(p.valueType === VALUE.useKey && protection === 'startup key')) {
      throw new HeaderError(
        `@x/bitlocker: ${at}: a property of value type 0x${p.valueType.toString(16)}, unknown here`,
      );
    }
    // other properties (TPM keys, smart card, recovery timestamps, hints) are skipped, as cryptsetup skips them
  }
  return {
    guid: guid(d, 0),
    name,
    protection,
    protectionType: type,
    modified: filetime(d, 16),
    salt,
    vmk,
    clearKey,
  };
}

/** Encryption methods (libbde "Encryption methods") and the dm-crypt cipher cryptsetup maps them to. */
export interface Encryption {
  /** The method number: 0x8000 … 0x8005. */
  readonly method: number;
  /** As dm-crypt names the data cipher: `aes-cbc-elephant`, `aes-cbc-eboiv` or `aes-xts-plain64`. */
  readonly cipher: 'aes-cbc-elephant' | 'aes-cbc-eboiv' | 'aes-xts-plain64';
  /** The key dm-crypt takes, in bits (cryptsetup's "Cipher key"): CBC 128/256, XTS and Elephant 256/512. */
  readonly keyBits: number;
  /** AES key size in bits: 128 or 256. */
  readonly aesBits: 128 | 256;
}

const METHODS: Record<number, Omit<Encryption, 'method'>> = {
  32768: { cipher: 'aes-cbc-elephant', keyBits: 256, aesBits: 128 },
  32769: { cipher: 'aes-cbc-elephant', keyBits: 512, aesBits: 256 },
  32770: { cipher: 'aes-cbc-eboiv', keyBits: 128, aesBits: 128 },
  32771: { cipher: 'aes-cbc-eboiv', keyBits: 256, aesBits: 256 },
  32772: { cipher: 'aes-xts-plain64', keyBits: 256, aesBits: 128 },
  32773: { cipher: 'aes-xts-plain64', keyBits: 512, aesBits: 256 },
};

/** One FVE metadata copy as found on the image. */
export interface MetadataCopy {
  readonly offset: number;
  /** Why the copy is not used, or undefined when its structure and CRC-32 are right. */
  readonly problem: string | undefined;
}

/** A parsed FVE metadata block (one copy). */
export interface Metadata {
  readonly index: number;
  readonly offset: number;
  readonly version: number;
  /** The conversion state, current and next (4: normal, as cryptsetup requires). */
  readonly state: { readonly current: number; readonly next: number };
  /** The block header's "encrypted volume size": bytes from the start that are encrypted. */
  readonly encryptedSize: number;
  readonly metadataOffsets: readonly [number, number, number];
  readonly volumeHeader: { readonly offset: number; readonly size: number };
  /**
   * The sector size the metadata states, where it states one: the volume header entry's sector size
   * (Windows 8 and later), else its size over the block header's count of volume header sectors; undefined
   * when it has neither. The boot sector's bytes per sector (not covered by the authentication) must agree.
   */
  readonly sectorSize: number | undefined;
  readonly guid: string;
  readonly created: Date;
  readonly nonceCounter: number;
  readonly encryption: Encryption;
  readonly description: string;
  readonly protectors: readonly Protector[];
  readonly fvek: SealedKey;
  /** The AES-CCM encrypted SHA-256 of the block (decrypted with the VMK). */
  readonly validation: SealedKey;
  /** SHA-256 of the block, to compare with the decrypted validation. */
  readonly blockHash: Uint8Array;
}

/** A BitLocker volume's header: the volume header fields and the FVE metadata copy in use. */
export interface BitlockerHeader {
  /** BitLocker To Go (the FAT volume header "MSWIN4.1"). */
  readonly togo: boolean;
  /** `normal`, or `encrypt-on-write` (used space only; cryptsetup refuses to map it), or `unknown`. */
  readonly type: 'normal' | 'encrypt-on-write' | 'unknown';
  /** The BitLocker identifier GUID of the volume header. */
  readonly identifier: string;
  /** Bytes per sector: 512 or 4096 (IV sectors count in this unit: dm-crypt's iv_large_sectors). */
  readonly sectorSize: 512 | 4096;
  /** Image size in bytes. */
  readonly imageSize: number;
  readonly copies: readonly MetadataCopy[];
  /** The metadata copy in use (the first valid one). */
  readonly metadata: Metadata;
  /** The other valid copies, in order (tried when the one in use fails its authentication). */
  readonly fallbacks: readonly Metadata[];
}

function parseBlock(block: Uint8Array, index: number, offset: number, sectorSize: number): Metadata {
  const where = `FVE metadata block ${index}`;
  const bad = (why: string): never => {
    throw new HeaderError(`@x/bitlocker: ${where}: ${why}`);
  };
  if (new TextDecoder().decode(block.subarray(0, 8)) !== '-FVE-FS-') bad('no "-FVE-FS-" signature');
  const version = u16(block, 10);
  if (version === 1) bad('version 1 (Windows Vista) is not supported');
  if (version !== 2) bad(`version ${version} is not 2`);
  const size = u16(block, 8) * 16;
  if (size < BLOCK_HEADER + METADATA_HEADER || size + 8 > METADATA_AREA_SIZE) bad(`its size ${size} is out of range`);
  // the validation right after the block: size, version, CRC-32 of the block
  const vsize = u16(block, size),
    vversion = u16(block, size + 2);
  if (vsize < 8 || vversion > 2) bad('no validation block after it');
  if (crc32(block.subarray(0, size)) !== u32(block, size + 4)) bad('CRC-32 mismatch');
  const metadataSize = u32(block, BLOCK_HEADER);
  if (metadataSize < METADATA_HEADER || BLOCK_HEADER + metadataSize > size)
    bad(`metadata size ${metadataSize} is out of range`);
  const method = u16(block, BLOCK_HEADER + 36);
  const m = METHODS[method];
  if (!m) bad(`encryption method 0x${method.toString(16)} is not supported`);
  const offsets: [number, number, number] = [
    u64(block, 32, 'metadata offset 1'),
    u64(block, 40, 'metadata offset 2'),
    u64(block, 48, 'metadata offset 3'),
  ];
  if (offsets[index] !== offset) bad(`it says it lives at ${offsets[index]}, not ${offset}`);

  let description = '';
  let fvek: SealedKey | undefined;
  let volumeHeader: { offset: number; size: number } | undefined;
  let entrySectorSize: number | undefined;
  const protectors: Protector[] = [];
  for (const e of parseEntries(block, BLOCK_HEADER + METADATA_HEADER, BLOCK_HEADER + metadataSize, where)) {
    if (e.type === ENTRY.vmk && e.valueType === VALUE.vmk) protectors.push(parseProtector(e, where));
    else if (e.type === ENTRY.fvek && e.valueType === VALUE.aesCcmKey && !fvek) fvek = sealedKey(e.data, where);
    else if (e.type === ENTRY.description && e.valueType === VALUE.string && !description) description = utf16(e.data);
    else if (e.type === ENTRY.volumeHeader && e.valueType === VALUE.offsetSize) {
      if (e.data.length < 16) bad('the volume header entry is too short');
      volumeHeader = { offset: u64(e.data, 0, 'volume header offset'), size: u64(e.data, 8, 'volume header size') };
      // the longer entry (Windows 8 and later) states the sector size twice, at 44 and 48
      if (e.data.length >= 52) {
        entrySectorSize = u32(e.data, 44);
        if (u32(e.data, 48) !== entrySectorSize)
          bad(`the volume header entry states two sector sizes, ${entrySectorSize} and ${u32(e.data, 48)}`);
      }
    }
  }
  if (!fvek) bad('no FVEK entry');
  const headerSectors = u32(block, 28);
  const stated = volumeHeader
    ? (entrySectorSize ?? (headerSectors > 0 && volumeHeader.size > 0 ? volumeHeader.size / headerSectors : undefined))
    : undefined;
  if (stated !== undefined && stated !== sectorSize)
    bad(`${SECTOR_SIZE_MISMATCH} ${sectorSize} bytes per sector, this copy ${stated}`);
  // Windows 10 may leave out the volume header entry: the block header has the same facts
  volumeHeader ??= { offset: u64(block, 56, 'volume header offset'), size: headerSectors * sectorSize };

  // the validation's AES-CCM datum: an 8-byte header (size, role 0, type 5) then nonce, tag, ciphertext
  const nested = size + 8;
  if (vsize < 8 + 8 + 12 + 16 + 1 || u16(block, nested + 4) !== VALUE.aesCcmKey)
    bad('the validation has no AES-CCM datum');
  const nestedSize = u16(block, nested);
  if (nestedSize < 8 + 12 + 16 + 1 || nested + nestedSize > METADATA_AREA_SIZE)
    bad('the validation datum is out of range');
  const validation = sealedKey(block.slice(nested + 8, nested + nestedSize), where);

  return {
    index,
    offset,
    version,
    state: { current: u16(block, 12), next: u16(block, 14) },
    encryptedSize: u64(block, 16, 'encrypted volume size'),
    metadataOffsets: offsets,
    volumeHeader,
    sectorSize: stated,
    guid: guid(block, BLOCK_HEADER + 16),
    created: filetime(block, BLOCK_HEADER + 40),
    nonceCounter: u32(block, BLOCK_HEADER + 32),
    encryption: { method, ...m },
    description,
    protectors,
    fvek: fvek!,
    validation,
    blockHash: sha256(block.subarray(0, size)),
  };
}

/** Reads the header from a source (used by {@link readBitlockerHeader} and `openBitlocker`). */
export async function readHeaderFrom(source: ByteSource): Promise<BitlockerHeader> {
  try {
    return await readHeaderUnchecked(source);
  } catch (e) {
    if (e instanceof ImageError)
      throw new HeaderError(e.message.replace(/^@x\/byte-source: /, '@x/bitlocker: '), { cause: e });
    throw e;
  }
}

async function readHeaderUnchecked(source: ByteSource): Promise<BitlockerHeader> {
  if (source.size < 512)
    throw new HeaderError(
      `@x/bitlocker: the image is ${source.size} bytes, too short for a BitLocker volume (truncated?)`,
    );
  const boot = await readBytes(source, 0, 512);
  const signature = new TextDecoder('latin1').decode(boot.subarray(3, 11));
  let at: number;
  if (signature === '-FVE-FS-') at = 160;
  else if (signature === 'MSWIN4.1') at = 424;
  else throw new HeaderError('@x/bitlocker: not a BitLocker volume (no "-FVE-FS-" or "MSWIN4.1" signature at byte 3)');
  if (boot[0] === 0xeb && boot[1] === 0x52 && boot[2] === 0x90)
    throw new HeaderError("@x/bitlocker: Windows Vista's BitLocker (boot code EB 52 90) is not supported");
  if (boot[0] !== 0xeb || boot[1] !== 0x58 || boot[2] !== 0x90)
    throw new HeaderError(
      `@x/bitlocker: the boot code ${hex(boot.subarray(0, 3))
        .toUpperCase()
        .replace(/(..)(?=.)/g, '$1 ')} is not BitLocker's (EB 58 90)`,
    );
  const identifier = guid(boot, at);
  const known = identifier === GUID_NORMAL || identifier === GUID_EOW;
  const bps = u16(boot, 11);
  const sectorSize = bps === 0 ? 512 : bps;
  if (sectorSize !== 512 && sectorSize !== 4096)
    throw new HeaderError(`@x/bitlocker: sector size ${sectorSize} is not supported (512, 4096)`);
  const notToGo = () => new HeaderError('@x/bitlocker: a FAT volume without the BitLocker To Go identifier');
  let offsets: number[];
  try {
    offsets = [
      u64(boot, at + 16, 'metadata offset 1'),
      u64(boot, at + 24, 'metadata offset 2'),
      u64(boot, at + 32, 'metadata offset 3'),
    ];
  } catch (e) {
    // a FAT volume (MSWIN4.1) with neither the To Go identifier nor FVE metadata offsets is plain FAT
    throw signature === 'MSWIN4.1' && !known ? notToGo() : e;
  }

  const copies: MetadataCopy[] = [];
  const valid: Metadata[] = [];
  for (let i = 0; i < 3; i++) {
    const offset = offsets[i];
    let problem: string | undefined;
    if (offset % 512 !== 0 || offset + METADATA_AREA_SIZE > source.size) {
      problem = `offset ${offset} is not inside the image (truncated?)`;
    } else {
      try {
        valid.push(parseBlock(await readBytes(source, offset, METADATA_AREA_SIZE), i, offset, sectorSize));
      } catch (e) {
        if (!(e instanceof HeaderError)) throw e;
        problem = e.message.replace(/^@x\/bitlocker: (FVE metadata block \d: )?/, '');
      }
    }
    copies.push({ offset, problem });
  }
  if (valid.length === 0) {
    if (signature === 'MSWIN4.1' && !known) throw notToGo();
    const mismatch = copies.filter((c) => c.problem?.startsWith(SECTOR_SIZE_MISMATCH));
    if (mismatch.length > 0 && copies.every((c) => c.problem === mismatch[0].problem))
      throw new HeaderError(
        `@x/bitlocker: the boot sector says ${sectorSize} bytes per sector, the FVE metadata ${mismatch[0].problem!.replace(/^.* this copy /, '')}: the boot sector is damaged or changed (the metadata's authentication does not cover it)`,
      );
    throw new HeaderError(
      `@x/bitlocker: no usable FVE metadata block: ${copies.map((c, i) => `block ${i} at ${c.offset}: ${c.problem}`).join('; ')}`,
    );
  }
  const type = !known ? 'unknown' : identifier === GUID_NORMAL ? 'normal' : 'encrypt-on-write';
  return {
    togo: signature === 'MSWIN4.1',
    type,
    identifier,
    sectorSize,
    imageSize: source.size,
    copies,
    metadata: valid[0],
    fallbacks: valid.slice(1),
  };
}

/**
 * Reads a BitLocker volume's header and FVE metadata (no secret needed): the protectors, the encryption
 * method, the metadata and volume header locations. The first metadata copy whose structure and CRC-32
 * are right is used, as Windows does.
 *
 * @throws HeaderError when the image is not a BitLocker volume this package reads, or no metadata copy is
 *   usable (each copy's problem is named).
 * @example
 * ```ts
 * import { readBitlockerHeader } from '@x/bitlocker';
 * const h = await readBitlockerHeader(image);
 * h.metadata.encryption.cipher; // 'aes-xts-plain64'
 * h.metadata.protectors.map((p) => p.protection); // ['password', 'recovery password']
 * ```
 */
export async function readBitlockerHeader(input: ImageInput): Promise<BitlockerHeader> {
  return readHeaderFrom(toSource(input));
}
