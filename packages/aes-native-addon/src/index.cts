/**
 * `@x/aes-native-addon`: what @x's native AES kernels (`@x/aes-native-arm64`, `@x/aes-native-x64`) share,
 * written once. The Node-API glue in C (`native/addon.c`, compiled into each kernel's binary together with
 * that kernel's code paths, see `native/aes_native.h`), and {@link createNativeKernel}, which turns such a
 * binary into a kernel of `@x/aes-kernels`' contract: loaded on first use, never throwing on load, each
 * keyed-kernel method one native call on the caller's bytes.
 *
 * CommonJS, so that `@x/aes-kernels` can `require` a native kernel synchronously.
 */
import type { KeySchedule } from '@x/aes-keyschedule';
import type {
  NativeKernel,
  NativeKernelExports,
  NativeKernelOptions,
  NativeKeyedKernel,
  NativePolyval,
} from './types.js';

/** A path as native/addon.c describes it: whether it runs here, and which optional entries it has. */
interface BuiltPath {
  name: string;
  available: boolean;
  ctr: boolean;
  polyval: boolean;
}

type KeyedClass = new (rounds: number, ek: Uint8Array, dk: Uint8Array, path: number) => NativeKeyedKernel;

/** What native/addon.c exports. */
/** The contract's counter kinds as the native `ctr` takes them (AES_NATIVE_CTR_* of aes_native.h). */
const COUNTER_KINDS: ReadonlyMap<unknown, number> = new Map([
  ['be128', 0],
  ['be32', 1],
  ['xctr', 2],
]);

/**
 * Replaces the native `ctr` of a class with one that passes the counter kind as a number: a JS string read
 * through Node-API cost about 80 ns a call, as much as a 16-byte CTR call itself. Anything but the three
 * names becomes -1, which the native side refuses with a TypeError.
 */
