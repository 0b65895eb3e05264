/**
 * `@x/adiantum/portable` leaves WebAssembly out of a browser bundle (neither the AES kernel's module nor the core's), and gives the same bytes as `@x/adiantum`
 * ({@link portableEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { portableEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newAdiantum, newHpolyc } from '../src/index.js';
import { kernels, newAdiantum as portableAdiantum, newHpolyc as portableHpolyc } from '../src/portable.js';

const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const tweaks = new Uint8Array(64).map((_, i) => i);
const src = new Uint8Array(8192).map((_, i) => i * 13);

portableEntryTests(
  { describe, it },
  {
    package: '@x/adiantum',
    dir: import.meta.dirname,
    runs: 'the portable kernel and core',
    kernels,
    same: () =>
      (
        [
          [portableAdiantum, newAdiantum],
          [portableHpolyc, newHpolyc],
        ] as const
      ).map(([portableOf, bestOf]) => {
        const p = portableOf(key, { rounds: 20 });
        const portable = new Uint8Array(8192),
          best = new Uint8Array(8192);
        p.encryptSectors(portable, src, 4096, tweaks);
        bestOf(key, { rounds: 20 }).encryptSectors(best, src, 4096, tweaks);
        return { kernel: p.kernel, portable, best };
      }),
    forceWasm: () => portableAdiantum(key, { kernel: 'wasm-simd128' }),
  },
);
