#!/usr/bin/env node
/**
 * `npm run test:breaks`: shows that the arm64 tests catch a wrong kernel. Each break is a unified diff in
 * breaks/ (its first paragraph says what it does); the production C has no test hooks. For each one the
 * script copies src/native/ to a temporary directory, applies the patch there (`git apply`, which works
 * outside a repository like `patch -p1`; a patch that no longer applies is an error, not a pass), builds
 * that copy into build/Release/ (node-gyp-build prefers it to prebuilds/, so the release binary is never
 * touched), runs the same arm64 suite as `npm run test:arm64` under qemu, and expects it to fail. A
 * control build of an unpatched copy, by the same path, must pass. build/ and the copies are removed
 * afterwards.
 *
 * Prints a Markdown table (pasted into README.md) and exits non-zero if any break went unnoticed.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildArm64 } from './build-arm64.mjs';
import { prepare, runUnderQemu } from './test-arm64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(root, 'build');
const out = path.join(buildDir, 'Release', 'x-aes-native-arm64.node');
const breaksDir = path.join(root, 'breaks');

/** [patch file or null for the control, what it does] */
const BREAKS = [
  [null, 'control: an unpatched copy, the same build path'],
  ...readdirSync(breaksDir)
    .filter((f) => f.endsWith('.patch'))
    .sort()
    .map((f) => [
      f,
      readFileSync(path.join(breaksDir, f), 'utf8')
        .split(/\n\s*\n/)[0]
        .replace(/\s+/g, ' ')
        .trim(),
    ]),
];

/** A temporary copy of src/native/ with `patch` applied (none for the control); returns its root. */
function patchedCopy(patch) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'x-aes-break-'));
  cpSync(path.join(root, 'src', 'native'), path.join(dir, 'src', 'native'), { recursive: true });
  if (patch) execFileSync('git', ['apply', '-p1', path.join(breaksDir, patch)], { cwd: dir, stdio: 'inherit' });
  return dir;
}

if (existsSync(buildDir)) {
  console.error(
    `@x/aes-native-arm64: ${path.relative(process.cwd(), buildDir)} exists (a build from source?); move it away first`,
  );
  process.exit(2);
}

prepare();
const rows = [];
let unnoticed = 0;
try {
  for (const [patch, what] of BREAKS) {
    const copy = patchedCopy(patch);
    try {
      buildArm64({ srcRoot: copy, out });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const t0 = Date.now();
    const { status, output } = runUnderQemu({}, { quiet: true });
    const count = (k) => Number(output.match(new RegExp(`ℹ ${k} (\\d+)`))?.[1] ?? NaN);
    const failed = [
      ...new Set(
        output
          .split('\n')
          .filter((l) => /^\s*✖/.test(l))
          .map((l) =>
            l
              .trim()
              .replace(/^✖\s*/, '')
              .replace(/\s*\([\d.]+m?s\)$/, ''),
          ),
      ),
    ];
    const caught = patch ? status !== 0 : status === 0;
    if (!caught) unnoticed++;
    const verdict = patch ? (status !== 0 ? 'caught' : 'NOT CAUGHT') : status === 0 ? 'passes' : 'FAILS';
    rows.push([patch ? `\`breaks/${patch}\`` : '(none)', what, `${count('pass')} / ${count('fail')}`, verdict]);
    console.log(
      `${patch ?? 'control'}: exit ${status}, pass ${count('pass')}, fail ${count('fail')}, ${verdict} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
    for (const name of failed.slice(0, 6)) console.log(`    ✖ ${name}`);
    if (failed.length > 6) console.log('    …');
  }
} finally {
  rmSync(buildDir, { recursive: true, force: true });
}

console.log('\n| Break (patch) | What it does | Tests passing / failing | Result |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
process.exit(unnoticed === 0 ? 0 : 1);
