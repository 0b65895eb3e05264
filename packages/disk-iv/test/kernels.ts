// Runs a check once per AES kernel that @x/cbc can use here. The generator has no kernel option (its API is
// fixed), so the kernel is forced the way @x/cbc documents for tests: X_AES_KERNEL, read when a cipher is made.
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';

export const KERNELS = testedKernels(kernels());

export function withKernel<T>(kernel: string, fn: () => T): T {
  const saved = process.env.X_AES_KERNEL;
  process.env.X_AES_KERNEL = kernel;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.X_AES_KERNEL;
    else process.env.X_AES_KERNEL = saved;
  }
}
