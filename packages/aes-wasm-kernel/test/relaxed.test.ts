/**
 * The relaxed-simd build, where this Node can run it: Node 20 needs --experimental-wasm-relaxed-simd
 * (later Node versions and Chromium have relaxed-simd on by default), so the check runs in a child process:
 * every export of the i8x16.relaxed_swizzle build against the i8x16.swizzle build, memory for memory.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the i8x16.relaxed_swizzle build computes what the i8x16.swizzle build does', () => {
  const fixture = fileURLToPath(new URL('./fixtures/relaxed-check.ts', import.meta.url));
  // a synchronous child blocks the test's own timeout, so it has its hang guard: generous (the check takes
  // a few seconds unloaded), not a speed goal
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', fixture], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual({
    relaxed: true,
    calls: 24 * 13 + 2 + 8 * 3,
    failures: 0,
  });
});
