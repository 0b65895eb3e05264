// The AES modes of TrueCrypt and VeraCrypt headers and volumes, as a table: for each, the header versions
// it goes with, how it decrypts the 448 encrypted bytes of a header with the derived header key, the
// dm-crypt cipher and key of the volume from the header's key area, and where the volume's IV sectors start.
// Unlocking tries every mode of this table after every derivation (as cryptsetup tries its tcrypt_cipher[]
// rows), and keeps the first whose decryption shows the magic and the key area's CRC-32.
//
// The rows and their key layouts follow cryptsetup's lib/tcrypt/tcrypt.c (tcrypt_cipher[], TCRYPT_copy_key,
// TCRYPT_decrypt_hdr_one, TCRYPT_get_iv_offset):
// - XTS-AES (TrueCrypt 5.0 and later, header versions 3–5, every VeraCrypt volume): `aes-xts-plain64`.
// - LRW-AES (TrueCrypt 4.1–4.3, header version 2): `aes-lrw-benbi`; header key K1 = derived[32 .. 64),
//   K2 = derived[0 .. 16), the header's first block has the index 1; the volume's benbi sectors count from
//   the start of the volume (IV offset 0).
// - CBC-AES with TrueCrypt's whitening (TrueCrypt 1.0–4.0, header versions 1–2): `aes-cbc-tcw`; the header
//   is XORed with derived[8 .. 16) over and over, then one CBC chain with key derived[32 .. 64) and IV
//   derived[0 .. 16); the volume key is keys[32 .. 64) ‖ IV seed keys[0 .. 16) ‖ whitening keys[16 .. 32),
//   and its IV sectors count from the header's master key offset (one sector), even for a hidden volume.
// The header decryptions use @x/xts, @x/cbc and @x/dm-crypt's `aes-lrw-benbi`: no AES of their own.
import { newCipher } from '@x/cbc';
import { newSectorCipher } from '@x/dm-crypt';
import { newXts } from '@x/xts';

/** The bytes of the header that are encrypted (after the 64-byte salt). */
export const ENCRYPTED_HEADER_BYTES = 448;

/** One AES mode of the table. */
export interface HeaderMode {
  /** cryptsetup's name of the mode (`Cipher mode:` of tcryptDump). */
  readonly mode: string;
  /** The volume's dm-crypt cipher spec. */
  readonly cipher: string;
  /** The bytes of the derived key its header decryption uses (from the start). */
  readonly headerKeyBytes: number;
  /** The bytes of the volume key (`MK bits` / 8). */
  readonly volumeKeyBytes: number;
  /** Whether a header of this version can be in this mode (TrueCrypt and VeraCrypt never made the others). */
  allows(version: number): boolean;
  /** Decrypts the 448 bytes `enc` in place with the derived header key. */
  decryptHeader(derived: Uint8Array, enc: Uint8Array, kernel: string | undefined): void;
  /** The volume key (a new array) from the header's 256-byte key area. */
  volumeKey(keys: Uint8Array): Uint8Array;
  /**
   * The IV sector of the volume's first 512-byte sector, from where the volume starts in the image and the
   * header's master key offset (cryptsetup TCRYPT_get_iv_offset).
   */
  ivSector(areaOffset: number, mkOffset: number): number;
}

/**
 * XTS-AES-256: header key = derived[0 .. 32) ‖ derived[32 .. 64), the 448 bytes one data unit of tweak 0;
 * volume key = keys[0 .. 32) ‖ keys[32 .. 64) (cryptsetup TCRYPT_copy_key, key_offset 0, iv_offset 32).
 */
const XTS_AES: HeaderMode = {
  mode: 'xts-plain64',
  cipher: 'aes-xts-plain64',
  headerKeyBytes: 64,
  volumeKeyBytes: 64,
  allows: (version) => version >= 3,
  decryptHeader(derived, enc, kernel) {
    const key = derived.subarray(0, 64);
    let d = 0;
    for (let i = 0; i < 32; i++) d |= key[i] ^ key[32 + i];
    if (d === 0) return; // equal halves (XTS refuses them): not a key TrueCrypt derives; leaves `enc` as it is
    const xts = newXts(key, { kernel });
    try {
      xts.decrypt(enc, enc, new Uint8Array(16));
    } finally {
      xts.dispose();
    }
  },
  volumeKey: (keys) => Uint8Array.from(keys.subarray(0, 64)),
  ivSector: (areaOffset) => areaOffset / 512,
};

/** Copies `parts` (subarrays) one after another into a new array. */
function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * LRW-AES-256 (TrueCrypt 4.1–4.3): header K1 = derived[32 .. 64), K2 = derived[0 .. 16), the 448 bytes
 * blocks 1 … 28 (dm-crypt's benbi sector 0 starts at block 1, and LRW blocks do not chain, so the header is
 * the first 448 bytes of a 512-byte benbi sector 0); volume key K1 = keys[32 .. 64) ‖ K2 = keys[0 .. 16).
 */
const LRW_AES: HeaderMode = {
  mode: 'lrw-benbi',
  cipher: 'aes-lrw-benbi',
  headerKeyBytes: 64,
  volumeKeyBytes: 48,
  allows: (version) => version === 2,
  decryptHeader(derived, enc, kernel) {
    const key = join(derived.subarray(32, 64), derived.subarray(0, 16));
    const sector = new Uint8Array(512);
    sector.set(enc);
    try {
      const c = newSectorCipher('aes-lrw-benbi', key, { kernel });
      try {
        c.decrypt(sector, sector, 0);
      } finally {
        c.dispose();
      }
      enc.set(sector.subarray(0, enc.length));
    } finally {
      key.fill(0);
      sector.fill(0);
    }
  },
  volumeKey: (keys) => join(keys.subarray(32, 64), keys.subarray(0, 16)),
  ivSector: () => 0,
};

/**
 * CBC-AES-256 with TrueCrypt's whitening (TrueCrypt 1.0–4.0): the header XORed with derived[8 .. 16)
 * repeated, then CBC-decrypted as one chain with key derived[32 .. 64) and IV derived[0 .. 16); volume key
 * = keys[32 .. 64) ‖ keys[0 .. 32) (dm-crypt's `aes-cbc-tcw`: AES key ‖ IV seed ‖ whitening).
 */
const CBC_AES: HeaderMode = {
  mode: 'cbc-tcw',
  cipher: 'aes-cbc-tcw',
  headerKeyBytes: 64,
  volumeKeyBytes: 64,
  allows: (version) => version === 1 || version === 2,
  decryptHeader(derived, enc, kernel) {
    for (let i = 0; i < enc.length; i++) enc[i] ^= derived[8 + (i & 7)];
    const cbc = newCipher(derived.subarray(32, 64), { kernel });
    try {
      cbc.decrypt(enc, enc, derived.subarray(0, 16));
    } finally {
      cbc.dispose();
    }
  },
  volumeKey: (keys) => join(keys.subarray(32, 64), keys.subarray(0, 32)),
  ivSector: (_areaOffset, mkOffset) => mkOffset / 512,
};

/** The modes tried, in order. */
export const MODES: readonly HeaderMode[] = [XTS_AES, LRW_AES, CBC_AES];

/** The ciphers of TrueCrypt and VeraCrypt this package does not open, for messages. */
export const OTHER_CIPHERS =
  'Serpent, Twofish, Camellia, Kuznyechik, Blowfish, CAST5, Triple DES, or a cascade of ciphers (AES-Twofish, Serpent-Twofish-AES, …)';
