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
 *   node scripts/build-arm64.mjs --src /tmp/copy --out build/Release/x.node
 *                                                      from another copy of the package's sources (src/native/
 *                                                      under --src): scripts/breaks.mjs builds patched copies
 *
 * CC_ARM64 overrides the compiler.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileAddon } from '@x/native-build/compile';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PREBUILD = path.join(root, 'prebuilds', 'linux-arm64', 'x-aes-native-arm64.napi.glibc.node');
export const CC = process.env.CC_ARM64 || 'aarch64-linux-gnu-gcc';
/** The C sources, relative to the package root (or to the copy a build is given). */
export const SOURCES = ['src/native/aes_arm64.c'];

/** The compiler flags of every build; `-S` builds for llvm-mca (scripts/mca.mjs) use the same ones. */
export const CFLAGS = [
  '-std=c11',
  '-O3',
  '-march=armv8-a+crypto',
  '-fPIC',
  '-fvisibility=hidden',
  '-Wall',
  '-Wextra',
  '-Werror',
];

/** Compiles and links the addon from the sources under `srcRoot` (this package by default); returns the output path. */
export function buildArm64({ srcRoot = root, out = PREBUILD } = {}) {
  return compileAddon({ cc: CC, cflags: CFLAGS, sources: SOURCES.map((f) => path.join(srcRoot, f)), out });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { src: { type: 'string' }, out: { type: 'string' } },
  });
  const out = buildArm64({
    srcRoot: values.src ? path.resolve(values.src) : root,
    out: values.out ? path.resolve(values.out) : PREBUILD,
  });
  console.log(`built ${path.relative(process.cwd(), out)}${values.src ? ` from ${values.src}` : ''}`);
}
