/**
 * Loading: synchronous in Node, asynchronous init() for browser main threads, and a clean "unavailable"
 * (never a throw from isAvailable) where WebAssembly, SIMD128 or compilation is missing or blocked.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';

/** A fresh copy of the package, with its own module state. */
async function fresh() {
  vi.resetModules();
  return import('../src/index.js');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('wasm-simd128 loading', () => {
  it('loads synchronously without init()', async () => {
    const { kernel } = await fresh();
    expect(kernel.isAvailable()).toBe(true);
    const k = kernel.load(expandKey(new Uint8Array(16)));
    const b = new Uint8Array(16);
    k.encryptBlocks(b, b);
    expect(Buffer.from(b).toString('hex')).toBe('66e94bd4ef8a2c3b884cfa59ca342b2e');
    k.dispose();
  });

  it('is unavailable without WebAssembly, and load() says why', async () => {
    const { kernel, init } = await fresh();
    vi.stubGlobal('WebAssembly', undefined);
    expect(kernel.isAvailable()).toBe(false);
    await init();
    expect(kernel.isAvailable()).toBe(false);
    expect(() => kernel.load(expandKey(new Uint8Array(16)))).toThrow(
      /@x\/aes-wasm-kernel: WebAssembly SIMD128 is not available/,
    );
  });

  it('is unavailable when validate() throws or rejects SIMD', async () => {
    const { kernel } = await fresh();
    vi.stubGlobal('WebAssembly', { ...WebAssembly, validate: () => false });
    expect(kernel.isAvailable()).toBe(false);
    const again = await fresh();
    vi.stubGlobal('WebAssembly', {
      ...WebAssembly,
      validate: () => {
        throw new Error('no');
      },
    });
    expect(again.kernel.isAvailable()).toBe(false);
  });

  it('picks the relaxed-simd build only where relaxed-simd validates', async () => {
    vi.resetModules();
    const { relaxedSupported } = await import('../src/module.js');
    vi.stubGlobal('WebAssembly', {
      ...WebAssembly,
      validate: () => {
        throw new Error('no');
      },
    });
    expect(relaxedSupported()).toBe(false);
    vi.stubGlobal('WebAssembly', { ...WebAssembly, validate: () => true });
    expect(relaxedSupported()).toBe(true);
  });

  it('falls back to the plain build when the relaxed-simd one does not compile', async () => {
    const { moduleBytes } = await import('../src/module.js');
    const relaxed = moduleBytes(true);
    const real = WebAssembly;
    let refused = 0;
    const refuseRelaxed = (bytes: Uint8Array<ArrayBuffer>) => {
      if (Buffer.compare(bytes, relaxed) === 0) {
        refused++;
        throw new real.CompileError('relaxed_swizzle: unsupported');
      }
    };
    const stub = {
      ...real,
      validate: () => true, // claims relaxed-simd
      // biome-ignore lint/complexity/useArrowFunction: a constructor stub (WebAssembly.Module is called with new)
      Module: function (bytes: Uint8Array<ArrayBuffer>) {
        refuseRelaxed(bytes);
        return new real.Module(bytes);
      },
      Instance: real.Instance,
      instantiate: async (bytes: Uint8Array<ArrayBuffer>) => {
        refuseRelaxed(bytes);
        return real.instantiate(bytes);
      },
    };
    const sync = await fresh();
    vi.stubGlobal('WebAssembly', stub);
    expect(sync.kernel.isAvailable()).toBe(true);
    expect(refused).toBe(1); // the relaxed build was tried first
    const async_ = await fresh();
    // biome-ignore lint/complexity/useArrowFunction: a constructor stub (WebAssembly.Module is called with new)
    const refuseSync = function () {
      throw new RangeError('main thread');
    };
    vi.stubGlobal('WebAssembly', { ...stub, Module: refuseSync });
    expect(async_.kernel.isAvailable()).toBe(false);
    await async_.init();
    expect(async_.kernel.isAvailable()).toBe(true);
    expect(refused).toBe(2);
    vi.unstubAllGlobals();
    const k = async_.kernel.load(expandKey(new Uint8Array(16)));
    const b = new Uint8Array(16);
    k.encryptBlocks(b, b);
    expect(Buffer.from(b).toString('hex')).toBe('66e94bd4ef8a2c3b884cfa59ca342b2e');
    k.dispose();
  });

  it('falls back to init() where synchronous compilation is refused (browser main thread)', async () => {
    const { kernel, init } = await fresh();
    const real = WebAssembly;
    vi.stubGlobal('WebAssembly', {
      ...real,
      validate: real.validate,
      instantiate: real.instantiate,
      // biome-ignore lint/complexity/useArrowFunction: a constructor stub (WebAssembly.Module is called with new)
      Module: function () {
        throw new RangeError('WebAssembly.Compile is disallowed on the main thread');
      },
    });
    expect(kernel.isAvailable()).toBe(false);
    await init();
    expect(kernel.isAvailable()).toBe(true);
    await init(); // idempotent
    vi.unstubAllGlobals();
    const k = kernel.load(expandKey(new Uint8Array(16)));
    const b = new Uint8Array(16);
    k.encryptBlocks(b, b);
    expect(Buffer.from(b).toString('hex')).toBe('66e94bd4ef8a2c3b884cfa59ca342b2e');
    k.dispose();
  });

  it('init() resolves, leaving the kernel unavailable, when compilation is blocked (CSP)', async () => {
    const { kernel, init } = await fresh();
    const real = WebAssembly;
    vi.stubGlobal('WebAssembly', {
      ...real,
      validate: real.validate,
      instantiate: () => Promise.reject(new real.CompileError("Refused to compile: 'wasm-unsafe-eval' is not allowed")),
      // biome-ignore lint/complexity/useArrowFunction: a constructor stub (WebAssembly.Module is called with new)
      Module: function () {
        throw new real.CompileError("Refused to compile: 'wasm-unsafe-eval' is not allowed");
      },
    });
    await expect(init()).resolves.toBeUndefined();
    expect(kernel.isAvailable()).toBe(false);
  });
});
