// The passphrase key of a FileVault 2 user: PBKDF2 (RFC 8018 §5.2) with HMAC-SHA256, the user's 16-byte
// salt and iteration count from its PassphraseWrappedKEKStruct, 16 bytes out (an AES-128 key-encrypting
// key for RFC 3394; libfvde "Recovery key", "User key"; cryptsetup lib/fvault2/fvault2.c).
//
// WebCrypto (crypto.subtle, native code in Node ≥ 20 and in every browser) when it is there: Apple's
// iteration counts are calibrated to native speed (204 222 on the test image: about 50 ms here natively,
// eight to ten times that in JavaScript). @noble/hashes otherwise: no WebCrypto (an insecure browser
// context), an empty passphrase (which some WebCrypto implementations refuse), or any WebCrypto error.
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { sha256 } from '@noble/hashes/sha2.js';

interface SubtleLike {
  importKey(format: 'raw', key: Uint8Array, alg: string, extractable: boolean, usages: string[]): Promise<unknown>;
  deriveBits(
    alg: { name: string; hash: string; salt: Uint8Array; iterations: number },
    key: unknown,
    bits: number,
  ): Promise<ArrayBuffer>;
}

function subtle(): SubtleLike | undefined {
  return (globalThis as { crypto?: { subtle?: SubtleLike } }).crypto?.subtle;
}

/** PBKDF2-HMAC-SHA256 of `password`; returns a new array the caller wipes. */
export async function pbkdf2Sha256(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Promise<Uint8Array> {
  const s = subtle();
  if (s && password.length > 0) {
    try {
      const key = await s.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
      return new Uint8Array(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 8 * length));
    } catch {
      // fall through to the portable implementation
    }
  }
  return pbkdf2Async(sha256, password, salt, { c: iterations, dkLen: length });
}
