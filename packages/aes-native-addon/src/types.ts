/**
 * The types of `@x/aes-native-addon` (`import type { NativeKernel } from '@x/aes-native-addon/types'`):
 * the native kernel objects, as the kernel packages declare their exports.
 */
import type { KeySchedule } from '@x/aes-keyschedule';

/**
 * A keyed native kernel: what `kernel.load(schedule)` returns. Every method is one call into native code
 * that works on the caller's bytes; the semantics are those of the kernel contract of `@x/aes-kernels`.
 */
export interface NativeKeyedKernel {
  /** 10, 12 or 14 (FIPS 197 §5 Figure 4). */
  readonly rounds: number;
  /** Each 16-byte block of `src` encrypted on its own (FIPS 197 §5.1). */
  encryptBlocks(dst: Uint8Array, src: Uint8Array): void;
  /** Each 16-byte block of `src` decrypted on its own (FIPS 197 §5.3.5). */
  decryptBlocks(dst: Uint8Array, src: Uint8Array): void;
  /** CBC encryption of one chain (NIST SP 800-38A §6.2). */
  cbcEncrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /** CBC decryption of sectors, sector s with IV `ivs[16s ..]`; one chain is one sector as long as `src`. */
  cbcDecryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** CBC encryption of sectors, sector s with IV `ivs[16s ..]`, several sectors interleaved. */
  cbcEncryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** XTS-AES encryption (IEEE 1619 §5.3.1) of whole blocks, unit u from the encrypted tweak `tweaks[16u ..]`. */
  xtsEncrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks. */
  xtsDecrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /**
   * Where the path has it: a CTR keystream XORed into `dst` for `src.length` bytes (any length), counter
   * blocks from the 16-byte `iv`: `'be128'` iv + j mod 2^128 (NIST SP 800-38A), `'be32'` the last 4 bytes
   * + j mod 2^32 (GCM, SP 800-38D §6.2), `'xctr'` iv ^ le128(j + 1) (HCTR2).
   */
  ctr?(dst: Uint8Array, src: Uint8Array, iv: Uint8Array, counter: 'be128' | 'be32' | 'xctr'): void;
  /**
   * Where the path has `ctr` and POLYVAL: HCTR2 (ePrint 2021/1441 §3) of `src.length / unitSize` messages
   * in one native call, message u under `tweaks[u·tweakBytes ..]`, `hash` the {@link NativePolyval} of
   * hbar = E_K(0) from this same kernel's `loadPolyval`, `start` POLYVAL's state after the length block, `l` =
   * E_K(bin(1)) (the kernel contract's `hctr2` of `@x/aes-kernels`).
   */
  hctr2?(
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    hash: NativePolyval,
    start: Uint8Array,
    l: Uint8Array,
    decrypt: boolean,
  ): void;
  /** Wipes the native copy of the round keys; calls afterwards throw. */
  dispose(): void;
}

/** A POLYVAL hash key in native memory: what `kernel.loadPolyval(h)` returns. */
export interface NativePolyval {
  /**
   * For each 16-byte block X of `data`: acc = (acc ^ X)·H·x^-128 (RFC 8452 §3), X byte-reversed first
   * when `reversed` (GHASH, RFC 8452 Appendix A). One native call on the caller's bytes.
   */
  update(acc: Uint8Array, data: Uint8Array, reversed: boolean): void;
  /** Wipes the native copy of H and its powers; calls afterwards throw. */
  dispose(): void;
}

/** A native kernel object (the kernel contract of `@x/aes-kernels`), bound to one code path. */
export interface NativeKernel<Name extends string = string> {
  readonly name: Name;
  readonly parallelBlocks: number;
  /** The code path this kernel runs (`'vaes'`, `'aesni'`, `'armv8-ce'`), or undefined where none can run. */
  readonly path: string | undefined;
  isAvailable(): boolean;
  load(schedule: KeySchedule): NativeKeyedKernel;
  /**
   * Binds a POLYVAL hash key (16 bytes) on the chosen path: present (a function) only when that path has
   * POLYVAL; undefined otherwise, and where no path runs.
   */
  readonly loadPolyval?: (h: Uint8Array) => NativePolyval;
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
  parallelBlocks: number;
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
