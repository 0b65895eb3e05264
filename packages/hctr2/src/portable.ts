/**
 * `@x/hctr2/portable`: the API of `@x/hctr2` on the portable kernel alone (AES and POLYVAL), for bundles
 * that should carry no WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { kernel as portable } from '@x/aes-portable';
import { type Hctr2, type Hctr2Options, newHctr2From } from './hctr2.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Hctr2, Hctr2Options } from './hctr2.js';

/**
 * Creates an HCTR2 cipher on the portable kernel, as `newHctr2` of `@x/hctr2` does on the best one.
 *
 * @example
 * ```ts
 * import { newHctr2 } from '@x/hctr2/portable';
 * const hctr2 = newHctr2(key);                    // 16, 24 or 32 bytes
 * hctr2.encryptSectors(disk, plain, 512, tweaks); // 32 bytes of tweak per sector
 * ```
 */
export function newHctr2(key: Uint8Array, options?: Hctr2Options): Hctr2 {
  return newHctr2From(registry, key, options, (_kernel, h) => portable.loadPolyval(h));
}
