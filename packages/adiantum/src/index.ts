/**
 * `@x/adiantum`: Adiantum and HPolyC on the best AES kernel this runtime has, XChaCha, NH and Poly1305 on
 * the WebAssembly SIMD128 core (the portable core where WebAssembly is missing or blocked, and with the
 * portable AES kernel). `@x/adiantum/portable` is the same API with no WebAssembly at all.
 */
import { init as initKernels } from '@x/aes-kernels';
import { type AesKernel, registry } from '@x/aes-kernels/hazmat';
import type { HbshCore } from './core.js';
import { portableCore } from './core-portable.js';
import { initCore, wasmCore } from './core-wasm.js';
import { type Adiantum, type AdiantumOptions, newHbshFrom } from './hbsh.js';

export type { Adiantum, AdiantumOptions } from './hbsh.js';
export { kernels } from '@x/aes-kernels';

/**
 * Prepares the WebAssembly AES kernel and the WebAssembly core asynchronously, for browser main threads
 * (which refuse large synchronous compiles). Elsewhere it is optional.
 *
 * @example
 * ```ts
 * import { init, newAdiantum } from '@x/adiantum';
 * await init();
 * const adiantum = newAdiantum(key);
 * ```
 */
export async function init(): Promise<void> {
  await Promise.all([initKernels(), initCore()]);
}

/** The WebAssembly core, unless the kernel is the portable one (then nothing runs as WebAssembly). */
const coreFor = (kernel: AesKernel): HbshCore =>
  kernel.name === 'portable' ? portableCore() : (wasmCore() ?? portableCore());

/**
 * Creates an Adiantum cipher (XChaCha12 by default, NH + Poly1305, AES-256) from its 32-byte key.
 *
 * @example
 * ```ts
 * import { newAdiantum } from '@x/adiantum';
 * const adiantum = newAdiantum(key);                     // { rounds: 20 } for Adiantum-XChaCha20
 * adiantum.encrypt(ciphertext, plaintext, tweak);        // any length ≥ 16; any tweak length
 * const tweaks = new Uint8Array(32 * 8);                 // Linux adiantum: 32 bytes per sector
 * adiantum.decryptSectors(plain, disk, 4096, tweaks);    // 8 sectors, one call
 * adiantum.dispose();
 * ```
 */
export function newAdiantum(key: Uint8Array, options?: AdiantumOptions): Adiantum {
  return newHbshFrom(registry, key, options, { coreFor, variant: 'adiantum' });
}

/**
 * Creates an HPolyC cipher (XChaCha12 by default, Poly1305, AES-256) from its 32-byte key.
 *
 * @example
 * ```ts
 * import { newHpolyc } from '@x/adiantum';
 * const hpolyc = newHpolyc(key, { rounds: 20 });
 * hpolyc.encryptSectors(disk, plain, 512, tweaks);       // 32 bytes of tweak per sector
 * ```
 */
export function newHpolyc(key: Uint8Array, options?: AdiantumOptions): Adiantum {
  return newHbshFrom(registry, key, options, { coreFor, variant: 'hpolyc' });
}
