/**
 * `@x/ctr`: AES-CTR (NIST SP 800-38A) on the best kernel this runtime has, byte-identical to OpenSSL's
 * `aes-*-ctr`. `@x/ctr/hazmat` is the keystream itself, with GCM's 32-bit counter and HCTR2's XCTR.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { type Ctr, type CtrOptions, newCtrFrom } from './ctr.js';

export type { Ctr, CtrOptions } from './ctr.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an AES-CTR cipher from a 16-, 24- or 32-byte key.
 *
 * @example
 * ```ts
 * import { newCtr } from '@x/ctr';
 * const ctr = newCtr(key);
 * ctr.xorKeyStream(ciphertext, plaintext, counterBlock);   // any length; same call to decrypt
 * ctr.dispose();
 * ```
 */
export function newCtr(key: Uint8Array, options?: CtrOptions): Ctr {
  return newCtrFrom(registry, key, options);
}
