/**
 * `@x/gcm/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/gcm`.
 */
import { browserBundle, WASM_BASE64_MAGIC } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newGcm } from '../src/index.js';
import { kernels as portableKernels, newGcm as newPortable } from '../src/portable.js';

describe('entries', () => {
  it('a browser bundle of @x/gcm/portable has no WebAssembly module and no native loader', async () => {
    const portable = await browserBundle('@x/gcm/portable', import.meta.dirname);
    const all = await browserBundle('@x/gcm', import.meta.dirname);
    expect(all).toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain('aes-native-arm64');
    expect(portable).not.toContain('wasm-simd128');
    // What the portable entry leaves out: the WebAssembly kernel (its compressed modules are 24.7 KB of
    // base64) and the rest of the registry.
    expect(all.length - portable.length).toBeGreaterThan(25_000);
  });

  it('@x/gcm/portable runs the portable kernel and gives the same bytes as @x/gcm', () => {
    expect(portableKernels()).toEqual(['portable']);
    const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
    const nonce = new Uint8Array(12).map((_, i) => i);
    const src = new Uint8Array(1000).map((_, i) => i * 13);
    const a = new Uint8Array(1016);
    const b = new Uint8Array(1016);
    const p = newPortable(key);
    expect(p.kernel).toBe('portable');
    p.seal(a, nonce, src, nonce);
    newGcm(key).seal(b, nonce, src, nonce);
    expect(a).toEqual(b);
    expect(() => newPortable(key, { kernel: 'wasm-simd128' })).toThrow(
      '@x/gcm: unknown kernel "wasm-simd128"; usable here: portable',
    );
  });
});
