/**
 * The relaxed-simd build, where this Node can run it: Node 20 needs --experimental-wasm-relaxed-simd
 * (later Node versions and Chromium have relaxed-simd on by default), so the check runs in a child process.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the i8x16.relaxed_swizzle build agrees with node:crypto', () => {
  const fixture = fileURLToPath(new URL('./fixtures/relaxed-check.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', fixture], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ relaxed: true, failures: 0 });
});
