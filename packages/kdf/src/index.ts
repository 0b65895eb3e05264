/**
 * `@x/kdf`: passphrase key derivation for the disk formats: PBKDF2 (RFC 8018 §5.2) and Argon2i/Argon2id
 * (RFC 9106), one implementation that `@x/luks` (keyslots, digests) and `@x/filevault2` (the passphrase
 * wrapped KEK) share.
 *
 * PBKDF2 runs on WebCrypto (crypto.subtle: native code in Node ≥ 20 and in browsers) when it has the hash;
 * measured on the machine of the README's tables it is 8–10× faster than both @noble/hashes and
 * hash-wasm, which matters because cryptsetup and macOS calibrate iteration counts to a second of native
 * code. @noble/hashes (faster than hash-wasm's PBKDF2 on Node 20 in the same measurement) covers the rest:
 * no WebCrypto (an insecure browser context), a hash WebCrypto lacks (ripemd160, sha224), or a refusal
 * such as an empty passphrase. Argon2 comes from hash-wasm (WebAssembly, maintained, tested against the
 * RFC vectors), loaded on first use: its 280 KB module is most of what a PBKDF2 volume would otherwise
 * load for nothing.
 *
 * @example
 * ```ts
 * import { pbkdf2 } from '@x/kdf';
 * import { sha256 } from '@noble/hashes/sha2.js';
 * const key = await pbkdf2({ fn: sha256, webCrypto: 'SHA-256' }, passphrase, salt, 100_000, 32);
 * ```
 *
 * @packageDocumentation
 */
import type { sha256 } from '@noble/hashes/sha2.js';
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';

/** The hash of a PBKDF2: its @noble/hashes function, and its WebCrypto name when WebCrypto has it. */
export interface Pbkdf2Hash {
  readonly fn: typeof sha256;
  readonly webCrypto?: string;
}

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

/**
 * PBKDF2 of `password` with `hash`: WebCrypto when it has the hash, else @noble/hashes. Returns a new
 * array the caller wipes.
 *
 * @example
 * ```ts
 * const dk = await pbkdf2({ fn: sha1, webCrypto: 'SHA-1' }, pass, salt, 1000, 20);
 * ```
 */
export async function pbkdf2(
  hash: Pbkdf2Hash,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Promise<Uint8Array> {
  const s = subtle();
  if (s && hash.webCrypto && password.length > 0) {
    try {
      const key = await s.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
      return new Uint8Array(
        await s.deriveBits({ name: 'PBKDF2', hash: hash.webCrypto, salt, iterations }, key, 8 * length),
      );
    } catch {
      // fall through to the portable implementation
    }
  }
  return pbkdf2Async(hash.fn, password, salt, { c: iterations, dkLen: length });
}

/** Argon2 parameters as a LUKS2 keyslot stores them (`time`, `memory` in KiB, `cpus`). */
export interface Argon2Params {
  readonly type: 'argon2i' | 'argon2id';
  readonly time: number;
  readonly memory: number;
  readonly cpus: number;
}

let hashWasm: Promise<typeof import('hash-wasm')> | undefined;

/**
 * Argon2i/Argon2id (version 0x13, as cryptsetup uses) through hash-wasm, loaded on first use.
 *
 * @example
 * ```ts
 * const key = await argon2({ type: 'argon2id', time: 4, memory: 1 << 20, cpus: 4 }, pass, salt, 64);
 * ```
 */
export async function argon2(
  p: Argon2Params,
  password: Uint8Array,
  salt: Uint8Array,
  length: number,
): Promise<Uint8Array> {
  const options = {
    password,
    salt,
    iterations: p.time,
    parallelism: p.cpus,
    memorySize: p.memory,
    hashLength: length,
    outputType: 'binary' as const,
  };
  hashWasm ??= import('hash-wasm');
  const { argon2i, argon2id } = await hashWasm;
  return p.type === 'argon2i' ? argon2i(options) : argon2id(options);
}
