/**
 * `@x/lrw/portable`: the API of `@x/lrw` on the portable kernel alone, for bundles that should carry no
 * WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { type Lrw, type LrwOptions, newLrwFrom } from './lrw.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Lrw, LrwOptions } from './lrw.js';

/**
 * Creates an LRW-AES cipher on the portable kernel, as `newLrw` of `@x/lrw` does on the best one.
 *
 * @example
 * ```ts
 * import { newLrw } from '@x/lrw/portable';
 * const lrw = newLrw(volumeKey);                 // 32, 40 or 48 bytes
 * lrw.decryptSectors(plain, disk, 512, ivs);
 * ```
 */
export function newLrw(key: Uint8Array, options?: LrwOptions): Lrw {
  return newLrwFrom(registry, key, options);
}
