/**
 * `@x/ccm/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/ccm`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newCcm } from '../src/index.js';
import { kernels, newCcm as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/ccm',
    dir: import.meta.dirname,
    kernels,
    best: newCcm,
    portable: newPortable,
    keyLength: 32,
    ivLength: 12,
    extra: 16,
    run: (c, dst, src, nonce) => c.seal(dst, nonce, src, nonce),
  },
);
