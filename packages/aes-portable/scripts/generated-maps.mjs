#!/usr/bin/env node
/**
 * Drops the source maps of generated code from a package's dist/, after `tsc`: each `*.generated.js`
 * loses its `//# sourceMappingURL=` line and its `.js.map`. The sources of every other file are inlined in
 * its map (tsconfig.base.json: `inlineSources`), and the tarball ships no `src/`; for a generated file that
 * would ship the generated code a second time (and for @x/aes-portable's bitsliced layers a third, in the
 * map's mappings), to map a JavaScript file onto TypeScript that reads the same. The generated file in
 * dist/ is the one copy a user gets, and stack traces point into it.
 *
 * Shared by the packages with generated code; run from the package, after its build:
 *
 *   tsc -p tsconfig.build.json && node ../aes-portable/scripts/generated-maps.mjs
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve('dist');
let dropped = 0;
for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  if (!name.endsWith('.generated.js')) continue;
  const file = path.join(dist, name);
  const text = readFileSync(file, 'utf8');
  const stripped = text.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n');
  if (stripped !== text) writeFileSync(file, stripped);
  if (existsSync(`${file}.map`)) rmSync(`${file}.map`);
  dropped++;
}
if (dropped === 0) {
  console.error(`no dist/**/*.generated.js in ${process.cwd()}: run this after the build`);
  process.exit(1);
}
console.log(`dist: ${dropped} generated file(s) without a source map`);
