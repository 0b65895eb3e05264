/**
 * BitLocker's Elephant diffusers in this binary (@x/aes-native-addon's native/elephant.h over this
 * package's AVX2 diffuser, elephant_x64.h) on every path this CPU has: known answers, and the AVX2 diffuser
 * against the glue's portable C (`loadElephant(true)`) on random sectors, counts around the groups of eight
 * and every sector size. The known answers are SHA-256 digests of what @x/dm-crypt's test/reference.ts
 * (Ferguson's diffusers written out word by word) gives for the patterned input below; @x/dm-crypt runs its
 * whole suite (a real Windows 7 volume, fast-check against that reference) on both diffusers too. These
 * are the tests scripts/breaks.mjs runs against each break.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { kernelOn, paths } = require('@x/aes-native-x64') as typeof import('@x/aes-native-x64');

const hasAvx2 = process.platform === 'linux' && /^flags\s*:.*\bavx2\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
const usable = paths().filter((p) => p.available);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Nine sectors of bytes (7i + 3) mod 256, keys (13i + 1) mod 256: one group of eight and one sector left over. */
const KNOWN: [size: number, decrypt: string, encrypt: string][] = [
  [
    512,
    '811d977c346b670a93c2704adcc982c0d9a4cc3d00941477d73904725106cff9',
    'f55e76ec321fb52398a8a936ad457322bb3e1aaaebb1d3bd528260c85018646b',
  ],
  [
    4096,
    '50540c2b906679c76bfdd4114b7bddc6f55953807c6ff008eeec9ec141a02374',
    '419076bbceeafe48a936b37b01c7504af8692fdac1dbeed52ff1ee9a240bf4f4',
  ],
];

describe.skipIf(usable.length === 0)('the native Elephant diffusers', () => {
  for (const { name: path } of usable) {
    const load = kernelOn(path as 'avx512' | 'vaes' | 'aesni').loadElephant;
    for (const portable of [false, true]) {
      const core = portable || !hasAvx2 ? 'c' : 'avx2';
      const which = portable ? 'portable C' : hasAvx2 ? 'avx2' : 'portable C (no AVX2 here)';
      it(`path ${path}, ${which}: the known answers, both ways`, () => {
        const el = load!(portable);
        expect(el.core).toBe(core);
        for (const [size, decrypt, encrypt] of KNOWN) {
          const data = Uint8Array.from({ length: 9 * size }, (_, i) => (i * 7 + 3) & 0xff);
          const keys = Uint8Array.from({ length: 9 * 32 }, (_, i) => (i * 13 + 1) & 0xff);
          const d = data.slice();
          el.decrypt(d, size, keys);
          expect(sha256(d)).toBe(decrypt);
          el.encrypt(d, size, keys);
          expect(Buffer.from(d).equals(data)).toBe(true);
          el.encrypt(d, size, keys);
          expect(sha256(d)).toBe(encrypt);
        }
      });
    }

    it(`path ${path}: the AVX2 diffuser equals the portable C one for 1 to 25 sectors of every size`, () => {
      const [simd, c] = [load!(false), load!(true)];
      for (const size of [512, 1024, 2048, 4096]) {
        for (const count of [1, 7, 8, 9, 15, 16, 17, 25]) {
          const keys = new Uint8Array(randomBytes(32 * count));
          // at an odd byte offset: the native code must not assume aligned words
          const data = new Uint8Array(randomBytes(count * size + 1)).subarray(1);
          for (const dir of ['decrypt', 'encrypt'] as const) {
            const [a, b] = [data.slice(), data.slice()];
            simd[dir](a, size, keys);
            c[dir](b, size, keys);
            expect(Buffer.from(a).equals(Buffer.from(b)), `${dir} ${count} × ${size}`).toBe(true);
            expect(Buffer.from(a).equals(Buffer.from(data))).toBe(false);
          }
        }
      }
    });

    it(`path ${path}: refuses what would leave the arrays or the sector sizes, and writes nothing`, () => {
      const el = load!(false);
      const data = new Uint8Array(1024).fill(0xaa);
      expect(() => el.decrypt(data, 512, new Uint8Array(63))).toThrow(RangeError);
      expect(() => el.decrypt(data, 512, new Uint8Array(63))).toThrow('32 bytes per sector');
      for (const size of [0, 256, 768, 8192]) {
        expect(() => el.decrypt(data, size, new Uint8Array(64))).toThrow('sectorSize must be 512, 1024, 2048 or 4096');
      }
      expect(() => el.encrypt(data.subarray(0, 1000), 512, new Uint8Array(64))).toThrow('whole sectors');
      expect(() => el.encrypt(new Uint16Array(512) as unknown as Uint8Array, 512, new Uint8Array(64))).toThrow(
        TypeError,
      );
      expect(data.every((b) => b === 0xaa)).toBe(true);
    });
  }
});
