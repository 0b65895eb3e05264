/**
 * `npm run test:release`: what users install is what we test.
 *
 * 1. A copy of the workspaces is versioned by `changeset version` and published by `changeset publish`
 *    to Verdaccio on 127.0.0.1 (src/stage.ts, src/registry.ts): every public package, no private one.
 * 2. Every published tarball is checked as it is: attw (esm-only profile) and publint clean, LICENSE,
 *    repository, homepage, bugs, no install script and no binding.gyp (npm would compile it).
 * 3. In clean projects outside the repository, packages are installed by name with npm's defaults
 *    (src/project.ts): `@x/cbc`, `@x/xts`, `@x/luks` and `@x/cli` each on their own, with no warning and
 *    `native-x64` the first kernel on x86-64 Linux; the same without a usable prebuild (the CPU given as
 *    arm64, and the prebuilds/ folder removed) falls back to `wasm-simd128`, as quietly.
 * 4. Every README example (src/examples.ts) runs in a clean project of its own, after installing exactly
 *    the packages its first line names.
 *
 * Prints one line per check and ends with `N passed, N failed`; exit status 1 on a failure. The registry,
 * the copy and the projects live in one temporary folder, removed at the end and on SIGINT/SIGTERM.
 *
 * Usage: npm run test:release [-- --keep] [-- --only examples|install|tarballs]
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Example, findExamples } from './examples.js';
import { alarming, exec, Project, userEnv } from './project.js';
import { type Registry, startRegistry } from './registry.js';
import { type Manifest, readManifest, run, stageCopy, type Workspace, write } from './stage.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const { values: flags } = parseArgs({
  options: { keep: { type: 'boolean', default: false }, only: { type: 'string' } },
});
const SAMPLE = path.join(repo, 'packages/luks/test/fixtures/sample-luks2.img');
const SAMPLE_PASSPHRASE = 'open sesame, little volume';
/** The SHA-256 of the sample volume's plaintext (tools/runtimes/smoke/vectors.json, sampleLuks2). */
const SAMPLE_PLAIN_SHA256 = (
  JSON.parse(readFileSync(path.join(repo, 'tools/runtimes/smoke/vectors.json'), 'utf8')) as {
    sampleLuks2: { payloadSha256: string };
  }
).sampleLuks2.payloadSha256;
const X64_LINUX = process.platform === 'linux' && process.arch === 'x64';

const work = mkdtempSync(path.join(tmpdir(), 'x-release-'));
let registry: Registry | undefined;
let cleaned = false;
async function cleanUp(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await registry?.stop();
  if (flags.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the registry and removing ${work}`);
    void cleanUp().then(() => process.exit(130));
  });
}

let passed = 0;
let failed = 0;
/** One check: prints `ok` or `FAIL` with the reason; never throws. */
async function check(name: string, body: () => Promise<void> | void): Promise<void> {
  const started = Date.now();
  try {
    await body();
    passed++;
    console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed++;
    const message = error instanceof Error ? error.message : String(error);
    console.log(`FAIL ${name}\n${message.replace(/^/gm, '     ')}`);
  }
}

function expect(ok: boolean, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

function expectClean(what: string, outcome: { code: number | null; stdout: string; stderr: string }): void {
  expect(
    outcome.code === 0,
    `${what} exited with ${outcome.code}:\n${outcome.stderr.trim()}\n${outcome.stdout.trim()}`,
  );
  const lines = alarming(outcome);
  expect(lines.length === 0, `${what} printed:\n${lines.join('\n')}`);
}

/** Runs `f` over `items`, `width` at a time, in order of start. */
async function pool<T>(items: T[], width: number, f: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await f(items[next++]);
    }),
  );
}

// ─── 1. Version and publish ────────────────────────────────────────────────────────────────────────────

const stage = path.join(work, 'stage');
let published: Workspace[] = [];

async function release(): Promise<void> {
  const before = stageCopy(repo, stage);
  registry = await startRegistry(path.join(work, 'registry'));
  const reg = registry;
  const env = {
    ...process.env,
    NPM_CONFIG_USERCONFIG: write(path.join(work, 'publish.npmrc'), reg.npmrc(true)),
    npm_config_registry: reg.url,
  };
  await check('changeset version: every public package versioned, no private one', () => {
    run(repo, stage, 'changeset', ['version'], env);
    const after = new Map(before.map(({ dir }) => [dir, readManifest(path.join(stage, dir))]));
    const problems: string[] = [];
    for (const { dir, manifest } of before) {
      const now = after.get(dir) as Manifest;
      if (manifest.private && now.version !== manifest.version) {
        problems.push(`${manifest.name} is private but was versioned ${manifest.version} → ${now.version}`);
      }
      if (!manifest.private && now.version === manifest.version)
        problems.push(`${manifest.name} stayed at ${now.version}`);
      // The first release is 0.1.0 for every package (the README says so).
      if (!manifest.private && manifest.version === '0.0.0' && now.version !== '0.1.0') {
        problems.push(`${manifest.name}: first release ${now.version}, not 0.1.0`);
      }
      for (const field of manifest.private ? [] : (['dependencies', 'optionalDependencies'] as const)) {
        for (const [name, range] of Object.entries(now[field] ?? {})) {
          const dep = [...after.values()].find((m) => m.name === name);
          if (dep && !dep.private && range !== `^${dep.version}`) {
            problems.push(`${now.name}'s ${field}: ${name}@${range}, not ^${dep.version}`);
          }
        }
      }
    }
    expect(problems.length === 0, problems.join('\n'));
    published = before
      .filter((w) => !w.manifest.private)
      .map(({ dir }) => ({ dir, manifest: after.get(dir) as Manifest }));
    console.log(`     ${published.map((w) => `${w.manifest.name}@${w.manifest.version}`).join(', ')}`);
  });
  await check('changeset publish: every public package on the registry', () => {
    run(repo, stage, 'changeset', ['publish', '--no-git-tag'], env);
    const missing = published.filter(({ manifest }) => !existsSync(tarball(manifest)));
    expect(missing.length === 0, `not published: ${missing.map((w) => w.manifest.name).join(', ')}`);
  });
}

