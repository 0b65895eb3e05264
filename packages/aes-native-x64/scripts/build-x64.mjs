#!/usr/bin/env node
/**
 * Compiles the addon for linux-x64 (glibc) with the system C compiler (`cc`, or CC_X64), against the
 * Node-API headers of the npm package node-api-headers and the glue of @x/aes-native-addon, into
 * node-gyp-build's layout: prebuilds/linux-x64/x-aes-native-x64.napi.glibc.node (what `npm pack` ships).
 *
 * One binary holds both code paths; each function carries its own target attribute (aes / vaes+avx2), so
 * no -m flag is needed and the CPU is asked at run time. Node-API functions stay undefined in the shared
 * object and bind to the node binary when it is loaded, so one binary serves every Node version.
 *
 * Without a compiler (or off linux-x64) it says so in one line and builds nothing: the kernel is then
 * absent, which is not an error, except under CI=true, where .ci/run installs the compiler and the
 * kernel is required.
 *
 *   node scripts/build-x64.mjs                         the release binary
 *   node scripts/build-x64.mjs --src /tmp/copy --out build/Release/x.node
 *                                                      from another copy of src/native/ (scripts/breaks.mjs)
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileAddon } from '@x/native-build/compile';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PREBUILD = path.join(root, 'prebuilds', 'linux-x64', 'x-aes-native-x64.napi.glibc.node');
export const CC = process.env.CC_X64 || 'cc';
/** The C sources of this package, relative to its root (or to the copy a build is given). */
export const SOURCES = ['src/native/aes_x64.c'];

/** The compiler flags of every build. No -march: the paths select their instructions per function. */
export const CFLAGS = ['-std=c11', '-O3', '-fPIC', '-fvisibility=hidden', '-Wall', '-Wextra', '-Werror'];

/** Why this machine cannot build the binary, or undefined when it can. */
export function cannotBuild() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return `builds linux-x64 only (this is ${process.platform}-${process.arch})`;
  }
  if (spawnSync('sh', ['-c', 'command -v "$1" >/dev/null', 'sh', CC]).status !== 0) {
    return `no C compiler (${CC}; Debian: apt-get install build-essential)`;
  }
  return undefined;
}

/** Compiles and links the addon from the sources under `srcRoot` (this package by default); returns the output path. */
export function buildX64({ srcRoot = root, out = PREBUILD } = {}) {
  return compileAddon({ cc: CC, cflags: CFLAGS, sources: SOURCES.map((f) => path.join(srcRoot, f)), out });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { src: { type: 'string' }, out: { type: 'string' } } });
  const why = cannotBuild();
  if (why !== undefined) {
    if (process.env.CI === 'true') {
      console.error(`@x/aes-native-x64: cannot build the native-x64 kernel: ${why}; CI=true, so this is a failure`);
      process.exit(1);
    }
    console.log(`@x/aes-native-x64: ${why}: the native-x64 kernel is not built and will be absent`);
    process.exit(0);
  }
  const out = buildX64({
    srcRoot: values.src ? path.resolve(values.src) : root,
    out: values.out ? path.resolve(values.out) : PREBUILD,
  });
  console.log(`built ${path.relative(process.cwd(), out)}${values.src ? ` from ${values.src}` : ''}`);
}
