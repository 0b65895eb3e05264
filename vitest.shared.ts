// One vitest configuration for every package: tests import workspace packages from their TypeScript
// sources (the "source" export condition), so no build is needed to test and coverage maps to src/.
import { defineConfig } from 'vitest/config';

/**
 * The one time bound of a test and of a hook (beforeAll, afterAll, …; vitest's own default for hooks is
 * 10 s, which @x/filevault2's fixture setup overran on a loaded machine): a guard against a hang, never a
 * speed goal. Tests must pass on a busy 2-core machine, where `turbo run test` runs several packages at
 * once beside whatever else the machine does, so it is wide: twenty minutes. The slowest test took 176 s
 * in a whole `npm test` beside two processes that kept both cores busy (load average about 20; the old
 * 120 s bound would have failed it). Speed is measured by the benchmarks (tools/bench), not by timed
 * tests, and a test file sets no tighter bound of its own.
 */
const HANG_GUARD_MS = 1_200_000;

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text', 'json-summary'],
    },
  },
});
