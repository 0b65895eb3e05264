/**
 * `@x/cbc/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/cbc`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newCipher } from '../src/index.js';
import { kernels, newCipher as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/cbc',
    dir: import.meta.dirname,
    kernels,
    best: newCipher,
    portable: newPortable,
    keyLength: 32,
    ivLength: 32,
    run: (c, dst, src, ivs) => c.encryptSectors(dst, src, 512, ivs),
  },
);
