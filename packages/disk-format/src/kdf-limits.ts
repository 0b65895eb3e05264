// How much a header may make a format spend on deriving a key from a passphrase, for every format: the
// options (`maxIterations`, `maxTimeCost`, `maxMemory`), their defaults, the checks of a derivation's cost
// against them (before anything is derived or allocated), which candidates (keyslots, users, protectors)
// are then tried, and the error for one that is not. A header is the attacker's input: a PBKDF2 of 2^32 − 1
// iterations or an Argon2 of 4 GiB is refused at once, with the option that lets a caller try it.
import type { DiskError, FormatErrors } from './errors.js';

/** 2^32 − 1: PBKDF2 and Argon2 costs are 32-bit counts in every format here. */
const U32_MAX = 0xffff_ffff;

/**
 * cryptsetup's largest Argon2 memory, 4 GiB in KiB (lib/crypto_backend/pbkdf_check.c, crypt_pbkdf_get_limits:
 * max_memory = 4*1024*1024): `luksFormat --pbkdf-memory` takes no more.
 */
export const MAX_ARGON2_MEMORY = 4 * 1024 * 1024;

/**
 * Default `maxIterations`, 2^26 = 67,108,864 iterations. cryptsetup calibrates a PBKDF2 keyslot to 2 s of its
 * native PBKDF2 (`--iter-time` 2000) and a digest to less: on the machine of the tests (an AMD EPYC with SHA
 * extensions) `cryptsetup benchmark` counts 2.78 M sha256, 1.57 M sha1 and 1.41 M sha512 iterations per
 * second, so its default keyslots hold 3–6 M; macOS calibrates FileVault 2 users the same way (204,222 on
 * the test image), and BitLocker's stretch is 2^20 SHA-256 rounds. 2^26 leaves more than ten times that for
 * faster CPUs and longer calibrations, and takes about 16 s here through WebCrypto (sha256): a bound, not
 * a budget.
 */
export const DEFAULT_MAX_ITERATIONS = 2 ** 26;

/**
 * Default `maxTimeCost`, 2^16 = 65,536 Argon2 passes. cryptsetup's own limit is 2^32 − 1 (pbkdf_check.c), no
 * bound at all; its default keyslots are calibrated to 2 s with at least 64 MiB and up to 1 GiB of memory,
 * which leaves a handful of passes (`cryptsetup benchmark` here: 4 passes over 412 MiB). 2^16 passes of the
 * smallest memory cryptsetup accepts, 32 KiB, are 2 M block computations, about 2 s through hash-wasm.
 */
export const DEFAULT_MAX_TIME_COST = 2 ** 16;

/**
 * The bounds a caller sets on the key derivations a header asks for, as the open options of every format
 * take them (a format whose derivations have no such cost ignores that option).
 *
 * @example
 * ```ts
 * await openLuks(image, { passphrase, maxIterations: 10_000_000, maxMemory: 256 * 1024 });
 * ```
 */
export interface KdfLimitOptions {
  /**
   * The most Argon2 memory a derivation may ask for, KiB. Default: cryptsetup's maximum, 4 GiB (4,194,304
   * KiB), and no more than half of the machine's memory where the runtime tells (Node: `os.totalmem()`;
   * browsers do not tell).
   */
  maxMemory?: number;
  /**
   * The most iterations a PBKDF2 (or another iterated hash) may ask for. Default 2^26 = 67,108,864, which
   * every volume made with its tool's defaults stays far below (a few million); never more than 2^32 − 1.
   */
  maxIterations?: number;
  /** The most Argon2 passes (`time`) a derivation may ask for. Default 2^16 = 65,536; never more than 2^32 − 1. */
  maxTimeCost?: number;
}

/** {@link KdfLimitOptions} checked, with their defaults. */
export type KdfLimits = Readonly<Required<KdfLimitOptions>>;

