/**
 * `@x/lrw/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/lrw`
 * ({@link portableEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { portableEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newLrw } from '../src/index.js';
import { kernels, newLrw as newPortable } from '../src/portable.js';

const key = new Uint8Array(48).map((_, i) => i * 7 + 1);
const ivs = new Uint8Array(32).map((_, i) => i);
const src = new Uint8Array(1024).map((_, i) => i * 13);

portableEntryTests(
  { describe, it },
  {
    package: '@x/lrw',
    dir: import.meta.dirname,
    kernels,
    same() {
      const p = newPortable(key);
      const portable = new Uint8Array(1024),
        best = new Uint8Array(1024);
      p.encryptSectors(portable, src, 512, ivs);
      newLrw(key).encryptSectors(best, src, 512, ivs);
      return [{ kernel: p.kernel, portable, best }];
    },
    forceWasm: () => newPortable(key, { kernel: 'wasm-simd128' }),
  },
);
