import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { kernels, newCipher, type Cipher } from '@x/cbc';
import { blocksOnly, placed, random, testedKernels, toHex } from '@x/testkit';
import { newCipherOn } from '../src/cipher.js';
import { cbcConformance, onKernel } from './conformance.js';

// Every conformance test, once per kernel this runtime can run; then again on each kernel's block
// primitives alone, where every operation is this package's generic code (the input rules, which are
// the mode's own code whichever path runs, once per kernel).
for (const kernel of testedKernels(kernels())) {
  cbcConformance(onKernel(kernel), { describe, it });
  const generic = blocksOnly(chooseKernel('@x/cbc', kernel));
  cbcConformance(
    { name: generic.name, make: (key) => newCipherOn(generic, key) },
    { describe, it },
    { inputRules: false },
  );
}

describe('fast paths and generic paths give the same bytes', () => {
  /** `ivs` holds at least one IV: one chain takes the first, sectors as many as there are. */
  type Call = (c: Cipher, dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array) => void;
  const calls: Record<string, Call> = {
    encrypt: (c, d, s, _, ivs) => c.encrypt(d, s, ivs.subarray(0, 16)),
    decrypt: (c, d, s, _, ivs) => c.decrypt(d, s, ivs.subarray(0, 16)),
    encryptSectors: (c, d, s, n, ivs) => c.encryptSectors(d, s, n, ivs.subarray(0, (s.length / n) * 16)),
    decryptSectors: (c, d, s, n, ivs) => c.decryptSectors(d, s, n, ivs.subarray(0, (s.length / n) * 16)),
    encryptECB: (c, d, s) => c.encryptECB(d, s),
    decryptECB: (c, d, s) => c.decryptECB(d, s),
  };
  for (const kernel of testedKernels(kernels())) {
    it(`on ${kernel}: random keys, operations, sector sizes and counts, offsets, in place or not`, () => {
      const generic = blocksOnly(chooseKernel('@x/cbc', kernel));
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          fc.constantFrom(...Object.keys(calls)),
          fc.oneof(
            fc.integer({ min: 1, max: 64 }).map((b) => 16 * b),
            fc.constantFrom(512, 4096),
          ),
          fc.integer({ min: 0, max: 70 }),
          fc.nat(15),
          fc.nat(15),
          fc.boolean(),
          (keySize, name, sectorSize, sectors, so, dso, inPlace) => {
            const key = random(keySize),
              data = random(sectorSize * sectors),
              ivs = random(16 * Math.max(sectors, 1));
            const run = (c: Cipher) => {
              const src = placed(data, so);
              const dst = inPlace ? src : placed(new Uint8Array(data.length), dso);
              calls[name](c, dst, src, sectorSize, ivs);
              c.dispose();
              return toHex(dst);
            };
            expect(run(newCipherOn(generic, key))).toBe(run(newCipher(key, { kernel })));
          },
        ),
        { numRuns: 80 },
      );
    });
  }
});

describe('kernel choice', () => {
  it("lists usable kernels best first, 'portable' always last", () => {
    const list = kernels();
    expect(list.at(-1)).toBe('portable');
    expect(new Set(list).size).toBe(list.length);
  });

  it('the kernels CI is set up to test are all present (a silently skipped kernel is a bug)', () => {
    // CI runs on x86-64 Linux with Node 20 and a C compiler: native-x64 is built and WebAssembly SIMD is
    // there; native-arm64 is tested by @x/aes-native-arm64's own run under qemu. On an arm64 CI machine
    // the arm64 kernel must load instead.
    if (!process.env.CI) return;
    const want = ['wasm-simd128', 'portable'];
    if (process.arch === 'arm64') want.unshift('native-arm64');
    if (process.arch === 'x64') want.unshift('native-x64');
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
