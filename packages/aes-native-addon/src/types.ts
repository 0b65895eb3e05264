/**
 * The types of `@x/aes-native-addon` (`import type { NativeKernel } from '@x/aes-native-addon/types'`):
 * the native kernel objects, as the kernel packages declare their exports. They are the kernel contract of
 * `@x/aes-kernel-contract`, narrowed to what every native path has; the semantics, argument by argument,
 * are the contract's.
 */
import type { AesBlockPrimitives, AesFastPaths, AesKernel, PolyvalKernel } from '@x/aes-kernel-contract';
import type { KeySchedule } from '@x/aes-keyschedule';

/** The fast paths every native path has: the glue exports them on every keyed kernel. */
type EveryPath = 'cbcEncrypt' | 'cbcDecryptSectors' | 'cbcEncryptSectors' | 'xtsEncrypt' | 'xtsDecrypt';

/**
 * A keyed native kernel: what `kernel.load(schedule)` returns. Every method is one call into native code
 * that works on the caller's bytes; after `dispose()` every call throws. The block primitives and the CBC
 * and XTS fast paths are always there; `ctr` where the path has it, `hctr2`, `gcmSeal` and `gcmOpen` where
 * it has `ctr` and POLYVAL.
 */
export type NativeKeyedKernel = AesBlockPrimitives &
  Required<Pick<AesFastPaths, EveryPath>> &
  Pick<AesFastPaths, 'ctr' | 'hctr2' | 'gcmSeal' | 'gcmOpen'>;

/** A POLYVAL hash key in native memory: what `kernel.loadPolyval(h)` returns; after `dispose()` calls throw. */
export type NativePolyval = PolyvalKernel;

/**
 * An Adiantum or HPolyC key in native memory (`kernel.loadHbsh(...)`): XChaCha's key and the hash keys,
 * wiped on `dispose()` and at garbage collection; after `dispose()` calls throw.
 */
export interface NativeHbsh {
  /**
   * The primitives that run: `'avx512'` (x86-64, the `avx512` path), `'avx2'` (x86-64 with AVX2), `'neon'`
   * (arm64), or `'c'` (the glue's portable C).
   */
  readonly core: string;
  /**
   * Adiantum or HPolyC (Crowley and Biggers, ToSC 2018(4)) of `src.length / unitSize` messages of
   * `unitSize` bytes (≥ 16), message u under `tweaks[u·tweakBytes ..]`, into `dst` (the same bytes as
   * `src`, or not overlapping it), in one native call; `aes` is a keyed kernel of the same binary holding
   * the AES-256 key K_E. The caller checks the arguments first (`@x/adiantum`).
   */
  crypt(
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    aes: NativeKeyedKernel,
    decrypt: boolean,
  ): void;
  dispose(): void;
}

/** `loadHbsh` of a native kernel: an Adiantum/HPolyC key (see {@link NativeKernel.loadHbsh}). */
export type NativeLoadHbsh = (
  key: Uint8Array,
  rounds: number,
  hpolyc: boolean,
  ke: Uint8Array,
  portable?: boolean,
) => NativeHbsh;

/**
 * BitLocker's Elephant diffusers (AES-CBC + Elephant, Ferguson 2006) in native code, on the chosen path's
 * SIMD diffuser where it has one (`kernel.loadElephant()`): keyless, so nothing to dispose.
 */
export interface NativeElephant {
  /** The diffuser that runs: `'avx2'` (x86-64 with AVX2, eight sectors at a time), or `'c'` (the glue's portable C). */
  readonly core: string;
  /**
   * Diffuser B, diffuser A (decryption direction: after CBC decryption), then sector s ⊕= its 32-byte key
   * `keys[32s ..]` repeated, for the `data.length / sectorSize` sectors of `data`, in place, in one native
   * call. `sectorSize` is 512, 1024, 2048 or 4096. The caller checks the arguments first (`@x/dm-crypt`).
   */
  decrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
  /** The inverse, before CBC encryption: ⊕ the key, then diffuser A and diffuser B in the encryption direction. */
  encrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
}

/** A native kernel object (the kernel contract's `AesKernel`), bound to one code path. */
export interface NativeKernel<Name extends string = string> extends Omit<AesKernel, 'name' | 'load' | 'loadPolyval'> {
  readonly name: Name;
  /** The code path this kernel runs (`'avx512'`, `'vaes'`, `'aesni'`, `'armv8-ce'`), or undefined where none can run. */
  readonly path: string | undefined;
  load(schedule: KeySchedule): NativeKeyedKernel;
  /**
   * Binds a POLYVAL hash key (16 bytes) on the chosen path: present (a function) only when that path has
   * POLYVAL; undefined otherwise, and where no path runs.
   */
  readonly loadPolyval?: (h: Uint8Array) => NativePolyval;
  /**
   * Binds an Adiantum (`hpolyc` false) or HPolyC key of 32 bytes with XChaCha `rounds` on the chosen
   * path, and writes its AES-256 key K_E (32 bytes) into `ke` for the caller's key schedule. Undefined
   * where no path runs. `portable` true
   * runs the glue's portable C primitives even where the path has SIMD ones (for tests).
   */
  readonly loadHbsh?: NativeLoadHbsh;
  /**
   * The Elephant diffusers on the chosen path (`portable` true: the glue's portable C even where the path
   * has SIMD ones, for tests). Undefined where no path runs.
   */
  readonly loadElephant?: (portable?: boolean) => NativeElephant;
}

/** What a native kernel package tells {@link createNativeKernel}. */
export interface NativeKernelOptions<Name extends string> {
  /** The kernel's name in the registry, e.g. `'native-x64'`. */
  name: Name;
  /** The package, the prefix of every message, e.g. `'@x/aes-native-x64'`. */
  prefix: string;
  /** The package's root, where node-gyp-build looks for build/Release and prebuilds/. */
  dir: string;
  /** Blocks per batch that the paths interleave (the contract's `parallelBlocks`). */
  parallelBlocks: AesKernel['parallelBlocks'];
  /** An environment variable that forces a path by name (read once, when the addon first loads). */
  pathVariable?: string;
  /** Why no path runs when the CPU has none of them, e.g. `'this CPU has no AES-NI'`. */
  noPath: string;
}

/** What {@link createNativeKernel} returns. */
export interface NativeKernelExports<Name extends string> {
  /** The kernel on the path the environment variable forces, else on the best path this CPU has. */
  kernel: NativeKernel<Name>;
  /** The same kernel on a path of one's choosing (tests and benchmarks run every path in one process). */
  kernelOn(path: string): NativeKernel<Name>;
  /** Every path the binary was built with, best first, and whether it runs here. */
  paths(): { name: string; available: boolean }[];
  /** How many keyed-kernel methods have entered native code since the addon loaded (0 when it has not). */
  nativeCallCount(): number;
}
