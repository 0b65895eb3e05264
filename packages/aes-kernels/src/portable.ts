/**
 * `@x/aes-kernels/portable`: a registry that holds the portable kernel alone, for browser bundles that
 * should carry no WebAssembly and no native loader (`@x/cbc/portable`, `@x/xts/portable` use it).
 *
 * @example
 * ```ts
 * import { registry } from '@x/aes-kernels/portable';
 * registry.kernels(); // ['portable']
 * ```
 */
import { kernel as portable } from '@x/aes-portable';
import { createRegistry } from './registry.js';

/** A registry of the portable kernel only. @example `registry.chooseKernel('@x/mymode').name // 'portable'` */
export const registry = /* @__PURE__ */ createRegistry([portable]);

/** The kernels of this registry: `['portable']`. @example `kernels() // ['portable']` */
export function kernels(): string[] {
  return registry.kernels();
}

/** Nothing to prepare (no WebAssembly here); there so code written for the full registry works unchanged. @example `await init()` */
export function init(): Promise<void> {
  return registry.init();
}
