// The LUKS1 partition header (LUKS1 On-Disk Format Specification 1.2.3, §3.1, Figures 1 and 2; §5 constants),
// read and checked as cryptsetup 2.6 reads and checks it before it trusts any field (lib/luks1/keymanage.c of
// cryptsetup v2.6.1: _check_and_convert_hdr, lines 513–578; LUKS_check_keyslots, 138–201; LUKS_check_device_size
// and LUKS_device_sectors, 89–136; LUKS_read_phdr, 607–655; LUKS_keyslot_info, 1150–1168).
// What cryptsetup refuses only when it opens a volume (a cipher it cannot run, a zero iteration count, a key
// length the cipher does not take) is left to openLuks, so that `dump` shows what `cryptsetup luksDump` shows.
import { cString, u16be, u32be } from '@x/disk-format';
import { HeaderError } from './errors.js';

/** LUKS_MAGIC (§5). */
export const LUKS_MAGIC = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe];
/** Total phdr size (Figure 1): the bytes read to parse a header. */
export const LUKS1_PHDR_SIZE = 592;
const KEY_ENABLED = 0x00ac71f3; // LUKS_KEY_ENABLED (§5); LUKS_KEY_DISABLED is 0x0000dead
const SECTOR = 512; // LUKS_SECTOR_SIZE (§5): key material offsets and the payload offset count 512-byte sectors
const STRIPES = 4000; // LUKS_STRIPES (§5); cryptsetup's LUKS_check_keyslots takes no other count
/**
 * cryptsetup's `sizeof(struct luks_phdr)`: the 592 bytes of Figure 1 padded to 1024 (`_padding[432]`,
 * lib/luks1/luks.h). LUKS_check_keyslots keeps key material out of these bytes, so the first key material
 * sector is 2 (cryptsetup 1.0 wrote 2; later versions 8, 4096-byte aligned).
 */
const CRYPTSETUP_PHDR_BYTES = 1024;
/** LUKS_DIGESTSIZE (lib/luks1/luks.h): the mk-digest is 20 bytes, so the hash must give at least 20. */
const DIGEST_BYTES = 20;

/**
 * The hash names cryptsetup 2.6.1 takes in a LUKS1 hash-spec with its OpenSSL 3.0 crypto backend (Debian's
 * build): _check_and_convert_hdr refuses a header when `crypt_hmac_size(hashSpec) < LUKS_DIGESTSIZE`, i.e.
 * when OpenSSL's EVP_MD_fetch (case-insensitive; default and legacy providers) knows no such digest or its
 * output is shorter than 20 bytes. These are the names and OIDs OpenSSL 3.0's providers register for the
 * digests of 20 bytes or more (`openssl list -digest-algorithms`; the legacy provider adds whirlpool), plus
 * cryptsetup's own spellings blake2b-512 and blake2s-256 (crypto_openssl.c, crypt_hash_compat_name).
 * md5, md4, mdc2, md2, shake128 (16 bytes) and NULL (0) are refused; so are OpenSSL's legacy aliases such
 * as RSA-SHA256, which EVP_MD_fetch does not look up. This package computes only some of them (sha1,
 * sha224, sha256, sha384, sha512, ripemd160); the others are shown by `dump` and refused by `openLuks`.
 */
const CRYPTSETUP_HASHES = new Set(
  [
    'sha1 sha-1 ssl3-sha1 1.3.14.3.2.26',
    'sha224 sha-224 sha2-224 2.16.840.1.101.3.4.2.4',
    'sha256 sha-256 sha2-256 2.16.840.1.101.3.4.2.1',
    'sha384 sha-384 sha2-384 2.16.840.1.101.3.4.2.2',
    'sha512 sha-512 sha2-512 2.16.840.1.101.3.4.2.3',
    'sha512-224 sha-512/224 sha2-512/224 2.16.840.1.101.3.4.2.5',
    'sha512-256 sha-512/256 sha2-512/256 2.16.840.1.101.3.4.2.6',
    'sha3-224 2.16.840.1.101.3.4.2.7 sha3-256 2.16.840.1.101.3.4.2.8',
    'sha3-384 2.16.840.1.101.3.4.2.9 sha3-512 2.16.840.1.101.3.4.2.10',
    'shake256 shake-256 2.16.840.1.101.3.4.2.12',
    'keccak-kmac-128 keccak-kmac128 keccak-kmac-256 keccak-kmac256',
    'ripemd160 ripemd-160 ripemd rmd160 1.3.36.3.2.1',
    'blake2b512 blake2b-512 1.3.6.1.4.1.1722.12.2.1.16 blake2s256 blake2s-256 1.3.6.1.4.1.1722.12.2.2.8',
    'sm3 1.2.156.10197.1.401 md5-sha1 whirlpool 1.0.10118.3.0.55',
  ].flatMap((line) => line.split(' ')),
);

