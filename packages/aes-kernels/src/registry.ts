/**
 * Which AES kernels this runtime has, and the choice of one, made once when a key is set up
 * (RustCrypto's and Go's rule). Best first: the ARMv8 Crypto Extensions through Node-API, then
 * WebAssembly SIMD128, then the portable bitsliced TypeScript kernel, which is always there.
 */
import type { AesKernel } from '@x/aes-keyschedule';
import { portableKernel } from '@x/aes-portable';
import { init as initWasm, wasmKernel } from '@x/aes-wasm-kernel';

const NATIVE_PACKAGE = '@x/aes-native-arm64';

/**
 * The native kernel is an optional dependency: absent on x64 and in browsers. It is loaded
 * synchronously (newCipher is synchronous) through Node's require, when there is one; "not installed"
 * is the only failure that is silent, any other load error is kept as the kernel's `cause`.
 */
function loadNative(): { kernel?: AesKernel; error?: unknown } {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:module') as typeof import('node:module') | undefined;
  if (!mod) return {};
  try {
    const m = mod.createRequire(import.meta.url)(NATIVE_PACKAGE) as { nativeArm64Kernel?: AesKernel };
    return { kernel: m.nativeArm64Kernel };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === 'MODULE_NOT_FOUND' && e.message?.includes(NATIVE_PACKAGE)) return {};
    return { error };
  }
}

let all: readonly AesKernel[] | undefined;
let usable: readonly AesKernel[] | undefined;
let nativeError: unknown;

function candidates(): readonly AesKernel[] {
  if (!all) {
    const native = loadNative();
    nativeError = native.error;
    all = [native.kernel, wasmKernel, portableKernel].filter((k): k is AesKernel => k !== undefined);
  }
  return all;
}

function available(): readonly AesKernel[] {
  usable ??= candidates().filter((k) => k.isAvailable());
  return usable;
}

/**
 * Prepares the kernels that must be compiled asynchronously where synchronous compilation is not
 * allowed (the WebAssembly kernel on a browser's main thread). Node needs no call; elsewhere, await it
 * once before the first key is set up. It never rejects: a kernel that cannot load is simply not usable.
 *
 * @example
 * ```ts
 * import { init } from '@x/cbc';
 * await init();          // in a browser, before newCipher()
 * ```
 */
export async function init(): Promise<void> {
  try {
    await initWasm();
  } catch {
    // Not usable here (no WebAssembly, no SIMD, or a Content-Security-Policy without wasm-unsafe-eval).
  }
  usable = undefined;
}

/**
 * The names of the kernels usable in this runtime, best first; `'portable'` is always there.
 *
 * @example
 * ```ts
 * import { kernels } from '@x/aes-kernels';
 * kernels(); // e.g. ['wasm-simd128', 'portable'] on x64, ['native-arm64', 'wasm-simd128', 'portable'] on Graviton
 * ```
 */
export function kernels(): string[] {
  return available().map((k) => k.name);
}

/** Every kernel name this build knows, usable here or not. */
export const KERNEL_NAMES: readonly string[] = ['native-arm64', 'wasm-simd128', 'portable'];

/**
 * The kernel to use: `name` when given, else the environment variable `X_AES_KERNEL` (for tests and
 * benchmarks), else the best usable one. A name that is unknown or not usable here is an error, never a
 * silent fallback.
 *
 * @param prefix The calling package, for error messages (`@x/cbc`).
 * @example
 * ```ts
 * import { chooseKernel } from '@x/aes-kernels';
 * import { expandKey } from '@x/aes-keyschedule';
 * const keyed = chooseKernel('@x/cbc').load(expandKey(key));
 * ```
 */
export function chooseKernel(prefix: string, name?: string): AesKernel {
  if (name !== undefined && typeof name !== 'string') {
    throw new TypeError(`${prefix}: options.kernel must be a string`);
  }
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const forced = name ?? (proc?.env?.X_AES_KERNEL || undefined);
  const list = available();
  if (forced === undefined) return list[0];
  const found = list.find((k) => k.name === forced);
  if (found) return found;
  const from = name === undefined ? ' (from X_AES_KERNEL)' : '';
  const here = `usable here: ${list.map((k) => k.name).join(', ')}`;
  if (!KERNEL_NAMES.includes(forced)) {
    throw new RangeError(`${prefix}: unknown kernel "${forced}"${from}; ${here}`);
  }
  const cause = forced === 'native-arm64' ? nativeError : undefined;
  throw new RangeError(
    `${prefix}: kernel "${forced}"${from} is not available in this runtime; ${here}`,
    cause === undefined ? undefined : { cause },
  );
}
