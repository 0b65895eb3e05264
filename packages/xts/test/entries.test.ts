/**
 * `@x/xts/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/xts`
 * ({@link portableEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { portableEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newXts } from '../src/index.js';
import { kernels, newXts as newPortable } from '../src/portable.js';

const key = new Uint8Array(64).map((_, i) => i * 7 + 1);
const tweaks = new Uint8Array(32).map((_, i) => i);
const src = new Uint8Array(1024).map((_, i) => i * 13);

portableEntryTests(
  { describe, it },
  {
    package: '@x/xts',
    dir: import.meta.dirname,
    kernels,
    same() {
      const p = newPortable(key);
      const portable = new Uint8Array(1024),
        best = new Uint8Array(1024);
      p.encryptSectors(portable, src, 512, tweaks);
      newXts(key).encryptSectors(best, src, 512, tweaks);
      return [{ kernel: p.kernel, portable, best }];
    },
    forceWasm: () => newPortable(key, { kernel: 'wasm-simd128' }),
  },
);
