/**
 * The packages as users get them: `npm pack` of @x/aes-keyschedule, @x/aes-kernel-contract (the types the
 * native glue derives its own from), @x/aes-native-addon and the two native kernels, then an install of the
 * x64 tarballs into an empty project (node-gyp-build comes from the npm registry) with npm's defaults,
 * scripts on: nothing may compile, and the prebuilt binary in the tarball
 * must load, choose its path and encrypt. native-arm64 cannot be installed on x64 (its manifest says
 * cpu arm64), so its tarball is checked by its contents. The whole release (a registry, every package, the
 * README examples) is `npm run test:release`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
// Where the binary could not be built (no C compiler: the kernel is absent) there is nothing to pack,
// except under CI, which builds it.
const built = existsSync(
  path.join(import.meta.dirname, '..', 'prebuilds', 'linux-x64', 'x-aes-native-x64.napi.glibc.node'),
);
const linuxX64 = process.platform === 'linux' && process.arch === 'x64' && (built || process.env.CI === 'true');
const dir = mkdtempSync(path.join(tmpdir(), 'x-aes-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm pack` of a workspace into `dir`: the tarball's path and its file list. */
function pack(workspace: string): { file: string; files: string[]; manifest: Record<string, unknown> } {
  const out = execFileSync('npm', ['pack', '--workspace', workspace, '--pack-destination', dir, '--json'], {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const file = path.join(dir, info.filename);
  const manifest = JSON.parse(execFileSync('tar', ['-xOzf', file, 'package/package.json'], { encoding: 'utf8' }));
  return { file, files: info.files.map((f) => f.path), manifest };
}

describe.runIf(linuxX64)('packed and installed on their own', { timeout: 300_000 }, () => {
  it('the native-x64 tarball holds the linux-x64 binary, and nothing npm would compile', () => {
    const { files, manifest } = pack('@x/aes-native-x64');
    expect(files).toContain('prebuilds/linux-x64/x-aes-native-x64.napi.glibc.node');
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'dist/index.cjs']));
    // binding.gyp without an install script makes npm run `node-gyp rebuild` on install.
    expect(files).not.toContain('binding.gyp');
    expect(manifest.scripts).not.toHaveProperty('install');
    expect(manifest.scripts).not.toHaveProperty('preinstall');
    expect(manifest).toMatchObject({ cpu: ['x64'], os: ['linux'], libc: ['glibc'] });
    expect(manifest).not.toHaveProperty('gypfile');
    expect(manifest.dependencies).toHaveProperty('@x/aes-native-addon');
    expect(manifest.dependencies).toHaveProperty('@x/aes-kernel-contract');
  });

  it('the native-arm64 tarball holds the linux-arm64 binary and depends on the shared glue', () => {
    const { files, manifest } = pack('@x/aes-native-arm64');
    expect(files).toContain('prebuilds/linux-arm64/x-aes-native-arm64.napi.glibc.node');
    expect(files).not.toContain('binding.gyp');
    expect(manifest.scripts).not.toHaveProperty('install');
    expect(manifest).toMatchObject({ cpu: ['arm64'], os: ['linux'], libc: ['glibc'] });
    expect(manifest.dependencies).toHaveProperty('@x/aes-native-addon');
  });

  it("installs into an empty project with npm's defaults, and runs FIPS 197 C.1 and an Adiantum vector on the best path", () => {
    const tarballs = ['@x/aes-keyschedule', '@x/aes-kernel-contract', '@x/aes-native-addon', '@x/aes-native-x64'].map(
      (w) => pack(w).file,
    );
    const project = path.join(dir, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(path.join(project, 'package.json'), '{ "name": "p", "private": true }\n');
    const npm = spawnSync('npm', ['install', ...tarballs], { cwd: project, encoding: 'utf8' });
    expect(npm.status, npm.stderr).toBe(0);
    expect(`${npm.stdout}${npm.stderr}`).not.toMatch(/gyp|warn/i);
    const script = `
      import { createRequire } from 'node:module';
      import { expandKey } from '@x/aes-keyschedule';
      const require = createRequire(process.cwd() + '/');
      const { kernel, paths } = require('@x/aes-native-x64');
      const aes = kernel.load(expandKey(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')));
      const out = new Uint8Array(16);
      aes.encryptBlocks(out, Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
      // The native Adiantum core ships in the same binary: Linux testmgr's adiantum_xchacha12_aes_tv_template[1].
      const hex = (s) => Buffer.from(s, 'hex');
      const ke = new Uint8Array(32);
      const hbsh = kernel.loadHbsh(hex('362b5797f85dcd995f1a5a441d920f27cc16d72b856399d3ba96a1dbd26068da'), 12, false, ke);
      const aes256 = kernel.load(expandKey(ke));
      const adiantum = new Uint8Array(31);
      hbsh.crypt(adiantum, hex('5ea8681985981223260accdb0a04b9df4db3487bb0e3c819435a4606942df2'), 31,
        hex('ef5869b12c5e9a4724c1b169e112938f433d6d00db5ed8d9129afed9ff2daac4'), 32, aes256, false);
      console.log(JSON.stringify({ path: kernel.path, paths: paths(), out: Buffer.from(out).toString('hex'),
        adiantum: Buffer.from(adiantum).toString('hex'), from: require.resolve('@x/aes-native-x64') }));`;
    const r = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }),
    );
    expect(r.out).toBe('69c4e0d86a7b0430d8cdb78070b4c55a');
    expect(r.adiantum).toBe('c7c6f1738fc4ff4a39be78be8d28c8894663e70c7d87e84ec9187bbe186050');
    expect(r.from.startsWith(project)).toBe(true);
    expect(r.path).toBe(r.paths.find((p: { available: boolean }) => p.available).name);
  });
});
