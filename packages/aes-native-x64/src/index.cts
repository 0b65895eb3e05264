/**
 * `native-x64`: AES on x86-64 through a Node-API addon that works on the caller's bytes in place, with
 * three code paths chosen once, at load, by CPUID and XGETBV:
 *
 * - `avx512`: VAES + AVX-512 on zmm registers, four blocks per instruction, 32 blocks in flight (ECB, CBC
 *   decryption, XTS, CTR, POLYVAL; the rest as `vaes`);
 * - `vaes`: VAES + AVX2 on ymm registers, two blocks per instruction, 16 blocks in flight;
 * - `aesni`: AES-NI on xmm registers, 8 blocks interleaved.
 *
 * The environment variable `X_AES_NATIVE_X64` (`avx512`, `vaes` or `aesni`) forces one; {@link kernelOn}
 * gives the kernel on any of them, in one process. A CPU without AES-NI never runs an instruction it lacks: the kernel
 * reports itself unavailable. It satisfies the kernel contract of `@x/aes-kernel-contract` (v2): the two block
 * primitives and every fast path (CBC encryption of one chain, CBC of many sectors either way, the
 * whole-block part of XTS, IEEE 1619).
 *
 * The Node-API glue and this loader are `@x/aes-native-addon`'s, shared with `@x/aes-native-arm64`; this
 * package is the AES code (src/native/aes_x64.c) and its prebuilt binary. CommonJS, so that
 * `@x/aes-kernels` can `require` it synchronously; it never throws on load.
 */
import type { AesKernel } from '@x/aes-kernel-contract';
import type { NativeKernel } from '@x/aes-native-addon/types';
import path = require('node:path');
import native = require('@x/aes-native-addon');

const x64 = native.createNativeKernel({
  name: 'native-x64',
  prefix: '@x/aes-native-x64',
  dir: path.join(__dirname, '..'),
  parallelBlocks: 16,
  pathVariable: 'X_AES_NATIVE_X64',
  noPath: 'this CPU has no AES-NI',
});
const kernel = x64.kernel satisfies AesKernel;
const { kernelOn, paths, nativeCallCount } = x64;

/** The code paths of `native-x64`, best first. */
type X64Path = 'avx512' | 'vaes' | 'aesni';

/** The exports of `@x/aes-native-x64`. */
interface NativeX64Exports {
  /**
   * The `native-x64` kernel (`AesKernel` of `@x/aes-kernel-contract`), on the path `X_AES_NATIVE_X64`
   * names, else the best this CPU has (`avx512`, `vaes`, then `aesni`). Each method of a keyed kernel is exactly one
   * call into native code, whatever the length, and works on the caller's bytes without copying.
   *
   * @example
   * ```ts
   * const { kernel } = require('@x/aes-native-x64');
   * const { expandKey } = await import('@x/aes-keyschedule');
   * if (kernel.isAvailable()) {
   *   kernel.path;                                   // 'avx512' on a CPU with VAES and AVX-512
   *   const schedule = expandKey(key);
   *   const aes = kernel.load(schedule);
   *   schedule.wipe();                               // the kernel keeps its own copy
   *   aes.cbcDecryptSectors(dst, src, 512, ivs);     // CBC, one chain per 512-byte sector
   *   aes.xtsDecrypt(dst, src, 512, tweaks);         // XTS blocks, tweaks[16s..] = E_K2(i) of sector s
   *   aes.dispose();                                 // wipes that copy
   * }
   * ```
   */
  readonly kernel: NativeKernel<'native-x64'>;
  /**
   * The kernel on one path, `'avx512'`, `'vaes'` or `'aesni'`, whatever `X_AES_NATIVE_X64` says: unavailable where
   * the CPU lacks that path. For tests and benchmarks that compare the paths in one process.
   *
   * @example
   * ```ts
   * const { kernelOn } = require('@x/aes-native-x64');
   * kernelOn('aesni').isAvailable(); // true on every x86-64 CPU with AES-NI
   * ```
   */
  kernelOn(path: X64Path): NativeKernel<'native-x64'>;
  /**
   * The paths built into the binary, best first, and whether each runs on this CPU (`[]` where the binary
   * does not load).
   *
   * @example
   * ```ts
   * paths(); // [{ name: 'avx512', available: false }, { name: 'vaes', available: true }, { name: 'aesni', available: true }]
   * ```
   */
  paths(): { name: string; available: boolean }[];
  /**
   * How many keyed-kernel methods have entered native code since the addon loaded (0 when it has not).
   * A diagnostic: it shows that one contract call is one Node-API call, never one per block or sector.
   *
   * @example
   * ```ts
   * const before = nativeCallCount();
   * aes.cbcDecryptSectors(dst, src, 512, ivs); // 2048 sectors
   * nativeCallCount() - before;                // 1
   * ```
   */
  nativeCallCount(): number;
}

// An object literal of shorthand properties: the one shape in which Node's ESM loader (cjs-module-lexer)
// sees every name as a named export (`kernel: x64.kernel` stops it at the first member expression).
export = { kernel, kernelOn, paths, nativeCallCount } as NativeX64Exports;
