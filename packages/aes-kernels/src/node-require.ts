/**
 * Node's `require`, for the registry to load optional kernel packages synchronously (`newCipher` is
 * synchronous). This file is what `#require` resolves to under the `node` export condition (Node, Deno,
 * Bun, and bundles made for them); `no-require.ts` is what browsers and other runtimes get. A static
 * import of `node:module` works on every Node version `engines` admits, where `process.getBuiltinModule`
 * needs Node 20.16.
 *
 * @example
 * ```ts
 * import { requireOptional } from '#require';
 * requireOptional?.('@x/aes-native-arm64');
 * ```
 */
import { createRequire } from 'node:module';

export const requireOptional: ((id: string) => unknown) | undefined = createRequire(import.meta.url);
