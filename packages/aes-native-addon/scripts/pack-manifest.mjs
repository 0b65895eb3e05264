#!/usr/bin/env node
/**
 * The published manifest differs from the workspace one, as @parcel/watcher's does: `npm ci` on x64
 * refuses a workspace package whose own package.json names a foreign `cpu`, so the platform fields are
 * added only while packing.
 *
 * Shared by the native kernel packages; run from the package being packed:
 *
 *   node ../aes-native-addon/scripts/pack-manifest.mjs apply --cpu arm64 --os darwin,linux [--install]
 *            (prepack) saves package.json as package.json.workspace and adds "cpu", "os" and, with
 *            --install, "scripts.install": "node-gyp-build" (which finds the prebuilt binary, or builds
 *            from binding.gyp where there is none), dropping "gypfile": false, which exists only to stop
 *            npm running node-gyp in the workspace
 *   node ../aes-native-addon/scripts/pack-manifest.mjs restore                               (postpack)
 *            puts the workspace package.json back
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const manifest = path.resolve('package.json');
const saved = path.resolve('package.json.workspace');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { cpu: { type: 'string' }, os: { type: 'string' }, install: { type: 'boolean', default: false } },
});
const [command] = positionals;
if (command === 'apply' && values.cpu && values.os) {
  if (existsSync(saved)) throw new Error(`${saved} exists; run "restore" first`);
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  delete pkg.gypfile;
  const published = {
    ...pkg,
    os: values.os.split(','),
    cpu: values.cpu.split(','),
    ...(values.install ? { scripts: { install: 'node-gyp-build', ...pkg.scripts } } : {}),
  };
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
  console.log(`package.json: added os, cpu${values.install ? ' and scripts.install' : ''} for publishing`);
} else if (command === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
  console.log('package.json: workspace version restored');
} else {
  console.error('usage: node pack-manifest.mjs apply --cpu CPU --os OS[,OS] [--install] | restore');
  process.exit(2);
}
