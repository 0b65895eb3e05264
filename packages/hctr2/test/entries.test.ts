/**
 * `@x/hctr2/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/hctr2`
 * ({@link modeEntryTests} of `@x/testkit`, which every mode package with a portable entry runs).
 */
import { modeEntryTests } from '@x/testkit';
import { describe, it } from 'vitest';
import { newHctr2 } from '../src/index.js';
import { kernels, newHctr2 as newPortable } from '../src/portable.js';

modeEntryTests(
  { describe, it },
  {
    package: '@x/hctr2',
    dir: import.meta.dirname,
    kernels,
    best: newHctr2,
    portable: newPortable,
    keyLength: 32,
    ivLength: 64,
    run: (c, dst, src, tweaks) => c.encryptSectors(dst, src, 512, tweaks),
  },
);
