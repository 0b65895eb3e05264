/**
 * `npm run test:runtimes`: runs smoke/suite.mjs (the README examples against node:crypto's vectors) in the
 * current Node and in every runtime of runtimes.ts, fetched with `npm pack` into a cache folder on first
 * use, then prints a table, runtime × result. Exit status 1 when any runtime fails.
 *
 * A runtime that cannot be fetched or cannot run here (offline, not linux-x64) is skipped with the reason,
 * and under CI=true it is a failure: CI is set up to test every one of them.
 *
 * Usage: `npm run test:runtimes [-- <id> …]` (ids from runtimes.ts: node, node22, node24, bun, deno,
 * deno-native). The cache is `node_modules/.cache/x-runtimes`, or X_RUNTIMES_CACHE.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Download, RUNTIMES, type Runtime } from './runtimes.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const suite = path.join(repo, 'tools/runtimes/smoke/suite.mjs');
const files = {
  vectors: path.join(repo, 'tools/runtimes/smoke/vectors.json'),
  image: path.join(repo, 'packages/luks/test/fixtures/sample-luks2.img'),
};
const CI = process.env.CI === 'true';
const cacheRoot = process.env.X_RUNTIMES_CACHE || path.join(repo, 'node_modules/.cache/x-runtimes');
const RUN_TIMEOUT_MS = 180_000;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a command to its end, collecting its output. */
function exec(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeout = 0): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const stop = () => {
      timedOut = true;
      child.kill('SIGKILL');
    };
    const timer = timeout > 0 ? setTimeout(stop, timeout) : undefined;
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}\n`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

async function sha512(file: string): Promise<string> {
  const h = createHash('sha512');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return `sha512-${h.digest('base64')}`;
}

const lastLines = (s: string, n = 5) => s.trim().split('\n').slice(-n).join('\n');

/** The line of npm's error output that says what went wrong (`FetchError: … ECONNREFUSED`, `404 Not Found …`). */
function npmReason(stderr: string): string {
  const lines = stderr.split('\n').flatMap((l) => (l.startsWith('npm error ') ? [l.slice('npm error '.length)] : []));
  return lines.find((l) => /^\S/.test(l) && !/^(code|syscall|errno) /.test(l)) ?? lastLines(stderr, 1);
}

/** A binary, or why there is none; `fatal` when the download is wrong (not merely unreachable): a failure everywhere. */
type Fetched = { bin: string; seconds: number; cached: boolean } | { error: string; fatal?: boolean };

/**
 * The binary of `d`, from the cache or fetched into it: `npm pack` into a temporary folder beside the
 * cache entry, the tarball's SHA-512 checked against the pinned one, the binary alone extracted, then the
 * folder renamed into place, so that an interrupted fetch never leaves an entry that looks complete.
 */
async function fetchRuntime(d: Download): Promise<Fetched> {
  const t0 = performance.now();
  const dir = path.join(cacheRoot, `${d.package.replace(/^@/, '').replace('/', '-')}-${d.version}`);
  const bin = path.join(dir, d.binary);
  const spec = `${d.package}@${d.version}`;
  const stamp = `${spec} ${d.integrity}\n`;
  const done = path.join(dir, '.complete');
  if (existsSync(bin) && existsSync(done) && readFileSync(done, 'utf8') === stamp)
    return { bin, seconds: 0, cached: true };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { error: `${d.package} is a linux-x64 build; this is ${process.platform}-${process.arch}` };
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    const packed = await exec('npm', ['pack', spec, '--pack-destination', tmp, '--json']);
    if (packed.code !== 0) return { error: `npm pack ${spec} failed: ${npmReason(packed.stderr)}` };
    const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];
    const tgz = path.join(tmp, filename);
    const got = await sha512(tgz);
    if (got !== d.integrity) {
      return { error: `${spec}: the tarball's SHA-512 is ${got}, pinned ${d.integrity}`, fatal: true };
    }
    const untar = await exec('tar', ['-xzf', tgz, '-C', tmp, d.binary]);
    if (untar.code !== 0) return { error: `tar -xzf ${filename} ${d.binary} failed: ${lastLines(untar.stderr, 1)}` };
    await rm(tgz);
    await chmod(path.join(tmp, d.binary), 0o755);
    await writeFile(path.join(tmp, '.complete'), stamp);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return { bin, seconds: (performance.now() - t0) / 1000, cached: false };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

interface SuiteResult {
  runtime: string;
  kernels: string[];
  defaultKernel: string;
  results: { name: string; ok: boolean; error?: string }[];
}

interface Row {
  id: string;
  runtime: string;
  kernels: string;
  checks: string;
  seconds: string;
  result: 'pass' | 'FAIL' | 'skipped';
  why?: string;
}

/** The environment of a suite run: the kernel-forcing variables removed, so the default choice is tested. */
function suiteEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  delete env.X_AES_KERNEL;
  delete env.X_AES_NATIVE_X64;
  return env;
}

