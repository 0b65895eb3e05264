import { type AdiantumOptions, kernels, newAdiantum, newHpolyc } from '@x/adiantum';
import { testedKernels } from '@x/testkit';
import { describe, it } from 'vitest';
import { hbshConformance } from './conformance.js';

/** The kernel added to the options; options that are not an object go through as they are (input rules). */
const withKernel = (options: AdiantumOptions | undefined, kernel: string) =>
  options === undefined || typeof options === 'object' ? { ...options, kernel } : options;

// Every conformance test once per AES kernel this runtime can run: the portable kernel with the portable
// core, every other kernel with the WebAssembly core.
for (const kernel of testedKernels(kernels())) {
  hbshConformance(
    {
      name: kernel,
      make: (variant, key, options) =>
        (variant === 'adiantum' ? newAdiantum : newHpolyc)(key, withKernel(options, kernel)),
    },
    { describe, it },
  );
}
