// How a registry loads an optional kernel package, through a stand-in for Node's require; and init().
import { describe, expect, it } from 'vitest';
import type { AesKernel } from '@x/aes-kernel-contract';
import { createRegistry } from '../src/registry.js';

const fake = (name: string, usable = true): AesKernel => ({
  name,
  parallelBlocks: 8,
  isAvailable: () => usable,
  load: () => {
    throw new Error('unused');
  },
});
const portable = fake('portable');
const native = { name: 'native-x', package: '@x/native-x' };

describe('loading an optional kernel package', () => {
  it("without Node's require (a browser): not there, no error", () => {
    const r = createRegistry([native, portable]);
    expect(r.names).toEqual(['native-x', 'portable']);
    expect(r.kernels()).toEqual(['portable']);
    expect(() => r.chooseKernel('@x/t', 'native-x')).toThrow(
      '@x/t: kernel "native-x" is not available in this runtime; usable here: portable',
    );
  });

  it('package not installed (another CPU, a bundle): silently absent', () => {
    const r = createRegistry([native, portable], {
      require: () => {
        throw Object.assign(new Error("Cannot find module '@x/native-x'"), { code: 'MODULE_NOT_FOUND' });
      },
    });
    expect(r.kernels()).toEqual(['portable']);
    let error: Error | undefined;
    try {
      r.chooseKernel('@x/t', 'native-x');
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(/is not available in this runtime/);
    expect(error?.cause).toBeUndefined();
  });

  it('any other load error is kept as the cause when the kernel is asked for', () => {
    const broken = new Error('bad ELF header');
    const r = createRegistry([native, portable], {
      require: () => {
        throw broken;
      },
    });
    expect(r.kernels()).toEqual(['portable']);
    expect(() => r.chooseKernel('@x/t', 'native-x')).toThrow(expect.objectContaining({ cause: broken }));
  });

  it('a package whose kernel has another name is an error with that said', () => {
    const r = createRegistry([native, portable], { require: () => ({ kernel: fake('native-y') }) });
    expect(r.kernels()).toEqual(['portable']);
    expect(() => r.chooseKernel('@x/t', 'native-x')).toThrow(
      expect.objectContaining({ cause: new Error('@x/native-x does not export a kernel named "native-x"') }),
    );
  });

  it('a loaded kernel that is usable comes first; one that is not is left out', () => {
    const k = fake('native-x');
    const required: string[] = [];
    const r = createRegistry([native, portable], {
      require: (id) => {
        required.push(id);
        return { kernel: k };
      },
    });
    expect(r.kernels()).toEqual(['native-x', 'portable']);
    expect(r.chooseKernel('@x/t')).toBe(k);
    r.kernels();
    expect(required).toEqual(['@x/native-x']); // loaded once
    const off = createRegistry([native, portable], { require: () => ({ kernel: fake('native-x', false) }) });
    expect(off.kernels()).toEqual(['portable']);
  });
});

describe('choosing the best kernel', () => {
  it('loads and asks no entry after the first that runs; listing or naming a later one does', () => {
    const asked: string[] = [];
    const counted = (name: string, usable: boolean): AesKernel => ({
      ...fake(name),
      isAvailable: () => {
        asked.push(name);
        return usable;
      },
    });
    const wasm = counted('wasm', true);
    const required: string[] = [];
    const r = createRegistry([native, counted('gone', false), wasm, counted('portable', true)], {
      require: (id) => {
        required.push(id);
        return { kernel: counted('native-x', true) };
      },
    });
    expect(r.chooseKernel('@x/t').name).toBe('native-x');
    expect(asked).toEqual(['native-x']); // 'gone', wasm (a WebAssembly compile) and portable are never asked
    expect(r.chooseKernel('@x/t', 'wasm')).toBe(wasm);
    expect(asked).toEqual(['native-x', 'wasm']);
    expect(r.kernels()).toEqual(['native-x', 'wasm', 'portable']);
    expect(asked).toEqual(['native-x', 'wasm', 'gone', 'portable']); // each asked once
    expect(required).toEqual(['@x/native-x']);
  });
});

describe('init()', () => {
  it("runs the kernels' preparation, never rejects, and lists the usable kernels again", async () => {
    let ready = false;
    const late: AesKernel = { ...fake('late'), isAvailable: () => ready };
    const r = createRegistry([late, portable], {
      init: async () => {
        ready = true;
      },
    });
    expect(r.kernels()).toEqual(['portable']);
    await expect(r.init()).resolves.toBeUndefined();
    expect(r.kernels()).toEqual(['late', 'portable']);
    const failing = createRegistry([portable], { init: () => Promise.reject(new Error('CSP')) });
    await expect(failing.init()).resolves.toBeUndefined();
  });
});
