import { afterEach, describe, expect, it } from 'vitest';
import { chooseKernel, KERNEL_NAMES, kernels } from '../src/index.js';

describe('kernel registry', () => {
  const saved = process.env.X_AES_KERNEL;
  afterEach(() => {
    if (saved === undefined) delete process.env.X_AES_KERNEL;
    else process.env.X_AES_KERNEL = saved;
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
      let error: unknown;
      try {
        chooseKernel('@x/t', 'native-arm64');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(/^@x\/t: kernel "native-arm64" is not available in this runtime; usable here: /);
    }
  });

  it('every usable kernel loads a key and encrypts FIPS 197 C.1', async () => {
    const { expandKey } = await import('@x/aes-keyschedule');
    for (const name of kernels()) {
      const keyed = chooseKernel('@x/t', name).load(expandKey(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')));
      const block = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
      keyed.encryptECB(block, block);
      expect(block.toString('hex')).toBe('69c4e0d86a7b0430d8cdb78070b4c55a');
      keyed.dispose();
    }
  });
});
