/**
 * `@x/aes-portable`: the portable kernel of the @x AES packages. Pure TypeScript, constant time
 * (bitsliced on 32-bit words: no table lookup, branch or loop bound depends on a key or on data), and
 * endian-independent. It satisfies the kernel contract of `@x/aes-kernels` (contract v2: the two block
 * primitives and every fast path) over the round keys of `@x/aes-keyschedule` (FIPS 197 §5.2, §5.3.5).
 */
import type { KeySchedule } from '@x/aes-keyschedule';
import { BATCH_BLOCKS, loadPortable, type PortableKeyedKernel } from './keyed.js';

export type { PortableKeyedKernel } from './keyed.js';

/**
 * The portable AES kernel: available everywhere, 32 blocks per batch. Modes (`@x/cbc`, `@x/xts`) choose
 * it through `@x/aes-kernels`; use it directly only to test or benchmark the kernel, or to write a mode.
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * import { kernel } from '@x/aes-portable';
 *
 * const schedule = expandKey(key);               // 16, 24 or 32 bytes
 * const aes = kernel.load(schedule);
 * schedule.wipe();                               // the kernel keeps its own (bitsliced) copy
 * aes.cbcDecryptSectors(plain, disk, 512, ivs);  // CBC per 512-byte sector, one IV each
 * aes.dispose();                                 // wipes that copy
 * ```
 */
export const kernel = Object.freeze({
  name: 'portable' as const,
  parallelBlocks: BATCH_BLOCKS,
  isAvailable(): boolean {
    return true;
  },
  load(schedule: KeySchedule): PortableKeyedKernel {
    return loadPortable(schedule);
  },
});

/**
 * The portable kernel under its old name.
 *
 * @deprecated Use {@link kernel}: every kernel package exports its kernel as `kernel`.
 * @example
 * ```ts
 * import { portableKernel } from '@x/aes-portable';
 * portableKernel.name; // 'portable'
 * ```
 */
export const portableKernel = kernel;
