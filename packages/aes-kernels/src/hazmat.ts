/**
 * `@x/aes-kernels/hazmat`: raw AES kernels, for writing a mode. Kernels check nothing: a wrong length,
 * a short IV or overlapping buffers give wrong bytes or a crash, never an error; validate first (the
 * `check*` rules of `@x/aes-kernels`) or use a mode package (`@x/cbc`, `@x/xts`).
 */
import type { AesKernel, PolyvalKernel } from '@x/aes-kernel-contract';
import { kernel as portable } from '@x/aes-portable';
import { registry } from './all.js';

// The contract's types, BlockBatch, FAST_PATHS, loadKey and ViewCache are `@x/aes-kernel-contract`'s, here
// for code written against this subpath.
export {
  type AesBlockPrimitives,
  type AesFastPaths,
  type AesKernel,
  type AesKeyedKernel,
  BlockBatch,
  type CtrCounter,
  FAST_PATHS,
  type FastPath,
  loadKey,
  type PolyvalKernel,
  ViewCache,
} from '@x/aes-kernel-contract';
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

/**
 * The GF(2^128) multiply-accumulate of `kernel` bound to the POLYVAL key `h` (16 bytes, POLYVAL's byte
 * order): the kernel's own where it has one, else the portable kernel's (constant time everywhere). What
 * GHASH and POLYVAL callers (`@x/gcm`, `@x/hctr2`) use; the caller may wipe `h` afterwards.
 *
 * @example
 * ```ts
 * import { chooseKernel, polyvalOn } from '@x/aes-kernels/hazmat';
 * const hash = polyvalOn(chooseKernel('@x/my-mode'), h);
 * const acc = new Uint8Array(16);
 * hash.update(acc, blocks, false);   // acc = POLYVAL(H, blocks)
 * hash.dispose();
 * ```
 */
export function polyvalOn(kernel: AesKernel, h: Uint8Array): PolyvalKernel {
  return kernel.loadPolyval !== undefined ? kernel.loadPolyval(h) : portable.loadPolyval(h);
}
