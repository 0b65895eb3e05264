/**
 * `@x/aes-wasm-kernel`: the `wasm-simd128` AES kernel. Constant-time AES by vector permutations
 * (`i8x16.swizzle`) on WebAssembly SIMD128, for browsers, Node, Deno, Bun and workers.
 *
 * @example
 * ```ts
 * import { init, wasmKernel } from '@x/aes-wasm-kernel';
 * await init(); // only needed on browser main threads
 * wasmKernel.isAvailable();
 * ```
 */
export { wasmKernel } from './kernel.js';
export { init } from './module.js';
