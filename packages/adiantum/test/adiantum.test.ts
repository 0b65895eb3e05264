import { type AdiantumOptions, type HbshCoreName, kernels, newAdiantum, newHpolyc } from '@x/adiantum';
import { type AesKernel, registry } from '@x/aes-kernels/hazmat';
import { testedKernels } from '@x/testkit';
import { describe, it } from 'vitest';
import { newHbshOn } from '../src/hbsh.js';
import { hbshConformance } from './conformance.js';
import { nativeOnly, portableCoreOf } from './native-c.js';

/** The kernel and core added to the options; options that are not an object go through as they are (input rules). */
const withChoice = (options: AdiantumOptions | undefined, kernel: string, core: HbshCoreName | undefined) =>
  options === undefined || typeof options === 'object' ? { ...options, kernel, ...(core && { core }) } : options;

/** The core a kernel takes by default: its own with a native kernel, else the portable or WebAssembly one. */
const defaultCore = (kernel: string): HbshCoreName =>
  kernel.startsWith('native-') ? 'native' : kernel === 'portable' ? 'portable' : 'wasm-simd128';

// Every conformance test once per AES kernel this runtime can run, each on the core it takes by default:
// the portable kernel with the portable core, a native kernel with its own native core (the addon's
// XChaCha, NH, Poly1305 and HBSH passes), every other kernel with the WebAssembly core. A native kernel
// runs it once more with the WebAssembly core forced (the pairing `core: 'wasm-simd128'` gives).
const cases: { kernel: string; core?: HbshCoreName; expect: HbshCoreName }[] = [];
for (const kernel of testedKernels(kernels())) {
  cases.push({ kernel, expect: defaultCore(kernel) });
  if (kernel.startsWith('native-')) cases.push({ kernel, core: 'wasm-simd128', expect: 'wasm-simd128' });
}

for (const { kernel, core, expect } of cases) {
  hbshConformance(
    {
      name: kernel,
      core: expect,
      make: (variant, key, options) =>
        (variant === 'adiantum' ? newAdiantum : newHpolyc)(key, withChoice(options, kernel, core)),
    },
    { describe, it },
  );
}

// A native kernel once more with the addon's portable C primitives in place of its SIMD ones (AVX2 on
// x86-64): what runs on a CPU without them, and on arm64 until it has NEON ones.
for (const kernel of testedKernels(kernels()).filter((k) => k.startsWith('native-'))) {
  const k = portableCoreOf(registry.chooseKernel('@x/adiantum', kernel) as AesKernel);
  hbshConformance(
    {
      name: kernel,
      core: 'native',
      make: (variant, key, options) => newHbshOn(k, key, options, nativeOnly(variant)),
    },
    { describe, it },
    { label: 'portable C primitives' },
  );
}
