import { describe, it } from 'vitest';
import { cryptsetupRequirement } from './cryptsetup.js';

/**
 * A vitest `describe` for tests on real containers, with the house rule of {@link cryptsetupRequirement}
 * applied: with cryptsetup the suite runs; without it, it is skipped with a notice, except under `CI=true`,
 * where a failing test says that cryptsetup is missing.
 *
 * @example
 * ```ts
 * describeWithCryptsetup('real LUKS containers', () => {
 *   it('decrypts', async () => { … });
 * });
 * ```
 */
export function describeWithCryptsetup(name: string, fn: () => void): void {
  const req = cryptsetupRequirement();
  if (req.failure !== undefined) {
    it(`${name}: cryptsetup is installed (required under CI)`, () => {
      throw new Error(req.failure);
    });
  }
  if (req.skipNotice !== undefined) it.skip(`${name}: ${req.skipNotice}`, () => {});
  describe.runIf(req.run)(name, fn);
}
