/**
 * `native-arm64`: AES on the ARMv8 Cryptographic Extension (AESE/AESMC, AESD/AESIMC), eight blocks
 * interleaved, through a Node-API addon that works on the caller's bytes in place. It satisfies the kernel
 * contract of `@x/aes-kernel-contract` (contract v2): the two block primitives and every fast path (CBC encryption
 * of one chain, CBC of many sectors either way, the whole-block part of XTS, IEEE 1619).
 *
 * The Node-API glue and this loader are `@x/aes-native-addon`'s, shared with `@x/aes-native-x64`; this
 * package is the AES code (src/native/aes_arm64.c) and its prebuilt binary. CommonJS, so that
 * `@x/aes-kernels` can `require` it synchronously; it never throws on load: where the addon cannot load
 * (x64, a platform without a prebuilt binary or a build from source) or the CPU lacks AES, `isAvailable()`
 * is false and `load()` throws with the reason as `cause`.
 */
import type { AesKernel } from '@x/aes-kernel-contract';
import type { NativeKernel } from '@x/aes-native-addon/types';
import path = require('node:path');
import native = require('@x/aes-native-addon');

const arm64 = native.createNativeKernel({
  name: 'native-arm64',
  prefix: '@x/aes-native-arm64',
  dir: path.join(__dirname, '..'),
  parallelBlocks: 8,
  noPath: 'this CPU lacks the AES or PMULL instructions (FEAT_AES, FEAT_PMULL)',
});
const kernel = arm64.kernel satisfies AesKernel;
const { nativeCallCount } = arm64;

/** The exports of `@x/aes-native-arm64`. */
interface NativeArm64Exports {
  /**
   * The `native-arm64` kernel (`AesKernel` of `@x/aes-kernel-contract`), eight blocks per batch. Each
   * method of a keyed kernel is exactly one call into native code, whatever the length (a
   * `cbcDecryptSectors` or `xtsEncrypt` over 2048 sectors included), and works on the caller's bytes
   * without copying.
   *
   * @example
   * ```ts
   * const { kernel } = require('@x/aes-native-arm64');
   * const { expandKey } = await import('@x/aes-keyschedule');
   * if (kernel.isAvailable()) {
   *   const schedule = expandKey(key);
   *   const aes = kernel.load(schedule);
   *   schedule.wipe();                               // the kernel keeps its own copy
   *   aes.cbcDecryptSectors(dst, src, 512, ivs);     // CBC, one chain per 512-byte sector
   *   aes.cbcEncryptSectors(dst, src, 512, ivs);     // the same chains encrypted, 8 sectors interleaved
   *   aes.xtsEncrypt(dst, src, 512, tweaks);         // XTS blocks, tweaks[16s..] = E_K2(i) of sector s
   *   aes.dispose();                                 // wipes that copy
   * }
   * ```
   */
  readonly kernel: NativeKernel<'native-arm64'>;
  /**
   * The `native-arm64` kernel under its old name.
   *
   * @deprecated Use `kernel`: every kernel package exports its kernel as `kernel`.
   * @example
   * ```ts
   * const { nativeArm64Kernel } = require('@x/aes-native-arm64');
   * nativeArm64Kernel.name; // 'native-arm64'
   * ```
   */
  readonly nativeArm64Kernel: NativeKernel<'native-arm64'>;
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

// An object literal, so that Node's ESM loader (cjs-module-lexer) sees every name as a named export.
export = { kernel, nativeArm64Kernel: kernel, nativeCallCount } as NativeArm64Exports;
