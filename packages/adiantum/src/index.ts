/**
 * `@x/adiantum`: Adiantum and HPolyC on the best AES kernel this runtime has, XChaCha, NH and Poly1305 on
 * the native kernel's own core (in its addon: AVX2 on x86-64) with a native kernel, else on the WebAssembly
 * SIMD128 core (the portable core where WebAssembly is missing or blocked, and with the portable AES kernel). `@x/adiantum/portable` is the same API with no WebAssembly at all.
 */
import { init as initKernels } from '@x/aes-kernels';
import { type AesKernel, registry } from '@x/aes-kernels/hazmat';
import type { HbshCore } from './core.js';
import { portableCore } from './core-portable.js';
import { initCore, wasmCore } from './core-wasm.js';
import { type Adiantum, type AdiantumOptions, type HbshCoreName, nativeCoreOf, newHbshFrom } from './hbsh.js';

/** The cores `options.core` may name with this entry. */
const cores: readonly HbshCoreName[] = ['native', 'wasm-simd128', 'portable'];

export type { Adiantum, AdiantumOptions, HbshCoreName } from './hbsh.js';
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

/**
 * The core `wanted`, or by default the WebAssembly one unless the kernel is the portable one (then nothing
 * runs as WebAssembly); the portable one where WebAssembly is missing, unless it was asked for by name.
 */
const coreFor = (kernel: AesKernel, wanted: HbshCoreName | undefined): HbshCore => {
  if (wanted === 'portable' || (wanted === undefined && kernel.name === 'portable')) return portableCore();
  const wasm = wasmCore();
  if (wasm !== undefined) return wasm;
  if (wanted === undefined) return portableCore();
  throw new RangeError('@x/adiantum: core "wasm-simd128" is not available in this runtime');
};

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
  return newHbshFrom(registry, key, options, { cores, coreFor, nativeFor: nativeCoreOf, variant: 'adiantum' });
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
  return newHbshFrom(registry, key, options, { cores, coreFor, nativeFor: nativeCoreOf, variant: 'hpolyc' });
}
