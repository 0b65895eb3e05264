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
 * such as an empty passphrase. Argon2 runs on the runtime's native Argon2 where there is one (node:crypto's
 * `argon2`, Node ≥ 24.7, found at run time so that this module imports nothing from `node:`), else on
 * hash-wasm (WebAssembly, maintained, tested against the RFC vectors), loaded on first use, and only its
 * Argon2 build (30 KB; its index, 216 KB, holds every other hash too). hash-wasm keeps the Argon2
 * memory in one WebAssembly memory, which cannot grow past 4 GiB: {@link argon2Runtime} says how much it can
 * hold, and a larger memory is refused at once with a RangeError rather than failing deep inside.
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

/** 2^32 − 1: PBKDF2 and Argon2 counts are 32-bit in every format here (LUKS1 phdr, cryptsetup's uint32_t, RFC 9106 §3.1). */
const U32_MAX = 0xffff_ffff;

function wholeNumber(v: unknown, what: string, min: number, max: number, maxText: string): void {
  if (typeof v !== 'number') throw new TypeError(`@x/kdf: ${what} must be a number`);
  if (!Number.isInteger(v) || v < min || v > max)
    throw new RangeError(`@x/kdf: ${what} must be a whole number from ${min} to ${maxText}, got ${v}`);
}

/**
 * PBKDF2 of `password` with `hash`: WebCrypto when it has the hash, else @noble/hashes. Returns a new
 * array the caller wipes.
 *
 * @throws RangeError for `iterations` outside 1 … 2^32 − 1 (PBKDF2's c, RFC 8018 §5.2, a 32-bit count in
 *   every format here) or a `length` below 1, before any work.
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
  wholeNumber(iterations, 'PBKDF2 iterations', 1, U32_MAX, '2^32 − 1');
  wholeNumber(length, 'PBKDF2 length', 1, U32_MAX, '2^32 − 1');
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

/**
 * The most Argon2 memory hash-wasm 4.13 can hold, in KiB: 4,194,175 (4 GiB − 129 KiB). Its argon2.c keeps
 * the blocks in the module's one WebAssembly memory, after the module's own 128 KiB, and asks for
 * `memory × 1024 + 1024` bytes in a 32-bit count; a WebAssembly memory (wasm32) has at most 65,536 pages of
 * 64 KiB, 4 GiB. cryptsetup's own maximum, 4,194,304 KiB (4 GiB), is past it: hash-wasm fails with
 * "Invalid typed array length: 4294968320".
 */
export const HASH_WASM_ARGON2_MAX_MEMORY = 4_194_175;

/** What {@link argon2Runtime} reports. */
export interface Argon2Runtime {
  /** Which implementation {@link argon2} uses here: the runtime's own, or hash-wasm. */
  readonly backend: 'node:crypto' | 'hash-wasm';
  /**
   * The largest `memory` (KiB) that backend can be asked for: 2^32 − 1 for node:crypto (its parameter
   * limit; the machine must still have the memory), {@link HASH_WASM_ARGON2_MAX_MEMORY} for hash-wasm.
   */
  readonly maxMemory: number;
}

type NativeArgon2 = (
  algorithm: string,
  parameters: {
    message: Uint8Array;
    nonce: Uint8Array;
    parallelism: number;
    tagLength: number;
    memory: number;
    passes: number;
  },
  callback: (err: Error | null, derivedKey: Uint8Array) => void,
) => void;

interface NodeCryptoArgon2 {
  argon2?: NativeArgon2;
  argon2Sync?: (algorithm: string, parameters: Parameters<NativeArgon2>[1]) => Uint8Array;
}

/** The last node:crypto `argon2` looked at, and whether it works (see {@link nativeArgon2}). */
let probed: { readonly fn: unknown; readonly works: boolean } | undefined;

/**
 * node:crypto's `argon2` (Node ≥ 24.7; Deno and Bun where they add it), looked up at each call through
 * `process.getBuiltinModule` so that browsers load this module and tests can stand in a runtime that has it.
 * A Node built against an OpenSSL without Argon2 has the function but throws ERR_CRYPTO_ARGON2_NOT_SUPPORTED:
 * the first time a given function is seen it is tried once on the smallest parameters (8 KiB, one pass,
 * through `argon2Sync`), and not used if that fails.
 */
