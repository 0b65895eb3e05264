/**
 * `@x/cbc/portable`: the API of `@x/cbc` on the portable kernel alone. A browser bundle made from this
 * entry carries no WebAssembly module and no native loader (it is smaller; see the README for the
 * measured sizes), and runs at the portable kernel's speed everywhere.
 */
import { registry } from '@x/aes-kernels/portable';
import { newCipherFrom, type Cipher, type CipherOptions } from './cipher.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Cipher, CipherOptions } from './cipher.js';

/**
 * Creates an AES-CBC cipher on the portable kernel, as `newCipher` of `@x/cbc` does on the best one.
 * `options.kernel` (or `X_AES_KERNEL`) may only name `'portable'` here.
 *
 * @example
 * ```ts
 * import { newCipher } from '@x/cbc/portable';
 * const cipher = newCipher(volumeKey);
 * cipher.decryptSectors(plain, disk, 512, ivs);
 * cipher.dispose();
 * ```
 */
export function newCipher(key: Uint8Array, options?: CipherOptions): Cipher {
  return newCipherFrom(registry, key, options);
}
