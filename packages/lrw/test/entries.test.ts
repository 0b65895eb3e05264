/**
 * `@x/lrw/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/lrw`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newLrw } from '../src/index.js';
import { kernels, newLrw as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/lrw',
    dir: import.meta.dirname,
    kernels,
    best: newLrw,
    portable: newPortable,
    keyLength: 48,
    ivLength: 32,
    run: (c, dst, src, ivs) => c.encryptSectors(dst, src, 512, ivs),
  },
);
