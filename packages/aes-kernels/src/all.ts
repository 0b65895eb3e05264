/**
 * The registry of every kernel, best first: the ARMv8 Crypto Extensions through Node-API (an optional
 * package, loaded where Node's `require` exists), then WebAssembly SIMD128, then the portable bitsliced
 * TypeScript kernel, which is always there. A new kernel is one entry here.
 */
import { requireOptional } from '#require';
import { kernel as portable } from '@x/aes-portable';
import { init as initWasm, kernel as wasm } from '@x/aes-wasm-kernel';
import { createRegistry } from './registry.js';

/**
 * Every kernel this build knows, best first.
 *
 * @example
 * ```ts
 * import { registry } from '@x/aes-kernels/hazmat';
 * registry.names; // ['native-x64', 'native-arm64', 'wasm-simd128', 'portable']
 * ```
 */
export const registry = /* @__PURE__ */ createRegistry(
  [
    { name: 'native-x64', package: '@x/aes-native-x64' },
    { name: 'native-arm64', package: '@x/aes-native-arm64' },
    wasm,
    portable,
  ],
  {
    require: requireOptional,
    init: initWasm,
  },
);
