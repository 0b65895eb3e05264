// `npx x-luks` in the checkout after `npm ci && npm run build`: npm links a bin only if its file exists
// when `npm ci` runs, so @x/cli's bins are committed shims (packages/cli/bin/*.cjs) that load the bundled
// commands of dist/bin/.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cli = path.join(repo, 'packages/cli');
const COMMANDS = ['x-luks', 'x-disk'];
const scratch = mkdtempSync(path.join(tmpdir(), 'x-runtimes-bin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("@x/cli's commands in the checkout", () => {
  it('bin entries name the committed, executable shims, and npm links them', () => {
    const { bin } = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const c of COMMANDS) {
      expect(bin[c]).toBe(`bin/${c}.cjs`);
      const file = path.join(cli, bin[c]);
      expect(statSync(file).mode & 0o111).not.toBe(0);
      // node_modules/.bin/<command> is made by `npm ci`/`npm install`; it must be the shim, not dist/.
      expect(realpathSync(path.join(repo, 'node_modules/.bin', c))).toBe(realpathSync(file));
    }
  });

  it.each(COMMANDS)('npx %s --help, in the checkout, runs the built command (--no: never the registry)', (c) => {
    const r = spawnSync('npx', ['--no', '--', c, '--help'], { cwd: repo, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^usage:\\n  ${c} dump IMAGE`));
    expect(r.status).toBe(0);
  });

  it.each(COMMANDS)('%s without dist/ says to build first, in one line, exit status 1', (c) => {
    const dir = path.join(scratch, c, 'bin');
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(cli, 'bin', `${c}.cjs`), path.join(dir, `${c}.cjs`));
    const r = spawnSync(process.execPath, [path.join(dir, `${c}.cjs`), '--help'], { encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${c}: @x/cli is not built (no dist/bin/${c}.cjs): run npm run build first\n`);
    expect(r.status).toBe(1);
  });

  it("npm pack of @x/cli holds the shims and the built commands they load ('files')", () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json'], {
      cwd: cli,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    for (const c of COMMANDS)
      expect(files).toEqual(expect.arrayContaining([`bin/${c}.cjs`, `dist/bin/${c}.cjs`, `dist/${c}-main.js`]));
  });
});
