/**
 * `@x/hctr2/portable` leaves WebAssembly out of a browser bundle, and gives the same bytes as `@x/hctr2`.
 */
import { browserBundle, WASM_BASE64_MAGIC } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newHctr2 } from '../src/index.js';
import { kernels as portableKernels, newHctr2 as newPortable } from '../src/portable.js';

describe('entries', () => {
  it('a browser bundle of @x/hctr2/portable has no WebAssembly module and no native loader', async () => {
    const portable = await browserBundle('@x/hctr2/portable', import.meta.dirname);
    const all = await browserBundle('@x/hctr2', import.meta.dirname);
    expect(all).toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain('aes-native-arm64');
    expect(portable).not.toContain('wasm-simd128');
    // What the portable entry leaves out: the WebAssembly kernel (its compressed modules are 24.7 KB of
    // base64) and the rest of the registry.
    expect(all.length - portable.length).toBeGreaterThan(25_000);
  });

  it('@x/hctr2/portable runs the portable kernel and gives the same bytes as @x/hctr2', () => {
    expect(portableKernels()).toEqual(['portable']);
    const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
    const tweaks = new Uint8Array(64).map((_, i) => i);
    const src = new Uint8Array(1024).map((_, i) => i * 13);
    const a = new Uint8Array(1024);
    const b = new Uint8Array(1024);
    const p = newPortable(key);
    expect(p.kernel).toBe('portable');
    p.encryptSectors(a, src, 512, tweaks);
    newHctr2(key).encryptSectors(b, src, 512, tweaks);
    expect(a).toEqual(b);
    expect(() => newPortable(key, { kernel: 'wasm-simd128' })).toThrow(
      '@x/hctr2: unknown kernel "wasm-simd128"; usable here: portable',
    );
  });
});
