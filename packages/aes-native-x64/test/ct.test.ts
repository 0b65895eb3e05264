/**
 * Constant time, checked on the compiled C: test/ct/ct.c calls every entry of every path this CPU runs
 * (AES blocks, CBC, XTS, CTR, POLYVAL; Adiantum/HPolyC; the Elephant diffusers, SIMD and portable C) on
 * keys and data that valgrind's memcheck treats as undefined, built with the release flags (-O3) plus -g.
 * Memcheck reports every branch, conditional move and memory address computed from them; the run must
 * report none. The same program built with -DCT_CONTROL branches on a secret byte once, and memcheck must
 * report exactly that line: the check sees what it is looking for. Valgrind presents its own CPU to the
 * program (AVX2 at most: no VAES, no AVX-512), so the paths checked are AES-NI with the AVX2 Adiantum
 * and Elephant code and the portable C; the VAES path is not reached under it, on any machine.
 * Needs valgrind and its header (Debian: valgrind); without them this file says so and skips, except
 * under CI=true, where .ci/run installs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { CC, CFLAGS, cannotBuild } from '../scripts/build-x64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const glue = path.join(root, '..', 'aes-native-addon', 'native');
const source = path.join(root, 'test', 'ct', 'ct.c');

/** Why the check cannot run here, or undefined. */
function missing(): string | undefined {
  const why = (cannotBuild as () => string | undefined)();
  if (why !== undefined) return why;
  if (spawnSync('sh', ['-c', 'command -v valgrind']).status !== 0)
    return 'no valgrind (Debian: apt-get install valgrind)';
  if (!existsSync('/usr/include/valgrind/memcheck.h'))
    return 'no valgrind/memcheck.h (Debian: apt-get install valgrind)';
  return undefined;
}

const why = missing();
if (why !== undefined && process.env.CI === 'true')
  throw new Error(`@x/aes-native-x64: the constant-time check cannot run: ${why}`);
const dir = mkdtempSync(path.join(tmpdir(), 'x-aes-ct-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Builds ct.c (with `defines`) and runs it under memcheck: its exit status, stdout and memcheck's report. */
function run(defines: string[]) {
  const out = path.join(dir, `ct${defines.join('')}`);
  const flags = (CFLAGS as string[]).filter((f) => f !== '-fvisibility=hidden' && f !== '-fPIC');
  const cc = spawnSync(CC as string, [...flags, '-g', ...defines, `-I${glue}`, source, '-o', out], {
    encoding: 'utf8',
  });
  expect(cc.status, cc.stderr).toBe(0);
  const r = spawnSync('valgrind', ['--tool=memcheck', '--error-exitcode=9', '-q', out], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, report: r.stderr };
}

describe.skipIf(why !== undefined)(`constant time under valgrind memcheck${why ? ` (skipped: ${why})` : ''}`, () => {
  it('no branch, conditional move or address depends on a key or on data, on any path this CPU runs', () => {
    const { status, stdout, report } = run([]);
    expect(report).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^path aesni: checked/m);
    expect(stdout).not.toMatch(/^0 paths/m);
  });

  it('the control: a branch on a secret byte is reported, at its line', () => {
    const { status, report } = run(['-DCT_CONTROL']);
    expect(status).toBe(9);
    expect(report).toMatch(/Conditional jump or move depends on uninitialised value/);
    expect(report).toMatch(/at 0x[0-9A-F]+: main \(ct\.c:\d+\)/);
    expect(report.match(/Conditional jump/g)).toHaveLength(1);
  });
});
