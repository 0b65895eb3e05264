// Passphrase-based key derivation for keyslots and digests: PBKDF2 (RFC 8018 §5.2; LUKS1 spec §2.3) and
// Argon2i/Argon2id (RFC 9106; LUKS2 keyslot "kdf"), from @x/kdf (WebCrypto, else @noble/hashes; node:crypto's
// native Argon2 where the runtime has one, else hash-wasm), with the hash a header names. The bounds on their
// parameters are volume.ts's, checked before these are called.
import { pbkdf2 as pbkdf2With } from '@x/kdf';
import { hashByName } from './hashes.js';

export { argon2, argon2Runtime, type Argon2Params } from '@x/kdf';

/** PBKDF2 with the header's hash name; returns a new array the caller wipes. */
export function pbkdf2(
  hashName: string,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Promise<Uint8Array> {
  const hash = hashByName(hashName);
  return pbkdf2With(hash, password, salt, iterations, length);
}
