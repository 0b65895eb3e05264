// The kernel suite checked on a kernel made of the references: it passes on the real thing, covers the
// absent fast paths of a blocks-only kernel, and fails each kernel broken in one of the ways it claims
// to catch (Go cryptotest's out-of-bounds, aliasing and keep-state checks).
import { describe, expect, it } from 'vitest';
import type { AesKeyedKernel } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { blocksOnly, kernelConformance, type Suite } from '../src/index.js';
import { breakMethod, nodeCalls, nodeKernel } from './node-kernel.js';

kernelConformance(nodeKernel(), { describe, it }, { runs: 20, throwsAfterDispose: true, callCount: nodeCalls });
kernelConformance(blocksOnly(nodeKernel(5)), { describe, it }, { runs: 20 });

/** The names of the tests of `kernel`'s suite that fail. */
function failing(kernel: Parameters<typeof kernelConformance>[0]): string[] {
  const tests: { name: string; fn: () => unknown }[] = [];
  const path: string[] = [];
  const suite: Suite = {
    describe(name, fn) {
      path.push(name);
      fn();
      path.pop();
    },
    it: (name, fn) => tests.push({ name: [...path, name].join(' > '), fn }),
  };
  kernelConformance(kernel, suite, { runs: 20 });
  return tests
    .filter(({ fn }) => {
      try {
        fn();
        return false;
      } catch {
        return true;
      }
    })
    .map(({ name }) => name);
}

describe('the kernel suite fails a kernel that', () => {
  const base = nodeKernel();
  const cases: [string, Parameters<typeof kernelConformance>[0], RegExp][] = [
    [
      'writes one byte past src.length',
      breakMethod(base, 'encryptBlocks', (f) => (dst, src) => {
        f(dst, src);
        if (dst.length > src.length) dst[src.length] ^= 1;
      }),
      /encryptBlocks.*out of bounds/,
    ],
    [
      'writes before dst',
      breakMethod(base, 'cbcEncryptSectors', (f) => (dst, src, n, ivs) => {
        f(dst, src, n, ivs);
        if (dst.byteOffset > 0) new Uint8Array(dst.buffer, dst.byteOffset - 1, 1)[0] ^= 1;
      }),
      /cbcEncryptSectors.*out of bounds/,
    ],
    [
      'ignores byteOffset',
      breakMethod(base, 'decryptBlocks', (f) => (dst, src) => f(dst, new Uint8Array(src.buffer, 0, src.length))),
      /decryptBlocks/,
    ],
    [
      'changes src',
      breakMethod(base, 'xtsDecrypt', (f) => (dst, src, n, t) => {
        f(dst, src, n, t);
        if (dst !== src) src.fill(0);
      }),
      /xtsDecrypt.*out of bounds/,
    ],
    [
      'reads the byte after the tweaks',
      breakMethod(base, 'xtsEncrypt', (f) => (dst, src, n, t) => {
        f(dst, src, n, t);
        if (src.length > 0) dst[0] ^= new Uint8Array(t.buffer, t.byteOffset + t.length, 1)[0] ?? 0;
      }),
      /xtsEncrypt/,
    ],
    [
      'writes the ivs',
      breakMethod(base, 'cbcDecryptSectors', (f) => (dst, src, n, ivs) => {
        f(dst, src, n, ivs);
        ivs.fill(7);
      }),
      /cbcDecryptSectors/,
    ],
    [
      'keeps the chaining value from the previous call',
      breakMethod(base, 'cbcEncrypt', (f) => {
        let last: Uint8Array | undefined;
        return (dst, src, iv) => {
          f(dst, src, last ?? iv);
          if (src.length > 0) last = dst.slice(src.length - 16, src.length);
        };
      }),
      /cbcEncrypt/,
    ],
    [
      'breaks when dst is src through another view',
      breakMethod(base, 'cbcEncryptSectors', (f) => (dst, src, n, ivs) => {
        if (dst !== src && dst.buffer === src.buffer && dst.byteOffset === src.byteOffset) dst.fill(0);
        f(dst, src, n, ivs);
      }),
      /cbcEncryptSectors.*out of bounds/,
    ],
  ];
  for (const [what, kernel, where] of cases) {
    it(what, () => {
      const failed = failing(kernel);
      expect(failed.length).toBeGreaterThan(0);
      expect(
        failed.every(
          (name) => where.test(name) || /keeps no state|several keyed|schedule may be wiped|random methods/.test(name),
        ),
        failed.join('\n'),
      ).toBe(true);
      expect(
        failed.some((name) => where.test(name)),
        failed.join('\n'),
      ).toBe(true);
    });
  }

  it('lacks a fast path but has the method name bound to something else', () => {
    const odd = {
      ...nodeKernel(),
      load: (s: Parameters<ReturnType<typeof nodeKernel>['load']>[0]) =>
        ({ ...nodeKernel().load(s), cbcEncrypt: null }) as unknown as AesKeyedKernel,
    };
    expect(failing(odd)).toContain(
      'kernel node-crypto > is available, and describes itself: name, parallelBlocks, rounds; each fast path a function or absent',
    );
  });
});

describe('blocksOnly', () => {
  it('keeps the name, batch and primitives, and nothing else', () => {
    const generic = blocksOnly(nodeKernel(7));
    expect([generic.name, generic.parallelBlocks, generic.isAvailable()]).toEqual(['node-crypto+generic', 7, true]);
    const k = generic.load(expandKey(new Uint8Array(24)));
    expect(Object.keys(k).sort()).toEqual(['decryptBlocks', 'dispose', 'encryptBlocks', 'rounds']);
    expect(k.rounds).toBe(12);
    k.dispose();
  });
});
