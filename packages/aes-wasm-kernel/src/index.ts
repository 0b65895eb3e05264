/**
 * `@x/aes-wasm-kernel`: the `wasm-simd128` AES kernel. Constant-time AES on WebAssembly SIMD128 (a
 * bitsliced 8-block core and a vector-permutation one-block core), for browsers, Node, Deno, Bun and
 * workers. It satisfies the kernel contract of `@x/aes-kernel-contract` (contract v2: the two block
 * primitives, every fast path but `hctr2`, `gcmSeal` and `gcmOpen`, and POLYVAL).
 *
 * @example
 * ```ts
 * import { init, kernel } from '@x/aes-wasm-kernel';
 * await init(); // only needed on browser main threads
 * kernel.isAvailable();
 * ```
 */
import { kernel } from './kernel.js';

export { kernel } from './kernel.js';
export type { WasmElephant } from './elephant.js';
export type { WasmKeyedKernel, WasmPolyvalKernel } from './kernel.js';
export { init } from './module.js';

/**
 * The `wasm-simd128` kernel under its old name.
 *
 * @deprecated Use {@link kernel}: every kernel package exports its kernel as `kernel`.
 * @example
 * ```ts
 * import { wasmKernel } from '@x/aes-wasm-kernel';
 * wasmKernel.name; // 'wasm-simd128'
 * ```
 */
export const wasmKernel = kernel;
