/**
 * The native Adiantum/HPolyC core of this binary (@x/aes-native-addon's native/hbsh.h over this package's
 * ChaCha, NH and Poly1305, hbsh_x64.h: AVX-512 (Poly1305 with IFMA) on the avx512 path, AVX2 on the
 * others; HPolyC's Poly1305 over the whole message runs the SIMD one in groups of 8 blocks, the rest in
 * the glue's C) on every path this CPU has: the authors' known answers for Adiantum and
 * HPolyC with XChaCha8, 12 and 20 (test/fixtures/hbsh-vectors.json.gz), both ways, as single messages and
 * as one batch; and the SIMD primitives against the glue's portable C ones (`loadHbsh`'s `portable`) on
 * random keys, lengths around every block and chunk edge, tweak lengths and batches. @x/adiantum runs its
 * whole suite on this core as well; these are the tests scripts/breaks.mjs runs against each break.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import type { NativeHbsh, NativeKernel, NativeKeyedKernel } from '@x/aes-native-addon/types';
import { expandKey } from '@x/aes-keyschedule';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { kernelOn, paths } = require('@x/aes-native-x64') as typeof import('@x/aes-native-x64');

interface Vector {
  key: string;
  tweak: string;
  ptext: string;
  ctext: string;
}
const fixtures = JSON.parse(
  gunzipSync(readFileSync(new URL('./fixtures/hbsh-vectors.json.gz', import.meta.url))).toString('utf8'),
) as { files: Record<string, Vector[]> };
const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const flags = new Set(
  process.platform === 'linux'
    ? (readFileSync('/proc/cpuinfo', 'utf8')
        .match(/^flags\s*:(.*)$/m)?.[1]
        .trim()
        .split(/\s+/) ?? [])
    : [],
);

/** A key on `kernel`'s path: the native HBSH key and its AES-256 keyed kernel. */
function keyOn(kernel: NativeKernel, key: Uint8Array, rounds: number, hpolyc: boolean, portable: boolean) {
  const load = kernel.loadHbsh;
  if (load === undefined) throw new Error('no loadHbsh');
  const ke = new Uint8Array(32);
  const h = load(key, rounds, hpolyc, ke, portable);
  const schedule = expandKey(ke);
  const aes = kernel.load(schedule);
  schedule.wipe();
  return {
    h,
    aes,
    dispose() {
      h.dispose();
      aes.dispose();
    },
  };
}

const crypt = (
  h: NativeHbsh,
  aes: NativeKeyedKernel,
  src: Uint8Array,
  unit: number,
  tweaks: Uint8Array,
  tb: number,
  d: boolean,
) => {
  const dst = new Uint8Array(src.length);
  h.crypt(dst, src, unit, tweaks, tb, aes, d);
  return dst;
};

const usable = paths()
  .filter((p) => p.available)
  .map((p) => p.name);