/** Half of the machine's memory in KiB, where the runtime tells (node:os, found at run time: browsers load this module). */
function halfMachineMemory(): number | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule !== 'function') return undefined;
  try {
    const total = (proc.getBuiltinModule('node:os') as { totalmem?: () => number } | undefined)?.totalmem?.();
    return typeof total === 'number' && total > 0 ? Math.floor(total / 2048) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bounds of one open call: the caller's `options` checked, the defaults for the rest.
 *
 * @throws TypeError for a bound that is not a number, RangeError for one that is not a positive whole
 *   number; their messages start with `prefix` (`@x/luks: options.maxMemory must be …`).
 * @example
 * ```ts
 * const limits = kdfLimits(options, '@x/filevault2'); // { maxMemory, maxIterations: 67108864, maxTimeCost: 65536 }
 * ```
 */
export function kdfLimits(options: KdfLimitOptions, prefix: string): KdfLimits {
  const bound = (name: keyof KdfLimitOptions, fallback: number) => {
    const v = options[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'number') throw new TypeError(`${prefix}: options.${name} must be a number`);
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`${prefix}: options.${name} must be a positive whole number, got ${v}`);
    return v;
  };
  return {
    maxMemory: bound('maxMemory', Math.min(MAX_ARGON2_MEMORY, halfMachineMemory() ?? MAX_ARGON2_MEMORY)),
    maxIterations: bound('maxIterations', DEFAULT_MAX_ITERATIONS),
    maxTimeCost: bound('maxTimeCost', DEFAULT_MAX_TIME_COST),
  };
}

/**
 * Why a derivation of `iterations` (the header field `what`.iterations) is not run, or undefined.
 *
 * @example
 * ```ts
 * iterationsProblem('keyslot 0.kdf', 2 ** 27, limits);
 * // 'keyslot 0.kdf.iterations 134217728 is above maxIterations, 67108864 (raise options.maxIterations to try it)'
 * ```
 */
export function iterationsProblem(what: string, iterations: number, limits: KdfLimits): string | undefined {
  if (iterations < 1) return `${what}.iterations is ${iterations}; PBKDF2 needs at least 1`;
  if (iterations > U32_MAX)
    return `${what}.iterations ${iterations} is above 2^32 − 1 (cryptsetup counts PBKDF2 iterations in 32 bits)`;
  if (iterations > limits.maxIterations)
    return `${what}.iterations ${iterations} is above maxIterations, ${limits.maxIterations} ${raiseHint('maxIterations')}`;
  return undefined;
}

/**
 * Which bound of {@link KdfLimitOptions} a header's derivation is above: the option that raises it, the
 * bound, and what the header asks. The error {@link kdfProblemError} makes carries it as `kdfLimit`, so that
 * a caller tells the user how to raise it in its own terms (the commands: `--max-iterations N`) instead of
 * rewriting the message, which names the API's option.
 */
export interface KdfLimitExceeded {
  readonly option: keyof KdfLimitOptions;
  readonly limit: number;
  readonly asked: number;
}

/** What the message of a bound says after the fact: `(raise options.maxIterations to try it)`. */
export const raiseHint = (option: keyof KdfLimitOptions): string => `(raise options.${option} to try it)`;

/**
 * A candidate (keyslot, user, protector) that is not tried, and why; `runtime`: a limit of this runtime, not
 * of the header or the bounds; `limit`: the bound it is above, if that is why.
 */
export interface KdfProblem {
  readonly message: string;
  readonly runtime: boolean;
  readonly limit?: KdfLimitExceeded;
}

/** The bound a message of {@link iterationsProblem} or {@link argon2Problem} says was passed, or undefined. */
function limitIn(message: string): KdfLimitExceeded | undefined {
  const m = / (\d+)(?: KiB)? is above (maxIterations|maxTimeCost|maxMemory), (\d+)/.exec(message);
  return m ? { option: m[2] as keyof KdfLimitOptions, limit: Number(m[3]), asked: Number(m[1]) } : undefined;
}

/** The cost of an Argon2 derivation, as a LUKS2 keyslot stores it (`memory` in KiB). */
export interface Argon2Cost {
  readonly time: number;
  readonly memory: number;
  readonly cpus: number;
}

/**
 * Why an Argon2 derivation of cost `p` (the header field `what`, of the candidate `owner`) is not run, or
 * undefined: RFC 9106 and cryptsetup's limits, the bounds, and `runtimeMax`, the most memory this
 * runtime's Argon2 can allocate (`argon2Runtime()` of `@x/kdf`).
 *
 * @example
 * ```ts
 * argon2Problem('keyslot 0.kdf', 'keyslot 0', kdf, limits, argon2Runtime());
 * ```
 */
