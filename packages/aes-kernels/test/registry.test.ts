import { afterEach, describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { KERNEL_NAMES, kernels } from '../src/index.js';
import { chooseKernel, registry } from '../src/hazmat.js';
import { registry as portableOnly } from '../src/portable.js';

describe('the registry of every kernel', () => {
  const saved = process.env.X_AES_KERNEL;
  afterEach(() => {
    if (saved === undefined) delete process.env.X_AES_KERNEL;
    else process.env.X_AES_KERNEL = saved;
  });

  it('derives its names from its one list, best first', () => {
    expect(KERNEL_NAMES).toEqual(['native-x64', 'native-arm64', 'wasm-simd128', 'portable']);
    expect(registry.names).toBe(KERNEL_NAMES);
  });

  it("lists usable kernels best first, in the known order, 'portable' last", () => {
    const list = kernels();
    expect(list.at(-1)).toBe('portable');
    const order = list.map((k) => KERNEL_NAMES.indexOf(k));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('native-arm64 is usable exactly on arm64 with the prebuilt addon', () => {
    if (process.arch !== 'arm64') expect(kernels()).not.toContain('native-arm64');
  });

  it('native-x64 is usable on x86-64 where it was built, and always under CI (which builds it)', () => {
    if (process.arch !== 'x64') expect(kernels()).not.toContain('native-x64');
    else if (process.env.CI === 'true') expect(kernels()).toEqual(['native-x64', 'wasm-simd128', 'portable']);
  });

  it('chooses the best, a named one, or the one X_AES_KERNEL names', () => {
    delete process.env.X_AES_KERNEL;
    expect(chooseKernel('@x/t').name).toBe(kernels()[0]);
    expect(chooseKernel('@x/t', 'portable').name).toBe('portable');
    process.env.X_AES_KERNEL = 'portable';
    expect(chooseKernel('@x/t').name).toBe('portable');
    process.env.X_AES_KERNEL = '';
    expect(chooseKernel('@x/t').name).toBe(kernels()[0]);
  });

  it('names that are unknown or unusable here are errors, never a silent fallback', () => {
    delete process.env.X_AES_KERNEL;
    expect(() => chooseKernel('@x/t', 'aesni')).toThrow(/^@x\/t: unknown kernel "aesni"; usable here: .*portable$/);
    process.env.X_AES_KERNEL = 'aesni';
    expect(() => chooseKernel('@x/t')).toThrow('@x/t: unknown kernel "aesni" (from X_AES_KERNEL); usable here: ');
    expect(() => chooseKernel('@x/t', 5 as unknown as string)).toThrow(TypeError);
    if (process.arch !== 'arm64') {
      delete process.env.X_AES_KERNEL;
      expect(() => chooseKernel('@x/t', 'native-arm64')).toThrow(
        new RangeError(
          `@x/t: kernel "native-arm64" is not available in this runtime; usable here: ${kernels().join(', ')}`,
        ),
      );
    }
  });

  it('every usable kernel loads a key and encrypts FIPS 197 C.1', () => {
    for (const name of kernels()) {
      const keyed = chooseKernel('@x/t', name).load(expandKey(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')));
      const block = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
      keyed.encryptBlocks(block, block);
      expect(block.toString('hex')).toBe('69c4e0d86a7b0430d8cdb78070b4c55a');
      keyed.dispose();
    }
  });
});

describe('@x/aes-kernels/portable', () => {
  it('knows the portable kernel alone', () => {
    expect(portableOnly.names).toEqual(['portable']);
    expect(portableOnly.kernels()).toEqual(['portable']);
    expect(portableOnly.chooseKernel('@x/t').name).toBe('portable');
    expect(() => portableOnly.chooseKernel('@x/t', 'wasm-simd128')).toThrow(
      '@x/t: unknown kernel "wasm-simd128"; usable here: portable',
    );
  });
});
