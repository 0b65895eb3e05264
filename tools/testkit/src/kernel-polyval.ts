/**
 * The kernel suite's section for POLYVAL (`loadPolyval`, the GF(2^128) multiply-accumulate): RFC 8452's
 * example, GHASH through `reversed` against node:crypto's AES-GCM tags, and the bit-serial reference of
 * `refPolyval` at every block count around the aggregation width (0..19, 31..33, 64, 1000), split into calls
 * anywhere, keys with special values, odd byteOffsets, guard bytes, several keys at once.
 */
import assert from 'node:assert/strict';
import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import fc from 'fast-check';
import type { AesKernel } from '@x/aes-kernels/hazmat';
import { assertBytes, backing, hex, outside, placed, random } from './bytes.js';
import { hex16, KEY_BYTES } from './kernel-operations.js';
import { ghashKey, refEcb, refPolyval } from './reference.js';
import type { Suite } from './suite.js';

type LoadPolyval = NonNullable<AesKernel['loadPolyval']>;

/** RFC 8452 Appendix A: POLYVAL(H, X_1, X_2). */
const RFC8452_POLYVAL = {
  h: '25629347589242761d31f826ba4b757b',
  x: '4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362',
  polyval: 'f7a3b47b846119fae5b7866cf5e5b77e',
};

/** One update of `data` from `acc` (a copy) under the key `h`, the key disposed after. */
function update(loadPolyval: LoadPolyval, h: Uint8Array, acc: Uint8Array, data: Uint8Array, reversed: boolean) {
  const k = loadPolyval(h);
  const a = acc.slice();
  k.update(a, data, reversed);
  k.dispose();
  return a;
}

/**
 * The POLYVAL section of `kernel`, whose `loadPolyval` is given bound: known answers, then block counts,
 * special values, several keys, random cases and (where the kernel counts them) native calls.
 *
 * @example
 * ```ts
 * polyvalSuite(kernel, kernel.loadPolyval.bind(kernel), { describe, it }, 100);
 * ```
 */
export function polyvalSuite(
  kernel: AesKernel,
  loadPolyval: LoadPolyval,
  { describe, it }: Suite,
  runs: number,
  callCount?: () => number,
): void {
  describe(`${kernel.name}: POLYVAL multiply-accumulate (loadPolyval)`, () => {
    polyvalAnswers(it, loadPolyval);
    polyvalCases(it, loadPolyval, runs, callCount);
  });
}

/** RFC 8452's example, GCM tags from node:crypto, and every block count against the bit-serial reference. */
function polyvalAnswers(it: Suite['it'], loadPolyval: LoadPolyval): void {
  it('RFC 8452 Appendix A: POLYVAL(H, X_1, X_2); the key may be wiped once loaded', () => {
    const v = RFC8452_POLYVAL;
    const h = hex(v.h);
    const k = loadPolyval(h);
    h.fill(0);
    const acc = new Uint8Array(16);
    k.update(acc, hex(v.x), false);
    assertBytes(acc, hex(v.polyval), 'POLYVAL');
    k.dispose();
  });

  it('GHASH through reversed blocks and the key mulX(ByteReverse(H)) gives node:crypto AES-GCM tags', () => {
    for (const n of KEY_BYTES) {
      for (const [aadLen, ptLen] of [
        [0, 0],
        [16, 48],
        [32, 16 * 19],
      ]) {
        const key = random(n),
          nonce = random(12),
          aad = random(aadLen),
          pt = random(ptLen);
        const c = createCipheriv(`aes-${8 * n}-gcm` as CipherGCMTypes, key, nonce);
        c.setAAD(aad);
        const ct = c.update(pt);
        c.final();
        const len = Buffer.alloc(16);
        len.writeBigUInt64BE(BigInt(8 * aadLen), 0);
        len.writeBigUInt64BE(BigInt(8 * ptLen), 8);
        const acc = update(
          loadPolyval,
          ghashKey(refEcb(true, key, new Uint8Array(16))),
          new Uint8Array(16),
          Buffer.concat([aad, ct, len]),
          true,
        );
        acc.reverse();
        const ej0 = refEcb(true, key, Buffer.concat([nonce, Buffer.from([0, 0, 0, 1])]));
        assertBytes(
          acc.map((b, i) => b ^ ej0[i]),
          c.getAuthTag(),
          `AES-${8 * n}-GCM tag, ${aadLen} + ${ptLen} bytes`,
        );
      }
    }
  });

  it('every block count 0..19, 31..33, 64, 1000, both orders, from a random accumulator; separate calls continue', () => {
    for (const blocks of [...Array.from({ length: 20 }, (_, i) => i), 31, 32, 33, 64, 1000]) {
      for (const reversed of [false, true]) {
        const h = random(16),
          acc = random(16),
          data = random(16 * blocks);
        const want = refPolyval(h, acc, data, reversed);
        const k = loadPolyval(h);
        // In one call, at odd byteOffsets, with guard bytes around both.
        const a = placed(acc, blocks & 15),
          d = placed(data, (3 * blocks + 1) & 15);
        const aAround = outside(a),
          dBefore = backing(d);
        k.update(a, d, reversed);
        assertBytes(a, want, `${blocks} blocks${reversed ? ', reversed' : ''}`);
        assertBytes(outside(a), aAround, `${blocks} blocks: wrote outside acc`);
        assertBytes(backing(d), dBefore, `${blocks} blocks: changed data or the bytes around it`);
        // Cut into two calls at every place for the short ones, a few places for the long ones.
        const cuts = blocks <= 19 ? Array.from({ length: blocks + 1 }, (_, i) => i) : [1, 7, 8, 9, blocks - 1];
        for (const cut of cuts) {
          const b = acc.slice();
          k.update(b, data.subarray(0, 16 * cut), reversed);
          k.update(b, data.subarray(16 * cut), reversed);
          assertBytes(b, want, `${blocks} blocks cut after ${cut}`);
        }
        k.dispose();
      }
    }
  });
}