export function argon2Problem(
  what: string,
  owner: string,
  p: Argon2Cost,
  limits: KdfLimits,
  runtimeMax: { readonly backend: string; readonly maxMemory: number },
): KdfProblem | undefined {
  const cost = (why: string, limit?: KdfLimitExceeded): KdfProblem => ({
    message: `${what}: argon2 cost out of range: ${why}`,
    runtime: false,
    ...(limit && { limit }),
  });
  if (p.time < 1 || p.time > U32_MAX) return cost(`time ${p.time} is not within 1 … 2^32 − 1`);
  if (p.time > limits.maxTimeCost)
    return cost(`time ${p.time} is above maxTimeCost, ${limits.maxTimeCost} ${raiseHint('maxTimeCost')}`, {
      option: 'maxTimeCost',
      limit: limits.maxTimeCost,
      asked: p.time,
    });
  // cryptsetup makes 1 … 4 lanes; 16 leaves room for other tools without letting a header ask for millions
  if (p.cpus < 1 || p.cpus > 16) return cost(`cpus ${p.cpus} is not within 1 … 16`);
  if (p.memory < 8 * p.cpus) return cost(`memory ${p.memory} KiB is below 8 KiB per lane (RFC 9106 §3.1)`);
  if (p.memory > MAX_ARGON2_MEMORY)
    return cost(`memory ${p.memory} KiB is above ${MAX_ARGON2_MEMORY} KiB (4 GiB), cryptsetup's maximum`);
  if (p.memory > limits.maxMemory)
    return cost(`memory ${p.memory} KiB is above maxMemory, ${limits.maxMemory} KiB ${raiseHint('maxMemory')}`, {
      option: 'maxMemory',
      limit: limits.maxMemory,
      asked: p.memory,
    });
  if (p.memory > runtimeMax.maxMemory)
    return {
      message: `${owner}: Argon2 memory of ${p.memory} KiB cannot be allocated in this runtime (its Argon2, ${runtimeMax.backend}, holds at most ${runtimeMax.maxMemory} KiB; Node ≥ 24.7 has a native Argon2 that can)`,
      runtime: true,
    };
  return undefined;
}

/**
 * The error for a candidate that is not tried, with the message prefixed `prefix`: the format's base class
 * for a limit of the runtime (nothing the header or the caller can change), else its HeaderError. When the
 * problem is a bound of {@link KdfLimitOptions} (given as `problem.limit`, or said by the message of
 * {@link iterationsProblem}, which the formats wrap), the error has it as `kdfLimit`.
 *
 * @example
 * ```ts
 * const e = kdfProblemError({ message: iterationsProblem('user 0', 2 ** 32 - 1, limits)!, runtime: false }, '@x/filevault2', errors);
 * e.kdfLimit; // { option: 'maxIterations', limit: 67108864, asked: 4294967295 }
 * ```
 */
export function kdfProblemError(
  problem: KdfProblem,
  prefix: string,
  errors: FormatErrors,
): DiskError & { readonly kdfLimit?: KdfLimitExceeded } {
  const message = `${prefix}: ${problem.message}`;
  const error = problem.runtime ? new errors.FormatError(message) : new errors.HeaderError(message);
  const kdfLimit = problem.runtime ? undefined : (problem.limit ?? limitIn(problem.message));
  // not enumerable: the error still equals one made with the same message (tests compare errors so)
  if (kdfLimit) Object.defineProperty(error, 'kdfLimit', { value: kdfLimit, enumerable: false });
  return error;
}

/**
 * The candidates to try, in order, and the problems of those left out: a candidate that breaks a bound or a
 * rule is passed over, as cryptsetup passes over a keyslot it cannot use, unless it is the one asked for
 * or none is left (then the first problem is thrown, through {@link kdfProblemError}).
 *
 * @example
 * ```ts
 * const { ok, skipped } = triable(users, (u) => problemOf(u), false, '@x/filevault2', errors);
 * ```
 */
export function triable<K>(
  candidates: readonly K[],
  problem: (k: K) => KdfProblem | undefined,
  asked: boolean,
  prefix: string,
  errors: FormatErrors,
): { ok: K[]; skipped: KdfProblem[] } {
  const ok: K[] = [],
    skipped: KdfProblem[] = [];
  for (const k of candidates) {
    const p = problem(k);
    if (p) skipped.push(p);
    else ok.push(k);
  }
  if (skipped.length > 0 && (asked || ok.length === 0)) throw kdfProblemError(skipped[0], prefix, errors);
  return { ok, skipped };
}

/** What a wrong-passphrase message adds for the candidates left out: `; not tried: …`, or nothing. */
export function notTried(skipped: readonly KdfProblem[]): string {
  return skipped.length ? `; not tried: ${skipped.map((s) => s.message).join('; ')}` : '';
}