/** Where Verdaccio keeps a published tarball. */
function tarball(manifest: Manifest): string {
  const base = manifest.name.split('/')[1];
  return path.join(registry?.storage ?? '', manifest.name, `${base}-${manifest.version}.tgz`);
}

// ─── 2. The tarballs as published ──────────────────────────────────────────────────────────────────────

async function tarballs(): Promise<void> {
  const license = readFileSync(path.join(repo, 'LICENSE'), 'utf8');
  const root = readManifest(repo) as Manifest & { repository?: { url: string } };
  await pool(published, 2, async ({ dir, manifest }) => {
    const tgz = tarball(manifest);
    await check(`${manifest.name}: manifest, LICENSE, nothing npm would compile`, async () => {
      const list = await exec('tar', ['-tzf', tgz], { cwd: work, env: process.env });
      const files = list.stdout.split('\n').map((f) => f.replace(/^package\//, ''));
      const read = async (file: string) =>
        (await exec('tar', ['-xOzf', tgz, `package/${file}`], { cwd: work, env: process.env })).stdout;
      const m = JSON.parse(await read('package.json')) as Manifest & {
        repository?: { type?: string; url?: string; directory?: string };
        homepage?: string;
        bugs?: { url?: string };
        publishConfig?: { access?: string };
        engines?: { node?: string };
      };
      const problems: string[] = [];
      if ((await read('LICENSE')) !== license) problems.push('no LICENSE, or not the repository’s');
      if (m.repository?.type !== 'git' || !m.repository.url || m.repository.directory !== dir) {
        problems.push(`repository: ${JSON.stringify(m.repository)}`);
      }
      if (root.repository && m.repository?.url !== root.repository.url) problems.push('repository.url ≠ the root’s');
      if (!m.homepage) problems.push('no homepage');
      if (!m.bugs?.url) problems.push('no bugs');
      if (m.publishConfig?.access !== 'public') problems.push('publishConfig.access is not public');
      if (m.engines?.node !== '>=20') problems.push(`engines.node: ${m.engines?.node}`);
      for (const s of ['preinstall', 'install', 'postinstall']) if (m.scripts?.[s]) problems.push(`scripts.${s}`);
      if (files.includes('binding.gyp')) problems.push('binding.gyp (npm would run node-gyp rebuild)');
      // npm decides from the registry's metadata, before it downloads a tarball, whether a package fits
      // this platform: it must say what the tarball's package.json says.
      const reg = registry as Registry;
      const packument = (await (await fetch(`${reg.url}${manifest.name.replace('/', '%2f')}`)).json()) as {
        versions: Record<string, Record<string, unknown>>;
      };
      const meta = packument.versions[manifest.version] ?? {};
      for (const field of [
        'os',
        'cpu',
        'libc',
        'exports',
        'imports',
        'dependencies',
        'optionalDependencies',
        'engines',
      ]) {
        if (JSON.stringify(meta[field]) !== JSON.stringify(m[field])) {
          problems.push(
            `the registry's ${field} ${JSON.stringify(meta[field])} ≠ the tarball's ${JSON.stringify(m[field])}`,
          );
        }
      }
      expect(problems.length === 0, problems.join('\n'));
    });
    await check(`${manifest.name}: attw --profile esm-only`, async () => {
      const r = await exec(
        path.join(repo, 'node_modules/.bin/attw'),
        [tgz, '--profile', 'esm-only', '--format', 'ascii'],
        {
          cwd: work,
          env: process.env,
        },
      );
      expect(r.code === 0, r.stdout.trim() || r.stderr.trim());
    });
    await check(`${manifest.name}: publint`, async () => {
      const r = await exec(path.join(repo, 'node_modules/.bin/publint'), ['run', tgz, '--strict'], {
        cwd: work,
        env: process.env,
      });
      const said = `${r.stdout}${r.stderr}`.trim();
      expect(r.code === 0 && !/Suggestions?:|Warnings?:|Errors?:/.test(said), said);
    });
  });
}

// ─── 3. Installs by name, with npm's defaults ──────────────────────────────────────────────────────────

let projects = 0;
function newProject(): Project {
  const reg = registry as Registry;
  const userconfig = path.join(work, 'empty.npmrc');
  if (!existsSync(userconfig)) write(userconfig, '');
  return Project.create(path.join(work, 'projects', String(++projects)), reg.npmrc(), userEnv(repo, userconfig));
}

/** The kernel names the project's @x/aes-kernels lists, best first. */
async function kernelsIn(project: Project): Promise<string[]> {
  const r = await project.node([
    '--input-type=module',
    '-e',
    "const { kernels } = await import('@x/aes-kernels'); console.log(JSON.stringify(kernels()));",
  ]);
  expect(r.code === 0 && r.stderr.trim() === '', `kernels(): exit ${r.code}\n${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

/** CBC decryption of 64 sectors through the project's @x/cbc, against node:crypto. */
async function cbcAgreesIn(project: Project): Promise<void> {
  const script = `
    import { createDecipheriv, randomBytes } from 'node:crypto';
    import { newCipher } from '@x/cbc';
    const key = randomBytes(32), ivs = randomBytes(16 * 64), disk = randomBytes(512 * 64);
    const plain = new Uint8Array(disk.length);
    const cipher = newCipher(key);
    cipher.decryptSectors(plain, disk, 512, ivs);
    for (let s = 0; s < 64; s++) {
      const d = createDecipheriv('aes-256-cbc', key, ivs.subarray(16 * s, 16 * s + 16)).setAutoPadding(false);
      const want = Buffer.concat([d.update(disk.subarray(512 * s, 512 * s + 512)), d.final()]);
      if (!want.equals(plain.subarray(512 * s, 512 * s + 512))) throw new Error('sector ' + s + ' differs from node:crypto');
    }
    console.log(cipher.kernel ?? '');`;
  const r = await project.node(['--input-type=module', '-e', script]);
  expect(r.code === 0 && r.stderr.trim() === '', `CBC against node:crypto: exit ${r.code}\n${r.stderr}`);
}

/** `import { kernel, kernelOn, paths, nativeCallCount } from '@x/aes-native-x64'` in an ES module. */
async function nativeNamedExportsIn(project: Project): Promise<void> {
  const script = `
    import { kernel, kernelOn, nativeCallCount, paths } from '@x/aes-native-x64';
    if (!kernel.isAvailable() || !kernelOn('aesni').isAvailable()) throw new Error('native-x64 unavailable');
    console.log(JSON.stringify({ paths: paths().length, calls: nativeCallCount() }));`;
  const r = await project.node(['--input-type=module', '-e', script]);
  expect(r.code === 0 && r.stderr.trim() === '', `ESM named exports of @x/aes-native-x64: exit ${r.code}\n${r.stderr}`);
}

async function installs(): Promise<void> {
  const native = X64_LINUX ? 'native-x64' : undefined;
  await pool(['@x/cbc', '@x/xts', '@x/luks', '@x/cli'], 2, async (name) => {
    await check(`npm install ${name}: no warning, nothing compiled, ${native ?? 'the best kernel'} first`, async () => {
      const project = newProject();
      expectClean(`npm install ${name}`, await project.install([name]));
      const installed = readdirSync(path.join(project.dir, 'node_modules/@x'));
      expect(
        !installed.some((p) => existsSync(path.join(project.dir, 'node_modules/@x', p, 'build'))),
        'a build/ folder',
      );
      const kernels = await kernelsIn(project);
      if (native) expect(kernels[0] === native, `kernels(): ${JSON.stringify(kernels)}`);
      if (name === '@x/cbc') {
        await cbcAgreesIn(project);
        if (native) await nativeNamedExportsIn(project);
      }
      if (name === '@x/cli') {
        copyFileSync(SAMPLE, path.join(project.dir, 'sample-luks2.img'));
        write(path.join(project.dir, 'pass'), SAMPLE_PASSPHRASE);
        const script = write(
          path.join(project.dir, 'cli.sh'),
          'npx --no -- x-disk --version\nnpx --no x-luks dump sample-luks2.img >/dev/null\nnpx --no x-disk decrypt sample-luks2.img plain --passphrase-file pass\n',
        );
        const r = await project.bash(script);
        expect(r.code === 0, `x-disk --version / x-luks dump / x-disk decrypt: exit ${r.code}\n${r.stderr}`);
        // the bundled command (dist/bin) finds the native kernel installed beside it, and knows its version
        if (native) expect(r.stderr.includes(`kernel ${native}`), `x-disk decrypt's kernel: ${r.stderr}`);
        expect(/^x-disk \d+\.\d+\.\d+$/m.test(r.stdout), `x-disk --version: ${r.stdout}`);
        const sha = createHash('sha256')
          .update(readFileSync(path.join(project.dir, 'plain')))
          .digest('hex');
        expect(sha === SAMPLE_PLAIN_SHA256, `the plaintext's SHA-256 is ${sha}`);
      }
    });
  });
  if (!X64_LINUX) {
    console.log('skip the fallback installs: they simulate a machine without a prebuild from linux-x64');
    return;
  }
  await check('npm install @x/cbc --cpu=arm64 (no prebuild for this CPU): quiet, wasm-simd128 first', async () => {
    const project = newProject();
    expectClean('npm install @x/cbc --cpu=arm64', await project.install(['@x/cbc', '--cpu=arm64']));
    const x = path.join(project.dir, 'node_modules/@x');
    expect(!existsSync(path.join(x, 'aes-native-x64')), '@x/aes-native-x64 was installed for --cpu=arm64');
    expect(existsSync(path.join(x, 'aes-native-arm64')), '@x/aes-native-arm64 was not installed for --cpu=arm64');
    const kernels = await kernelsIn(project);
    expect(kernels[0] === 'wasm-simd128' && !kernels.some((k) => k.startsWith('native')), JSON.stringify(kernels));
    await cbcAgreesIn(project);
  });
  await check('npm install @x/cbc, then its prebuilds/ removed: quiet, wasm-simd128 first', async () => {
    const project = newProject();
    expectClean('npm install @x/cbc', await project.install(['@x/cbc']));
    rmSync(path.join(project.dir, 'node_modules/@x/aes-native-x64/prebuilds'), { recursive: true });
    const kernels = await kernelsIn(project);
    expect(kernels[0] === 'wasm-simd128' && !kernels.includes('native-x64'), JSON.stringify(kernels));
    await cbcAgreesIn(project);
  });
}

