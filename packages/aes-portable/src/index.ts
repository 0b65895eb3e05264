/**
 * `@x/aes-portable`: the portable kernel of the @x AES packages. Pure TypeScript, constant time
 * (bitsliced on 32-bit words: no table lookup, branch or loop bound depends on a key or on data), and
 * endian-independent. It implements the kernel contract of `@x/aes-keyschedule` over the round keys of
 * that package's key schedule (FIPS 197 §5.2, §5.3.5).
 */
import type { AesKernel, KeySchedule } from '@x/aes-keyschedule';
import { BATCH_BLOCKS, PortableKeyedKernel } from './keyed.js';

export { PortableKeyedKernel } from './keyed.js';

/**
 * The portable AES kernel: available everywhere, 32 blocks per batch.
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * import { portableKernel } from '@x/aes-portable';
 *
 * const schedule = expandKey(key);            // 16, 24 or 32 bytes
 * const aes = portableKernel.load(schedule);
 * schedule.wipe();                            // the kernel keeps its own (bitsliced) copy
 * aes.decryptSectors(plain, disk, 512, ivs);  // CBC per 512-byte sector, one IV each
 * aes.dispose();                              // wipes that copy
 * ```
 */
export const portableKernel: AesKernel = Object.freeze({
  name: 'portable',
  parallelBlocks: BATCH_BLOCKS,
  isAvailable(): boolean {
    return true;
  },
  load(schedule: KeySchedule): PortableKeyedKernel {
    return new PortableKeyedKernel(schedule);
  },
});
