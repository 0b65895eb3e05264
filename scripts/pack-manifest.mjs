#!/usr/bin/env node
/**
 * The package.json every public @x package publishes differs from its workspace one, and this script,
 * run from the package being packed, is the one place that says how (each package's prepack, postpack and
 * postpublish call it):
 *
 * - The `"source"` export and import conditions go. Inside the monorepo they point at the TypeScript
 *   sources (vitest, vite, tsx and tsc resolve workspace packages with `--conditions=source`, so tests
 *   need no build); the tarball ships no `src/` (its source maps carry the sources), so a user's bundler
 *   that enables a condition called "source" would otherwise fail on them.
 * - The native kernels get the platform their prebuilt binary needs (`--cpu`, `--os`, `--libc`), so that
 *   npm skips the optional package wherever it could not load. These cannot live in the workspace: `npm
 *   ci` on x64 refuses a workspace package whose own package.json names another `cpu`.
 *
 *   node ../../scripts/pack-manifest.mjs apply [--cpu CPU --os OS --libc LIBC]   (prepack)
 *        saves package.json as package.json.workspace and writes the published one
 *   node ../../scripts/pack-manifest.mjs restore                                 (postpack, postpublish)
 *        puts the workspace one back; in the postpack of `npm publish`, not yet: npm reads package.json
 *        again after packing and sends what it reads as the registry's metadata of the version (what npm
 *        checks `os`/`cpu`/`libc` against before downloading anything), so postpublish restores it
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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
 * The text of the manifest to publish, from the text of the workspace one and the platform fields.
 *
 * @example
 * publishedManifest('{"name":"@x/cbc","exports":{".":{"source":"./src/index.ts","default":"./dist/index.js"}}}');
 * // '{\n  "name": "@x/cbc",\n  "exports": {\n    ".": {\n      "default": "./dist/index.js"\n    }\n  }\n}\n'
 */
export function publishedManifest(text, platform = {}) {
  const pkg = JSON.parse(text);
  for (const field of ['exports', 'imports']) {
    if (pkg[field] !== undefined) pkg[field] = withoutSource(pkg[field]);
  }
  for (const field of ['os', 'cpu', 'libc']) {
    if (platform[field] !== undefined) pkg[field] = platform[field].split(',');
  }
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { cpu: { type: 'string' }, os: { type: 'string' }, libc: { type: 'string' } },
  });
  const manifest = path.resolve('package.json');
  const saved = path.resolve('package.json.workspace');
  const [command] = positionals;
  if (command === 'apply') {
    if (existsSync(saved)) {
      throw new Error(`${saved} exists (an earlier pack did not finish): check it, then run "restore"`);
    }
    const text = readFileSync(manifest, 'utf8');
    writeFileSync(saved, text);
    writeFileSync(manifest, publishedManifest(text, values));
    console.error('package.json: the published manifest, for packing');
  } else if (command === 'restore') {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: npm sets both for lifecycle scripts; no turbo task runs this
    if (process.env.npm_lifecycle_event === 'postpack' && process.env.npm_command === 'publish') {
      console.error('package.json: kept for publishing (postpublish restores it)');
    } else if (existsSync(saved)) {
      renameSync(saved, manifest);
      console.error('package.json: workspace version restored');
    }
  } else {
    console.error('usage: node pack-manifest.mjs apply [--cpu CPU --os OS --libc LIBC] | restore');
    process.exit(2);
  }
}
