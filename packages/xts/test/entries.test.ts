/**
 * `@x/xts/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/xts`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newXts } from '../src/index.js';
import { kernels, newXts as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/xts',
    dir: import.meta.dirname,
    kernels,
    best: newXts,
    portable: newPortable,
    keyLength: 64,
    ivLength: 32,
    run: (c, dst, src, tweaks) => c.encryptSectors(dst, src, 512, tweaks),
  },
);
