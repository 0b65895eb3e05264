// The kernel's `hctr2` fast path (the kernel contract's, @x/aes-kernels): on a kernel that has it, every
// encrypt, decrypt and sector call is one call of it and nothing else, with the bytes of the model
// (refHctr2 of @x/testkit); on the others the generic code runs. The keyed kernel is wrapped to count
// the methods @x/hctr2 calls; the POLYVAL key stays the kernel's own (the fast path requires it).
import { type AesKernel, type AesKeyedKernel, chooseKernel, polyvalOn } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { kernels } from '@x/hctr2';
import { readFileSync } from 'node:fs';
import { assertBytes, hex, random, refHctr2, testedKernels, toHex } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newHctr2On } from '../src/hctr2.js';

describe('the model (refHctr2 of @x/testkit) the kernel suite checks hctr2 against', () => {
  it('gives the HCTR2 authors’ vectors, every key size, both ways', () => {
    for (const file of ['AES128', 'AES192', 'AES256']) {
      const url = new URL(`./vectors/google_hctr2_HCTR2_${file}.json`, import.meta.url);
      const vectors: { key: string; tweak: string; ptext: string; ctext: string }[] = JSON.parse(
        readFileSync(url, 'utf8'),
      ).vectors;
      for (const [i, v] of vectors.slice(0, 40).entries()) {
        expect(toHex(refHctr2(hex(v.key), hex(v.tweak), hex(v.ptext), false)), `${file} #${i}`).toBe(v.ctext);
        expect(toHex(refHctr2(hex(v.key), hex(v.tweak), hex(v.ctext), true)), `${file} #${i}`).toBe(v.ptext);
      }
    }
  });
});

/** `kernel`, its keyed kernels counting the calls of each method into `calls`. */
function counting(kernel: AesKernel, calls: Map<string, number>): AesKernel {
  return {
    name: kernel.name,
    parallelBlocks: kernel.parallelBlocks,
    isAvailable: () => kernel.isAvailable(),
    loadPolyval: kernel.loadPolyval?.bind(kernel),
    load(schedule) {
      const k = kernel.load(schedule) as unknown as Record<string, unknown>;
      const out: Record<string, unknown> = { rounds: k.rounds };
      for (const name of ['encryptBlocks', 'decryptBlocks', 'dispose', 'ctr', 'hctr2', 'cbcEncrypt']) {
        const f = k[name];
        if (typeof f !== 'function') continue;
        out[name] = (...args: unknown[]) => {
          calls.set(name, (calls.get(name) ?? 0) + 1);
          return f.apply(k, args);
        };
      }
      return out as unknown as AesKeyedKernel;
    },
  };
}

for (const name of testedKernels(kernels())) {
  const kernel = chooseKernel('@x/hctr2', name);
  const probe = kernel.load(expandKey(new Uint8Array(16)));
  const fast = typeof probe.hctr2 === 'function';
  probe.dispose();
  describe(`@x/hctr2 on ${name}: ${fast ? 'the kernel’s hctr2 fast path' : 'no hctr2 fast path'}`, () => {
    if (!fast) {
      it('runs the generic code (no hctr2 on its keyed kernels)', () => expect(fast).toBe(false));
      return;
    }
    const calls = new Map<string, number>();
    const key = random(32);
    const h = newHctr2On(counting(kernel, calls), key, polyvalOn);
    const once = (f: () => void) => {
      calls.clear();
      f();
      return Object.fromEntries(calls);
    };

    it('encrypt and decrypt of one message are one hctr2 call each (32-byte tweak), the model’s bytes', () => {
      const data = random(8192 + 5),
        tweak = random(32),
        out = new Uint8Array(data.length);
      expect(once(() => h.encrypt(out, data, tweak))).toEqual({ hctr2: 1 });
      assertBytes(out, refHctr2(key, tweak, data, false));
      expect(once(() => h.decrypt(out, out, tweak))).toEqual({ hctr2: 1 });
      assertBytes(out, data);
    });

    it('other tweak lengths: one hctr2 call (and one POLYVAL update of the length block)', () => {
      for (const tlen of [0, 1, 16, 17, 47, 300]) {
        const data = random(100),
          tweak = random(tlen),
          out = new Uint8Array(100);
        expect(once(() => h.decrypt(out, data, tweak))).toEqual({ hctr2: 1 });
        assertBytes(out, refHctr2(key, tweak, data, true), `${tlen}-byte tweak`);
      }
    });

    if (name.startsWith('native-')) {
      it('the native glue refuses a faulty hctr2 call (TypeError / RangeError) without writing dst', () => {
        const schedule = expandKey(key);
        const k = kernel.load(schedule);
        schedule.wipe();
        const hctr2 = (k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>).bind(k);
        const hash = kernel.loadPolyval?.(random(16));
        if (hash === undefined) throw new Error('hctr2 without loadPolyval');
        const dst = new Uint8Array(64),
          src = random(64),
          tw = random(64),
          b16 = random(16);
        const bad: [string, () => void, ErrorConstructor][] = [
          [
            'dst shorter than src',
            () => hctr2(dst.subarray(0, 48), src, 64, tw, 32, hash, b16, b16, false),
            RangeError,
          ],
          ['unitSize under 16', () => hctr2(dst, src, 8, tw, 32, hash, b16, b16, false), RangeError],
          ['src not whole units', () => hctr2(dst, src, 48, tw, 32, hash, b16, b16, false), RangeError],
          ['too few tweak bytes', () => hctr2(dst, src, 32, tw.subarray(0, 63), 32, hash, b16, b16, false), RangeError],
          ['short start', () => hctr2(dst, src, 64, tw, 32, hash, b16.subarray(0, 15), b16, false), RangeError],
          ['short l', () => hctr2(dst, src, 64, tw, 32, hash, b16, b16.subarray(1), false), RangeError],
          ['hash not native', () => hctr2(dst, src, 64, tw, 32, { ...hash }, b16, b16, false), TypeError],
          ['hash a keyed kernel', () => hctr2(dst, src, 64, tw, 32, k as never, b16, b16, false), TypeError],
          ['decrypt not a boolean', () => hctr2(dst, src, 64, tw, 32, hash, b16, b16, 1 as never), TypeError],
          ['tweaks not a Uint8Array', () => hctr2(dst, src, 64, [] as never, 32, hash, b16, b16, false), TypeError],
        ];
        for (const [what, f, type] of bad) {
          expect(f, what).toThrow(type);
          expect(
            dst.every((v) => v === 0),
            `${what}: wrote dst`,
          ).toBe(true);
        }
        hash.dispose();
        expect(() => hctr2(dst, src, 64, tw, 32, hash, b16, b16, false)).toThrow(/disposed/);
        k.dispose();
      });
    }

    it('encryptSectors and decryptSectors of 2048 × 512 bytes are one hctr2 call each', () => {
      const src = random(2048 * 512),
        tweaks = random(32 * 2048),
        out = new Uint8Array(src.length);
      expect(once(() => h.encryptSectors(out, src, 512, tweaks))).toEqual({ hctr2: 1 });
      for (const s of [0, 1, 8, 2047]) {
        const want = refHctr2(key, tweaks.subarray(32 * s, 32 * s + 32), src.subarray(512 * s, 512 * s + 512), false);
        assertBytes(out.subarray(512 * s, 512 * s + 512), want, `sector ${s}`);
      }
      expect(once(() => h.decryptSectors(out, out, 512, tweaks))).toEqual({ hctr2: 1 });
      assertBytes(out, src);
    });
  });
}
