/**
 * `@x/ccm/portable`: the API of `@x/ccm` on the portable kernel alone, for bundles that should carry no
 * WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { type Ccm, type CcmOptions, newCcmFrom } from './ccm.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Ccm, CcmOptions } from './ccm.js';

/**
 * Creates an AES-CCM cipher on the portable kernel, as `newCcm` of `@x/ccm` does on the best one.
 *
 * @example
 * ```ts
 * import { newCcm } from '@x/ccm/portable';
 * const ccm = newCcm(vmk);                                    // BitLocker: AES-256, 12-byte nonce, 16-byte tag
 * ccm.openDetached(fvek, nonce, ciphertext, tag);             // throws '@x/ccm: authentication failed'
 * ```
 */
export function newCcm(key: Uint8Array, options?: CcmOptions): Ccm {
  return newCcmFrom(registry, key, options);
}
