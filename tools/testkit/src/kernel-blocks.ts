/**
 * The kernel suite's section for what every kernel has (`AesKernel` and `AesBlockPrimitives`): the kernel
 * describes itself, FIPS 197's known answers, `encryptBlocks` and `decryptBlocks` at every length around
 * the batch; and the keyed kernel as a whole, over every method it has: no state kept between calls,
 * several keys at once, the key schedule wiped after `load`, calls after `dispose()`, random calls, and
 * one native call per contract call.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, hex, placed, random } from './bytes.js';
import {
  input,
  KEY_BYTES,
  type KernelContext,
  load,
  METHODS,
  methodTests,
  op,
  describeInput,
} from './kernel-operations.js';
import { keyPair } from './reference.js';
import { FIPS197, FIPS197_PLAINTEXT } from './vectors.js';

/** The kernel's description, FIPS 197 Appendix C, and the two block primitives at every length. */
export function blockTests(ctx: KernelContext): void {
  const { kernel, p, present, hasHctr2 } = ctx;
  const { it } = ctx.suite;
  const has = (m: (typeof METHODS)[number]) => present.includes(m);

  it('is available, and describes itself: name, parallelBlocks, rounds; each fast path a function or absent', () => {
    assert.equal(kernel.isAvailable(), true);
    assert.equal(typeof kernel.name, 'string');
    assert.ok(Number.isInteger(p) && p >= 1, `parallelBlocks ${p}`);
    for (const n of KEY_BYTES) {
      const k = load(kernel, new Uint8Array(n));
      assert.equal(k.rounds, n / 4 + 6);
      for (const m of METHODS) assert.equal(typeof k[m], has(m) ? 'function' : 'undefined', `AES-${n * 8} ${m}`);
      assert.equal(typeof k.hctr2, hasHctr2 ? 'function' : 'undefined', `AES-${n * 8} hctr2`);
      k.dispose();
    }
  });

  it(`FIPS 197 Appendix C.1-C.3: one block, and the same block in all ${p + 3} blocks of a batch and a tail`, () => {
    const pt = hex(FIPS197_PLAINTEXT);
    const many = new Uint8Array(16 * (p + 3));
    for (let i = 0; i < p + 3; i++) many.set(pt, 16 * i);
    for (const v of FIPS197) {
      const k = load(kernel, hex(v.key));
      const out = new Uint8Array(16);
      k.encryptBlocks(out, pt);
      assertBytes(out, hex(v.ciphertext), `AES-${v.key.length * 4} encryptBlocks`);
      k.decryptBlocks(out, out);
      assertBytes(out, pt, `AES-${v.key.length * 4} decryptBlocks`);
      const all = many.slice();
      k.encryptBlocks(all, all);
      for (let i = 0; i < p + 3; i++) assertBytes(all.subarray(16 * i, 16 * i + 16), hex(v.ciphertext), `block ${i}`);
      k.decryptBlocks(all, all);
      assertBytes(all, many, 'decrypted back');
      k.dispose();
    }
  });

  methodTests(ctx, 'encryptBlocks');
  methodTests(ctx, 'decryptBlocks');
}

