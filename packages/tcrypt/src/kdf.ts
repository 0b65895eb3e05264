// The header key derivations TrueCrypt and VeraCrypt use, in the order cryptsetup tries them (its
// lib/tcrypt/tcrypt.c, tcrypt_kdf[]), with their iteration counts, VeraCrypt's PIM formulas and the system
// (boot) counts; and how each runs here: PBKDF2 with SHA-1/256/512 on WebCrypto (@x/kdf; native code on
// Node's thread pool and in browsers, @noble/hashes where WebCrypto cannot), RIPEMD-160, Whirlpool and
// BLAKE2s-256 on hash-wasm's hashers, Streebog-512 on this package's own (GOST R 34.11-2012), Argon2id on
// @x/kdf (the runtime's native Argon2, else hash-wasm).
import { sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { argon2, type Pbkdf2Hash, pbkdf2 } from '@x/kdf';
import { type Hasher, pbkdf2Hasher } from './pbkdf2-wasm.js';

/** A PRF's name, as cryptsetup's `--hash` and tcryptDump's `PBKDF2 hash:` name it (`argon2id` for VeraCrypt's Argon2id). */
export type TcryptPrf =
  | 'ripemd160'
  | 'sha512'
  | 'whirlpool'
  | 'sha1'
  | 'sha256'
  | 'argon2id'
  | 'blake2s-256'
  | 'stribog512';

/** Every PRF, in cryptsetup's order of first appearance. */
export const PRFS: readonly TcryptPrf[] = [
  'ripemd160',
  'sha512',
  'whirlpool',
  'sha1',
  'sha256',
  'argon2id',
  'blake2s-256',
  'stribog512',
];

/** Other names a caller may give for a PRF (VeraCrypt's and the common spellings). */
const ALIASES: Readonly<Record<string, TcryptPrf>> = {
  'sha-512': 'sha512',
  'sha-256': 'sha256',
  'sha-1': 'sha1',
  'ripemd-160': 'ripemd160',
  blake2s: 'blake2s-256',
  streebog: 'stribog512',
  streebog512: 'stribog512',
  'streebog-512': 'stribog512',
  stribog: 'stribog512',
};

/**
 * The PRF a caller names (`prf` option, `--hash`), or a RangeError listing them.
 *
 * @example
 * ```ts
 * prfOf('SHA-512'); // 'sha512'
 * ```
 */
export function prfOf(name: unknown): TcryptPrf {
  if (typeof name !== 'string') throw new TypeError('@x/tcrypt: prf must be a string');
  const n = name.toLowerCase();
  const prf = (PRFS as readonly string[]).includes(n) ? (n as TcryptPrf) : ALIASES[n];
  if (!prf) throw new RangeError(`@x/tcrypt: unknown prf "${name}" (one of ${PRFS.join(', ')})`);
  return prf;
}

/** One derivation to try: the PRF and its cost. */
export interface KdfCandidate {
  readonly prf: TcryptPrf;
  /** PBKDF2 iterations, or Argon2id passes. */
  readonly iterations: number;
  /** Argon2id memory in KiB (0 for PBKDF2). */
  readonly memory: number;
  /** Argon2id lanes (0 for PBKDF2). */
  readonly parallelism: number;
  /** A VeraCrypt count (a TrueCrypt header never uses it). */
  readonly veracrypt: boolean;
  /** A count of system (boot) encryption only. */
  readonly boot: boolean;
  /** TrueCrypt 1–4's SHA-1 (cryptsetup's legacy modes). */
  readonly legacy: boolean;
  /** The PIM that gave the count, if one did. */
  readonly pim?: number;
}

interface Row {
  readonly prf: TcryptPrf;
  readonly iterations: number;
  readonly veracrypt: boolean;
  readonly boot?: boolean;
  readonly legacy?: boolean;
}

/** cryptsetup's tcrypt_kdf[] (2.8), in its order. VeraCrypt's PIM: non-boot 15000 + 1000·PIM, boot 2048·PIM. */
const TABLE: readonly Row[] = [
  { prf: 'ripemd160', iterations: 2000, veracrypt: false },
  { prf: 'ripemd160', iterations: 1000, veracrypt: false },
  { prf: 'sha512', iterations: 1000, veracrypt: false },
  { prf: 'whirlpool', iterations: 1000, veracrypt: false },
  { prf: 'sha1', iterations: 2000, veracrypt: false, legacy: true },
  { prf: 'sha512', iterations: 500_000, veracrypt: true },
  { prf: 'whirlpool', iterations: 500_000, veracrypt: true },
  { prf: 'sha256', iterations: 500_000, veracrypt: true }, // VeraCrypt 1.0f
  { prf: 'sha256', iterations: 200_000, veracrypt: true, boot: true },
  { prf: 'argon2id', iterations: 6, veracrypt: true }, // VeraCrypt 1.26.27: PIM 12's cost, 416 MiB
  { prf: 'blake2s-256', iterations: 500_000, veracrypt: true }, // VeraCrypt 1.26.2
  { prf: 'blake2s-256', iterations: 200_000, veracrypt: true, boot: true },
  { prf: 'ripemd160', iterations: 655_331, veracrypt: true },
  { prf: 'ripemd160', iterations: 327_661, veracrypt: true, boot: true },
  { prf: 'stribog512', iterations: 500_000, veracrypt: true },
];

/** VeraCrypt's Argon2id default: the cost of PIM 12. */
const ARGON2_DEFAULT_PIM = 12;

/** Argon2id's passes and memory (KiB) for a PIM (VeraCrypt 1.26.27; cryptsetup TCRYPT_init_hdr). */
export function argon2Cost(pim: number): { time: number; memory: number } {
  return pim <= 31
    ? { time: Math.floor((pim - 1) / 3) + 3, memory: 1024 * (64 + (pim - 1) * 32) }
    : { time: pim - 18, memory: 1024 * 1024 };
}

/** What selects the derivations to try. */
export interface KdfSelection {
  readonly prf?: TcryptPrf;
  /** VeraCrypt's PIM: only VeraCrypt counts are tried, computed from it. */
  readonly pim?: number;
  /** System encryption: the boot counts are tried too. */
  readonly system?: boolean;
  /** VeraCrypt's counts too (default true: cryptsetup's `--disable-veracrypt` turns them off). */
  readonly veracrypt?: boolean;
}

/**
 * The derivations to try, in cryptsetup's order: the hint's PRF alone if there is one, the boot counts only
 * for system encryption, VeraCrypt's only when allowed, and with a PIM only VeraCrypt's, their costs from it.
 *
 * @example
 * ```ts
 * kdfCandidates({ prf: 'sha512' }).map((c) => c.iterations); // [1000, 500000]
 * ```
 */
export function kdfCandidates(s: KdfSelection): KdfCandidate[] {
  const out: KdfCandidate[] = [];
  for (const r of TABLE) {
    if (s.prf !== undefined && r.prf !== s.prf) continue;
    if (r.boot && !s.system) continue;
    if (r.veracrypt && s.veracrypt === false) continue;
    const base = { prf: r.prf, veracrypt: r.veracrypt, boot: r.boot === true, legacy: r.legacy === true };
    if (r.prf === 'argon2id') {
      const pim = s.pim ?? ARGON2_DEFAULT_PIM;
      const c = argon2Cost(pim);
      out.push({ ...base, iterations: c.time, memory: c.memory, parallelism: 1, pim: s.pim });
    } else if (s.pim !== undefined) {
      if (!r.veracrypt) continue;
      const iterations = r.boot ? 2048 * s.pim : 15_000 + 1000 * s.pim;
      out.push({ ...base, iterations, memory: 0, parallelism: 0, pim: s.pim });
    } else out.push({ ...base, iterations: r.iterations, memory: 0, parallelism: 0 });
  }
  return out;
}

/** The name of a derivation in messages: `pbkdf2-sha512 500000 iterations`, `argon2id 6 passes 425984 KiB`. */
export function candidateName(c: KdfCandidate): string {
  return c.prf === 'argon2id'
    ? `argon2id ${c.iterations} passes ${c.memory} KiB`
    : `pbkdf2-${c.prf} ${c.iterations} iterations${c.boot ? ' (system)' : ''}`;
}

const WEBCRYPTO: Partial<Record<TcryptPrf, Pbkdf2Hash>> = {
  sha1: { fn: sha1 as unknown as Pbkdf2Hash['fn'], webCrypto: 'SHA-1' },
  sha256: { fn: sha256 as unknown as Pbkdf2Hash['fn'], webCrypto: 'SHA-256' },
  sha512: { fn: sha512 as unknown as Pbkdf2Hash['fn'], webCrypto: 'SHA-512' },
};

/** Whether the derivation runs off this thread (WebCrypto's PBKDF2), so that several can run at once. */
export const runsNatively = (c: KdfCandidate): boolean => WEBCRYPTO[c.prf] !== undefined;

type HashWasm = typeof import('hash-wasm');
let hashWasm: Promise<HashWasm> | undefined;

async function hasher(prf: TcryptPrf): Promise<Hasher> {
  if (prf === 'stribog512') return (await import('./streebog.js')).newStreebog512();
  hashWasm ??= import('hash-wasm');
  const hw = await hashWasm;
  if (prf === 'ripemd160') return hw.createRIPEMD160();
  if (prf === 'whirlpool') return hw.createWhirlpool();
  if (prf === 'blake2s-256') return hw.createBLAKE2s(256);
  throw new RangeError(`@x/tcrypt: no hasher for ${prf}`);
}

/**
 * The header key of candidate `c`: `length` bytes (PBKDF2's first bytes do not depend on the length asked,
 * so a caller asks only for what its header ciphers use; Argon2id's do, so it always gives 192, the length
 * TrueCrypt derives). Undefined when `stop()` said to stop first. A new array the caller wipes.
 */
export async function deriveHeaderKey(
  c: KdfCandidate,
  password: Uint8Array,
  salt: Uint8Array,
  length: number,
  stop: () => boolean = () => false,
): Promise<Uint8Array | undefined> {
  if (c.prf === 'argon2id')
    return argon2({ type: 'argon2id', time: c.iterations, memory: c.memory, cpus: c.parallelism }, password, salt, 192);
  const web = WEBCRYPTO[c.prf];
  if (web) return pbkdf2(web, password, salt, c.iterations, length);
  return pbkdf2Hasher(await hasher(c.prf), password, salt, c.iterations, length, stop);
}

/** A derivation sent to a key derivation thread: the candidate's cost, the password and salt (copies). */
export interface KdfJob {
  readonly prf: TcryptPrf;
  readonly iterations: number;
  readonly memory: number;
  readonly parallelism: number;
  /** A copy the thread wipes once the key is made. */
  readonly password: Uint8Array;
  readonly salt: Uint8Array;
  readonly length: number;
}

/** What a key derivation thread answers: once `ready`, then one `key` or `error` per job, in order. */
export type KdfReply =
  | { readonly type: 'ready' }
  | { readonly type: 'key'; readonly key: Uint8Array }
  | { readonly type: 'error'; readonly error: Error };

/** The job's header key, in an ArrayBuffer of its own (so that it can be transferred whole). */
export async function deriveJob(job: KdfJob): Promise<Uint8Array> {
  const c: KdfCandidate = {
    prf: job.prf,
    iterations: job.iterations,
    memory: job.memory,
    parallelism: job.parallelism,
    veracrypt: false,
    boot: false,
    legacy: false,
  };
  const key = (await deriveHeaderKey(c, job.password, job.salt, job.length)) as Uint8Array;
  if (key.byteOffset === 0 && key.byteLength === key.buffer.byteLength) return key;
  const own = Uint8Array.from(key);
  key.fill(0);
  return own;
}

/** Microseconds of one PBKDF2 iteration per output block, measured on Node 20 (x64; the README's machine). */
const MICROS_PER_ITERATION: Partial<Record<TcryptPrf, number>> = {
  ripemd160: 4.4,
  whirlpool: 6.7,
  'blake2s-256': 4.8,
  stribog512: 56,
  sha1: 0.5,
  sha256: 0.7,
  sha512: 0.75,
};

/** PBKDF2 output bytes per block. */
const DIGEST_BYTES: Readonly<Record<TcryptPrf, number>> = {
  ripemd160: 20,
  sha512: 64,
  whirlpool: 64,
  sha1: 20,
  sha256: 32,
  argon2id: 192,
  'blake2s-256': 32,
  stribog512: 64,
};

/**
 * The expected cost of deriving `length` bytes under `c`, in microseconds on the machine of the README's
 * tables (an order for scheduling, not a promise): PBKDF2 iterations × blocks × a PRF's cost, Argon2id
 * passes × MiB × 1.3 ms.
 */
export function kdfCost(c: KdfCandidate, length: number): number {
  if (c.prf === 'argon2id') return c.iterations * (c.memory / 1024) * 1300;
  return c.iterations * Math.ceil(length / DIGEST_BYTES[c.prf]) * (MICROS_PER_ITERATION[c.prf] ?? 10);
}
