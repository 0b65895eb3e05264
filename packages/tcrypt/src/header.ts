// The TrueCrypt/VeraCrypt volume header (cryptsetup lib/tcrypt/tcrypt.h, struct tcrypt_phdr; TrueCrypt's
// and VeraCrypt's "Volume Format Specification"): 512 bytes, a 64-byte salt and 448 bytes encrypted with the
// header key. Decrypted, big-endian:
//
//   0  magic "TRUE" (TrueCrypt) or "VERA" (VeraCrypt)     4  header version (1 … 5)
//   6  minimum program version ("driver req.")            8  CRC-32 of the key area (bytes 192 … 447)
//  12  two reserved 64-bit times                          28  hidden volume size (0 in an outer volume's header)
//  36  volume size                                        44  master key scope offset (the encrypted area)
//  52  master key scope size                              60  flags (bit 0 system encryption, bit 1 in-place)
//  64  sector size (0: 512; VeraCrypt 1.x: 512 … 4096)   188  CRC-32 of bytes 0 … 187 (versions 4 and 5)
// 192  the key area, 256 bytes: the volume's master keys (and LRW/CBC tweak and IV keys)
//
// Decrypting with a wrong key gives random bytes; the magic and the key area's CRC-32 (64 bits together)
// tell a right key. Every field is then checked before use (readHeaderFields): a header is the attacker's
// input even when it decrypts.
import { u16be, u32be, u64be } from '@x/disk-format';
import { crc32 } from './crc32.js';
import { HeaderError } from './errors.js';
import type { KdfCandidate, TcryptPrf } from './kdf.js';

/** Bytes of a header: salt and encrypted part. */
export const HEADER_BYTES = 512;
/** Bytes of the salt, in clear at the start of the header. */
export const SALT_BYTES = 64;

/** Where a header is read (cryptsetup's TCRYPT_HDR_* offsets; negative: from the end of the image). */
export const HEADER_OFFSETS = {
  primary: 0,
  hidden: 65_536,
  /** TrueCrypt 5 and earlier put the hidden volume's header 1536 bytes before the end. */
  hiddenOld: -1536,
  backup: -131_072,
  hiddenBackup: -65_536,
  /** Sector 62 of the drive: the header of system (boot) encryption. */
  system: 31_744,
} as const;

/** Which header was read. */
export type HeaderLocation = keyof typeof HEADER_OFFSETS;

/** The derivation that decrypted a header, as a dump shows it. */
export interface TcryptKdf {
  readonly prf: TcryptPrf;
  /** PBKDF2 iterations or Argon2id passes. */
  readonly iterations: number;
  /** Argon2id memory (KiB). */
  readonly memory?: number;
  /** Argon2id lanes. */
  readonly parallelism?: number;
  /** The PIM that gave the count. */
  readonly pim?: number;
  /** A system (boot) count. */
  readonly boot: boolean;
}

/**
 * A decrypted, checked TrueCrypt or VeraCrypt header.
 *
 * @example
 * ```ts
 * const v = await openTcrypt(image, { passphrase });
 * console.log(v.header.magic, v.header.version, v.header.kdf.prf, v.header.volumeSize);
 * ```
 */
export interface TcryptHeader {
  readonly magic: 'TRUE' | 'VERA';
  readonly version: number;
  /** The minimum program version, BCD (0x0700 = 7.0, 0x010b = 1.11). */
  readonly requiredVersion: number;
  readonly keysCrc32: number;
  /** CRC-32 of bytes 0 … 187 (versions 4 and 5; earlier versions leave it 0). */
  readonly headerCrc32: number;
  readonly hiddenVolumeSize: number;
  readonly volumeSize: number;
  /** Where the encrypted area starts (0 in the header is read as 512, as cryptsetup does). */
  readonly mkOffset: number;
  readonly mkSize: number;
  readonly flags: number;
  /** 0 in the header is read as 512. */
  readonly sectorSize: number;
  /** Which header this is, and its offset in the image. */
  readonly location: HeaderLocation;
  readonly headerOffset: number;
  /** The AES mode that decrypted it, as cryptsetup names it (`xts-plain64`). */
  readonly mode: string;
  /** The cipher chain (`aes`). */
  readonly cipher: string;
  /** The volume key's length in bits (`MK bits`). */
  readonly keyBits: number;
  readonly kdf: TcryptKdf;
}

