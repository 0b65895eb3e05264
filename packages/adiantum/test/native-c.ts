/**
 * A native kernel whose Adiantum/HPolyC keys run the addon's portable C primitives (`loadHbsh`'s
 * `portable` flag) instead of its SIMD ones, and the choice `newHbshOn` takes to use it: so that the C
 * that runs on CPUs without AVX2 (and on arm64) is tested on this one too.
 */
import type { AesKernel } from '@x/aes-kernels/hazmat';
import { type HbshChoice, type HbshVariant, nativeCoreOf } from '../src/hbsh.js';

/** `kernel` with a `loadHbsh` that asks for the portable C primitives. */
export function portableCoreOf(kernel: AesKernel): AesKernel {
  const load = nativeCoreOf(kernel);
  if (load === undefined) throw new Error(`${kernel.name} has no native core`);
  const loadHbsh = (key: Uint8Array, rounds: number, hpolyc: boolean, ke: Uint8Array) =>
    load(key, rounds, hpolyc, ke, true);
  return { ...kernel, load: (schedule) => kernel.load(schedule), loadHbsh } as AesKernel;
}

/** The choice of `newHbshOn` for the native core alone. */
export const nativeOnly = (variant: HbshVariant): HbshChoice => ({
  cores: ['native'],
  coreFor: () => {
    throw new Error('native core only');
  },
  nativeFor: nativeCoreOf,
  variant,
});
