/**
 * The `core` option and property: which core runs with which kernel, the refusals, and that the native
 * core is the addon's (its SIMD primitives where the CPU has them, the portable C ones when asked).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kernels, newAdiantum, newHpolyc } from '@x/adiantum';
import { newAdiantum as portableAdiantum } from '@x/adiantum/portable';
import { type AesKernel, registry } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { random } from '@x/testkit';
import { describe, it } from 'vitest';
import { nativeCoreOf } from '../src/hbsh.js';

const native = kernels().filter((k) => k.startsWith('native-'));
const cpuFlags = (): Set<string> => {
  try {
    return new Set(
      readFileSync('/proc/cpuinfo', 'utf8')
        .match(/^flags\s*:(.*)$/m)?.[1]
        .trim()
        .split(/\s+/) ?? [],
    );
  } catch {
    return new Set();
  }
};

describe('the core option', () => {
  it('defaults: portable with the portable kernel, wasm-simd128 with the wasm kernel, native with a native one', () => {
    assert.equal(newAdiantum(random(32), { kernel: 'portable' }).core, 'portable');
    assert.equal(newHpolyc(random(32), { kernel: 'wasm-simd128' }).core, 'wasm-simd128');
    for (const kernel of native) assert.equal(newAdiantum(random(32), { kernel }).core, 'native');
    assert.equal(portableAdiantum(random(32)).core, 'portable');
  });

  it('forces a core, any pairing but native with a kernel that is not native', () => {
    assert.equal(newAdiantum(random(32), { kernel: 'portable', core: 'wasm-simd128' }).core, 'wasm-simd128');
    assert.equal(newAdiantum(random(32), { kernel: 'wasm-simd128', core: 'portable' }).core, 'portable');
    for (const kernel of native) {
      assert.equal(newHpolyc(random(32), { kernel, core: 'wasm-simd128' }).core, 'wasm-simd128');
      assert.equal(newHpolyc(random(32), { kernel, core: 'portable' }).core, 'portable');
    }
    assert.throws(
      () => newAdiantum(random(32), { kernel: 'wasm-simd128', core: 'native' }),
      new RangeError('@x/adiantum: core "native" runs with a native kernel only, not with wasm-simd128'),
    );
  });

  it('refuses a core that is not a string, an unknown one, and any but portable in @x/adiantum/portable', () => {
    assert.throws(
      () => newAdiantum(random(32), { core: 1 as never }),
      new TypeError('@x/adiantum: options.core must be a string'),
    );
    assert.throws(
      () => newAdiantum(random(32), { core: 'avx2' as never }),
      new RangeError('@x/adiantum: unknown core "avx2"; the cores of this entry are native, wasm-simd128, portable'),
    );
    assert.throws(
      () => portableAdiantum(random(32), { core: 'wasm-simd128' }),
      new RangeError('@x/adiantum: unknown core "wasm-simd128"; the cores of this entry are portable'),
    );
  });
});

describe.skipIf(native.length === 0)('the native core', () => {
  it('runs the SIMD primitives where the CPU has them, the portable C ones when asked', () => {
    for (const name of native) {
      const load = nativeCoreOf(registry.chooseKernel('@x/adiantum', name) as AesKernel);
      assert.ok(load);
      const ke = new Uint8Array(32);
      const best = load(random(32), 12, false, ke);
      const c = load(random(32), 12, true, ke, true);
      // native-x64: the AVX-512 primitives on its avx512 path, AVX2 on the others (where the CPU has it).
      const kernelPath = (registry.chooseKernel('@x/adiantum', name) as { path?: string }).path;
      const x64 = kernelPath === 'avx512' ? 'avx512' : cpuFlags().has('avx2') ? 'avx2' : 'c';
      const simd = name === 'native-x64' ? x64 : 'c';
      assert.equal(best.core, simd);
      assert.equal(c.core, 'c');
      best.dispose();
      c.dispose();
      assert.throws(
        () => best.crypt(new Uint8Array(16), new Uint8Array(16), 16, new Uint8Array(0), 0, {} as never, false),
        /the Adiantum\/HPolyC key was disposed/,
      );
    }
  });

  it("refuses what would make native code leave the caller's arrays (the glue's own checks)", () => {
    for (const name of native) {
      const kernel = registry.chooseKernel('@x/adiantum', name) as AesKernel;
      const load = nativeCoreOf(kernel);
      assert.ok(load);
      const ke = new Uint8Array(32);
      const h = load(random(32), 12, false, ke);
      const aes = kernel.load(expandKey(ke));
      const aes128 = kernel.load(expandKey(new Uint8Array(16)));
      const b = (n: number) => new Uint8Array(n);
      assert.throws(() => h.crypt(b(32), b(32), 32, b(31), 32, aes, false), /tweaks must hold tweakBytes/);
      assert.throws(() => h.crypt(b(16), b(32), 32, b(0), 0, aes, false), /dst must be at least as long/);
      assert.throws(() => h.crypt(b(48), b(48), 32, b(0), 0, aes, false), /whole messages of at least 16/);
      assert.throws(() => h.crypt(b(8), b(8), 8, b(0), 0, aes, false), /whole messages of at least 16/);
      assert.throws(() => h.crypt(b(32), b(32), 32, b(0), 0, aes128, false), /AES-256 key/);
      assert.throws(() => h.crypt(b(32), b(32), 32, b(0), 0, h as never, false), /native keyed kernel/);
      aes.dispose();
      assert.throws(() => h.crypt(b(32), b(32), 32, b(0), 0, aes, false), /AES-256 key, not disposed/);
      h.dispose();
      aes128.dispose();
    }
  });
});
