/**
 * The two functions of a test runner a shared suite needs. Suites take them as an argument, so the same
 * suite runs under vitest (x64) and under `node:test` with an arm64 Node in qemu, where vitest cannot.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';        // or from 'node:test'
 * kernelConformance(kernel, { describe, it });
 * ```
 */
export interface Suite {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => unknown): void;
}