/** OpenSSL compares digest names ignoring ASCII case only. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/** One of the eight LUKS1 keyslots (Figure 2). */
export interface Luks1Keyslot {
  /** 0 … 7. */
  readonly index: number;
  /**
   * `active` is LUKS_KEY_ENABLED. Any other word is an unused slot: LUKS_KEY_DISABLED, or a value that is
   * neither, which cryptsetup calls an invalid slot and passes over (LUKS_keyslot_info) — so does openLuks.
   */
  readonly active: boolean;
  /** The raw `active` word, e.g. 0x0000dead for a disabled slot. */
  readonly state: number;
  readonly iterations: number;
  readonly salt: Uint8Array;
  /** Start of the key material, in 512-byte sectors. */
  readonly keyMaterialOffset: number;
  /** Always 4000: cryptsetup refuses a header with any other count in any keyslot. */
  readonly stripes: number;
}

/**
 * A LUKS1 header (LUKS1 spec §3.1, Figure 1).
 *
 * @example
 * ```ts
 * const h = await readHeader(bytes);
 * if (h.version === 1) console.log(h.cipher, h.payloadOffset * 512);
 * ```
 */
export interface Luks1Header {
  readonly version: 1;
  readonly cipherName: string;
  readonly cipherMode: string;
  /** `cipherName-cipherMode`, the dm-crypt cipher spec, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  /** hash-spec: the PBKDF2 hash and the AF diffuser's hash. */
  readonly hashSpec: string;
  /** Start of the bulk data, in 512-byte sectors (0: a detached header, the data being elsewhere). */
  readonly payloadOffset: number;
  /** Volume (master) key length in bytes. */
  readonly keyBytes: number;
  readonly mkDigest: Uint8Array;
  readonly mkDigestSalt: Uint8Array;
  readonly mkDigestIterations: number;
  readonly uuid: string;
  readonly keyslots: readonly Luks1Keyslot[];
}

/** Sectors of key material for a key of `keyBytes` split into 4000 stripes (cryptsetup's AF_split_sectors). */
const keyMaterialSectors = (keyBytes: number) => Math.ceil((keyBytes * STRIPES) / SECTOR);

function refuse(message: string): never {
  throw new HeaderError(`@x/luks: ${message}`);
}

/**
 * The rules cryptsetup's LUKS_check_keyslots applies to every keyslot, active or not, in its order: the
 * stripes, then the header, then the payload, slot by slot; then no two key material areas overlap.
 */
function checkKeyslots(payloadOffset: number, keyBytes: number, slots: readonly Luks1Keyslot[]): void {
  const sectors = keyMaterialSectors(keyBytes);
  for (const k of slots) {
    const what = `LUKS1 keyslot ${k.index}`;
    if (k.stripes !== STRIPES)
      refuse(`${what}: stripes is ${k.stripes}; cryptsetup requires ${STRIPES} in every keyslot, used or not`);
    // cryptsetup multiplies in 32 bits (keyMaterialOffset * SECTOR_SIZE): an offset of 2^23 sectors wraps to 0
    const bytes = (k.keyMaterialOffset * SECTOR) % 2 ** 32;
    if (bytes < CRYPTSETUP_PHDR_BYTES)
      refuse(
        `${what}: key-material-offset ${k.keyMaterialOffset} lies inside the header (its first ${CRYPTSETUP_PHDR_BYTES} bytes; at least sector 2)${bytes === k.keyMaterialOffset * SECTOR ? '' : ', as cryptsetup counts the byte offset in 32 bits'}`,
      );
    if (payloadOffset === 0) continue; // a detached header: the payload is on another device
    if (k.keyMaterialOffset >= payloadOffset)
      refuse(`${what}: key-material-offset ${k.keyMaterialOffset} is not before the payload-offset ${payloadOffset}`);
    if (k.keyMaterialOffset + sectors > payloadOffset)
      refuse(
        `${what}: key material (${sectors} sectors from sector ${k.keyMaterialOffset}) runs past the payload-offset ${payloadOffset}`,
      );
  }
  // sorted by offset (a stable sort, as cryptsetup's insertion sort); each area ends before the next begins
  const sorted = [...slots].sort((a, b) => a.keyMaterialOffset - b.keyMaterialOffset);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!,
      next = sorted[i]!;
    if (next.keyMaterialOffset < prev.keyMaterialOffset + sectors)
      refuse(
        `LUKS1 keyslot ${prev.index}: key material (${sectors} sectors from sector ${prev.keyMaterialOffset}) overlaps keyslot ${next.index}'s (from sector ${next.keyMaterialOffset})`,
      );
  }
}

