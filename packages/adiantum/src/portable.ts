/**
 * `@x/adiantum/portable`: the API of `@x/adiantum` on the portable AES kernel and the portable core alone,
 * for bundles that should carry no WebAssembly module and no native loader.
 */
import { registry } from '@x/aes-kernels/portable';
import { portableCore } from './core-portable.js';
import { type Adiantum, type AdiantumOptions, type CoreFor, newHbshFrom } from './hbsh.js';

export { init, kernels } from '@x/aes-kernels/portable';
export type { Adiantum, AdiantumOptions, HbshCoreName } from './hbsh.js';

/** The portable core, the one this entry carries (`options.core` may only name it). */
const coreFor: CoreFor = () => portableCore();
const cores = ['portable'];

/**
 * Creates an Adiantum cipher on the portable kernel and core, as `newAdiantum` of `@x/adiantum` does on the
 * best ones.
 *
 * @example
 * ```ts
 * import { newAdiantum } from '@x/adiantum/portable';
 * const adiantum = newAdiantum(key);              // 32 bytes
 * adiantum.encryptSectors(disk, plain, 4096, tweaks);
 * ```
 */
export function newAdiantum(key: Uint8Array, options?: AdiantumOptions): Adiantum {
  return newHbshFrom(registry, key, options, { cores, coreFor, variant: 'adiantum' });
}

/**
 * Creates an HPolyC cipher on the portable kernel and core.
 *
 * @example
 * ```ts
 * import { newHpolyc } from '@x/adiantum/portable';
 * const hpolyc = newHpolyc(key, { rounds: 20 });
 * ```
 */
export function newHpolyc(key: Uint8Array, options?: AdiantumOptions): Adiantum {
  return newHbshFrom(registry, key, options, { cores, coreFor, variant: 'hpolyc' });
}
