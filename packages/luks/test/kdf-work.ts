// Key derivation counted rather than timed. A test file that needs it mocks this package's src/kdf.js with
// `countingKdf` (the real functions, each call logged before it runs):
//
//   vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));
//
// Then "refused before any key derivation" is `derivations` staying empty, and "a changed cost is refused
// rather than computed" is every logged cost within the bounds: facts about the work done, which hold on a
// machine of any speed and load, where a wall-clock guard (a run under N ms) does not.
//
// `virtualClock` goes further for the benchmarks of createLuks (iterTime): performance.now() then reads a
// clock that only the derivations advance, by a fixed cost per unit of work, so that what the benchmark
// measures, and therefore the cost it chooses, is exact.
import { vi } from 'vitest';
import type * as Kdf from '../src/kdf.js';

type KdfModule = typeof Kdf;

/** One key derivation @x/luks asked for, with its cost. */
export type Derivation =
  | { readonly type: 'pbkdf2'; readonly hash: string; readonly iterations: number }
  | { readonly type: 'argon2i' | 'argon2id'; readonly time: number; readonly memory: number; readonly cpus: number };

/** Every derivation since the last {@link resetDerivations}, in order. */
export const derivations: Derivation[] = [];

export const resetDerivations = (): void => {
  derivations.length = 0;
};

/** Virtual time per unit of work while a {@link virtualClock} runs. */
interface Rates {
  /** ms per PBKDF2 iteration. */
  readonly pbkdf2: number;
  /** ms per KiB of Argon2 memory per pass. */
  readonly argon2: number;
}

let clock: { now: number; rates: Rates } | undefined;

/** KDF bounds in the manner of OpenOptions' maxIterations, maxTimeCost and maxMemory (KiB). */
export interface Limits {
  readonly maxIterations: number;
  readonly maxTimeCost: number;
  readonly maxMemory: number;
}

let ceiling: Limits | undefined;

/**
 * From now on a derivation above `limits` is logged and then fails at once (an Error that is none of
 * @x/luks's) instead of running for minutes: a missed bound fails its test quickly and by name. Undefined
 * lifts it.
 */
export function failAbove(limits: Limits | undefined): void {
  ceiling = limits;
}

function checkCeiling(d: Derivation): void {
  if (ceiling && aboveLimits([d], ceiling).length)
    throw new Error(`kdf-work: a derivation above the bounds was started: ${JSON.stringify(d)}`);
}

/** src/kdf.js with every derivation logged in {@link derivations} (and charged to a running virtual clock). */
export function countingKdf(real: KdfModule): KdfModule {
  return {
    ...real,
    pbkdf2: async (hash, password, salt, iterations, length) => {
      const d: Derivation = { type: 'pbkdf2', hash, iterations };
      derivations.push(d);
      checkCeiling(d);
      const key = await real.pbkdf2(hash, password, salt, iterations, length);
      if (clock) clock.now += iterations * clock.rates.pbkdf2;
      return key;
    },
    argon2: async (p, password, salt, length) => {
      const d: Derivation = { type: p.type, time: p.time, memory: p.memory, cpus: p.cpus };
      derivations.push(d);
      checkCeiling(d);
      const key = await real.argon2(p, password, salt, length);
      if (clock) clock.now += p.time * p.memory * clock.rates.argon2;
      return key;
    },
  };
}

/**
 * Runs `f` with performance.now() on a virtual clock that stands still except for the derivations, each
 * advancing it by its work × `rates`. The real clock is back afterwards.
 */
export async function virtualClock<T>(rates: Rates, f: () => Promise<T>): Promise<T> {
  clock = { now: 0, rates };
  const c = clock;
  const spy = vi.spyOn(performance, 'now').mockImplementation(() => c.now);
  try {
    return await f();
  } finally {
    spy.mockRestore();
    clock = undefined;
  }
}

/** The derivations among `log` whose cost is above `limits` (none, when the bounds held). */
export function aboveLimits(log: readonly Derivation[], limits: Limits): Derivation[] {
  return log.filter((d) =>
    d.type === 'pbkdf2'
      ? d.iterations > limits.maxIterations
      : d.time > limits.maxTimeCost || d.memory > limits.maxMemory,
  );
}
