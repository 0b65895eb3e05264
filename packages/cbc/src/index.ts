/**
 * `@x/cbc`: AES-CBC for disk encryption on the best kernel this runtime has. `@x/cbc/portable` is the
 * same API on the portable kernel alone, for bundles that should carry no WebAssembly.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { newCipherFrom, type Cipher, type CipherOptions } from './cipher.js';

export type { Cipher, CipherOptions } from './cipher.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an AES-CBC cipher for a 16, 24 or 32-byte key (AES-128/192/256). The kernel is chosen here,
 * once: `options.kernel` if given, else `X_AES_KERNEL`, else the best present.
 *
 * @throws TypeError for a key that is not a Uint8Array or a kernel name that is not a string;
 *   RangeError for a bad key length or a kernel that is unknown or unavailable here.
 * @example
 * ```ts
 * import { newCipher } from '@x/cbc';
 * const cipher = newCipher(volumeKey);              // 16, 24 or 32 bytes
 * cipher.decryptSectors(plain, disk, 512, ivs);     // every 512-byte sector with its own IV
 * cipher.dispose();
 * ```
 */
export function newCipher(key: Uint8Array, options?: CipherOptions): Cipher {
  return newCipherFrom(registry, key, options);
}
