#!/usr/bin/env node
/**
 * `npm run test:breaks`: shows that the arm64 tests catch a wrong kernel. Each break is a preprocessor
 * define that src/native/aes_arm64.c honours (BREAK_*); the script builds the addon with it into
 * build/Release/ (node-gyp-build prefers that to prebuilds/, so the release binary is never touched),
 * runs the same arm64 suite as `npm run test:arm64` under qemu, and expects it to fail. A control build
 * with no break, from the same path, must pass. build/ is removed afterwards.
 *
 * Prints a Markdown table (pasted into README.md) and exits non-zero if any break went unnoticed.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildArm64 } from './build-arm64.mjs';
import { prepare, runUnderQemu } from './test-arm64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(root, 'build');
const out = path.join(buildDir, 'Release', 'x-aes-native-arm64.node');

const BREAKS = [
  [null, 'control: the same build path, no break'],
  ['BREAK_DROP_AESIMC', 'drop one AESIMC: round 1 of the inverse cipher skips InvMixColumns (FIPS 197 §5.3.3)'],
  ['BREAK_SWAP_ROUND_KEYS', 'swap round keys 3 and 4 of the loaded schedule'],
  ['BREAK_SKIP_TAIL', 'skip the 1–7 block tail after the 8-block batches (ECB, CBC and XTS)'],
  ['BREAK_STALE_CHAIN', 'CBC decrypt: the next batch chains from C[i+6] instead of C[i+7]'],
  ['BREAK_SECTORS_SHARED_CHAIN', 'CBC encryptSectors: in each group of 8 interleaved sectors, lane 1 chains from lane 0\'s previous ciphertext instead of its own'],
  ['BREAK_XTS_NO_REDUCTION', 'XTS: T·α without the 0x87 fold (IEEE 1619 §5.2), the bit shifted out of bit 127 is lost (in the doublings and the T·α^8 step)'],
];

if (existsSync(buildDir)) {
  console.error(`@x/aes-native-arm64: ${path.relative(process.cwd(), buildDir)} exists (a build from source?); move it away first`);
  process.exit(2);
}

prepare();
const rows = [];
let unnoticed = 0;
try {
  for (const [define, what] of BREAKS) {
    buildArm64({ defines: define ? [define] : [], out });
    const t0 = Date.now();
    const { status, output } = runUnderQemu({}, { quiet: true });
    const count = (k) => Number(output.match(new RegExp(`ℹ ${k} (\\d+)`))?.[1] ?? NaN);
    const failed = [...new Set(output.split('\n').filter((l) => /^\s*✖/.test(l)).map((l) => l.trim().replace(/^✖\s*/, '').replace(/\s*\([\d.]+m?s\)$/, '')))];
    const caught = define ? status !== 0 : status === 0;
    if (!caught) unnoticed++;
    const verdict = define ? (status !== 0 ? 'caught' : 'NOT CAUGHT') : status === 0 ? 'passes' : 'FAILS';
    rows.push([define ?? '(none)', what, `${count('pass')} / ${count('fail')}`, verdict]);
    console.log(`${define ?? 'control'}: exit ${status}, pass ${count('pass')}, fail ${count('fail')}, ${verdict} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    for (const name of failed.slice(0, 6)) console.log(`    ✖ ${name}`);
    if (failed.length > 6) console.log('    …');
  }
} finally {
  rmSync(buildDir, { recursive: true, force: true });
}

console.log('\n| Break (define) | What it does | Tests passing / failing | Result |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.map((c, i) => (i === 0 && c !== '(none)' ? `\`${c}\`` : c)).join(' | ')} |`);
process.exit(unnoticed === 0 ? 0 : 1);
