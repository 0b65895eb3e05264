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

type CreateHash = (name: string) => { update(data: Uint8Array): unknown; digest(): Uint8Array };

/**
 * node:crypto's `createHash` where the runtime has it (Node ≥ 20.16, Deno, Bun), found at run time through
 * `process.getBuiltinModule` so that this module imports nothing from `node:` and loads in browsers. In
 * Node it hashes the 8,000 short messages of a keyslot's AF merge (4000 stripes) in about half the time
 * of @noble/hashes, whose code is still cold when a command such as `x-luks decrypt` starts (measured:
 * 25 against 55 ms).
 */
const nodeCreateHash: CreateHash | undefined = (() => {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof get !== 'function') return undefined;
  try {
    return (get('node:crypto') as { createHash?: CreateHash } | undefined)?.createHash;
  } catch {
    return undefined;
  }
})();

/** Names node:crypto answered for: a hash it lacks (an OpenSSL without ripemd160) is tried once, then left to noble. */
const nodeHashes = new Map<string, boolean>();

/** hash(a ‖ b), or hash(a) without `b`: node:crypto when the runtime has it and knows the hash, else @noble/hashes. */
export function digest(h: LuksHash, a: Uint8Array, b?: Uint8Array): Uint8Array {
  if (nodeCreateHash && nodeHashes.get(h.name) !== false) {
    try {
      const c = nodeCreateHash(h.name);
      c.update(a);
      if (b) c.update(b);
      const d = c.digest();
      nodeHashes.set(h.name, true);
      return new Uint8Array(d.buffer, d.byteOffset, d.length);
    } catch {
      nodeHashes.set(h.name, false);
    }
  }
  const c = h.fn.create().update(a);
  return (b ? c.update(b) : c).digest();
}

/** The hash called `name` in a header (case-insensitive, as cryptsetup treats it), or a HeaderError. */
export function hashByName(name: string): LuksHash {
  const h = HASHES[name.toLowerCase()];
  if (!h) throw new HeaderError(`@x/luks: hash "${name}" is not supported (${Object.keys(HASHES).join(', ')})`);
  return h;
}
