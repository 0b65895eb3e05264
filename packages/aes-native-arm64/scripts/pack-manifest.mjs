#!/usr/bin/env node
/**
 * The published manifest differs from the workspace one, as @parcel/watcher's does: `npm ci` on x64
 * refuses a workspace package whose own package.json names a foreign `cpu`, so the platform fields are
 * added only while packing.
 *
 *   apply    (prepack)  saves package.json as package.json.workspace and adds
 *                       "cpu": ["arm64"], "os": ["darwin", "linux"] and "scripts.install": "node-gyp-build"
 *                       (which loads the prebuilt linux-arm64 binary, or builds from binding.gyp elsewhere),
 *                       dropping "gypfile": false, which exists only to stop npm running node-gyp in the
 *                       workspace
 *   restore  (postpack) puts the workspace package.json back
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = path.join(root, 'package.json');
const saved = path.join(root, 'package.json.workspace');

const [command] = process.argv.slice(2);
if (command === 'apply') {
  if (existsSync(saved)) throw new Error('@x/aes-native-arm64: package.json.workspace exists; run "restore" first');
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  delete pkg.gypfile;
  const published = {
    ...pkg,
    os: ['darwin', 'linux'],
    cpu: ['arm64'],
    scripts: { install: 'node-gyp-build', ...pkg.scripts },
  };
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
  console.log('package.json: added os, cpu and scripts.install for publishing');
} else if (command === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
  console.log('package.json: workspace version restored');
} else {
  console.error('usage: node scripts/pack-manifest.mjs apply|restore');
  process.exit(2);
}
