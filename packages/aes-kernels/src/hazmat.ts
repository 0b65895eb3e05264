/**
 * `@x/aes-kernels/hazmat`: raw AES kernels, for writing a mode. Kernels check nothing: a wrong length,
 * a short IV or overlapping buffers give wrong bytes or a crash, never an error; validate first (the
 * `check*` rules of `@x/aes-kernels`) or use a mode package (`@x/cbc`, `@x/xts`).
 */
import type { AesKernel } from './contract.js';
import { registry } from './all.js';

export type { AesBlockPrimitives, AesFastPaths, AesKernel, AesKeyedKernel, FastPath } from './contract.js';
export { FAST_PATHS } from './contract.js';
export {
  createRegistry,
  type KernelSource,
  type OptionalKernel,
  type Registry,
  type RegistryOptions,
} from './registry.js';
export { registry };

/**
 * The kernel to use: `name` when given, else the environment variable `X_AES_KERNEL`, else the best
 * usable one. A name that is unknown or not usable here is an error (RangeError), never a silent
 * fallback. `prefix` names the calling package in error messages.
 *
 * @example
 * ```ts
 * import { chooseKernel } from '@x/aes-kernels/hazmat';
 * import { expandKey } from '@x/aes-keyschedule';
 * const schedule = expandKey(key);
 * const aes = chooseKernel('@x/my-mode').load(schedule);
 * schedule.wipe();
 * aes.encryptBlocks(dst, src);   // many blocks per call; nothing is checked
 * aes.dispose();
 * ```
 */
export function chooseKernel(prefix: string, name?: string): AesKernel {
  return registry.chooseKernel(prefix, name);
}