describe.skipIf(usable.length === 0)('the native Adiantum/HPolyC core', () => {
  for (const path of usable) {
    const kernel = kernelOn(path as 'avx512' | 'vaes' | 'aesni');
    for (const portable of [false, true]) {
      const simd = path === 'avx512' ? 'avx512' : 'avx2';
      const which = portable ? 'portable C' : flags.has('avx2') ? simd : 'portable C (no AVX2 here)';
      it(`path ${path}, ${which} primitives: the authors' vectors, XChaCha8/12/20, both ways, one by one and as a batch`, () => {
        for (const [file, vectors] of Object.entries(fixtures.files)) {
          const hpolyc = file.startsWith('HPolyC');
          const rounds = Number(file.match(/XChaCha(\d+)/)?.[1]);
          expect(vectors.length).toBe(13);
          for (const [i, v] of vectors.entries()) {
            const k = keyOn(kernel, hex(v.key), rounds, hpolyc, portable);
            expect(k.h.core).toBe(portable || !flags.has('avx2') ? 'c' : simd);
            const p = hex(v.ptext);
            const t = hex(v.tweak);
            expect(toHex(crypt(k.h, k.aes, p, p.length, t, t.length, false)), `${file} #${i}`).toBe(v.ctext);
            expect(toHex(crypt(k.h, k.aes, hex(v.ctext), p.length, t, t.length, true)), `${file} #${i}`).toBe(v.ptext);
            // In place, and three copies in one call (a batch: one AES call for the group).
            const inPlace = hex(v.ptext);
            k.h.crypt(inPlace, inPlace, p.length, t, t.length, k.aes, false);
            expect(toHex(inPlace)).toBe(v.ctext);
            const three = new Uint8Array(3 * p.length);
            for (let j = 0; j < 3; j++) three.set(p, j * p.length);
            const tweaks = new Uint8Array(3 * t.length);
            for (let j = 0; j < 3; j++) tweaks.set(t, j * t.length);
            expect(toHex(crypt(k.h, k.aes, three, p.length, tweaks, t.length, false))).toBe(v.ctext.repeat(3));
            k.dispose();
          }
        }
      });
    }

    it(`path ${path}: the SIMD primitives equal the portable C ones around every block and chunk edge`, () => {
      const lengths = [
        16, 17, 31, 32, 48, 63, 64, 65, 79, 80, 143, 144, 145, 160, 272, 273, 400, 527, 528, 529, 1039, 1040, 1041,
        1055, 1552, 1553, 2064, 4096, 4111, 8208, 9000,
      ];
      for (const hpolyc of [false, true]) {
        for (const rounds of [8, 12, 20]) {
          const key = randomBytes(32);
          const a = keyOn(kernel, key, rounds, hpolyc, false);
          const c = keyOn(kernel, key, rounds, hpolyc, true);
          for (const n of lengths) {
            for (const tlen of [0, 1, 12, 13, 32, 45]) {
              const src = randomBytes(n);
              const t = randomBytes(tlen);
              for (const d of [false, true]) {
                const x = crypt(a.h, a.aes, src, n, t, tlen, d);
                expect(toHex(x), `${hpolyc ? 'HPolyC' : 'Adiantum'} r${rounds} n${n} t${tlen} ${d}`).toBe(
                  toHex(crypt(c.h, c.aes, src, n, t, tlen, d)),
                );
                if (!d) expect(toHex(crypt(a.h, a.aes, x, n, t, tlen, true))).toBe(toHex(src));
              }
            }
          }
          // Limbs at their largest: every message byte 0xff (and 0x00), so that the SIMD Poly1305's carries
          // (HPolyC hashes the whole message) run at their bounds, under this key and one of all 0xff.
          const top = keyOn(kernel, new Uint8Array(32).fill(0xff), rounds, hpolyc, false);
          const topC = keyOn(kernel, new Uint8Array(32).fill(0xff), rounds, hpolyc, true);
          for (const [x, y] of [
            [a, c],
            [top, topC],
          ] as const) {
            // HPolyC's Poly1305 over n − 16 bytes: 8 blocks (one group, the last one at once), 16, 24, many.
            for (const n of [144, 145, 272, 400, 1040, 4096, 8208]) {
              for (const fill of [0xff, 0x00]) {
                const src = new Uint8Array(n).fill(fill);
                const t = new Uint8Array(45).fill(fill);
                expect(toHex(crypt(x.h, x.aes, src, n, t, 45, false)), `extreme n${n} ${fill}`).toBe(
                  toHex(crypt(y.h, y.aes, src, n, t, 45, false)),
                );
              }
            }
          }
          top.dispose();
          topC.dispose();
          // Batches across groups of 8: 19 sectors of 512 bytes, one call, against one call per sector.
          const src = randomBytes(19 * 512);
          const tweaks = randomBytes(19 * 32);
          const all = crypt(a.h, a.aes, src, 512, tweaks, 32, false);
          for (let s = 0; s < 19; s++) {
            const one = crypt(
              c.h,
              c.aes,
              src.subarray(512 * s, 512 * s + 512),
              512,
              tweaks.subarray(32 * s, 32 * s + 32),
              32,
              false,
            );
            expect(toHex(all.subarray(512 * s, 512 * s + 512))).toBe(toHex(one));
          }
          a.dispose();
          c.dispose();
        }
      }
    });
  }
});
