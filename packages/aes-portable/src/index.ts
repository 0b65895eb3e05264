/**
 * `@x/aes-portable`: the portable kernel of the @x AES packages. Pure TypeScript, constant time
 * (bitsliced on 32-bit words: no table lookup, branch or loop bound depends on a key or on data), and
 * endian-independent. It satisfies the kernel contract of `@x/aes-kernel-contract` (contract v2: the two
 * block primitives, every fast path but `ctr`, `hctr2`, `gcmSeal` and `gcmOpen`, and the POLYVAL multiply-accumulate) over the round
 * keys of `@x/aes-keyschedule` (FIPS 197 §5.2, §5.3.5).
 */
import type { AesKernel } from '@x/aes-kernel-contract';
import type { KeySchedule } from '@x/aes-keyschedule';
import { BATCH_BLOCKS, loadPortable, type PortableKeyedKernel } from './keyed.js';
import { loadPolyval, type PortablePolyval } from './polyval.js';

export type { PortableKeyedKernel } from './keyed.js';
export type { PortablePolyval } from './polyval.js';

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
 *
 * const hash = kernel.loadPolyval(h);            // POLYVAL (RFC 8452 §3): GHASH and HCTR2's hash
 * hash.update(acc, blocks, false);               // acc = dot(acc ^ X, H) for each block X
 * hash.dispose();
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
  /**
   * Binds a POLYVAL hash key (16 bytes, RFC 8452 §3 byte order): the constant-time GF(2^128)
   * multiply-accumulate every kernel without its own falls back to. `h` may be wiped afterwards.
   */
  loadPolyval(h: Uint8Array): PortablePolyval {
    return loadPolyval(h);
  },
}) satisfies AesKernel;

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
