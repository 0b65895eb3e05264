// Key derivation counted rather than timed (as @x/luks's test/kdf-work.ts). A test file mocks src/kdf.js:
//
//   vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));
//
// Then "refused before any key derivation" is `derivations` staying empty, and "a changed cost is refused
// rather than computed" is every logged iteration count within the bound: facts about the work done, which
// hold on a machine of any speed and load, where a wall-clock guard would not.
import type * as Kdf from '../src/kdf.js';

/** The iteration count of every PBKDF2 asked for since the last {@link resetDerivations}, in order. */
export const derivations: number[] = [];

export const resetDerivations = (): void => {
  derivations.length = 0;
};

let ceiling: number | undefined;

/**
 * From now on a PBKDF2 above `maxIterations` is logged and then fails at once (an Error that is none of
 * @x/filevault2's) instead of running for minutes: a missed bound fails its test quickly and by name.
 */
export function failAbove(maxIterations: number | undefined): void {
  ceiling = maxIterations;
}

/** src/kdf.js with every derivation logged in {@link derivations}. */
export function countingKdf(real: typeof Kdf): typeof Kdf {
  return {
    ...real,
    pbkdf2Sha256: async (password, salt, iterations, length) => {
      derivations.push(iterations);
      if (ceiling !== undefined && iterations > ceiling)
        throw new Error(`kdf-work: a PBKDF2 of ${iterations} iterations was started (bound ${ceiling})`);
      return real.pbkdf2Sha256(password, salt, iterations, length);
    },
  };
}