/**
 * Parses the 592-byte LUKS1 phdr at the start of `b` (magic and version already checked by the caller) of an
 * image of `deviceSize` bytes, and checks it as cryptsetup 2.6's LUKS_read_phdr does: the hash-spec, every
 * keyslot's stripes and key material (after the header, before the payload, no overlap), a key length, and
 * an image large enough for the header and all eight key material areas. Each refusal is a `HeaderError`.
 */
export function parseLuks1(b: Uint8Array, deviceSize: number): Luks1Header {
  if (b.length < LUKS1_PHDR_SIZE)
    throw new HeaderError(`@x/luks: the LUKS1 header is truncated (${b.length} of ${LUKS1_PHDR_SIZE} bytes)`);
  if (u16be(b, 6) !== 1) throw new HeaderError('@x/luks: not a LUKS1 header');
  // cryptsetup ends each string at the last byte of its field ("Avoid unterminated strings")
  const cipherName = cString(b, 8, 31);
  const cipherMode = cString(b, 40, 31);
  const hashSpec = cString(b, 72, 31);
  const payloadOffset = u32be(b, 104);
  const keyBytes = u32be(b, 108);
  const keyslots: Luks1Keyslot[] = [];
  for (let i = 0; i < 8; i++) {
    const o = 208 + 48 * i; // key-slot-1 at 208, 48 bytes each (Figure 1)
    const state = u32be(b, o);
    keyslots.push(
      Object.freeze({
        index: i,
        active: state === KEY_ENABLED,
        state,
        iterations: u32be(b, o + 4),
        salt: b.slice(o + 8, o + 40),
        keyMaterialOffset: u32be(b, o + 40),
        stripes: u32be(b, o + 44),
      }),
    );
  }

  // _check_and_convert_hdr: the hash first, then the keyslots
  if (!CRYPTSETUP_HASHES.has(asciiLower(hashSpec)))
    refuse(
      `LUKS1 hash-spec "${hashSpec}" is not a hash cryptsetup accepts (one of at least ${DIGEST_BYTES} bytes that its crypto backend knows, e.g. sha1, sha256, sha512)`,
    );
  checkKeyslots(payloadOffset, keyBytes, keyslots);
  // LUKS_check_device_size: a key, and the whole header and all eight key material areas inside the image
  if (keyBytes === 0) refuse('LUKS1 key-bytes is 0; the volume key has at least 1 byte');
  const last = Math.max(...keyslots.map((k) => k.keyMaterialOffset));
  const needed = (last + keyMaterialSectors(keyBytes)) * SECTOR;
  if (needed > Math.floor(deviceSize / SECTOR) * SECTOR)
    refuse(
      `the image (${deviceSize} bytes) is too small: its LUKS1 header and keyslots need at least ${needed} bytes (truncated?)`,
    );

  return Object.freeze({
    version: 1,
    cipherName,
    cipherMode,
    cipher: `${cipherName}-${cipherMode}`,
    hashSpec,
    payloadOffset,
    keyBytes,
    mkDigest: b.slice(112, 132),
    mkDigestSalt: b.slice(132, 164),
    mkDigestIterations: u32be(b, 164),
    uuid: cString(b, 168, 39),
    keyslots: Object.freeze(keyslots),
  });
}
