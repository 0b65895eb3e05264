// The passphrase key of a FileVault 2 user: PBKDF2 (RFC 8018 §5.2) with HMAC-SHA256, the user's 16-byte
// salt and iteration count from its PassphraseWrappedKEKStruct, 16 bytes out (an AES-128 key-encrypting
// key for RFC 3394; libfvde "Recovery key", "User key"; cryptsetup lib/fvault2/fvault2.c). Through @x/kdf:
// WebCrypto where it is (Apple calibrates iteration counts to native speed: 204 222 on the test image),
// else @noble/hashes.
import { sha256 } from '@noble/hashes/sha2.js';
import { pbkdf2 } from '@x/kdf';

const SHA256 = { fn: sha256, webCrypto: 'SHA-256' } as const;

/** PBKDF2-HMAC-SHA256 of `password`; returns a new array the caller wipes. */
export function pbkdf2Sha256(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Promise<Uint8Array> {
  return pbkdf2(SHA256, password, salt, iterations, length);
}
