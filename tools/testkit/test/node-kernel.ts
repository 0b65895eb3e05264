// A kernel made of the references themselves (node:crypto), with every fast path: the kernel suite must
// pass on it, and fail on each of the broken variants below. Tests of the suite, not of AES.
import type { AesKernel, AesKeyedKernel } from '@x/aes-kernels/hazmat';
import type { KeySchedule } from '@x/aes-keyschedule';
import { refCbc, refCbcSectors, refEcb, refXtsBlocks } from '../src/reference.js';

/** The AES key is the first Nk words of the schedule (FIPS 197 §5.2). */
const keyOf = (s: KeySchedule) => s.encryptionKeys.slice(0, 4 * (s.rounds - 6));

let calls = 0;
/** Calls of the kernel's methods so far (the suite's one-call-per-contract-call check). */
export const nodeCalls = () => calls;

export function nodeKernel(parallelBlocks = 4): AesKernel {
  return {
    name: 'node-crypto',
    parallelBlocks,
    isAvailable: () => true,
    load(schedule: KeySchedule): AesKeyedKernel {
      let key: Uint8Array | undefined = keyOf(schedule);
      const live = () => {
        calls++;
        if (!key) throw new Error('node-crypto: disposed');
        return key;
      };
      return {
        rounds: schedule.rounds,
        encryptBlocks: (dst, src) => dst.set(refEcb(true, live(), src)),
        decryptBlocks: (dst, src) => dst.set(refEcb(false, live(), src)),
        cbcEncrypt: (dst, src, iv) => dst.set(refCbc(true, live(), src, iv)),
        cbcDecryptSectors: (dst, src, n, ivs) => dst.set(refCbcSectors(false, live(), src, n, ivs)),
        cbcEncryptSectors: (dst, src, n, ivs) => dst.set(refCbcSectors(true, live(), src, n, ivs)),
        // key2 only serves the reference's derivation of i = D_K2(T), which the definition does without.
        xtsEncrypt: (dst, src, n, t) => dst.set(refXtsBlocks(true, live(), new Uint8Array(0), src, n, t, true)),
        xtsDecrypt: (dst, src, n, t) => dst.set(refXtsBlocks(false, live(), new Uint8Array(0), src, n, t, true)),
        dispose: () => {
          key?.fill(0);
          key = undefined;
        },
      };
    },
  };
}

/** `kernel` with one method of its keyed kernels replaced by `broken(original)`. */
export function breakMethod<M extends keyof AesKeyedKernel>(
  kernel: AesKernel,
  method: M,
  broken: (original: NonNullable<AesKeyedKernel[M]>) => AesKeyedKernel[M],
): AesKernel {
  return {
    ...kernel,
    load(schedule) {
      const k = kernel.load(schedule);
      const original = k[method];
      if (original === undefined) throw new Error(`${kernel.name} has no ${method}`);
      return { ...k, [method]: broken(original) };
    },
  };
}
