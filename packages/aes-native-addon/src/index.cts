/**
 * `@x/aes-native-addon`: what @x's native AES kernels (`@x/aes-native-arm64`, `@x/aes-native-x64`) share,
 * written once. The Node-API glue in C (`native/addon.c`, compiled into each kernel's binary together with
 * that kernel's code paths, see `native/aes_native.h`), and {@link createNativeKernel}, which turns such a
 * binary into a kernel of the contract of `@x/aes-kernel-contract`: loaded on first use, never throwing on
 * load, each keyed-kernel method one native call on the caller's bytes.
 *
 * CommonJS, so that `@x/aes-kernels` can `require` a native kernel synchronously.
 */
import type { CtrCounter, PolyvalKernel } from '@x/aes-kernel-contract';
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
type HbshClass = new (
  key: Uint8Array,
  rounds: number,
  hpolyc: boolean,
  path: number,
  ke: Uint8Array,
  portable?: boolean,
) => NativeHbsh;

/** The contract's counter kinds as the native `ctr` takes them (AES_NATIVE_CTR_* of aes_native.h). */
const COUNTER_KINDS: ReadonlyMap<unknown, number> = new Map<CtrCounter, number>([
  ['be128', 0],
  ['be32', 1],
  ['xctr', 2],
]);

/** A native state (native/addon.c: an External around a keyed, POLYVAL or Adiantum/HPolyC state). */
declare const stateBrand: unique symbol;
type State = { readonly [stateBrand]: true };

