/**
 * `@x/xts`: XTS-AES (IEEE 1619) on the best kernel this runtime has. `@x/xts/portable` is the same API on
 * the portable kernel alone, for bundles that should carry no WebAssembly.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { newXtsFrom, type Xts, type XtsOptions } from './xts.js';

export type { Xts, XtsOptions } from './xts.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an XTS-AES cipher from `key1 ‖ key2`: 32 bytes (XTS-AES-128) or 64 bytes (XTS-AES-256).
 * The data is encrypted with key1, the tweak with key2 (IEEE 1619 §5.1). Equal halves are refused, as
 * OpenSSL and node:crypto refuse them.
 *
 * @example
 * ```ts
 * import { newXts } from '@x/xts';
 * import { newIvGenerator } from '@x/disk-iv';
 * const xts = newXts(volumeKey);                      // aes-xts-plain64, 512-bit key
 * const tweaks = new Uint8Array(16 * 8);
 * newIvGenerator('plain64', volumeKey).generate(tweaks, 0n, 8);
 * xts.decryptSectors(plain, disk, 512, tweaks);        // 8 sectors, one call
 * ```
 */
export function newXts(key: Uint8Array, options?: XtsOptions): Xts {
  return newXtsFrom(registry, key, options);
}
