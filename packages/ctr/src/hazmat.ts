/**
 * `@x/ctr/hazmat`: the counter-mode keystream for writing a mode on (`@x/gcm` uses the 32-bit counter,
 * `@x/hctr2` XCTR). It checks nothing: validate with `@x/aes-kernels/checks` first.
 */
import type { AesKeyedKernel, CtrCounter } from '@x/aes-kernels/hazmat';
import { ctrBlocks, type CtrScratch } from './generic.js';

export { CtrScratch } from './generic.js';

/**
 * dst = src ^ keystream for `src.length` bytes (any length; the last block partial): the kernel's `ctr`
 * fast path where it has one, else the generic one over its `encryptBlocks` on `scratch` (made once per
 * key with the kernel's `parallelBlocks`). `iv` is 16 bytes and the counter kind as the kernel contract's
 * `CtrCounter` says; `dst` and `src` are the same bytes or do not overlap; `iv` does not overlap `dst`.
 *
 * @example
 * ```ts
 * import { ctrXor, CtrScratch } from '@x/ctr/hazmat';
 * const scratch = new CtrScratch(kernel.parallelBlocks);
 * ctrXor(keyed, scratch, dst, src, j0PlusOne, 'be32');   // GCM's GCTR (SP 800-38D §6.5)
 * ```
 */
export function ctrXor(
  k: AesKeyedKernel,
  scratch: CtrScratch,
  dst: Uint8Array,
  src: Uint8Array,
  iv: Uint8Array,
  counter: CtrCounter,
): void {
  if (k.ctr !== undefined) k.ctr(dst, src, iv, counter);
  else ctrBlocks(k, scratch, dst, src, iv, counter);
}