/** Keys and data of special values, several keys at once, random cases, and native calls. */
function polyvalCases(it: Suite['it'], loadPolyval: LoadPolyval, runs: number, callCount?: () => number): void {
  it('keys and data of special values: zero, one, all ones, x^127, the field polynomial bits', () => {
    const specials = ['00', '01', 'ff', '80', '40', '02'].flatMap((b) => {
      const lo = new Uint8Array(16),
        hi = new Uint8Array(16),
        all = new Uint8Array(16).fill(Number.parseInt(b, 16));
      lo[0] = Number.parseInt(b, 16);
      hi[15] = Number.parseInt(b, 16);
      return [lo, hi, all];
    });
    for (const h of specials) {
      const data = new Uint8Array(16 * specials.length);
      for (const [i, x] of specials.entries()) data.set(x, 16 * i);
      for (const reversed of [false, true]) {
        assertBytes(
          update(loadPolyval, h, new Uint8Array(16).fill(0xff), data, reversed),
          refPolyval(h, new Uint8Array(16).fill(0xff), data, reversed),
          `key ${hex16(h)}`,
        );
      }
    }
  });

  it('several keys at once, calls interleaved; disposing one leaves the others working', () => {
    const hs = [random(16), random(16), random(16)];
    const ks = hs.map((h) => loadPolyval(h));
    const check = (i: number) => {
      const acc = random(16),
        data = random(16 * 11);
      const a = acc.slice();
      ks[i].update(a, data, i === 1);
      assertBytes(a, refPolyval(hs[i], acc, data, i === 1), `key ${i}`);
    };
    for (let round = 0; round < 2; round++) for (let i = 0; i < 3; i++) check(i);
    ks[1].dispose();
    check(0);
    check(2);
    ks[0].dispose();
    ks[2].dispose();
  });

  it(`random keys, accumulators, lengths and offsets (${runs} runs)`, () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        (h, acc, blocks, reversed) => {
          const data = random(16 * blocks);
          assertBytes(
            update(loadPolyval, h, acc, data, reversed),
            refPolyval(h, acc, data, reversed),
            `${blocks} blocks`,
          );
        },
      ),
      { numRuns: runs },
    );
  });

  if (callCount) {
    it('one update over 1 MiB is one native call', () => {
      const k = loadPolyval(random(16));
      const before = callCount();
      k.update(new Uint8Array(16), new Uint8Array(1 << 20), true);
      assert.equal(callCount() - before, 1);
      k.dispose();
    });
  }
}