// ─── 4. The README examples ────────────────────────────────────────────────────────────────────────────

async function examples(): Promise<void> {
  const all: Example[] = findExamples(repo);
  expect(all.length > 0, 'no README example found');
  await pool(all, 2, async (example) => {
    await check(`${example.file}:${example.line} (npm install ${example.packages.join(' ')})`, async () => {
      const project = newProject();
      expectClean(`npm install ${example.packages.join(' ')}`, await project.install(example.packages));
      copyFileSync(SAMPLE, path.join(project.dir, 'sample-luks2.img'));
      const file = write(path.join(project.dir, example.lang === 'js' ? 'example.mjs' : 'example.sh'), example.code);
      const r = example.lang === 'js' ? await project.node([file]) : await project.bash(file);
      expect(r.code === 0, `exit ${r.code}\n${r.stderr.trim()}\n${r.stdout.trim()}`);
    });
  });
}

// ─── main ──────────────────────────────────────────────────────────────────────────────────────────────

const started = Date.now();
try {
  console.log(`test:release in ${work} (Node ${process.versions.node}, ${process.platform}-${process.arch})`);
  await release();
  if (published.length > 0 && registry) {
    if (!flags.only || flags.only === 'tarballs') await tarballs();
    if (!flags.only || flags.only === 'install') await installs();
    if (!flags.only || flags.only === 'examples') await examples();
  }
} catch (error) {
  failed++;
  console.log(`FAIL ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await cleanUp();
}
console.log(`test:release: ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
