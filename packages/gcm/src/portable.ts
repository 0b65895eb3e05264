/**
 * `@x/gcm/portable`: the API of `@x/gcm` on the portable kernel alone, for bundles that should carry no
 * WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { type Gcm, type GcmOptions, newGcmFrom } from './gcm.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Gcm, GcmOptions } from './gcm.js';
export { MAX_MESSAGE_BYTES } from './gcm.js';

/**
 * Creates an AES-GCM cipher on the portable kernel, as `newGcm` of `@x/gcm` does on the best one.
 *
 * @example
 * ```ts
 * import { newGcm } from '@x/gcm/portable';
 * const gcm = newGcm(key, { tagLength: 12 });
 * gcm.seal(sealed, nonce, plaintext);              // sealed.length === plaintext.length + 12
 * ```
 */
export function newGcm(key: Uint8Array, options?: GcmOptions): Gcm {
  return newGcmFrom(registry, key, options);
}
