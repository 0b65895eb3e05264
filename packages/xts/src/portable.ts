/**
 * `@x/xts/portable`: the API of `@x/xts` on the portable kernel alone, for bundles that should carry no
 * WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { newXtsFrom, type Xts, type XtsOptions } from './xts.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Xts, XtsOptions } from './xts.js';

/**
 * Creates an XTS-AES cipher on the portable kernel, as `newXts` of `@x/xts` does on the best one.
 *
 * @example
 * ```ts
 * import { newXts } from '@x/xts/portable';
 * const xts = newXts(volumeKey);                 // 32 or 64 bytes
 * xts.decryptSectors(plain, disk, 512, tweaks);
 * ```
 */
export function newXts(key: Uint8Array, options?: XtsOptions): Xts {
  return newXtsFrom(registry, key, options);
}