function nativeArgon2(): NativeArgon2 | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule !== 'function') return undefined;
  let c: NodeCryptoArgon2 | undefined;
  try {
    c = proc.getBuiltinModule('node:crypto') as NodeCryptoArgon2 | undefined;
  } catch {
    return undefined;
  }
  const fn = c?.argon2;
  if (typeof fn !== 'function') return undefined;
  if (probed?.fn !== fn) {
    let works = true;
    if (typeof c?.argon2Sync === 'function') {
      try {
        const z = new Uint8Array(8);
        c.argon2Sync('argon2id', { message: z, nonce: z, parallelism: 1, tagLength: 4, memory: 8, passes: 1 });
      } catch {
        works = false;
      }
    }
    probed = { fn, works };
  }
  return probed.works ? fn : undefined;
}

/**
 * Which Argon2 {@link argon2} runs in this runtime, and the most memory it can take: callers check a
 * volume's Argon2 memory against it before anything else (a 4 GiB keyslot opens where there is a native
 * Argon2, and is refused at once on hash-wasm).
 *
 * @example
 * ```ts
 * import { argon2Runtime } from '@x/kdf';
 * const { backend, maxMemory } = argon2Runtime(); // e.g. { backend: 'hash-wasm', maxMemory: 4194175 }
 * ```
 */
export function argon2Runtime(): Argon2Runtime {
  return nativeArgon2()
    ? { backend: 'node:crypto', maxMemory: U32_MAX }
    : { backend: 'hash-wasm', maxMemory: HASH_WASM_ARGON2_MAX_MEMORY };
}

/** The two functions of hash-wasm this package uses. */
type HashWasmArgon2 = Pick<typeof import('hash-wasm'), 'argon2i' | 'argon2id'>;
let hashWasm: Promise<HashWasmArgon2> | undefined;

/**
 * hash-wasm's Argon2 build alone (30 KB), not its index (216 KB with every other hash): a UMD file, which
 * Node, Bun, Deno and the bundlers import as CommonJS, its exports on `default`.
 */
async function loadHashWasmArgon2(): Promise<HashWasmArgon2> {
  const mod = (await import('hash-wasm/dist/argon2.umd.min.js')) as HashWasmArgon2 & { default?: HashWasmArgon2 };
  return typeof mod.argon2id === 'function' ? mod : mod.default!;
}

/**
 * Argon2i/Argon2id (version 0x13, as cryptsetup uses): node:crypto's native `argon2` when the runtime has
 * it, else hash-wasm, loaded on first use. Returns a new array the caller wipes.
 *
 * @throws RangeError, before any work, for parameters RFC 9106 §3.1 does not allow (`time` 1 … 2^32 − 1,
 *   `cpus` 1 … 2^24 − 1, `memory` 8 × `cpus` … 2^32 − 1 KiB, `length` 4 … 2^32 − 1) and for a `memory`
 *   larger than this runtime's Argon2 can allocate ({@link argon2Runtime}).
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
  if (p === null || typeof p !== 'object') throw new TypeError('@x/kdf: Argon2 parameters must be an object');
  if (p.type !== 'argon2i' && p.type !== 'argon2id')
    throw new RangeError(`@x/kdf: Argon2 type must be argon2i or argon2id, got ${String(p.type)}`);
  wholeNumber(p.time, 'Argon2 time', 1, U32_MAX, '2^32 − 1');
  wholeNumber(p.cpus, 'Argon2 cpus', 1, 0xff_ffff, '2^24 − 1');
  wholeNumber(p.memory, 'Argon2 memory (KiB)', 8 * p.cpus, U32_MAX, '2^32 − 1');
  wholeNumber(length, 'Argon2 length', 4, U32_MAX, '2^32 − 1');
  const native = nativeArgon2();
  if (native) {
    return new Promise((resolve, reject) => {
      const parameters = {
        message: password,
        nonce: salt,
        parallelism: p.cpus,
        tagLength: length,
        memory: p.memory,
        passes: p.time,
      };
      native(p.type, parameters, (err, key) => {
        if (err) reject(err);
        else resolve(new Uint8Array(key.buffer, key.byteOffset, key.length));
      });
    });
  }
  if (p.memory > HASH_WASM_ARGON2_MAX_MEMORY) {
    throw new RangeError(
      `@x/kdf: Argon2 memory of ${p.memory} KiB cannot be allocated in this runtime: hash-wasm's WebAssembly memory holds at most ${HASH_WASM_ARGON2_MAX_MEMORY} KiB, and there is no native Argon2 (node:crypto has one from Node 24.7)`,
    );
  }
  const options = {
    password,
    salt,
    iterations: p.time,
    parallelism: p.cpus,
    memorySize: p.memory,
    hashLength: length,
    outputType: 'binary' as const,
  };
  hashWasm ??= loadHashWasmArgon2();
  const { argon2i, argon2id } = await hashWasm;
  return p.type === 'argon2i' ? argon2i(options) : argon2id(options);
}