/** Whether `dec` (the 448 decrypted bytes) is a header: the magic ("VERA" only when VeraCrypt is allowed) and the key area's CRC-32. */
export function isDecrypted(dec: Uint8Array, veracrypt: boolean): boolean {
  const m = String.fromCharCode(dec[0], dec[1], dec[2], dec[3]);
  if (m !== 'TRUE' && !(veracrypt && m === 'VERA')) return false;
  return crc32(dec, 192, 448) === u32be(dec, 8);
}

/** The facts of a header that do not come from its bytes. */
export interface HeaderContext {
  readonly location: HeaderLocation;
  readonly headerOffset: number;
  readonly kdf: KdfCandidate;
  readonly mode: { readonly mode: string; readonly volumeKeyBytes: number; allows(version: number): boolean };
}

/**
 * The fields of a decrypted header (`dec`, 448 bytes, {@link isDecrypted}), each checked on its own: the
 * version against the magic and the mode, the header CRC-32, the sector size, offsets and sizes whole
 * 512-byte sectors. Where they are in the image is checked by the volume code (it knows the image).
 *
 * @throws HeaderError naming the field.
 */
export function readHeaderFields(dec: Uint8Array, ctx: HeaderContext): TcryptHeader {
  const fail = (why: string) => new HeaderError(`@x/tcrypt: the ${ctx.location} header ${why}`);
  const big = (what: string) => (v: bigint) => fail(`has ${what} ${v}, too large`);
  const magic = String.fromCharCode(dec[0], dec[1], dec[2], dec[3]) as 'TRUE' | 'VERA';
  const version = u16be(dec, 4);
  if (version < 1 || version > 5 || (magic === 'VERA' && version < 4))
    throw fail(`has version ${version}, which ${magic === 'VERA' ? 'VeraCrypt' : 'TrueCrypt'} never wrote`);
  if (!ctx.mode.allows(version))
    throw fail(`has version ${version}, which never goes with ${ctx.mode.mode} (a damaged or forged header)`);
  const headerCrc32 = u32be(dec, 188);
  if (version > 3 && crc32(dec, 0, 188) !== headerCrc32)
    throw fail('fields do not match their CRC-32 (the key area does: a damaged header)');
  const rawSector = u32be(dec, 64);
  const sectorSize = rawSector === 0 ? 512 : rawSector;
  if (sectorSize < 512 || sectorSize > 4096 || (sectorSize & (sectorSize - 1)) !== 0)
    throw fail(`has sector size ${rawSector}; TrueCrypt and VeraCrypt use 512, 1024, 2048 or 4096`);
  const hiddenVolumeSize = u64be(dec, 28, big('hidden volume size'));
  const volumeSize = u64be(dec, 36, big('volume size'));
  const rawMk = u64be(dec, 44, big('master key offset'));
  const mkOffset = rawMk === 0 ? 512 : rawMk;
  const mkSize = u64be(dec, 52, big('master key scope size'));
  for (const [what, v] of [
    ['hidden volume size', hiddenVolumeSize],
    ['volume size', volumeSize],
    ['master key offset', mkOffset],
  ] as const) {
    if (v % 512 !== 0) throw fail(`has ${what} ${v}, not a whole number of 512-byte sectors`);
  }
  const k = ctx.kdf;
  return {
    magic,
    version,
    requiredVersion: u16be(dec, 6),
    keysCrc32: u32be(dec, 8),
    headerCrc32,
    hiddenVolumeSize,
    volumeSize,
    mkOffset,
    mkSize,
    flags: u32be(dec, 60),
    sectorSize,
    location: ctx.location,
    headerOffset: ctx.headerOffset,
    mode: ctx.mode.mode,
    cipher: 'aes',
    keyBits: ctx.mode.volumeKeyBytes * 8,
    kdf: {
      prf: k.prf,
      iterations: k.iterations,
      ...(k.prf === 'argon2id' ? { memory: k.memory, parallelism: k.parallelism } : {}),
      ...(k.pim === undefined ? {} : { pim: k.pim }),
      boot: k.boot,
    },
  };
}
