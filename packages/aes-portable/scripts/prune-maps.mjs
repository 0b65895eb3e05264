#!/usr/bin/env node
/**
 * Removes from a package's dist/, after `tsc`, the source maps its tarball must not ship:
 *
 * - the maps of generated code: each `*.generated.js` loses its `//# sourceMappingURL=` line and its
 *   `.js.map`. Every other file's map carries its TypeScript source (tsconfig.base.json: `inlineSources`)
 *   and the tarball ships no `src/`; for a generated file that would ship the generated code a second
 *   time (and for @x/aes-portable's bitsliced layers a third, in the mappings), to map JavaScript onto
 *   TypeScript that reads the same. The generated file in dist/ is the one copy, and stack traces point
 *   into it.
 * - declaration maps (`*.d.ts.map`), left by builds from before `declarationMap` was turned off: they
 *   point into `src/`, which is not shipped.
 *
 * It runs after the build instead of emptying dist/ before it, so that dist/ never disappears while
 * something else in the checkout (a test, another build) reads it. Shared by the public packages; run
 * from the package:
 *
 *   tsc -p tsconfig.build.json && node ../aes-portable/scripts/prune-maps.mjs
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve('dist');
if (!existsSync(dist)) {
  console.error(`no dist/ in ${process.cwd()}: run this after the build`);
  process.exit(1);
}
let generated = 0;
let declarationMaps = 0;
for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  const file = path.join(dist, name);
  if (/\.d\.[cm]?ts\.map$/.test(name)) {
    rmSync(file);
    declarationMaps++;
  } else if (name.endsWith('.generated.js')) {
    const text = readFileSync(file, 'utf8');
    const stripped = text.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n');
    if (stripped !== text) writeFileSync(file, stripped);
    if (existsSync(`${file}.map`)) rmSync(`${file}.map`);
    generated++;
  }
}
if (generated || declarationMaps) {
  console.log(
    `dist: ${generated} generated file(s) without a source map, ${declarationMaps} declaration map(s) removed`,
  );
}
