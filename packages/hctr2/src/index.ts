/**
 * `@x/hctr2`: HCTR2 on the best kernel this runtime has, POLYVAL on the kernel's own multiply-accumulate
 * where it has one. `@x/hctr2/portable` is the same API on the portable kernel alone, for bundles that
 * should carry no WebAssembly.
 */
import { polyvalOn, registry } from '@x/aes-kernels/hazmat';
import { type Hctr2, type Hctr2Options, newHctr2From } from './hctr2.js';

export type { Hctr2, Hctr2Options } from './hctr2.js';
export { init, kernels } from '@x/aes-kernels';

/**
 * Creates an HCTR2 cipher from one AES key of 16, 24 or 32 bytes (HCTR2-AES-128/192/256).
 *
 * @example
 * ```ts
 * import { newHctr2 } from '@x/hctr2';
 * const hctr2 = newHctr2(key);
 * hctr2.encrypt(ciphertext, plaintext, tweak);            // any length ≥ 16; any tweak length
 * const tweaks = new Uint8Array(32 * 8);                 // Linux hctr2(aes): 32 bytes per sector
 * hctr2.decryptSectors(plain, disk, 4096, tweaks);       // 8 sectors, one call
 * hctr2.dispose();
 * ```
 */
export function newHctr2(key: Uint8Array, options?: Hctr2Options): Hctr2 {
  return newHctr2From(registry, key, options, polyvalOn);
}
