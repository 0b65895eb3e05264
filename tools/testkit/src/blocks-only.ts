// A kernel reduced to the two block primitives of the contract: what a new kernel is on its first day.
// Every mode must run on it (through its generic code), and the kernel suite must pass on it.
import type { AesBlockPrimitives, AesKernel } from '@x/aes-kernels/hazmat';
import type { KeySchedule } from '@x/aes-keyschedule';

/**
 * `kernel` with only the required primitives: named `${kernel.name}+generic`, the same `parallelBlocks`
 * and availability, and keyed kernels that have `rounds`, `encryptBlocks`, `decryptBlocks` and `dispose`
 * and nothing else, so a mode given it runs its generic code for every operation.
 *
 * @example
 * ```ts
 * import { chooseKernel } from '@x/aes-kernels/hazmat';
 * const generic = blocksOnly(chooseKernel('@x/cbc', 'portable'));   // 'portable+generic'
 * const cipher = newCipherOn(generic, key);                         // CBC over encryptBlocks/decryptBlocks
 * ```
 */
export function blocksOnly(kernel: AesKernel): AesKernel {
  return Object.freeze({
    name: `${kernel.name}+generic`,
    parallelBlocks: kernel.parallelBlocks,
    isAvailable: () => kernel.isAvailable(),
    load(schedule: KeySchedule): AesBlockPrimitives {
      const k = kernel.load(schedule);
      return Object.freeze({
        rounds: k.rounds,
        encryptBlocks: (dst: Uint8Array, src: Uint8Array) => k.encryptBlocks(dst, src),
        decryptBlocks: (dst: Uint8Array, src: Uint8Array) => k.decryptBlocks(dst, src),
        dispose: () => k.dispose(),
      });
    },
  });
}
