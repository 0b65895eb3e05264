#!/usr/bin/env node
/**
 * Cross-compiles the addon for linux-arm64 (glibc) with Debian's aarch64-linux-gnu-gcc, against the
 * Node-API headers of the npm package node-api-headers, into node-gyp-build's layout:
 * prebuilds/linux-arm64/x-aes-native-arm64.napi.glibc.node.
 *
 * Node-API functions stay undefined in the shared object and bind to the node binary when it is loaded
 * (the default for -shared), so one binary serves every Node version with Node-API 8.
 *
 *   node scripts/build-arm64.mjs                       the release binary
 *   node scripts/build-arm64.mjs --define BREAK_X --out build/Release/x.node
 *                                                      a deliberately broken one (scripts/breaks.mjs)
 *
 * CC_ARM64 overrides the compiler.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PREBUILD = path.join(root, 'prebuilds', 'linux-arm64', 'x-aes-native-arm64.napi.glibc.node');
export const CC = process.env.CC_ARM64 || 'aarch64-linux-gnu-gcc';
export const SOURCES = ['src/native/addon.c', 'src/native/aes_arm64.c'].map((f) => path.join(root, f));

/** The compiler flags of every build; `-S` builds for llvm-mca (scripts/mca.mjs) use the same ones. */
export const CFLAGS = ['-std=c11', '-O3', '-march=armv8-a+crypto', '-fPIC', '-fvisibility=hidden', '-Wall', '-Wextra', '-Werror'];

function headers() {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('node-api-headers/package.json')), 'include');
}

/** Compiles and links the addon; returns the output path. */
export function buildArm64({ defines = [], out = PREBUILD } = {}) {
  mkdirSync(path.dirname(out), { recursive: true });
  const args = [
    ...CFLAGS,
    '-shared',
    '-s',
    '-Wl,-z,relro,-z,now,-z,noexecstack',
    `-I${headers()}`,
    ...defines.map((d) => `-D${d}`),
    '-o',
    out,
    ...SOURCES,
  ];
  execFileSync(CC, args, { stdio: 'inherit' });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { define: { type: 'string', multiple: true }, out: { type: 'string' } },
  });
  const out = buildArm64({ defines: values.define ?? [], out: values.out ? path.resolve(values.out) : PREBUILD });
  console.log(`built ${path.relative(process.cwd(), out)}${values.define ? ` with ${values.define.join(', ')}` : ''}`);
}
