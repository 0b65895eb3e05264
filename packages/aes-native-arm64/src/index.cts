/**
 * `native-arm64`: AES on the ARMv8 Cryptographic Extension (AESE/AESMC, AESD/AESIMC), eight blocks
 * interleaved, through a Node-API addon that works on the caller's bytes in place. It satisfies the kernel
 * contract of `@x/aes-kernels` (contract v2): the two block primitives and every fast path (CBC encryption
 * of one chain, CBC of many sectors either way, the whole-block part of XTS, IEEE 1619).
 *
 * This entry is CommonJS so that `@x/aes-kernels` can `require` it synchronously, and it never throws
 * on load: the addon is loaded on first use, and where it cannot load (x64, a platform without a
 * prebuilt binary or a build from source) or the CPU lacks AES, `isAvailable()` is false and `load()`
 * throws with the reason as `cause`.
 */
import type { KeySchedule } from '@x/aes-keyschedule';
import path = require('node:path');

const PREFIX = '@x/aes-native-arm64';

/**
 * A keyed `native-arm64` kernel: what `kernel.load(schedule)` returns. Every method is one call into
 * native code that works on the caller's bytes; the semantics are those of the kernel contract.
 */
interface NativeArm64KeyedKernel {
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
  /** CBC encryption of sectors, sector s with IV `ivs[16s ..]`, 8 sectors interleaved. */
  cbcEncryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** XTS-AES encryption (IEEE 1619 §5.3.1) of whole blocks, unit u from the encrypted tweak `tweaks[16u ..]`. */
  xtsEncrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks. */
  xtsDecrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** Wipes the native copy of the round keys; calls afterwards throw. */
  dispose(): void;
}

/** The `native-arm64` kernel object. */
interface NativeArm64Kernel {
  readonly name: 'native-arm64';
  readonly parallelBlocks: 8;
  isAvailable(): boolean;
  load(schedule: KeySchedule): NativeArm64KeyedKernel;
}

/** What src/native/addon.c exports. */
interface Binding {
  hasAes(): boolean;
  calls(): number;
  /**
   * Present on arm64 builds only. Its instances are the keyed kernels themselves: every method of
   * {@link NativeArm64KeyedKernel} is a native method that re-checks only what keeps it inside the
   * caller's arrays (whole blocks, dst long enough, 16-byte IVs, whole sectors or data units with 16
   * bytes of IV or tweak each) and throws RangeError/TypeError otherwise.
   */
  Keyed?: new (
    rounds: number,
    encryptionKeys: Uint8Array,
    decryptionKeys: Uint8Array,
  ) => NativeArm64KeyedKernel;
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

let binding: Binding | null | undefined; // undefined: not tried yet; null: failed, see loadError
let loadError: unknown;

/** The addon, found by node-gyp-build: build/Release (a build from source) first, then prebuilds/. */
function tryBinding(): Binding | null {
  if (binding === undefined) {
    try {
      const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
      binding = nodeGypBuild(path.join(__dirname, '..')) as Binding;
    } catch (error) {
      binding = null;
      loadError = error;
    }
  }
  return binding;
}

/** Why the kernel cannot run here, or undefined when it can. */
function unavailable(): Error | undefined {
  const b = tryBinding();
  if (b === null) {
    return new Error(`${PREFIX}: the native addon did not load on ${process.platform}-${process.arch}`, {
      cause: loadError,
    });
  }
  let aes = false;
  try {
    aes = b.hasAes() && typeof b.Keyed === 'function';
  } catch (error) {
    return new Error(`${PREFIX}: CPU feature detection failed`, { cause: error });
  }
  if (!aes) return new Error(`${PREFIX}: this CPU has no AES instructions (FEAT_AES)`);
  const proto = (b.Keyed as NonNullable<Binding['Keyed']>).prototype as Record<string, unknown>;
  const missing = METHODS.filter((m) => typeof proto[m] !== 'function');
  if (missing.length > 0)
    return new Error(`${PREFIX}: the native addon is out of date (no ${missing.join(', ')}); rebuild it`);
  return undefined;
}

let reason: Error | undefined | null = null; // null: not checked yet

function check(): Error | undefined {
  if (reason === null) reason = unavailable();
  return reason;
}

const kernel: NativeArm64Kernel = Object.freeze({
  name: 'native-arm64',
  parallelBlocks: 8,
  isAvailable(): boolean {
    return check() === undefined;
  },
  load(schedule: KeySchedule): NativeArm64KeyedKernel {
    const why = check();
    if (why !== undefined) {
      throw new Error(`${PREFIX}: kernel native-arm64 is not available here: ${why.message}`, { cause: why });
    }
    const Keyed = (binding as Binding).Keyed as NonNullable<Binding['Keyed']>;
    // The native object copies both schedules (FIPS 197 §5.2 and §5.3.5) into memory it wipes on dispose.
    return new Keyed(schedule.rounds, schedule.encryptionKeys, schedule.decryptionKeys);
  },
});

function nativeCallCount(): number {
  const b = tryBinding();
  return b === null ? 0 : b.calls();
}

/** The exports of `@x/aes-native-arm64`. */
interface NativeArm64Exports {
  /**
   * The `native-arm64` kernel (the kernel contract of `@x/aes-kernels`), eight blocks per batch. Each
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
  readonly kernel: NativeArm64Kernel;
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
  readonly nativeArm64Kernel: NativeArm64Kernel;
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
