#!/usr/bin/env node
/**
 * `npm test` for this package (what turbo runs): the loader tests on this machine (vitest), then the
 * arm64 run (scripts/test-arm64.mjs) when the cross compiler and qemu are here. Without them it says the
 * arm64 run is skipped and passes, except under CI=true, where a kernel CI is set up to test must run
 * (a silently skipped backend is a bug).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CC = process.env.CC_ARM64 || 'aarch64-linux-gnu-gcc';
const QEMU = process.env.QEMU_AARCH64 || 'qemu-aarch64-static';

const has = (cmd) => spawnSync('sh', ['-c', 'command -v "$1" >/dev/null', 'sh', cmd]).status === 0;
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const vitest = run('npx', ['--no-install', 'vitest', 'run']);
if (vitest !== 0) process.exit(vitest);

const missing = [CC, QEMU].filter((c) => !has(c));
if (missing.length > 0) {
  const what = `@x/aes-native-arm64: the arm64 tests need ${missing.join(' and ')} (Debian: gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, qemu-user-static)`;
  if (process.env.CI === 'true') {
    console.error(`${what}; CI=true, so this is a failure`);
    process.exit(1);
  }
  console.log(`${what}: arm64 tests skipped`);
  process.exit(0);
}
process.exit(run(process.execPath, [path.join(root, 'scripts', 'test-arm64.mjs')]));
