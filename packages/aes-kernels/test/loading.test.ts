// How the registry loads the optional native kernel, and init(): each case with a fresh copy of the
// module and a stand-in for Node's require.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Registry = typeof import('../src/registry.js');
const realGetBuiltin = process.getBuiltinModule;

async function registryWith(requireImpl: ((id: string) => unknown) | undefined): Promise<Registry> {
  vi.resetModules();
  if (requireImpl === undefined) {
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
  } else {
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = (id: string) =>
      id === 'node:module' ? { createRequire: () => requireImpl } : realGetBuiltin(id);
  }
  return import('../src/registry.js');
}

afterEach(() => {
  process.getBuiltinModule = realGetBuiltin;
  vi.resetModules();
});

describe('loading the optional native kernel', () => {
  it('without Node\'s require (a browser): not there, no error', async () => {
    const r = await registryWith(undefined);
    expect(r.kernels()).not.toContain('native-arm64');
  });

  it('package not installed (x64, browsers bundling by mistake): silently absent', async () => {
    const r = await registryWith(() => {
      throw Object.assign(new Error("Cannot find module '@x/aes-native-arm64'"), { code: 'MODULE_NOT_FOUND' });
    });
    expect(r.kernels()).not.toContain('native-arm64');
    expect(() => r.chooseKernel('@x/t', 'native-arm64')).toThrow(/is not available in this runtime/);
  });

  it('any other load error is kept as the cause when the kernel is asked for', async () => {
    const broken = new Error('bad ELF header');
    const r = await registryWith(() => {
      throw broken;
    });
    expect(r.kernels()).not.toContain('native-arm64');
    let error: Error | undefined;
    try {
      r.chooseKernel('@x/t', 'native-arm64');
    } catch (e) {
      error = e as Error;
    }
    expect(error?.cause).toBe(broken);
  });

  it('a loaded native kernel that is usable comes first', async () => {
    const fake = { name: 'native-arm64', parallelBlocks: 8, isAvailable: () => true, load: () => { throw new Error('unused'); } };
    const r = await registryWith(() => ({ nativeArm64Kernel: fake }));
    expect(r.kernels()[0]).toBe('native-arm64');
    expect(r.chooseKernel('@x/t')).toBe(fake);
  });
});

describe('init()', () => {
  it('resolves, and the list of kernels is computed again afterwards', async () => {
    const r = await registryWith(createRequire(import.meta.url));
    const before = r.kernels();
    await expect(r.init()).resolves.toBeUndefined();
    expect(r.kernels()).toEqual(before);
  });
});
