/**
 * The deliberate-breaks check that the native kernel packages share: it shows that a package's tests
 * catch a wrong kernel. Each break is a unified diff in the package's breaks/ (its first paragraph says
 * what it does); the production C has no test hooks. For each one, src/native/ is copied to a temporary
 * directory and the patch applied there (`git apply`, which works outside a repository like `patch -p1`;
 * a patch that no longer applies is an error, not a pass); the package builds that copy into
 * build/Release/ (node-gyp-build prefers it to prebuilds/, so the release binary is never touched) and runs
 * its tests, which must fail. A control build of an unpatched copy, by the same path, must pass. build/
 * and the copies are removed afterwards.
 *
 * Prints a Markdown table (for the package README) and returns how many breaks went unnoticed. Names
 * given on the command line (`npm run test:breaks -- ctr-be128-no-carry …`, with or without `.patch`)
 * run those breaks alone, after the control.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs every break of the package at `root`.
 * - `name`: the package, for messages;
 * - `out`: the binary's file name under build/Release/;
 * - `build(srcRoot, out)`: builds the copy at srcRoot (holding src/native/) into out;
 * - `test()`: runs the tests against build/Release; returns { status, pass, fail, failed: [test names] }.
 * - `unrunnable(patch)` (optional): why the code a break changes cannot run on this CPU (say, a VAES path
 *   on a CPU without VAES), or undefined; such a break is skipped with a line that says why, since no test
 *   could reach it here.
 */
export function runBreaks({ name, root, out, build, test, unrunnable = () => undefined }) {
  const buildDir = path.join(root, 'build');
  const binary = path.join(buildDir, 'Release', out);
  const breaksDir = path.join(root, 'breaks');
  if (existsSync(buildDir)) {
    console.error(
      `${name}: ${path.relative(process.cwd(), buildDir)} exists (a build from source?); move it away first`,
    );
    return 1;
  }
  const only = process.argv.slice(2).map((a) => a.replace(/\.patch$/, ''));
  /** [patch file or null for the control, what it does] */
  const breaks = [
    [null, 'control: an unpatched copy, the same build path'],
    ...readdirSync(breaksDir)
      .filter((f) => f.endsWith('.patch') && (only.length === 0 || only.includes(f.replace(/\.patch$/, ''))))
      .sort()
      .map((f) => [
        f,
        readFileSync(path.join(breaksDir, f), 'utf8')
          .split(/\n\s*\n/)[0]
          .replace(/\s+/g, ' ')
          .trim(),
      ]),
  ];
  const rows = [];
  let unnoticed = 0;
  try {
    for (const [patch, what] of breaks) {
      const why = patch && unrunnable(patch);
      if (why) {
        rows.push([`\`breaks/${patch}\``, what, '–', `skipped: ${why}`]);
        console.log(`${patch}: skipped: ${why}`);
        continue;
      }
      const copy = mkdtempSync(path.join(os.tmpdir(), 'x-aes-break-'));
      try {
        cpSync(path.join(root, 'src', 'native'), path.join(copy, 'src', 'native'), { recursive: true });
        if (patch) execFileSync('git', ['apply', '-p1', path.join(breaksDir, patch)], { cwd: copy, stdio: 'inherit' });
        build(copy, binary);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
      const t0 = Date.now();
      const { status, pass, fail, failed } = test();
      const caught = patch ? status !== 0 : status === 0;
      if (!caught) unnoticed++;
      const verdict = patch ? (status !== 0 ? 'caught' : 'NOT CAUGHT') : status === 0 ? 'passes' : 'FAILS';
      rows.push([patch ? `\`breaks/${patch}\`` : '(none)', what, `${pass} / ${fail}`, verdict]);
      const seconds = ((Date.now() - t0) / 1000).toFixed(0);
      console.log(`${patch ?? 'control'}: exit ${status}, pass ${pass}, fail ${fail}, ${verdict} (${seconds} s)`);
      for (const test of failed.slice(0, 6)) console.log(`    ✖ ${test}`);
      if (failed.length > 6) console.log('    …');
    }
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  console.log('\n| Break (patch) | What it does | Tests passing / failing | Result |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  return unnoticed;
}
