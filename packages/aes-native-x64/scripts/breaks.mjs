#!/usr/bin/env node
/**
 * `npm run test:breaks` (and the end of `npm test`): shows that the kernel tests catch a wrong kernel
 * (the shared runner, @x/native-build's breaks.mjs): each patch in breaks/ is built into
 * build/Release/ and test/kernel.test.ts (the kernel conformance suite on both paths) and test/hbsh.test.ts
 * (the native Adiantum/HPolyC core: known answers, AVX2 against portable C) and test/elephant.test.ts
 * (the Elephant diffusers, the same way) run against it, and must fail; an unpatched control must pass. Prints a Markdown table (pasted into README.md) and exits
 * non-zero if any break went unnoticed. Where the binary cannot be built here (no compiler, not
 * linux-x64) it says so and passes, except under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBreaks } from '@x/native-build/breaks';
import { buildX64, cannotBuild } from './build-x64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const why = cannotBuild();
if (why !== undefined) {
  console.log(`@x/aes-native-x64: breaks not run: ${why}`);
  process.exit(process.env.CI === 'true' ? 1 : 0);
}

// The VAES path runs where the CPU has VAES, VPCLMULQDQ and AVX2 (the C's cpu_has_vaes), the avx512 path
// where it also has AVX-512 F, VL and BW (cpu_has_avx512); elsewhere their breaks cannot be reached by any
// test, and are skipped with a line that says so.
const flags = new Set(
  readFileSync('/proc/cpuinfo', 'utf8')
    .match(/^flags\s*:(.*)$/m)?.[1]
    .trim()
    .split(/\s+/) ?? [],
);
const hasVaes = ['aes', 'avx2', 'vaes', 'vpclmulqdq'].every((f) => flags.has(f));
const hasAvx512 = hasVaes && ['avx512f', 'avx512vl', 'avx512bw'].every((f) => flags.has(f));
const hasAvx2 = flags.has('avx2');

const unnoticed = runBreaks({
  name: '@x/aes-native-x64',
  root,
  out: 'x-aes-native-x64.node',
  build: (srcRoot, out) => buildX64({ srcRoot, out }),
  unrunnable: (patch) => {
    if (patch.startsWith('avx512-') && !hasAvx512) {
      return 'this CPU has no AVX-512 (F, VL, BW) with VAES and VPCLMULQDQ, so the avx512 path never runs';
    }
    if (patch.startsWith('vaes-') && !hasVaes) {
      return 'this CPU has no VAES with VPCLMULQDQ and AVX2, so the VAES path never runs';
    }
    if (patch.startsWith('avx2-') && !hasAvx2) {
      return 'this CPU has no AVX2, so the AVX2 HBSH primitives and Elephant diffuser never run';
    }
    return undefined;
  },
  test() {
    const r = spawnSync(
      'npx',
      [
        '--no-install',
        'vitest',
        'run',
        'test/kernel.test.ts',
        'test/hbsh.test.ts',
        'test/elephant.test.ts',
        '--reporter=verbose',
      ],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    );
    const output = `${r.stdout}\n${r.stderr}`;
    const tests = output.match(/Tests\s+(?:(\d+) failed)?\s*\|?\s*(?:(\d+) passed)?/);
    const failed = [
      ...new Set(
        output
          .split('\n')
          .filter((l) => /^\s*[×✗]/.test(l))
          .map((l) => l.trim().slice(2)),
      ),
    ];
    return { status: r.status ?? 1, pass: Number(tests?.[2] ?? 0), fail: Number(tests?.[1] ?? 0), failed };
  },
});
process.exit(unnoticed === 0 ? 0 : 1);
