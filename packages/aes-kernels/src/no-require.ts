/**
 * No `require` here (browsers, workers, other runtimes): optional native kernels are never loaded. See
 * `node-require.ts`, which `#require` resolves to under the `node` condition.
 *
 * @example
 * ```ts
 * import { requireOptional } from '#require';
 * requireOptional; // undefined in a browser bundle
 * ```
 */
export const requireOptional: ((id: string) => unknown) | undefined = undefined;
