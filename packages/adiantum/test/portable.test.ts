import { newAdiantum, newHpolyc } from '@x/adiantum/portable';
import { describe, it } from 'vitest';
import { hbshConformance } from './conformance.js';

// `@x/adiantum/portable`: the portable AES kernel and the portable core, no WebAssembly.
hbshConformance(
  {
    name: 'portable',
    make: (variant, key, options) => (variant === 'adiantum' ? newAdiantum : newHpolyc)(key, options),
  },
  { describe, it },
  { runs: 20 },
);
