/**
 * `@x/gcm`: AES-GCM (NIST SP 800-38D) on the best kernel this runtime has. `@x/gcm/portable` is the same
 * API on the portable kernel alone, for bundles that should carry no WebAssembly.
 */
import { registry } from '@x/aes-kernels/hazmat';
import { type Gcm, type GcmOptions, newGcmFrom } from './gcm.js';

export type { Gcm, GcmOptions } from './gcm.js';
export { MAX_MESSAGE_BYTES } from './gcm.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an AES-GCM cipher from a 16-, 24- or 32-byte key (AES-128, -192, -256), with tags of
 * `options.tagLength` bytes (12 to 16, default 16).
 *
 * @example
 * ```ts
 * import { newGcm } from '@x/gcm';
 * const gcm = newGcm(key);                                   // 16, 24 or 32 bytes
 * const sealed = new Uint8Array(plaintext.length + 16);
 * gcm.seal(sealed, nonce, plaintext, aad);                    // 12-byte nonce, never reused with this key
 * const opened = new Uint8Array(sealed.length - 16);
 * gcm.open(opened, nonce, sealed, aad);                       // throws '@x/gcm: authentication failed'
 * gcm.dispose();
 * ```
 */
export function newGcm(key: Uint8Array, options?: GcmOptions): Gcm {
  return newGcmFrom(registry, key, options);
}
