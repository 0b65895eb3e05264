// The cost of a keyslot's key derivation, chosen as cryptsetup 2.6 chooses it (lib/utils_benchmark.c,
// lib/luks2/luks2_keyslot_luks2.c): PBKDF2 iterations, or Argon2 time and memory, benchmarked on this
// machine to take --iter-time, unless the cost is forced. Shared by createLuks and addKey.
import { MAX_ARGON2_MEMORY } from '@x/disk-format';
import { hashByName } from './hashes.js';
import { argon2, pbkdf2 } from './kdf.js';

const PREFIX = '@x/luks';
const SALT_BYTES = 32; // LUKS_SALTSIZE
export const PBKDF2_MIN = 1000; // cryptsetup's minimum PBKDF2 iterations (keyslot and digest)
const ARGON2_MIN_TIME = 4; // cryptsetup's argon2 limits: time ≥ 4, memory 32 KiB … 4 GiB, 1 … 4 lanes
const ARGON2_MIN_MEMORY = 32;
const ARGON2_MAX_MEMORY = MAX_ARGON2_MEMORY; // the bound openLuks (every format) puts on it too
const ARGON2_MAX_PARALLEL = 4;
const DEFAULT_MEMORY = 1024 * 1024; // KiB: cryptsetup's default argon2 memory (1 GiB)
const DEFAULT_ITER_TIME = 2000; // ms: cryptsetup's default --iter-time (LUKS1 and LUKS2)
const DIGEST_MS = 125; // LUKS_MKD_ITERATIONS_MS: the digest's PBKDF2 is benchmarked for this long

/** The KDF options of createLuks and addKey (cryptsetup's --pbkdf, --hash, --iter-time, …). */
export interface KdfOptions {
  /** The keyslot's key derivation. Default `argon2id` (LUKS1: `pbkdf2`, the only one it has). */
  pbkdf?: 'argon2id' | 'argon2i' | 'pbkdf2';
  /** PBKDF2's hash (LUKS1: also the AF and digest hash). Default `sha256`. */
  hash?: string;
  /** Benchmark the KDF to take this long, ms (cryptsetup --iter-time). Default 2000; ignored with `iterations`. */
  iterTime?: number;
  /** Forced cost, no benchmark: PBKDF2 iterations (≥ 1000) or Argon2 time cost (≥ 4) (--pbkdf-force-iterations). */
  iterations?: number;
  /** Argon2 memory, KiB (32 … 4194304; --pbkdf-memory). Default 1048576, capped at half the machine's memory. */
  memory?: number;
  /** Argon2 lanes (1 … 4; --pbkdf-parallel). Default 4, capped at the number of CPUs. */
  parallelism?: number;
}

/** A keyslot's key derivation with its cost decided. */
export type Kdf =
  | { type: 'pbkdf2'; hash: string; iterations: number }
  | { type: 'argon2i' | 'argon2id'; time: number; memory: number; cpus: number };

/** {@link KdfOptions} checked and completed: what {@link chooseKdf} benchmarks or takes as forced. */
export interface KdfPlan {
  pbkdf: 'argon2id' | 'argon2i' | 'pbkdf2';
  hash: string;
  iterTime: number;
  iterations: number | undefined;
  memory: number;
  cpus: number;
}

interface RuntimeFacts {
  memoryKiB?: number;
  cpus: number;
}

/** Physical memory and CPU count where the runtime tells them (node:os via getBuiltinModule, else navigator). */
function runtimeFacts(): RuntimeFacts {
  const g = globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
    navigator?: { hardwareConcurrency?: number; deviceMemory?: number };
  };
  try {
    const os = g.process?.getBuiltinModule?.('node:os') as
      | { totalmem?: () => number; availableParallelism?: () => number; cpus?: () => unknown[] }
      | undefined;
    if (os?.totalmem) {
      const cpus = os.availableParallelism?.() ?? os.cpus?.().length ?? 1;
      return { memoryKiB: Math.floor(os.totalmem() / 1024), cpus: Math.max(1, cpus) };
    }
  } catch {
    // not Node: fall through
  }
  const dm = g.navigator?.deviceMemory;
  return {
    memoryKiB: typeof dm === 'number' ? dm * 1024 * 1024 : undefined,
    cpus: Math.max(1, g.navigator?.hardwareConcurrency ?? 1),
  };
}

export function checkInt(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number') throw new TypeError(`${PREFIX}: ${name} must be a number`);
  if (!Number.isSafeInteger(v) || v < min || v > max)
    throw new RangeError(`${PREFIX}: ${name} ${v} is not an integer in ${min} … ${max}`);
  return v;
}

/** Runs `f` and returns how long it took, ms. */
async function timed(f: () => Promise<Uint8Array>): Promise<number> {
  const t = performance.now();
  (await f()).fill(0);
  return performance.now() - t;
}

/**
 * PBKDF2 iterations that take `ms` on this machine (as cryptsetup's benchmark: at least 1000): the count
 * doubles from 1000 until one run takes 50 ms or more, then is scaled to `ms`.
 */
async function benchmarkPbkdf2(hash: string, keyLength: number, ms: number): Promise<number> {
  const pass = new Uint8Array(8),
    salt = new Uint8Array(SALT_BYTES);
  let iterations = PBKDF2_MIN;
  for (;;) {
    const e = await timed(() => pbkdf2(hash, pass, salt, iterations, keyLength));
    if (e >= 50 || iterations >= 1 << 30)
      return Math.max(PBKDF2_MIN, Math.round((iterations * ms) / Math.max(e, 1e-3)));
    iterations *= 2;
  }
}

