/**
 * `@x/ccm`: AES-CCM (NIST SP 800-38C, RFC 3610) on the best kernel this runtime has. `@x/ccm/portable` is
 * the same API on the portable kernel alone, for bundles that should carry no WebAssembly.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { type Ccm, type CcmOptions, newCcmFrom } from './ccm.js';

export type { Ccm, CcmOptions } from './ccm.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an AES-CCM cipher from a 16-, 24- or 32-byte key (AES-128, -192, -256), with tags of
 * `options.tagLength` bytes (4, 6, 8, 10, 12, 14 or 16; default 16).
 *
 * @example
 * ```ts
 * import { newCcm } from '@x/ccm';
 * const ccm = newCcm(key);                                    // 16, 24 or 32 bytes
 * const sealed = new Uint8Array(plaintext.length + 16);
 * ccm.seal(sealed, nonce, plaintext, aad);                    // 7 to 13-byte nonce, never twice with one key
 * const opened = new Uint8Array(sealed.length - 16);
 * ccm.open(opened, nonce, sealed, aad);                       // throws '@x/ccm: authentication failed'
 * ccm.openDetached(opened, nonce, ciphertext, tag);           // the tag apart (BitLocker stores it first)
 * ccm.dispose();
 * ```
 */
export function newCcm(key: Uint8Array, options?: CcmOptions): Ccm {
  return newCcmFrom(registry, key, options);
}