/** One keyed kernel called again and again, several at once, its schedule wiped, and disposed. */
export function keyedKernelTests({ kernel, suite: { it }, options, p, present }: KernelContext): void {
  it('keeps no state between calls: every method after every other on one keyed kernel, twice over', () => {
    for (const n of KEY_BYTES) {
      const [key1, key2] = keyPair(n);
      const k = load(kernel, key1);
      for (const [blocks, units] of [
        [2 * p + 1, 3],
        [p - 1 || 1, 2],
        [0, 0],
        [p + 1, 1],
      ]) {
        for (const m of present) {
          const o = op(m);
          const x = input(o, o.kind === 'units' ? Math.max(blocks, 1) : blocks, units);
          const dst = new Uint8Array(x.src.length);
          o.call(k, dst, x.src, x.side, x.unit);
          assertBytes(dst, o.want({ key1, key2 }, x), `AES-${n * 8} ${m} of ${describeInput(o, x)} after the others`);
        }
      }
      k.dispose();
    }
  });

  it('several keyed kernels at once, calls interleaved; disposing one leaves the others working', () => {
    const keys = [16, 24, 32, 16, 32].map((n) => keyPair(n));
    const ks = keys.map(([key1]) => load(kernel, key1));
    const check = (i: number) => {
      for (const m of present) {
        const o = op(m);
        const x = input(o, o.kind === 'units' ? p + 1 : 2 * p + 1, 2);
        const dst = new Uint8Array(x.src.length);
        o.call(ks[i], dst, x.src, x.side, x.unit);
        assertBytes(dst, o.want({ key1: keys[i][0], key2: keys[i][1] }, x), `key ${i}, ${m}`);
      }
    };
    for (let round = 0; round < 2; round++) for (let i = 0; i < ks.length; i++) check(i);
    ks[1].dispose();
    for (const i of [0, 2, 3, 4]) check(i);
    for (const i of [0, 2, 3, 4]) ks[i].dispose();
  });

  it('the key schedule may be wiped once loaded: the kernel keeps its own copy', () => {
    const [key1, key2] = keyPair(32);
    const schedule = expandKey(key1);
    const k = kernel.load(schedule);
    schedule.wipe();
    assert.ok(schedule.encryptionKeys.every((b) => b === 0) && schedule.decryptionKeys.every((b) => b === 0));
    for (const m of present) {
      const o = op(m);
      const x = input(o, p + 3, 2);
      const dst = new Uint8Array(x.src.length);
      o.call(k, dst, x.src, x.side, x.unit);
      assertBytes(dst, o.want({ key1, key2 }, x), m);
    }
    k.dispose();
  });

  if (options.throwsAfterDispose) {
    it('refuses every call after dispose() instead of using wiped keys', () => {
      for (const m of present) {
        const o = op(m);
        const k = load(kernel, random(16));
        k.dispose();
        const x = input(o, 1);
        assert.throws(() => o.call(k, new Uint8Array(16), x.src, x.side, x.unit), /disposed/, m);
      }
    });
  }
}

/** Random calls of every method, and one native call per contract call where the kernel counts them. */
export function randomAndCallTests({ kernel, suite: { it }, options, runs, p, present }: KernelContext): void {
  it(`random methods, key sizes, lengths, sector sizes and counts, odd byteOffsets, in place or not (${runs} runs)`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...present),
        fc.constantFrom(...KEY_BYTES),
        fc.integer({ min: 0, max: 4 * p + 3 }),
        fc.integer({ min: 0, max: 2 * p + 1 }),
        fc.integer({ min: 0, max: 3 }),
        fc.tuple(fc.nat(15), fc.nat(15), fc.nat(15)),
        fc.boolean(),
        (m, n, blocks, units, extra, [so, dso, vo], inPlace) => {
          const o = op(m);
          const x = o.kind === 'units' ? input(o, Math.max(blocks, 1), units, extra) : input(o, blocks, units);
          const [key1, key2] = keyPair(n);
          const want = o.want({ key1, key2 }, x);
          const k = load(kernel, key1);
          const src = placed(x.src, so),
            side = placed(x.side, vo);
          const dst = inPlace ? src : placed(new Uint8Array(x.src.length), dso);
          o.call(k, dst, src, side, x.unit);
          k.dispose();
          assertBytes(dst, want, `AES-${n * 8} ${m} of ${describeInput(o, x)}${inPlace ? ', in place' : ''}`);
        },
      ),
      { numRuns: runs },
    );
  });

  const count = options.callCount;
  if (count) {
    for (const m of present) {
      const o = op(m);
      const what = o.kind === 'units' ? '2048 sectors of 512 bytes' : '1 MiB';
      it(`one ${m} call over ${what} is one native call`, () => {
        const [key1, key2] = keyPair(32);
        const k = load(kernel, key1);
        const x = o.kind === 'units' ? input(o, 32, 2048) : input(o, 65536);
        const dst = new Uint8Array(x.src.length);
        const before = count();
        o.call(k, dst, x.src, x.side, x.unit);
        assert.equal(count() - before, 1);
        if (o.kind !== 'units') assertBytes(dst, o.want({ key1, key2 }, x), m);
        for (const s of o.kind === 'units' ? [0, 1, 7, 8, 1023, 2047] : []) {
          const at = s * x.unit;
          const one = {
            src: x.src.subarray(at, at + x.unit),
            side: x.side.subarray(16 * s, 16 * s + 16),
            unit: x.unit,
          };
          assertBytes(dst.subarray(at, at + x.unit), o.want({ key1, key2 }, one), `${m}, sector ${s}`);
        }
        k.dispose();
      });
    }
  }
}
