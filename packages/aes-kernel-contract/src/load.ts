/**
 * Loading a key into a kernel, as every mode does it: the kernel keeps its own copy of the round keys, so
 * the expanded schedule is wiped at once, whether or not loading threw.
 */
import type { KeySchedule } from '@x/aes-keyschedule';
import type { AesKernel, AesKeyedKernel } from './contract.js';

/**
 * `kernel.load(schedule)`, with `schedule` wiped afterwards (also when `load` throws).
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * const keyed = loadKey(kernel, expandKey(key)); // the schedule is already zeroes here
 * ```
 */
export function loadKey(kernel: AesKernel, schedule: KeySchedule): AesKeyedKernel {
  try {
    return kernel.load(schedule);
  } finally {
    schedule.wipe();
  }
}
