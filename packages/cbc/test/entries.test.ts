/**
 * `@x/cbc/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/cbc`.
 * The bundles are made by esbuild from the TypeScript sources (the "source" condition), for the browser.
 */
import { browserBundle, WASM_BASE64_MAGIC } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newCipher } from '../src/index.js';
import { kernels as portableKernels, newCipher as newPortable } from '../src/portable.js';

describe('entries', () => {
  it('a browser bundle of @x/cbc/portable has no WebAssembly module and no native loader', async () => {
    const portable = await browserBundle('@x/cbc/portable', import.meta.dirname);
    const all = await browserBundle('@x/cbc', import.meta.dirname);
    expect(all).toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain('aes-native-arm64');
    expect(portable).not.toContain('wasm-simd128');
    // What the portable entry leaves out: the WebAssembly kernel (its compressed modules are 24.7 KB of
    // base64) and the rest of the registry.
    expect(all.length - portable.length).toBeGreaterThan(25_000);
  });

  it('@x/cbc/portable runs the portable kernel and gives the same bytes as @x/cbc', () => {
    expect(portableKernels()).toEqual(['portable']);
    const key = new Uint8Array(32).map((_, i) => i * 7);
    const ivs = new Uint8Array(32).map((_, i) => i);
    const src = new Uint8Array(1024).map((_, i) => i * 13);
    const a = new Uint8Array(1024),
      b = new Uint8Array(1024);
    const p = newPortable(key);
    expect(p.kernel).toBe('portable');
    p.encryptSectors(a, src, 512, ivs);
    newCipher(key).encryptSectors(b, src, 512, ivs);
    expect(a).toEqual(b);
    expect(() => newPortable(key, { kernel: 'wasm-simd128' })).toThrow(
      '@x/cbc: unknown kernel "wasm-simd128"; usable here: portable',
    );
  });
});
