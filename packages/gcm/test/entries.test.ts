/**
 * `@x/gcm/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/gcm`
 * ({@link portableEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { portableEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newGcm } from '../src/index.js';
import { kernels, newGcm as newPortable } from '../src/portable.js';

const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const nonce = new Uint8Array(12).map((_, i) => i);
const src = new Uint8Array(1000).map((_, i) => i * 13);

portableEntryTests(
  { describe, it },
  {
    package: '@x/gcm',
    dir: import.meta.dirname,
    kernels,
    same() {
      const p = newPortable(key);
      const portable = new Uint8Array(1016),
        best = new Uint8Array(1016);
      p.seal(portable, nonce, src, nonce);
      newGcm(key).seal(best, nonce, src, nonce);
      return [{ kernel: p.kernel, portable, best }];
    },
    forceWasm: () => newPortable(key, { kernel: 'wasm-simd128' }),
  },
);
