/**
 * `@x/aes-kernel-contract`: what sits below every AES kernel and every mode of the `@x` packages. The
 * kernel contract (types only, and the list of fast-path names), the input rules every mode enforces
 * before it calls a kernel, and the view cache modes use to hand kernels part of a caller's buffer
 * without allocating. It imports nothing at run time, so kernels and modes depend on it and on nothing
 * above them.
 *
 * @example
 * ```ts
 * import { type AesKernel, checkBlocks } from '@x/aes-kernel-contract';
 * export const kernel = Object.freeze({ name: 'mine', parallelBlocks: 4, … }) satisfies AesKernel;
 * checkBlocks('@x/my-mode', dst, src); // TypeError/RangeError '@x/my-mode: …' before anything is written
 * ```
 */
export * from './checks.js';
export * from './contract.js';
export * from './load.js';
export * from './views.js';
