// The hash functions LUKS headers name (LUKS1 spec Appendix B, Table 3; LUKS2 "hash" fields), for the AF
// diffuser, PBKDF2 and the LUKS2 header checksum.
import { ripemd160, sha1 } from '@noble/hashes/legacy.js';
import { sha224, sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { HeaderError } from './errors.js';

type CHash = typeof sha256;

/** A hash named in a header. `webCrypto` is its WebCrypto name, when WebCrypto has it. */
export interface LuksHash {
  readonly name: string;
  readonly fn: CHash;
  readonly size: number;
  readonly webCrypto?: string;
}

const HASHES: Record<string, LuksHash> = {
  sha1: { name: 'sha1', fn: sha1 as unknown as CHash, size: 20, webCrypto: 'SHA-1' },
  sha224: { name: 'sha224', fn: sha224 as unknown as CHash, size: 28 },
  sha256: { name: 'sha256', fn: sha256, size: 32, webCrypto: 'SHA-256' },
  sha384: { name: 'sha384', fn: sha384 as unknown as CHash, size: 48, webCrypto: 'SHA-384' },
  sha512: { name: 'sha512', fn: sha512 as unknown as CHash, size: 64, webCrypto: 'SHA-512' },
  ripemd160: { name: 'ripemd160', fn: ripemd160 as unknown as CHash, size: 20 },
};

/** The hash called `name` in a header (case-insensitive, as cryptsetup treats it), or a HeaderError. */
export function hashByName(name: string): LuksHash {
  const h = HASHES[name.toLowerCase()];
  if (!h) throw new HeaderError(`@x/luks: hash "${name}" is not supported (${Object.keys(HASHES).join(', ')})`);
  return h;
}

/** Constant-time equality of two byte strings of the same length (a length mismatch is not secret). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
