/**
 * The README examples (src/examples.ts) against the workspace build, without a registry: each example is
 * written to a folder of its own inside the repository (`tools/release/.examples/<n>/`, gitignored), so
 * that `@x/*` resolves to the workspaces through the root node_modules, with a copy of the sample volume
 * beside it; a `js` example runs as `node example.mjs`, an `sh` example as `bash -euo pipefail
 * example.sh` with the repository's node_modules/.bin on PATH (where `npx x-luks` finds the command), in
 * a folder with a package.json of its own, as a user's project has (npx runs a command in that folder).
 * `npm run test:release` runs the same examples after a real install from a registry.
 *
 * Prints one line per example and ends with `N passed, N failed`; exit status 1 on a failure. The folders
 * are removed at the end and on SIGINT/SIGTERM (`--keep` keeps them).
 *
 * Usage (after `npx turbo run build`):
 *   npx tsx tools/release/src/examples-local.ts [filter] [--jobs N] [--keep] [--verbose]
 *   filter: a part of `file:line`, e.g. `packages/cbc` or `README.md:101`; --jobs: examples at once (2);
 *   --verbose: the output of passing examples too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Example, findExamples } from './examples.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const SAMPLE = path.join(repo, 'packages/luks/test/fixtures/sample-luks2.img');
const WORK = path.join(repo, 'tools/release/.examples');
/** A hang guard only (a loaded machine is slow, never this slow), not a speed check. */
const TIMEOUT_MS = 300_000;

/** The examples running now, each the leader of its own process group (npx, node and bash under it). */
const running = new Set<ChildProcess>();
const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

let cleaned = false;
function cleanUp(): void {
  if (cleaned) return;
  cleaned = true;
  for (const child of running) killGroup(child);
  if (flags.keep) console.log(`kept ${path.relative(repo, WORK)}/`);
  else rmSync(WORK, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: removing ${path.relative(repo, WORK)}/`);
    cleanUp();
    process.exit(130);
  });
}

/** The environment of a user's shell: this one without what `npm`/`npx` and the tests set. */
function exampleEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || /^X_AES_/.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  env.PATH = [path.join(repo, 'node_modules/.bin'), process.env.PATH ?? ''].join(path.delimiter);
  return env;
}

interface Run {
  code: number | null;
  output: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: exampleEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    let output = '';
    const collect = (s: string) => {
      output += s;
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    const timer = setTimeout(() => {
      output += `\n(killed: still running after ${TIMEOUT_MS / 1000} s)\n`;
      killGroup(child);
    }, TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code: null, output: `${output}${error.message}\n` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, output });
    });
  });
}

/** The workspaces an example names must be built: their package.json `exports` point into dist/. */
function unbuilt(example: Example): string[] {
  return example.packages.filter((name) => {
    const dir = path.join(repo, 'node_modules', name);
    return name.startsWith('@x/') && !existsSync(path.join(dir, 'dist'));
  });
}

let passed = 0;
let failed = 0;

async function runOne(example: Example, n: number): Promise<void> {
  const name = `${example.file}:${example.line} (npm install ${example.packages.join(' ')})`;
  const started = Date.now();
  const dir = path.join(WORK, String(n));
  let outcome: Run;
  const missing = unbuilt(example);
  if (missing.length > 0) {
    outcome = { code: null, output: `not built: ${missing.join(', ')} (run npx turbo run build first)` };
  } else {
    mkdirSync(dir, { recursive: true });
    // A project of its own, as a user's is: npx runs commands in the folder of the nearest package.json.
    writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: `example-${n}`, private: true })}\n`);
    copyFileSync(SAMPLE, path.join(dir, 'sample-luks2.img'));
    const file = example.lang === 'js' ? 'example.mjs' : 'example.sh';
    writeFileSync(path.join(dir, file), example.code);
    outcome =
      example.lang === 'js'
        ? await run(process.execPath, [file], dir)
        : await run('bash', ['-euo', 'pipefail', file], dir);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (outcome.code === 0) {
    passed++;
    console.log(`ok   ${name} (${seconds} s)`);
    if (flags.verbose && outcome.output.trim()) console.log(outcome.output.trimEnd().replace(/^/gm, '     '));
  } else {
    failed++;
    console.log(`FAIL ${name} (${seconds} s): exit ${outcome.code}`);
    console.log(`     (line n of the example is line ${example.line} + n of ${example.file})`);
    if (outcome.output.trim()) console.log(outcome.output.trimEnd().replace(/^/gm, '     '));
  }
}

let examples: Example[];
try {
  examples = findExamples(repo);
} catch (error) {
  console.log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const filter = positionals[0];
const chosen = examples
  .map((example, i) => ({ example, n: i + 1 }))
  .filter(({ example }) => !filter || `${example.file}:${example.line}`.includes(filter));
if (chosen.length === 0) {
  console.log(filter ? `no README example matches ${JSON.stringify(filter)}` : 'no README example found');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const jobs = Math.max(1, Number.parseInt(flags.jobs ?? '2', 10) || 1);
const started = Date.now();
rmSync(WORK, { recursive: true, force: true });
try {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, chosen.length) }, async () => {
      while (next < chosen.length) {
        const { example, n } = chosen[next++];
        await runOne(example, n);
      }
    }),
  );
} finally {
  cleanUp();
}
console.log(`${chosen.length} README examples in ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
