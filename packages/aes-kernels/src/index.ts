/**
 * `@x/aes-kernels`: which AES kernels this runtime has, and (re-exported from `@x/aes-kernel-contract`)
 * the input rules every `@x` mode shares. The kernels themselves, which check nothing, are behind
 * `@x/aes-kernels/hazmat`.
 */
import { registry } from './all.js';

export {
  checkBlocks,
  checkBytes,
  checkDataUnit,
  checkIv,
  checkKey,
  checkOptions,
  checkSectors,
  checkSide,
  checkStream,
} from '@x/aes-kernel-contract';
export * from './mode.js';

/**
 * The names of the kernels usable in this runtime, best first; `'portable'` is always there.
 *
 * @example
 * ```ts
 * import { kernels } from '@x/aes-kernels';
 * kernels(); // ['native-x64', 'wasm-simd128', 'portable'] on x86-64, ['native-arm64', 'wasm-simd128', 'portable'] on Graviton
 * ```
 */
export function kernels(): string[] {
  return registry.kernels();
}

/**
 * Prepares the kernels that must be compiled asynchronously where synchronous compilation is not
 * allowed (the WebAssembly kernel on a browser's main thread). Node needs no call; elsewhere, await it
 * once before the first key is set up. It never rejects: a kernel that cannot load is simply not usable.
 *
 * @example
 * ```ts
 * import { init } from '@x/cbc';
 * await init();          // in a browser, before newCipher()
 * ```
 */
export function init(): Promise<void> {
  return registry.init();
}

/** Every kernel name this build knows, usable here or not, best first. @example `KERNEL_NAMES.at(-1) // 'portable'` */
export const KERNEL_NAMES: readonly string[] = registry.names;