/** What native/addon.c exports: functions over states, each state's External the first argument. */
interface Binding {
  paths(): BuiltPath[];
  calls(): number;
  keyed(rounds: number, ek: Uint8Array, dk: Uint8Array, path: number): State;
  encryptBlocks(s: State, dst: Uint8Array, src: Uint8Array): void;
  decryptBlocks(s: State, dst: Uint8Array, src: Uint8Array): void;
  cbcEncrypt(s: State, dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  cbcDecryptSectors(s: State, dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  cbcEncryptSectors(s: State, dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  xtsEncrypt(s: State, dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  xtsDecrypt(s: State, dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** The counter kind as a number (a JS string read through Node-API cost about 80 ns a call). */
  ctr(s: State, dst: Uint8Array, src: Uint8Array, iv: Uint8Array, kind: number): void;
  hctr2(
    s: State,
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    hash: State,
    start: Uint8Array,
    l: Uint8Array,
    decrypt: boolean,
  ): void;
  gcmSeal(s: State, dst: Uint8Array, src: Uint8Array, j0: Uint8Array, aad: Uint8Array, hash: State, t: number): void;
  gcmOpen(
    s: State,
    dst: Uint8Array,
    sealed: Uint8Array,
    j0: Uint8Array,
    aad: Uint8Array,
    hash: State,
    t: number,
  ): boolean;
  dispose(s: State): void;
  polyval(h: Uint8Array, path: number): State;
  polyvalUpdate(s: State, acc: Uint8Array, data: Uint8Array, reversed: boolean): void;
  polyvalDispose(s: State): void;
  hbsh(key: Uint8Array, rounds: number, hpolyc: boolean, path: number, ke: Uint8Array, portable?: boolean): State;
  hbshCrypt(
    s: State,
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    aes: State,
    decrypt: boolean,
  ): void;
  hbshDispose(s: State): void;
  hbshCore(s: State): string;
  /** BitLocker's Elephant diffusers (native/elephant.h). */
  elephant(
    data: Uint8Array,
    sectorSize: number,
    keys: Uint8Array,
    decrypt: boolean,
    path: number,
    portable?: boolean,
  ): void;
  elephantCore(path: number, portable?: boolean): string;
}

/** The binding's functions this loader calls; a binary built before one of them existed is not used. */
const FUNCTIONS = [
  'paths',
  'calls',
  'keyed',
  'encryptBlocks',
  'decryptBlocks',
  'cbcEncrypt',
  'cbcDecryptSectors',
  'cbcEncryptSectors',
  'xtsEncrypt',
  'xtsDecrypt',
  'ctr',
  'hctr2',
  'gcmSeal',
  'gcmOpen',
  'dispose',
  'polyval',
  'polyvalUpdate',
  'polyvalDispose',
  'hbsh',
  'hbshCrypt',
  'hbshDispose',
  'hbshCore',
  'elephant',
  'elephantCore',
] as const;

/** The JavaScript classes over one loaded binary: its keyed kernels (by the entries a path has), POLYVAL and Adiantum/HPolyC keys. */
interface Classes {
  /** Keyed kernels of the paths without a `ctr` entry, of those with one, and of those with `ctr` and POLYVAL. */
  Keyed: KeyedClass;
  KeyedCtr: KeyedClass;
  KeyedHctr2: KeyedClass;
  Polyval: new (h: Uint8Array, path: number) => NativePolyval;
  Hbsh: HbshClass;
}

/** The state of an object of one of the classes below, or undefined for anything else. */
type StateOf = (x: unknown) => State | undefined;

/**
 * The classes over binding `b` (see {@link keyedClasses}, {@link polyvalClass} and {@link hbshClass}).
 * Each object keeps its native state's External in a private field and passes it to `b`'s functions, so
 * that no call pays for napi_unwrap. A method called on any other object throws a TypeError: the private
 * field's brand check where the method reads `this.#s`; elsewhere (the subclasses' methods, and the `hash`
 * and `aes` arguments) the state of anything else is undefined, which the native side refuses with its
 * TypeError, in the order of its other checks.
 */
function classesOf(b: Binding): Classes {
  const { Polyval, polyvalState } = polyvalClass(b);
  const { Keyed, KeyedCtr, KeyedHctr2, keyedState } = keyedClasses(b, polyvalState);
  return { Keyed, KeyedCtr, KeyedHctr2, Polyval, Hbsh: hbshClass(b, keyedState) };
}

/** The POLYVAL key class over `b`, and how to read an object's state (its static block is the only code that can). */
function polyvalClass(b: Binding): { Polyval: Classes['Polyval']; polyvalState: StateOf } {
  let polyvalState: StateOf = () => undefined;
  class Polyval implements NativePolyval {
    readonly #s: State;
    constructor(h: Uint8Array, path: number) {
      this.#s = b.polyval(h, path);
    }
    static {
      polyvalState = (p) => (typeof p === 'object' && p !== null && #s in p ? (p as Polyval).#s : undefined);
    }
    update(acc: Uint8Array, data: Uint8Array, reversed: boolean): void {
      b.polyvalUpdate(this.#s, acc, data, reversed);
    }
    dispose(): void {
      b.polyvalDispose(this.#s);
    }
  }

  return { Polyval, polyvalState };
}

/** The keyed kernel classes over `b` (a path without `ctr`, with it, with it and POLYVAL), and how to read a keyed object's state. */
function keyedClasses(
  b: Binding,
  polyvalState: StateOf,
): Pick<Classes, 'Keyed' | 'KeyedCtr' | 'KeyedHctr2'> & { keyedState: StateOf } {
  let keyedState: StateOf = () => undefined;
  class Keyed implements NativeKeyedKernel {
    readonly #s: State;
    #rounds: number;
    constructor(rounds: number, ek: Uint8Array, dk: Uint8Array, path: number) {
      this.#s = b.keyed(rounds, ek, dk, path);
      this.#rounds = rounds;
    }
    static {
      keyedState = (k) => (typeof k === 'object' && k !== null && #s in k ? (k as Keyed).#s : undefined);
    }
    /** 10, 12 or 14; 0 once disposed. */
    get rounds(): number {
      return this.#rounds;
    }
    encryptBlocks(dst: Uint8Array, src: Uint8Array): void {
      b.encryptBlocks(this.#s, dst, src);
    }
    decryptBlocks(dst: Uint8Array, src: Uint8Array): void {
      b.decryptBlocks(this.#s, dst, src);
    }
    cbcEncrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
      b.cbcEncrypt(this.#s, dst, src, iv);
    }
    cbcDecryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
      b.cbcDecryptSectors(this.#s, dst, src, sectorSize, ivs);
    }
    cbcEncryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
      b.cbcEncryptSectors(this.#s, dst, src, sectorSize, ivs);
    }
    xtsEncrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
      b.xtsEncrypt(this.#s, dst, src, unitSize, tweaks);
    }
    xtsDecrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
      b.xtsDecrypt(this.#s, dst, src, unitSize, tweaks);
    }
    dispose(): void {
      b.dispose(this.#s);
      this.#rounds = 0;
    }
  }

  class KeyedCtr extends Keyed {
    /** Anything but the three counter names becomes -1, which the native side refuses with a TypeError. */
    ctr(dst: Uint8Array, src: Uint8Array, iv: Uint8Array, counter: CtrCounter): void {
      b.ctr(keyedState(this) as State, dst, src, iv, COUNTER_KINDS.get(counter) ?? -1);
    }
  }

  class KeyedHctr2 extends KeyedCtr {
    hctr2(
      dst: Uint8Array,
      src: Uint8Array,
      unitSize: number,
      tweaks: Uint8Array,
      tweakBytes: number,
      hash: PolyvalKernel,
      start: Uint8Array,
      l: Uint8Array,
      decrypt: boolean,
    ): void {
      const s = keyedState(this) as State;
      b.hctr2(s, dst, src, unitSize, tweaks, tweakBytes, polyvalState(hash) as State, start, l, decrypt);
    }
    gcmSeal(dst: Uint8Array, src: Uint8Array, j0: Uint8Array, aad: Uint8Array, hash: PolyvalKernel, t: number): void {
      b.gcmSeal(keyedState(this) as State, dst, src, j0, aad, polyvalState(hash) as State, t);
    }
    gcmOpen(
      dst: Uint8Array,
      sealed: Uint8Array,
      j0: Uint8Array,
      aad: Uint8Array,
      hash: PolyvalKernel,
      t: number,
    ): boolean {
      return b.gcmOpen(keyedState(this) as State, dst, sealed, j0, aad, polyvalState(hash) as State, t);
    }
  }

  return { Keyed, KeyedCtr, KeyedHctr2, keyedState };
}

/** The Adiantum/HPolyC key class over `b`; its `aes` argument is a keyed object, read by `keyedState`. */
function hbshClass(b: Binding, keyedState: StateOf): HbshClass {
  class Hbsh implements NativeHbsh {
    readonly #s: State;
    readonly core: string;
    constructor(key: Uint8Array, rounds: number, hpolyc: boolean, path: number, ke: Uint8Array, portable?: boolean) {
      this.#s = b.hbsh(key, rounds, hpolyc, path, ke, portable);
      this.core = b.hbshCore(this.#s);
    }
    crypt(
      dst: Uint8Array,
      src: Uint8Array,
      unitSize: number,
      tweaks: Uint8Array,
      tweakBytes: number,
      aes: NativeKeyedKernel,
      decrypt: boolean,
    ): void {
      b.hbshCrypt(this.#s, dst, src, unitSize, tweaks, tweakBytes, keyedState(aes) as State, decrypt);
    }
    dispose(): void {
      b.hbshDispose(this.#s);
    }
  }

  return Hbsh;
}

/** One kernel package's addon: where it is, how its messages start, and what loading it gave. */
interface Addon {
  readonly prefix: string;
  readonly dir: string;
  /** Why no path runs when the CPU has none (`options.noPath`). */
  readonly noPath: string;
  /** undefined: not tried yet; null: it failed, see `loadError`. */
  binding: Loaded | null | undefined;
  loadError: unknown;
  /** The binary's paths, best first (empty until it loads). */
  built: BuiltPath[];
}

/** A loaded binary: its functions, and the classes over them. */
interface Loaded extends Classes {
  readonly b: Binding;
}

/**
 * Loads the binary in `dir` (node-gyp-build: build/Release first, then prebuilds/) and makes its classes.
 * Throws when it cannot load or is out of date (a function this loader calls is missing).
 */
function loadBinding(dir: string, prefix: string): Loaded {
  const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
  const b = nodeGypBuild(dir) as Record<string, unknown>;
  const missing = FUNCTIONS.filter((f) => typeof b[f] !== 'function');
  if (missing.length > 0) {
    throw new Error(`${prefix}: the native addon is out of date (no ${missing.join(', ')}); rebuild it`);
  }
  const binding = b as unknown as Binding;
  return { b: binding, ...classesOf(binding) };
}

/** The binary, loaded on the first call (once, whatever happens), or why it cannot be used. */
function open(addon: Addon): Loaded | Error {
  if (addon.binding === undefined) {
    try {
      const loaded = loadBinding(addon.dir, addon.prefix);
      addon.built = loaded.b.paths();
      addon.binding = loaded;
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
  const { Keyed, KeyedCtr, KeyedHctr2 } = addon.binding as Loaded;
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
      const { Polyval } = addon.binding as Loaded;
      // The native object computes H's powers into memory it wipes on dispose; `h` may be wiped after.
      polyvalLoader ??= (h: Uint8Array) => new Polyval(h, c);
      return polyvalLoader;
    },
    /*
     * An Adiantum/HPolyC key on the chosen path (native/hbsh.h: the path's SIMD primitives where the CPU
     * has them, else the glue's C); undefined where no path runs.
     */
    get loadHbsh(): NativeLoadHbsh | undefined {
      const c = choose();
      if (c instanceof Error) return undefined;
      const { Hbsh } = addon.binding as Loaded;
      hbshLoader ??= (key: Uint8Array, rounds: number, hpolyc: boolean, ke: Uint8Array, portable?: boolean) =>
        new Hbsh(key, rounds, hpolyc, c, ke, portable);
      return hbshLoader;
    },
    /*
     * The Elephant diffusers on the chosen path (native/elephant.h); undefined where no path runs. Keyless:
     * one object per choice of diffuser, made once.
     */
    get loadElephant(): ((portable?: boolean) => NativeElephant) | undefined {
      const c = choose();
      if (c instanceof Error) return undefined;
      const { elephant, elephantCore } = (addon.binding as Loaded).b;
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
      return addon.binding ? addon.binding.b.calls() : 0;
    },
  };
}

export = { createNativeKernel };
