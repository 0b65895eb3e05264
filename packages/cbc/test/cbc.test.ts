import { describe, expect, it } from 'vitest';
import { kernels, newCipher } from '@x/cbc';
import { cbcConformance } from './conformance.js';

// Every conformance test, once per kernel this runtime can run.
for (const kernel of kernels()) cbcConformance(kernel, { describe, it });

describe('kernel choice', () => {
  it("lists usable kernels best first, 'portable' always last", () => {
    const list = kernels();
    expect(list.at(-1)).toBe('portable');
    expect(new Set(list).size).toBe(list.length);
  });

  it('the kernels CI is set up to test are all present (a silently skipped kernel is a bug)', () => {
    // CI runs on x86-64 Linux with Node 20: WebAssembly SIMD is there; native-arm64 is tested by
    // @x/aes-native-arm64's own run under qemu. On an arm64 CI machine the native kernel must load.
    if (!process.env.CI) return;
    const want = ['wasm-simd128', 'portable'];
    if (process.arch === 'arm64') want.unshift('native-arm64');
    expect(kernels()).toEqual(want);
  });

  it('picks the best kernel by default and X_AES_KERNEL forces one', () => {
    const saved = process.env.X_AES_KERNEL;
    try {
      delete process.env.X_AES_KERNEL;
      expect(newCipher(new Uint8Array(16)).kernel).toBe(kernels()[0]);
      process.env.X_AES_KERNEL = 'portable';
      expect(newCipher(new Uint8Array(16)).kernel).toBe('portable');
      process.env.X_AES_KERNEL = 'quantum';
      expect(() => newCipher(new Uint8Array(16))).toThrow(
        /^@x\/cbc: unknown kernel "quantum" \(from X_AES_KERNEL\); usable here: /,
      );
      // options.kernel wins over the environment.
      expect(newCipher(new Uint8Array(16), { kernel: 'portable' }).kernel).toBe('portable');
    } finally {
      if (saved === undefined) delete process.env.X_AES_KERNEL;
      else process.env.X_AES_KERNEL = saved;
    }
  });

  it('a known kernel that is missing here is a clear error', () => {
    const missing = ['native-arm64', 'wasm-simd128'].find((k) => !kernels().includes(k));
    if (!missing) return;
    expect(() => newCipher(new Uint8Array(16), { kernel: missing })).toThrow(
      new RegExp(`^@x/cbc: kernel "${missing}" is not available in this runtime; usable here: `),
    );
  });
});
