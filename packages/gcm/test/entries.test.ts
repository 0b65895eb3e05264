/**
 * `@x/gcm/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/gcm`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newGcm } from '../src/index.js';
import { kernels, newGcm as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/gcm',
    dir: import.meta.dirname,
    kernels,
    best: newGcm,
    portable: newPortable,
    keyLength: 32,
    ivLength: 12,
    extra: 16,
    run: (c, dst, src, nonce) => c.seal(dst, nonce, src, nonce),
  },
);