/**
 * Argon2 time cost for `ms` with `memory` KiB, as cryptsetup's benchmark decides it: time ≥ 4, and when even
 * time 4 is too slow, less memory at time 4. Measured at up to 64 MiB (the cost is about linear in memory ×
 * time) so that the benchmark never allocates the full memory; memory × time is scaled to `ms`.
 */
async function benchmarkArgon2(
  type: 'argon2i' | 'argon2id',
  memory: number,
  cpus: number,
  keyLength: number,
  ms: number,
): Promise<{ time: number; memory: number }> {
  const pass = new Uint8Array(8),
    salt = new Uint8Array(SALT_BYTES);
  const m = Math.min(memory, 64 * 1024);
  let time = ARGON2_MIN_TIME;
  let e: number;
  for (;;) {
    e = await timed(() => argon2({ type, time, memory: m, cpus }, pass, salt, keyLength));
    if (e >= 50 || time >= 1 << 20) break;
    time *= 2;
  }
  const perKiBPass = e / (m * time); // ms per KiB per pass
  const t = Math.floor(ms / (perKiBPass * memory));
  if (t >= ARGON2_MIN_TIME) return { time: t, memory };
  const reduced = Math.floor(ms / (perKiBPass * ARGON2_MIN_TIME));
  return { time: ARGON2_MIN_TIME, memory: Math.max(ARGON2_MIN_MEMORY, 8 * cpus, Math.min(memory, reduced)) };
}

/**
 * Checks and completes the KDF options (before anything is derived): cryptsetup's limits, Argon2 memory at
 * most half the machine's, lanes at most its CPUs. LUKS1 has PBKDF2 only.
 */
export function planKdf(options: KdfOptions, luks1: boolean): KdfPlan {
  const pbkdf = options.pbkdf ?? (luks1 ? 'pbkdf2' : 'argon2id');
  if (pbkdf !== 'argon2id' && pbkdf !== 'argon2i' && pbkdf !== 'pbkdf2')
    throw new RangeError(`${PREFIX}: pbkdf "${String(pbkdf)}" is not argon2id, argon2i or pbkdf2`);
  if (luks1 && pbkdf !== 'pbkdf2') throw new RangeError(`${PREFIX}: LUKS1 keyslots use pbkdf2 only, not ${pbkdf}`);
  const hash = options.hash ?? 'sha256';
  if (typeof hash !== 'string') throw new TypeError(`${PREFIX}: hash must be a string`);
  try {
    hashByName(hash);
  } catch (e) {
    throw new RangeError((e as Error).message);
  }
  const iterTime =
    options.iterTime === undefined ? DEFAULT_ITER_TIME : checkInt(options.iterTime, 'iterTime', 1, 3_600_000);
  const iterations =
    options.iterations === undefined
      ? undefined
      : checkInt(options.iterations, 'iterations', pbkdf === 'pbkdf2' ? PBKDF2_MIN : ARGON2_MIN_TIME, 0xffffffff);
  const facts = runtimeFacts();
  let memory =
    options.memory === undefined
      ? DEFAULT_MEMORY
      : checkInt(options.memory, 'memory', ARGON2_MIN_MEMORY, ARGON2_MAX_MEMORY);
  // cryptsetup: at most half the physical memory, and no more lanes than CPUs
  if (facts.memoryKiB !== undefined)
    memory = Math.max(ARGON2_MIN_MEMORY, Math.min(memory, Math.floor(facts.memoryKiB / 2)));
  let cpus =
    options.parallelism === undefined
      ? ARGON2_MAX_PARALLEL
      : checkInt(options.parallelism, 'parallelism', 1, ARGON2_MAX_PARALLEL);
  cpus = Math.min(cpus, facts.cpus);
  memory = Math.max(memory, 8 * cpus); // Argon2: at least 8 KiB per lane (RFC 9106 §3.1)
  return { pbkdf, hash, iterTime, iterations, memory, cpus };
}

/** The keyslot's KDF: forced, or benchmarked for `iterTime` as cryptsetup does. */
export async function chooseKdf(p: KdfPlan, keyBytes: number): Promise<Kdf> {
  if (p.pbkdf === 'pbkdf2')
    return {
      type: 'pbkdf2',
      hash: p.hash,
      iterations: p.iterations ?? (await benchmarkPbkdf2(p.hash, keyBytes, p.iterTime)),
    };
  if (p.iterations !== undefined) return { type: p.pbkdf, time: p.iterations, memory: p.memory, cpus: p.cpus };
  return { type: p.pbkdf, ...(await benchmarkArgon2(p.pbkdf, p.memory, p.cpus, keyBytes, p.iterTime)), cpus: p.cpus };
}

/** The volume key digest's PBKDF2 iterations: 1000 when the keyslot's cost is forced (no benchmark), else 125 ms' worth. */
export async function digestIterations(p: KdfPlan, hash: string, length: number): Promise<number> {
  return p.iterations !== undefined ? PBKDF2_MIN : benchmarkPbkdf2(hash, length, DIGEST_MS);
}

/** The keyslot key: `kdf` of the passphrase with `salt`, `keyBytes` long; the caller wipes it. */
export function deriveKey(kdf: Kdf, passphrase: Uint8Array, salt: Uint8Array, keyBytes: number): Promise<Uint8Array> {
  return kdf.type === 'pbkdf2'
    ? pbkdf2(kdf.hash, passphrase, salt, kdf.iterations, keyBytes)
    : argon2(kdf, passphrase, salt, keyBytes);
}
