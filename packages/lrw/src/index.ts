/**
 * `@x/lrw`: LRW-AES (Linux `lrw(aes)`, TrueCrypt 4.1–4.3, dm-crypt's `aes-lrw-benbi`) on the best kernel
 * this runtime has. `@x/lrw/portable` is the same API on the portable kernel alone, for bundles that
 * should carry no WebAssembly.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { type Lrw, type LrwOptions, newLrwFrom } from './lrw.js';

export type { Lrw, LrwOptions } from './lrw.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an LRW-AES cipher from `K1 ‖ K2`: an AES key (16, 24 or 32 bytes) followed by the 16-byte tweak
 * key, 32, 40 or 48 bytes in all (the key layout of Linux's `lrw(aes)` and of dm-crypt's `aes-lrw-benbi`).
 *
 * @example
 * ```ts
 * import { newLrw } from '@x/lrw';
 * import { newIvGenerator } from '@x/disk-iv';
 * const lrw = newLrw(volumeKey);                       // 48 bytes: AES-256 ‖ K2
 * const ivs = new Uint8Array(16 * 8);
 * newIvGenerator('benbi', volumeKey).generate(ivs, 0, 8); // aes-lrw-benbi: block indices of sectors 0..7
 * lrw.decryptSectors(plain, disk, 512, ivs);            // 8 sectors, one call
 * ```
 */
export function newLrw(key: Uint8Array, options?: LrwOptions): Lrw {
  return newLrwFrom(registry, key, options);
}
