/**
 * `@x/aes-native-addon`: what @x's native AES kernels (`@x/aes-native-arm64`, `@x/aes-native-x64`) share,
 * written once. The Node-API glue in C (`native/addon.c`, compiled into each kernel's binary together with
 * that kernel's code paths, see `native/aes_native.h`), and {@link createNativeKernel}, which turns such a
 * binary into a kernel of the contract of `@x/aes-kernel-contract`: loaded on first use, never throwing on
 * load, each keyed-kernel method one native call on the caller's bytes.
 *
 * CommonJS, so that `@x/aes-kernels` can `require` a native kernel synchronously.
 */
import type { CtrCounter } from '@x/aes-kernel-contract';
import type { KeySchedule } from '@x/aes-keyschedule';
import type {
  NativeKernel,
  NativeKernelExports,
  NativeElephant,
  NativeHbsh,
  NativeKernelOptions,
  NativeKeyedKernel,
  NativeLoadHbsh,
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

/** The contract's counter kinds as the native `ctr` takes them (AES_NATIVE_CTR_* of aes_native.h). */
const COUNTER_KINDS: ReadonlyMap<unknown, number> = new Map<CtrCounter, number>([
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

/** What native/addon.c exports. */
interface Binding {
  paths(): BuiltPath[];
  calls(): number;
  /**
   * Keyed kernels of the paths without a `ctr` entry, of those with one (the same class plus `ctr`), and
   * of those with `ctr` and POLYVAL (plus `ctr`, `hctr2`, `gcmSeal` and `gcmOpen`).
   */
  Keyed: KeyedClass;
  KeyedCtr: KeyedClass;
  KeyedHctr2: KeyedClass;
  Polyval: new (h: Uint8Array, path: number) => NativePolyval;
  /** Adiantum/HPolyC keys (native/hbsh.h); absent from a binary built before it existed. */
  Hbsh?: new (
    key: Uint8Array,
    rounds: number,
    hpolyc: boolean,
    path: number,
    ke: Uint8Array,
    portable?: boolean,
  ) => NativeHbsh;
  /** BitLocker's Elephant diffusers (native/elephant.h); absent from a binary built before they existed. */
  elephant?: (
    data: Uint8Array,
    sectorSize: number,
    keys: Uint8Array,
    decrypt: boolean,
    path: number,
    portable?: boolean,
  ) => void;
  elephantCore?: (path: number, portable?: boolean) => string;
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

/** One kernel package's addon: where it is, how its messages start, and what loading it gave. */
interface Addon {
  readonly prefix: string;
  readonly dir: string;
  /** Why no path runs when the CPU has none (`options.noPath`). */
  readonly noPath: string;
  /** undefined: not tried yet; null: it failed, see `loadError`. */
  binding: Binding | null | undefined;
  loadError: unknown;
  /** The binary's paths, best first (empty until it loads). */
  built: BuiltPath[];
}

/** What the binary lacks of what this loader calls, by name (empty when nothing is missing). */
function missingEntries(b: Binding): string[] {
  const has = (cls: KeyedClass | Binding['Polyval'] | undefined, method: string): boolean =>
    typeof (cls?.prototype as Record<string, unknown> | undefined)?.[method] === 'function';
  const missing: string[] = METHODS.filter((m) => !has(b.Keyed, m));
  if (!has(b.KeyedCtr, 'ctr')) missing.push('ctr');
  if (!has(b.KeyedHctr2, 'hctr2')) missing.push('hctr2');
  if (!has(b.KeyedHctr2, 'gcmSeal')) missing.push('gcmSeal');
  if (!has(b.KeyedHctr2, 'gcmOpen')) missing.push('gcmOpen');
  if (!has(b.Polyval, 'update')) missing.push('Polyval');
  return missing;
}

/**
 * Loads the binary in `dir` (node-gyp-build: build/Release first, then prebuilds/) and makes it ready for
 * use: every entry present, `ctr` taking the counter kind as a number. Throws when it cannot load or is
 * out of date.
 */
function loadBinding(dir: string, prefix: string): Binding {
  const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
  const b = nodeGypBuild(dir) as Binding;
  const missing = missingEntries(b);
  if (typeof b.paths !== 'function' || missing.length > 0) {
    throw new Error(`${prefix}: the native addon is out of date (no ${missing.join(', ') || 'paths'}); rebuild it`);
  }
  wrapCtr(b.KeyedCtr);
  wrapCtr(b.KeyedHctr2);
  return b;
}

/** The binary, loaded on the first call (once, whatever happens), or why it cannot be used. */
function open(addon: Addon): Binding | Error {
  if (addon.binding === undefined) {
    try {
      const b = loadBinding(addon.dir, addon.prefix);
      addon.built = b.paths();
      addon.binding = b;
    } catch (error) {
      addon.binding = null;
      addon.loadError = error;
    }
  }
  if (addon.binding === null) {
    return new Error(`${addon.prefix}: the native addon did not load on ${process.platform}-${process.arch}`, {
      cause: addon.loadError,
    });
  }
  return addon.binding;
}

/** The index of path `wanted` (the best available when undefined), or why it cannot run. */
function pickPath(addon: Addon, wanted: string | undefined): number | Error {
  const b = open(addon);
  if (b instanceof Error) return b;
  const { prefix, built } = addon;
  if (wanted === undefined) {
    const best = built.findIndex((p) => p.available);
    return best >= 0 ? best : new Error(`${prefix}: ${addon.noPath}`);
  }
  const index = built.findIndex((p) => p.name === wanted);
  if (index < 0) {
    return new Error(`${prefix}: no path "${wanted}" (built: ${built.map((p) => p.name).join(', ') || 'none'})`);
  }
  if (!built[index].available) return new Error(`${prefix}: path "${wanted}" is not available on this CPU`);
  return index;
}

/** A keyed kernel on path `index` of a loaded binary, holding its own copy of `schedule`'s round keys. */
function loadKeyed(addon: Addon, index: number, schedule: KeySchedule): NativeKeyedKernel {
  const { Keyed, KeyedCtr, KeyedHctr2 } = addon.binding as Binding;
  const path = addon.built[index];
  // The native object copies both schedules (FIPS 197 §5.2 and §5.3.5) into memory it wipes on dispose;
  // it has a `ctr` method exactly when the path has that entry, and `hctr2`, `gcmSeal` and `gcmOpen` when
  // it has POLYVAL too.
  const Class = path.ctr ? (path.polyval ? KeyedHctr2 : KeyedCtr) : Keyed;
  return new Class(schedule.rounds, schedule.encryptionKeys, schedule.decryptionKeys, index);
}

/** The error `load()` throws where no path runs, with the reason (without its prefix) and as `cause`. */
function unavailable(prefix: string, name: string, why: Error): Error {
  const reason = why.message.startsWith(`${prefix}: `) ? why.message.slice(prefix.length + 2) : why.message;
  return new Error(`${prefix}: kernel ${name} is not available here: ${reason}`, { cause: why });
}

/**
 * The kernel object on path `wanted` (the best one when undefined). The path is chosen on first use (the
 * binary loads then), and kept.
 */
function kernelOn<Name extends string>(
  addon: Addon,
  name: Name,
  parallelBlocks: number,
  wanted: string | undefined,
): NativeKernel<Name> {
  let chosen: number | Error | undefined;
  let polyvalLoader: ((h: Uint8Array) => NativePolyval) | undefined;
  let hbshLoader: NativeLoadHbsh | undefined;
  const elephants: (NativeElephant | undefined)[] = [];
  const choose = () => {
    chosen ??= pickPath(addon, wanted);
    return chosen;
  };
  return Object.freeze({
    name,
    parallelBlocks,
    get path(): string | undefined {
      const c = choose();
      return c instanceof Error ? undefined : addon.built[c].name;
    },
    isAvailable(): boolean {
      return !(choose() instanceof Error);
    },
    load(schedule: KeySchedule): NativeKeyedKernel {
      const c = choose();
      if (c instanceof Error) throw unavailable(addon.prefix, name, c);
      return loadKeyed(addon, c, schedule);
    },
    /*
     * The POLYVAL key of a path with polyval entries (undefined on the others, and where no path runs:
     * callers then use the portable one). A getter, because the path is only known once the binary loads.
     */
    get loadPolyval(): ((h: Uint8Array) => NativePolyval) | undefined {
      const c = choose();
      if (c instanceof Error || !addon.built[c].polyval) return undefined;
      const { Polyval } = addon.binding as Binding;
      // The native object computes H's powers into memory it wipes on dispose; `h` may be wiped after.
      polyvalLoader ??= (h: Uint8Array) => new Polyval(h, c);
      return polyvalLoader;
    },
    /*
     * An Adiantum/HPolyC key on the chosen path (native/hbsh.h: the path's SIMD primitives where the CPU
     * has them, else the glue's C); undefined where no path runs or the binary predates it.
     */
    get loadHbsh(): NativeLoadHbsh | undefined {
      const c = choose();
      const Hbsh = c instanceof Error ? undefined : (addon.binding as Binding).Hbsh;
      if (Hbsh === undefined || c instanceof Error) return undefined;
      hbshLoader ??= (key: Uint8Array, rounds: number, hpolyc: boolean, ke: Uint8Array, portable?: boolean) =>
        new Hbsh(key, rounds, hpolyc, c, ke, portable);
      return hbshLoader;
    },
    /*
     * The Elephant diffusers on the chosen path (native/elephant.h); undefined where no path runs or the
     * binary predates them. Keyless: one object per choice of diffuser, made once.
     */
    get loadElephant(): ((portable?: boolean) => NativeElephant) | undefined {
      const c = choose();
      const { elephant, elephantCore } = c instanceof Error ? {} : (addon.binding as Binding);
      if (elephant === undefined || elephantCore === undefined || c instanceof Error) return undefined;
      return (portable = false) => {
        const i = portable ? 1 : 0;
        elephants[i] ??= Object.freeze({
          core: elephantCore(c, portable),
          decrypt: (data: Uint8Array, sectorSize: number, keys: Uint8Array) =>
            elephant(data, sectorSize, keys, true, c, portable),
          encrypt: (data: Uint8Array, sectorSize: number, keys: Uint8Array) =>
            elephant(data, sectorSize, keys, false, c, portable),
        });
        return elephants[i];
      };
    },
  });
}

/** The path `variable` forces, or undefined (unset, empty, or a denied read: Deno without --allow-env). */
function forcedPath(variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  try {
    return process.env[variable] || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A kernel of the contract of `@x/aes-kernel-contract` over the native binary in `options.dir`, which is
 * loaded (by node-gyp-build: build/Release first, then prebuilds/) on first use. Where the binary cannot
 * load or the CPU has no path it can run, `isAvailable()` is false and `load()` throws with the reason as
 * `cause`; nothing throws on import.
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
  const addon: Addon = { prefix, dir, noPath, binding: undefined, loadError: undefined, built: [] };
  return {
    kernel: kernelOn(addon, name, parallelBlocks, forcedPath(pathVariable)),
    kernelOn: (wanted: string) => kernelOn(addon, name, parallelBlocks, wanted),
    paths() {
      open(addon);
      return addon.built.map((p) => ({ name: p.name, available: p.available }));
    },
    nativeCallCount() {
      return addon.binding ? addon.binding.calls() : 0;
    },
  };
}

export = { createNativeKernel };