function wrapCtr(cls: KeyedClass): void {
  const proto = cls.prototype as { ctr: (dst: Uint8Array, src: Uint8Array, iv: Uint8Array, kind: number) => void };
  const native = proto.ctr;
  Object.defineProperty(proto, 'ctr', {
    value: function ctr(this: unknown, dst: Uint8Array, src: Uint8Array, iv: Uint8Array, counter: unknown): void {
      native.call(this, dst, src, iv, COUNTER_KINDS.get(counter) ?? -1);
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

interface Binding {
  paths(): BuiltPath[];
  calls(): number;
  /**
   * Keyed kernels of the paths without a `ctr` entry, of those with one (the same class plus `ctr`), and
   * of those with `ctr` and POLYVAL (plus `ctr` and `hctr2`).
   */
  Keyed: KeyedClass;
  KeyedCtr: KeyedClass;
  KeyedHctr2: KeyedClass;
  Polyval: new (h: Uint8Array, path: number) => NativePolyval;
}

/** The native methods a keyed kernel must have; an addon built before one of them existed is not used. */
const METHODS = [
  'encryptBlocks',
  'decryptBlocks',
  'cbcEncrypt',
  'cbcDecryptSectors',
  'cbcEncryptSectors',
  'xtsEncrypt',
  'xtsDecrypt',
  'dispose',
] as const;

/**
 * A kernel of `@x/aes-kernels`' contract over the native binary in `options.dir`, which is loaded (by
 * node-gyp-build: build/Release first, then prebuilds/) on first use. Where the binary cannot load or the
 * CPU has no path it can run, `isAvailable()` is false and `load()` throws with the reason as `cause`;
 * nothing throws on import.
 *
 * @example
 * ```ts
 * export = createNativeKernel({
 *   name: 'native-x64', prefix: '@x/aes-native-x64', dir: path.join(__dirname, '..'),
 *   parallelBlocks: 16, pathVariable: 'X_AES_NATIVE_X64', noPath: 'this CPU has no AES-NI',
 * });
 * ```
 */
function createNativeKernel<Name extends string>(options: NativeKernelOptions<Name>): NativeKernelExports<Name> {
  const { name, prefix, dir, parallelBlocks, pathVariable, noPath } = options;
  let binding: Binding | null | undefined; // undefined: not tried yet; null: failed, see loadError
  let loadError: unknown;
  let built: BuiltPath[] = [];

  /** The binary, or why it cannot be used. */
  function open(): Binding | Error {
    if (binding === undefined) {
      try {
        const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
        const b = nodeGypBuild(dir) as Binding;
        const proto = b.Keyed?.prototype as Record<string, unknown> | undefined;
        const missing: string[] = METHODS.filter((m) => typeof proto?.[m] !== 'function');
        if (typeof (b.KeyedCtr?.prototype as Record<string, unknown> | undefined)?.ctr !== 'function') {
          missing.push('ctr');
        }
        if (typeof (b.KeyedHctr2?.prototype as Record<string, unknown> | undefined)?.hctr2 !== 'function') {
          missing.push('hctr2');
        }
        if (typeof (b.Polyval?.prototype as Record<string, unknown> | undefined)?.update !== 'function') {
          missing.push('Polyval');
        }
        if (typeof b.paths !== 'function' || missing.length > 0) {
          throw new Error(
            `${prefix}: the native addon is out of date (no ${missing.join(', ') || 'paths'}); rebuild it`,
          );
        }
        wrapCtr(b.KeyedCtr);
        wrapCtr(b.KeyedHctr2);
        built = b.paths();
        binding = b;
      } catch (error) {
        binding = null;
        loadError = error;
      }
    }
    if (binding === null) {
      return new Error(`${prefix}: the native addon did not load on ${process.platform}-${process.arch}`, {
        cause: loadError,
      });
    }
    return binding;
  }

  /** The index of path `wanted` (the best available when undefined), or why it cannot run. */
  function pick(wanted: string | undefined): number | Error {
    const b = open();
    if (b instanceof Error) return b;
    if (wanted === undefined) {
      const best = built.findIndex((p) => p.available);
      return best >= 0 ? best : new Error(`${prefix}: ${noPath}`);
    }
    const index = built.findIndex((p) => p.name === wanted);
    if (index < 0) {
      return new Error(`${prefix}: no path "${wanted}" (built: ${built.map((p) => p.name).join(', ') || 'none'})`);
    }
    if (!built[index].available) return new Error(`${prefix}: path "${wanted}" is not available on this CPU`);
    return index;
  }

  function kernelOn(wanted: string | undefined): NativeKernel<Name> {
    let chosen: number | Error | undefined;
    let polyvalLoader: ((h: Uint8Array) => NativePolyval) | undefined;
    const choose = () => {
      chosen ??= pick(wanted);
      return chosen;
    };
    return Object.freeze({
      name,
      parallelBlocks,
      get path(): string | undefined {
        const c = choose();
        return c instanceof Error ? undefined : built[c].name;
      },
      isAvailable(): boolean {
        return !(choose() instanceof Error);
      },
      load(schedule: KeySchedule): NativeKeyedKernel {
        const c = choose();
        if (c instanceof Error) {
          const why = c.message.startsWith(`${prefix}: `) ? c.message.slice(prefix.length + 2) : c.message;
          throw new Error(`${prefix}: kernel ${name} is not available here: ${why}`, { cause: c });
        }
        const { Keyed, KeyedCtr, KeyedHctr2 } = binding as Binding;
        // The native object copies both schedules (FIPS 197 §5.2 and §5.3.5) into memory it wipes on dispose;
        // it has a `ctr` method exactly when the path has that entry, and `hctr2` when it has POLYVAL too.
        const Class = built[c].ctr ? (built[c].polyval ? KeyedHctr2 : KeyedCtr) : Keyed;
        return new Class(schedule.rounds, schedule.encryptionKeys, schedule.decryptionKeys, c);
      },
      /*
       * The POLYVAL key of a path with polyval entries (undefined on the others, and where no path runs:
       * callers then use the portable one). A getter, because the path is only known once the binary loads.
       */
      get loadPolyval(): ((h: Uint8Array) => NativePolyval) | undefined {
        const c = choose();
        if (c instanceof Error || !built[c].polyval) return undefined;
        const { Polyval } = binding as Binding;
        // The native object computes H's powers into memory it wipes on dispose; `h` may be wiped after.
        polyvalLoader ??= (h: Uint8Array) => new Polyval(h, c);
        return polyvalLoader;
      },
    });
  }

  let forced: string | undefined;
  try {
    forced = pathVariable === undefined ? undefined : process.env[pathVariable] || undefined;
  } catch {
    // A denied read (Deno without --allow-env throws NotCapable) is an unset variable: the best path.
  }
  return {
    kernel: kernelOn(forced),
    kernelOn: (wanted: string) => kernelOn(wanted),
    paths() {
      open();
      return built.map((p) => ({ name: p.name, available: p.available }));
    },
    nativeCallCount() {
      return binding ? binding.calls() : 0;
    },
  };
}

export = { createNativeKernel };
