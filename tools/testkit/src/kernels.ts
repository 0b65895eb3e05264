/**
 * Which kernels a mode's per-kernel suites run on: every kernel usable here, or those the environment
 * variable `X_AES_TEST_KERNELS` (comma-separated names) keeps. The second pass of the mode packages'
 * `npm test` uses it to run only `native-x64`, forced onto its `aesni` path by `X_AES_NATIVE_X64=aesni`,
 * after the first pass ran every kernel (native-x64 on its best path).
 */

/**
 * `usable`, kept to the names in `X_AES_TEST_KERNELS` when it is set.
 *
 * @example
 * ```ts
 * for (const kernel of testedKernels(kernels())) cbcConformance(onKernel(kernel), { describe, it });
 * ```
 */
export function testedKernels(usable: readonly string[]): string[] {
  const only = process.env.X_AES_TEST_KERNELS;
  if (!only) return [...usable];
  const keep = new Set(only.split(',').map((s) => s.trim()));
  return usable.filter((k) => keep.has(k));
}
