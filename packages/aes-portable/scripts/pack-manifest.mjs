#!/usr/bin/env node
/**
 * The manifest every @x package publishes differs from its workspace one by the `"source"` conditions
 * alone. Inside the monorepo they point at the TypeScript sources (vitest, vite, tsx and tsc resolve
 * workspace packages with `--conditions=source`, so tests need no build); the tarball ships no `src/`
 * (its source maps carry the sources instead), so the published `exports` and `imports` must not name
 * those files: a user's bundler that enables a condition called "source" would otherwise fail on them.
 *
 * Shared by the public packages (this package holds it because it is one of them, and the release
 * copies the packages' scripts/ but not tools/); run from the package being packed:
 *
 *   node ../aes-portable/scripts/pack-manifest.mjs apply     (prepack) saves package.json as
 *                                                           package.json.prepack, removes "source"
 *   node ../aes-portable/scripts/pack-manifest.mjs restore   (postpack) puts the workspace one back,
 *                                                           unless package.json changed in between
 *
 * npm reads the tarball's package.json from disk between the two, so `npm pack` and `npm publish` ship the
 * stripped one (the registry's metadata, which npm re-reads after postpack, keeps the workspace
 * `exports`; nothing resolves modules from that metadata).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The condition that exists for the workspace only. */
export const WORKSPACE_CONDITION = 'source';

/**
 * `value` (an `exports` or `imports` value) without the workspace condition, at any depth.
 *
 * @example
 * withoutSource({ '.': { types: './dist/index.d.ts', source: './src/index.ts', default: './dist/index.js' } });
 * // { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }
 */
export function withoutSource(value) {
  if (Array.isArray(value)) return value.map(withoutSource);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== WORKSPACE_CONDITION)
      .map(([key, v]) => [key, withoutSource(v)]),
  );
}

/**
 * The text of the manifest to publish, from the text of the workspace one.
 *
 * @example
 * publishedManifest('{"name":"@x/cbc","exports":{".":{"source":"./src/index.ts","default":"./dist/index.js"}}}');
 * // '{\n  "name": "@x/cbc",\n  "exports": {\n    ".": {\n      "default": "./dist/index.js"\n    }\n  }\n}\n'
 */
export function publishedManifest(text) {
  const pkg = JSON.parse(text);
  for (const field of ['exports', 'imports']) {
    if (pkg[field] !== undefined) pkg[field] = withoutSource(pkg[field]);
  }
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = path.resolve('package.json');
  const saved = path.resolve('package.json.prepack');
  const [command] = process.argv.slice(2);
  if (command === 'apply') {
    if (existsSync(saved)) {
      throw new Error(`${saved} exists (an earlier pack did not finish): check it, then run "restore"`);
    }
    const text = readFileSync(manifest, 'utf8');
    writeFileSync(saved, text);
    writeFileSync(manifest, publishedManifest(text));
    console.error(`package.json: "${WORKSPACE_CONDITION}" conditions removed for packing`);
  } else if (command === 'restore') {
    if (existsSync(saved)) {
      if (readFileSync(manifest, 'utf8') !== publishedManifest(readFileSync(saved, 'utf8'))) {
        throw new Error(`package.json changed while packing; the workspace version is in ${saved}: merge by hand`);
      }
      renameSync(saved, manifest);
    }
    console.error('package.json: workspace version restored');
  } else {
    console.error('usage: node pack-manifest.mjs apply | restore');
    process.exit(2);
  }
}
