// The AES modes of TrueCrypt and VeraCrypt headers and volumes, as a table: for each, the header versions
// it goes with, how it decrypts the 448 encrypted bytes of a header with the derived header key, and the
// dm-crypt cipher and key of the volume from the header's key area. Unlocking tries every mode of this
// table after every derivation (as cryptsetup tries its tcrypt_cipher[] rows), and keeps the first whose
// decryption shows the magic and the key area's CRC-32.
//
// XTS-AES (TrueCrypt 5.0 and later, header versions 3–5, and every VeraCrypt volume) is here. The seam for
// the legacy modes: LRW-AES (TrueCrypt 4.1–4.3, header version 2: dm-crypt `aes-lrw-benbi`, header key =
// derived[32 .. 64) ‖ derived[0 .. 16), IV block 1) and CBC-AES with TrueCrypt's whitening (TrueCrypt
// 1.0–4.0, header versions 1–2: dm-crypt `aes-cbc-tcw`, whitening derived[8 .. 16), IV derived[0 .. 16),
// key derived[32 .. 64)) each add one entry here once their mode packages exist, with their volume
// layouts (LRW's IV offset 0; CBC's data offset for hidden volumes) in `area` of volume.ts.
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
};

/** The modes tried, in order. */
export const MODES: readonly HeaderMode[] = [XTS_AES];

/** The ciphers of TrueCrypt and VeraCrypt this package does not open, for messages. */
export const OTHER_CIPHERS =
  'Serpent, Twofish, Camellia, Kuznyechik, Blowfish, CAST5, Triple DES, or a cascade of ciphers (AES-Twofish, Serpent-Twofish-AES, …)';
