/**
 * Which AES kernels a runtime has, and the choice of one, made once when a key is set up (RustCrypto's
 * and Go's rule). A registry is made from one ordered list, best first; every name it knows comes from
 * that list, so a new kernel is one entry.
 */
import type { AesKernel } from '@x/aes-kernel-contract';

/**
 * An optional kernel package: loaded on first use through Node's `require` where there is one (native
 * addons are optional dependencies, absent on other CPUs and in browsers). The package exports its kernel
 * as `kernel`, like every kernel package.
 */
export interface OptionalKernel {
  /** The kernel's name, known before (and whether or not) the package loads. */
  readonly name: string;
  /** The package to `require`. */
  readonly package: string;
}

/** One entry of a registry's list: a kernel, or an optional package that holds one. */
export type KernelSource = AesKernel | OptionalKernel;

/** How a registry reaches optional packages and prepares kernels that compile asynchronously. */
export interface RegistryOptions {
  /** Node's `require` (undefined where there is none): how optional packages are loaded. */
  require?: ((id: string) => unknown) | undefined;
  /** Prepares kernels that must compile asynchronously (a browser main thread); never rejects. */
  init?: () => Promise<void>;
}

/** A list of kernels, and the choice among those usable here. */
export interface Registry {
  /** Every kernel name the registry knows, usable here or not, best first. */
  readonly names: readonly string[];
  /** The names of the kernels usable in this runtime, best first. */
  kernels(): string[];
  /**
   * The kernel to use: `name` when given, else the environment variable `X_AES_KERNEL` (for tests and
   * benchmarks), else the best usable one. A name that is unknown or not usable here is an error,
   * never a silent fallback. `prefix` names the calling package in error messages.
   */
  chooseKernel(prefix: string, name?: string): AesKernel;
  /** Prepares kernels that compile asynchronously, then lists the usable ones again. Never rejects. */
  init(): Promise<void>;
}

interface Slot {
  readonly name: string;
  kernel?: AesKernel;
  /** Why an optional package did not load (anything but "not installed"), for the error's `cause`. */
  error?: unknown;
}

/**
 * `X_AES_KERNEL`, or undefined where it is unset or where reading it is denied: Deno without
 * `--allow-env` throws `NotCapable` from `process.env`'s getter, and a denied read of a variable meant for
 * tests must never be what stops a cipher from being created.
 */
function kernelFromEnv(): string | undefined {
  try {
    const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
    return proc?.env?.X_AES_KERNEL || undefined;
  } catch {
    return undefined;
  }
}

const isOptional = (s: KernelSource): s is OptionalKernel => typeof (s as OptionalKernel).package === 'string';

/** Loads an optional package's kernel. "Not installed" is the only silent failure. */
function loadOptional(source: OptionalKernel, require: RegistryOptions['require']): Slot {
  if (require === undefined) return { name: source.name };
  try {
    const kernel = (require(source.package) as { kernel?: AesKernel }).kernel;
    if (kernel?.name !== source.name) {
      return {
        name: source.name,
        error: new Error(`${source.package} does not export a kernel named "${source.name}"`),
      };
    }
    return { name: source.name, kernel };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === 'MODULE_NOT_FOUND' && e.message?.includes(source.package)) return { name: source.name };
    return { name: source.name, error };
  }
}

/**
 * A registry over `sources`, best first.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@x/aes-kernels/hazmat';
 * import { kernel as portable } from '@x/aes-portable';
 * const only = createRegistry([portable]);
 * only.kernels(); // ['portable']
 * ```
 */
export function createRegistry(sources: readonly KernelSource[], options: RegistryOptions = {}): Registry {
  const names: readonly string[] = Object.freeze(sources.map((s) => s.name));
  // Each entry is loaded, and asked whether it runs here, only when the choice reaches it: the best kernel
  // that runs is chosen without loading or compiling the ones after it (on a CPU with a native kernel, the
  // WebAssembly module is never compiled).
  const slots: (Slot | undefined)[] = [];
  let runs: (boolean | undefined)[] = [];

  const usableAt = (i: number): AesKernel | undefined => {
    const s = sources[i];
    slots[i] ??= isOptional(s) ? loadOptional(s, options.require) : { name: s.name, kernel: s };
    const slot = slots[i];
    runs[i] ??= slot.kernel?.isAvailable() === true;
    return runs[i] ? slot.kernel : undefined;
  };
  const available = (): AesKernel[] => sources.flatMap((_, i) => usableAt(i) ?? []);
  const best = (): AesKernel | undefined => {
    for (let i = 0; i < sources.length; i++) {
      const k = usableAt(i);
      if (k) return k;
    }
    return undefined;
  };

  return Object.freeze({
    names,
    kernels: () => available().map((k) => k.name),
    chooseKernel(prefix: string, name?: string): AesKernel {
      if (name !== undefined && typeof name !== 'string') {
        throw new TypeError(`${prefix}: options.kernel must be a string`);
      }
      const forced = name ?? kernelFromEnv();
      if (forced === undefined) return best() as AesKernel;
      const at = names.indexOf(forced);
      const found = at < 0 ? undefined : usableAt(at);
      if (found) return found;
      const from = name === undefined ? ' (from X_AES_KERNEL)' : '';
      const here = `usable here: ${available()
        .map((k) => k.name)
        .join(', ')}`;
      if (at < 0) throw new RangeError(`${prefix}: unknown kernel "${forced}"${from}; ${here}`);
      const cause = slots[at]?.error;
      throw new RangeError(
        `${prefix}: kernel "${forced}"${from} is not available in this runtime; ${here}`,
        cause === undefined ? undefined : { cause },
      );
    },
    async init(): Promise<void> {
      try {
        await options.init?.();
      } catch {
        // Not usable here (no WebAssembly, no SIMD, a Content-Security-Policy without wasm-unsafe-eval).
      }
      runs = [];
    },
  });
}
