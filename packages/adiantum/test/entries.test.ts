/**
 * `@x/adiantum/portable` leaves WebAssembly out of a browser bundle (neither the AES kernel's module nor
 * the core's), and gives the same bytes as `@x/adiantum`.
 */
import { browserBundle, WASM_BASE64_MAGIC } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newAdiantum, newHpolyc } from '../src/index.js';
import {
  kernels as portableKernels,
  newAdiantum as portableAdiantum,
  newHpolyc as portableHpolyc,
} from '../src/portable.js';

describe('entries', () => {
  it('a browser bundle of @x/adiantum/portable has no WebAssembly module and no native loader', async () => {
    const portable = await browserBundle('@x/adiantum/portable', import.meta.dirname);
    const all = await browserBundle('@x/adiantum', import.meta.dirname);
    expect(all).toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain(WASM_BASE64_MAGIC);
    expect(portable).not.toContain('aes-native-arm64');
    expect(portable).not.toContain('wasm-simd128');
    // What the portable entry leaves out: the WebAssembly kernel (its compressed modules are 24.7 KB of
    // base64) and the rest of the registry.
    expect(all.length - portable.length).toBeGreaterThan(25_000);
  });

  it('@x/adiantum/portable runs the portable kernel and core and gives the same bytes as @x/adiantum', () => {
    expect(portableKernels()).toEqual(['portable']);
    const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
    const tweaks = new Uint8Array(64).map((_, i) => i);
    const src = new Uint8Array(8192).map((_, i) => i * 13);
    for (const [portable, best] of [
      [portableAdiantum, newAdiantum],
      [portableHpolyc, newHpolyc],
    ] as const) {
      const a = new Uint8Array(8192);
      const b = new Uint8Array(8192);
      const p = portable(key, { rounds: 20 });
      expect(p.kernel).toBe('portable');
      p.encryptSectors(a, src, 4096, tweaks);
      best(key, { rounds: 20 }).encryptSectors(b, src, 4096, tweaks);
      expect(a).toEqual(b);
    }
    expect(() => portableAdiantum(key, { kernel: 'wasm-simd128' })).toThrow(
      '@x/adiantum: unknown kernel "wasm-simd128"; usable here: portable',
    );
  });
});
