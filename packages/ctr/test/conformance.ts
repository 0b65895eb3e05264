/**
 * The @x/ctr conformance suite, run on every kernel and on the block primitives alone of every kernel (the
 * generic keystream): NIST SP 800-38A F.5, the counter wrapping modulo 2^128, 1 MiB in one call and in
 * pieces, and fast-check properties against node:crypto `aes-*-ctr`. Like the other modes' suites it takes
 * the runner's `describe`/`it`, so it also runs under `node:test` with an arm64 Node in qemu.
 */
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import type { Ctr } from '@x/ctr';
import { assertBytes, hex, placed, random, SP800_38A_PLAINTEXT, type Suite } from '@x/testkit';
import fc from 'fast-check';

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface CtrTarget {
  /** A kernel name (`newCtr`'s option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** A CTR cipher for `key` on this target. */
  make(key: Uint8Array): Ctr;
}

/** Options of {@link ctrConformance}. */
export interface CtrConformanceOptions {
  /** fast-check runs of the property (default 150); fewer under emulation. */
  runs?: number;
}

/** NIST SP 800-38A Appendix F.5.1, F.5.3, F.5.5 (CTR-AES128/192/256.Encrypt; F.5.2/4/6 decrypt them back). */
const SP800_38A_CTR = [
  {
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    ciphertext:
      '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee',
  },
  {
    key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b',
    ciphertext:
      '1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050',
  },
  {
    key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    ciphertext:
      '601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6',
  },
];
const SP800_38A_CTR_IV = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff';

const node = (key: Uint8Array, iv: Uint8Array, data: Uint8Array) =>
  new Uint8Array(createCipheriv(`aes-${key.length * 8}-ctr`, key, iv).update(data));

/** IVs near where the counter carries or wraps: the last 1..16 bytes all ones, the rest random. */
const ivArb = fc
  .tuple(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 0, max: 16 }))
  .map(([iv, ones]) => {
    iv.fill(0xff, 16 - ones);
    return iv;
  });

/**
 * The whole suite on one target.
 *
 * @example
 * ```ts
 * ctrConformance({ name: 'portable', make: (key) => newCtr(key, { kernel: 'portable' }) }, { describe, it });
 * ```
 */
export function ctrConformance(target: CtrTarget, { describe, it }: Suite, options: CtrConformanceOptions = {}): void {
  const { name, make } = target;
  const runs = options.runs ?? 150;
  describe(`@x/ctr on ${name}`, () => {
    it('NIST SP 800-38A F.5.1-F.5.6: CTR-AES128/192/256, both directions', () => {
      for (const v of SP800_38A_CTR) {
        const c = make(hex(v.key));
        assert.equal(c.kernel, name);
        const out = new Uint8Array(64);
        c.xorKeyStream(out, hex(SP800_38A_PLAINTEXT), hex(SP800_38A_CTR_IV));
        assertBytes(out, hex(v.ciphertext), `AES-${v.key.length * 4} encrypt`);
        c.xorKeyStream(out, out, hex(SP800_38A_CTR_IV));
        assertBytes(out, hex(SP800_38A_PLAINTEXT), `AES-${v.key.length * 4} decrypt, in place`);
        c.dispose();
      }
    });

    it('wraps modulo 2^128 as OpenSSL does, and carries across every byte', () => {
      for (const n of [16, 24, 32]) {
        const key = random(n);
        const c = make(key);
        for (const tail of [16, 8, 9, 4, 1]) {
          const iv = random(16).fill(0xff, 16 - tail);
          iv[16 - tail] = 0xfe;
          const src = random(16 * 70 + 7);
          const dst = new Uint8Array(src.length);
          c.xorKeyStream(dst, src, iv);
          assertBytes(dst, node(key, iv, src), `AES-${8 * n}, iv ${Buffer.from(iv).toString('hex')}`);
        }
        c.dispose();
      }
    });

    it('1 MiB + 5 bytes in one call, and a long message in pieces continued from the next counter block', () => {
      const key = random(32),
        iv = random(16),
        src = random((1 << 20) + 5);
      const c = make(key);
      const dst = new Uint8Array(src.length);
      c.xorKeyStream(dst, src, iv);
      const want = node(key, iv, src);
      assertBytes(dst, want, '1 MiB');
      // Pieces of whole blocks: the next call starts at iv + blocks so far.
      const next = new Uint8Array(16);
      const pieces = new Uint8Array(src.length);
      let off = 0;
      for (const len of [16 * 3, 16 * 1000, 16 * 7, src.length - 16 * 1010]) {
        let carry = off >>> 4;
        for (let i = 15; i >= 0; i--) {
          carry += iv[i];
          next[i] = carry & 0xff;
          carry = Math.floor(carry / 256);
        }
        c.xorKeyStream(pieces.subarray(off, off + len), src.subarray(off, off + len), next);
        off += len;
      }
      assertBytes(pieces, want, 'in pieces');
      c.dispose();
    });

    it('random keys, IVs near the wrap, lengths 0..700, odd offsets, in place or not, against node:crypto', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(16, 24, 32),
          ivArb,
          fc.integer({ min: 0, max: 700 }),
          fc.tuple(fc.nat(15), fc.nat(15), fc.nat(15)),
          fc.boolean(),
          (n, iv, len, [so, dso, vo], inPlace) => {
            const key = random(n),
              data = random(len);
            const c = make(key);
            const src = placed(data, so);
            const dst = inPlace ? src : placed(new Uint8Array(len), dso);
            c.xorKeyStream(dst, src, placed(iv, vo));
            c.dispose();
            assertBytes(dst, node(key, iv, data), `AES-${8 * n}, ${len} bytes`);
          },
        ),
        { numRuns: runs },
      );
    });

    it('dispose() wipes the key: every later call throws', () => {
      const c = make(random(16));
      c.dispose();
      assert.throws(() => c.xorKeyStream(new Uint8Array(16), new Uint8Array(16), new Uint8Array(16)), {
        message: '@x/ctr: cipher was disposed',
      });
      c.dispose();
    });
  });
}
