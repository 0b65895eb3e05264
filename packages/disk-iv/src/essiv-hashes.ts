// The hashes that dm-crypt's essiv:<hash> accepts with AES and that @noble/hashes provides.
//
// dm-crypt hands "essiv(cbc(aes),<hash>)" to the kernel crypto API; the essiv template keys a second AES
// with the whole digest of the volume key, so the digest length must be an AES key length (16, 24 or 32
// bytes). Among the kernel's unkeyed hashes that leaves md5 (16), sha256, sha3-256 and blake2b-256 (32),
// plus sm3, streebog256 and wp256 (32), which @noble/hashes does not provide. sha1 (20), sha224 and
// sha3-224 (28), rmd160 (20), sha384 (48), sha512 (64) and blake2b-160/384/512 are refused by the kernel.
import { blake2b } from '@noble/hashes/blake2.js';
import { md5 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';

/** A hash over the volume key, returning a fresh digest. */
export type SaltHash = (volumeKey: Uint8Array) => Uint8Array;

/** Kernel crypto API hash name (as written after `essiv:`) → its @noble/hashes implementation. */
export const ESSIV_HASHES: ReadonlyMap<string, SaltHash> = new Map<string, SaltHash>([
  ['sha256', (k) => sha256(k)],
  ['md5', (k) => md5(k)],
  ['sha3-256', (k) => sha3_256(k)],
  // the kernel's blake2b-256 is unkeyed BLAKE2b with a 32-byte digest (RFC 7693 outlen = 32)
  ['blake2b-256', (k) => blake2b(k, { dkLen: 32 })],
]);