async function runSuite(r: Runtime, command: string, reference: string[] | undefined): Promise<Row> {
  const t0 = performance.now();
  const args = [...r.args(files), suite];
  const out = await exec(command, args, suiteEnv(), RUN_TIMEOUT_MS);
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  const line = out.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  const parsed = line ? (JSON.parse(line.slice('RESULT '.length)) as SuiteResult) : undefined;
  const passed = parsed?.results.filter((c) => c.ok).length ?? 0;
  const row: Row = {
    id: r.id,
    runtime: parsed?.runtime ?? '?',
    kernels: parsed ? parsed.kernels.join(', ') : '?',
    checks: parsed ? `${passed}/${parsed.results.length}` : '-',
    seconds,
    result: 'pass',
  };
  const problems: string[] = [];
  if (out.timedOut) problems.push(`no result after ${RUN_TIMEOUT_MS / 1000} s`);
  else if (out.code !== 0) problems.push(`exit status ${out.code}`);
  if (!parsed) problems.push('no RESULT line');
  else if (passed !== parsed.results.length) problems.push(`${parsed.results.length - passed} check(s) failed`);
  // Where the native addon can load, a runtime must find the kernels the current Node finds.
  if (parsed && r.native && reference && parsed.kernels.join() !== reference.join()) {
    problems.push(`kernels ${parsed.kernels.join(', ')}; the current node has ${reference.join(', ')}`);
  }
  if (problems.length > 0) {
    row.result = 'FAIL';
    row.why = problems.join('; ');
    console.log(`\n${r.id}: ${command} ${args.map((a) => path.relative(repo, a) || a).join(' ')}`);
    console.log(
      out.stdout
        .split('\n')
        .filter((l) => !l.startsWith('RESULT '))
        .join('\n'),
    );
    if (out.stderr.trim()) console.log(`stderr:\n${lastLines(out.stderr, 30)}`);
  }
  return row;
}

function printTable(rows: Row[]): void {
  const head = ['runtime', 'version', 'kernels', 'checks', 's', 'result'];
  const body = rows.map((r) => [
    r.id,
    r.runtime,
    r.kernels,
    r.checks,
    r.seconds,
    r.result + (r.why ? `: ${r.why}` : ''),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
}

async function main(argv: string[]): Promise<number> {
  const t0 = performance.now();
  const unknown = argv.filter((a) => !RUNTIMES.some((r) => r.id === a));
  if (unknown.length > 0) {
    console.error(`@x/runtimes: unknown runtime ${unknown.join(', ')}; known: ${RUNTIMES.map((r) => r.id).join(', ')}`);
    return 2;
  }
  if (!existsSync(path.join(repo, 'packages/luks/dist/index.js'))) {
    console.error('@x/runtimes: the packages are not built: run npm run build first');
    return 1;
  }
  const chosen = argv.length > 0 ? RUNTIMES.filter((r) => argv.includes(r.id)) : RUNTIMES;

  // Fetch every download at once (the network, not the CPU, is the limit), each package@version once.
  const downloads = new Map<string, Promise<Fetched>>();
  for (const r of chosen) {
    if (r.from === 'current') continue;
    const key = `${r.from.package}@${r.from.version}`;
    if (!downloads.has(key)) downloads.set(key, fetchRuntime(r.from));
  }
  for (const [key, p] of downloads) {
    const f = await p;
    if ('error' in f) console.log(`${key}: ${f.error}`);
    else
      console.log(
        `${key}: ${f.cached ? 'cached' : `fetched in ${f.seconds.toFixed(1)} s`} (${path.relative(repo, f.bin)})`,
      );
  }

  const rows: Row[] = [];
  let reference: string[] | undefined;
  for (const r of chosen) {
    let command = process.execPath;
    if (r.from !== 'current') {
      const f = await downloads.get(`${r.from.package}@${r.from.version}`)!;
      if ('error' in f) {
        rows.push({
          id: r.id,
          runtime: `${r.from.package}@${r.from.version}`,
          kernels: '-',
          checks: '-',
          seconds: '-',
          result: CI || f.fatal ? 'FAIL' : 'skipped',
          why: `${f.error}${CI && !f.fatal ? ' (CI=true: every runtime is required)' : ''}`,
        });
        continue;
      }
      command = f.bin;
    }
    const row = await runSuite(r, command, reference);
    if (r.from === 'current' && row.result === 'pass') reference = row.kernels.split(', ');
    rows.push(row);
  }

  printTable(rows);
  const failed = rows.filter((r) => r.result === 'FAIL').length;
  const skipped = rows.filter((r) => r.result === 'skipped').length;
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `\ntest:runtimes: ${rows.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped, ${seconds} s` +
      (skipped > 0 ? ' (skipped runtimes are failures under CI=true)' : ''),
  );
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
