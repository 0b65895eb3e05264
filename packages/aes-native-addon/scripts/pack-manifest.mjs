#!/usr/bin/env node
/**
 * The published manifest differs from the workspace one, as @parcel/watcher's does: `npm ci` on x64
 * refuses a workspace package whose own package.json names a foreign `cpu`, so the platform fields are
 * added only while packing. They are what the prebuilt binary needs (`os`, `cpu`, `libc`): npm then skips
 * the package, as an optional dependency, wherever the binary could not load. The published package has
 * no install script and no binding.gyp, so npm never compiles anything on a user's machine.
 *
 * Shared by the native kernel packages; run from the package being packed:
 *
 *   node ../aes-native-addon/scripts/pack-manifest.mjs apply --cpu arm64 --os linux --libc glibc
 *            (prepack) saves package.json as package.json.workspace and adds "cpu", "os" and "libc"
 *   node ../aes-native-addon/scripts/pack-manifest.mjs restore                  (postpack, postpublish)
 *            puts the workspace package.json back; in the postpack of `npm publish`, not yet: npm reads
 *            package.json again after packing, and what it reads then is the registry's metadata of the
 *            version (the fields npm looks at before it downloads anything), so postpublish restores it
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const manifest = path.resolve('package.json');
const saved = path.resolve('package.json.workspace');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { cpu: { type: 'string' }, os: { type: 'string' }, libc: { type: 'string' } },
});
const [command] = positionals;
if (command === 'apply' && values.cpu && values.os && values.libc) {
  if (existsSync(saved)) throw new Error(`${saved} exists; run "restore" first`);
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  const published = { ...pkg, os: values.os.split(','), cpu: values.cpu.split(','), libc: values.libc.split(',') };
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
  console.log('package.json: added os, cpu and libc for publishing');
} else if (command === 'restore') {
  if (process.env.npm_lifecycle_event === 'postpack' && process.env.npm_command === 'publish') {
    console.log('package.json: kept for publishing (postpublish restores it)');
  } else {
    if (existsSync(saved)) renameSync(saved, manifest);
    console.log('package.json: workspace version restored');
  }
} else {
  console.error('usage: node pack-manifest.mjs apply --cpu CPU --os OS[,OS] --libc LIBC | restore');
  process.exit(2);
}
