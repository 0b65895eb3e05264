#!/usr/bin/env node
/**
 * `npm run test:breaks`: shows that the arm64 tests catch a wrong kernel (the shared runner of
 * @x/native-build, breaks.mjs): each patch in breaks/ is built into build/Release/ and the
 * same arm64 suite as `npm run test:arm64` runs under qemu, and must fail; an unpatched control must pass.
 * Prints a Markdown table (pasted into README.md) and exits non-zero if any break went unnoticed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBreaks } from '@x/native-build/breaks';
import { buildArm64 } from './build-arm64.mjs';
import { prepare, runUnderQemu } from './test-arm64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

prepare();
const unnoticed = runBreaks({
  name: '@x/aes-native-arm64',
  root,
  out: 'x-aes-native-arm64.node',
  build: (srcRoot, out) => buildArm64({ srcRoot, out }),
  test() {
    const { status, output } = runUnderQemu({}, { quiet: true });
    const count = (k) => Number(output.match(new RegExp(`ℹ ${k} (\\d+)`))?.[1] ?? Number.NaN);
    const failed = [
      ...new Set(
        output
          .split('\n')
          .filter((l) => /^\s*✖/.test(l))
          .map((l) =>
            l
              .trim()
              .replace(/^✖\s*/, '')
              .replace(/\s*\([\d.]+m?s\)$/, ''),
          ),
      ),
    ];
    return { status, pass: count('pass'), fail: count('fail'), failed };
  },
});
process.exit(unnoticed === 0 ? 0 : 1);
