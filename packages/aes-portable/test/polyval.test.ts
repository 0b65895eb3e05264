// The portable POLYVAL multiply-accumulate (src/polyval.ts): the Linux testmgr vectors (6 from RFC 8452,
// 3 from google/hctr2), GHASH through `reversed` against node:crypto's AES-GCM tags, the accumulator
// carried across calls, and fast-check against a bit-serial BigInt reference written from RFC 8452's
// definitions (not from the code under test). The shared kernel suite (kernel.test.ts) runs the testkit's
// POLYVAL tests on it too.
import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kernel } from '../src/index.js';
import { AGG, loadPolyvalInternal } from '../src/polyval.js';

interface Vector {
  key: string;
  msg: string;
  digest: string;
  note: string;
}
const VECTORS: Vector[] = JSON.parse(
  readFileSync(new URL('./vectors/linux_testmgr_polyval.json', import.meta.url), 'utf8'),
).vectors;

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// --- The reference: RFC 8452 §3, one bit at a time, on BigInts (bit i of byte j = coefficient of x^(8j+i)).
const P = (1n << 128n) | (1n << 127n) | (1n << 126n) | (1n << 121n) | 1n;
/** x^-128 in POLYVAL's field, as RFC 8452 §3 gives it: x^127 + x^124 + x^121 + x^114 + 1. */
const X_INV_128 = (1n << 127n) | (1n << 124n) | (1n << 121n) | (1n << 114n) | 1n;
const toInt = (b: Uint8Array) => BigInt(`0x${toHex(Uint8Array.from(b).reverse()) || '0'}`);
const toBytes = (x: bigint) => hex(x.toString(16).padStart(32, '0')).reverse();

/** a·b mod P, shift-and-add from the top bit of b. */
function mulMod(a: bigint, b: bigint): bigint {
  let r = 0n;
  for (let i = 127n; i >= 0n; i--) {
    r <<= 1n;
    if (r >> 128n) r ^= P;
    if ((b >> i) & 1n) r ^= a;
  }
  return r;
}
const dot = (a: bigint, b: bigint) => mulMod(mulMod(a, b), X_INV_128);

function refUpdate(h: Uint8Array, acc: Uint8Array, data: Uint8Array, reversed: boolean): Uint8Array {
  const H = toInt(h);
  let s = toInt(acc);
  for (let o = 0; o < data.length; o += 16) {
    const block = data.slice(o, o + 16);
    if (reversed) block.reverse();
    s = dot(s ^ toInt(block), H);
  }
  return toBytes(s);
}

function polyval(h: Uint8Array, data: Uint8Array, acc = new Uint8Array(16), reversed = false): Uint8Array {
  const k = kernel.loadPolyval(h);
  const a = acc.slice();
  k.update(a, data, reversed);
  k.dispose();
  return a;
}

describe('the reference', () => {
  it('x^-128 is the inverse of x^128 modulo P (RFC 8452 §3)', () => {
    expect(mulMod(X_INV_128, mulMod(1n << 127n, 2n))).toBe(1n);
  });
  it('RFC 8452 Appendix A: POLYVAL(H, X_1, X_2)', () => {
    const got = refUpdate(
      hex('25629347589242761d31f826ba4b757b'),
      new Uint8Array(16),
      hex('4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362'),
      false,
    );
    expect(toHex(got)).toBe('f7a3b47b846119fae5b7866cf5e5b77e');
  });
});

describe('portable POLYVAL (RFC 8452 §3)', () => {
  it('the 9 Linux testmgr polyval vectors (RFC 8452 and google/hctr2)', () => {
    expect(VECTORS).toHaveLength(9);
    for (const v of VECTORS) {
      expect(toHex(polyval(hex(v.key), hex(v.msg))), `${v.note}: ${v.key}`).toBe(v.digest);
    }
  });

  it('the vectors again, one block per call and at odd byteOffsets: the accumulator carries across calls', () => {
    for (const v of VECTORS) {
      const k = kernel.loadPolyval(hex(v.key));
      const acc = new Uint8Array(19).subarray(3);
      const msg = hex(v.msg);
      const data = new Uint8Array(msg.length + 5).subarray(5);
      data.set(msg);
      for (let o = 0; o < data.length; o += 16) k.update(acc, data.subarray(o, o + 16), false);
      k.update(acc, data.subarray(0, 0), false);
      expect(toHex(acc), v.key).toBe(v.digest);
      k.dispose();
    }
  });

  it('the key may be wiped once loaded; keys are independent', () => {
    const a = hex(VECTORS[7].key);
    const b = hex(VECTORS[8].key);
    const ka = kernel.loadPolyval(a);
    const kb = kernel.loadPolyval(b);
    a.fill(0);
    b.fill(0xff);
    const x = new Uint8Array(16);
    const y = new Uint8Array(16);
    ka.update(x, hex(VECTORS[7].msg), false);
    kb.update(y, hex(VECTORS[8].msg), false);
    expect(toHex(x)).toBe(VECTORS[7].digest);
    expect(toHex(y)).toBe(VECTORS[8].digest);
  });

  it('GHASH: reversed blocks and the key mulX(ByteReverse(H)) give node:crypto AES-GCM tags (tag = E(J0) ^ GHASH)', () => {
    for (const n of [16, 24, 32]) {
      for (const [aadLen, ptLen] of [
        [0, 0],
        [0, 16],
        [16, 0],
        [20, 37],
        [48, 16 * AGG],
        [13, 16 * AGG * 3 + 5],
      ]) {
        const key = crypto.getRandomValues(new Uint8Array(n));
        const nonce = crypto.getRandomValues(new Uint8Array(12));
        const aad = crypto.getRandomValues(new Uint8Array(aadLen));
        const pt = crypto.getRandomValues(new Uint8Array(ptLen));
        const c = createCipheriv(`aes-${8 * n}-gcm` as CipherGCMTypes, key, nonce);
        c.setAAD(aad);
        const ct = c.update(pt);
        c.final();
        const tag = c.getAuthTag();
        const ecb = (block: Uint8Array) => {
          const e = createCipheriv(`aes-${8 * n}-ecb`, key, null).setAutoPadding(false);
          return new Uint8Array(e.update(block));
        };
        // GHASH's key H = E(0^128); POLYVAL's key for it is mulX(ByteReverse(H)) (RFC 8452 Appendix A).
        const hr = toInt(ecb(new Uint8Array(16)).reverse());
        const hp = toBytes((hr << 1n) >> 128n ? (hr << 1n) ^ P : hr << 1n);
        const pad = (b: Uint8Array) => {
          const out = new Uint8Array(Math.ceil(b.length / 16) * 16);
          out.set(b);
          return out;
        };
        const len = Buffer.alloc(16);
        len.writeBigUInt64BE(BigInt(8 * aadLen), 0);
        len.writeBigUInt64BE(BigInt(8 * ptLen), 8);
        const ghash = polyval(hp, Buffer.concat([pad(aad), pad(ct), len]), new Uint8Array(16), true).reverse();
        const j0 = ecb(Buffer.concat([nonce, Buffer.from([0, 0, 0, 1])]));
        expect(toHex(ghash.map((b, i) => b ^ j0[i])), `AES-${8 * n}-GCM, ${aadLen} + ${ptLen}`).toBe(
          Buffer.from(tag).toString('hex'),
        );
      }
    }
  });

  it('fast-check: any key, accumulator, data and cut into calls, both orders, equals the bit-serial reference', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc
          .integer({ min: 0, max: 3 * AGG + 2 })
          .chain((n) =>
            fc.tuple(fc.uint8Array({ minLength: 16 * n, maxLength: 16 * n }), fc.integer({ min: 0, max: n })),
          ),
        fc.boolean(),
        (h, acc, [data, cut], reversed) => {
          const want = refUpdate(h, acc, data, reversed);
          const k = kernel.loadPolyval(h);
          const a = acc.slice();
          k.update(a, data.subarray(0, 16 * cut), reversed);
          k.update(a, data.subarray(16 * cut), reversed);
          k.dispose();
          expect(toHex(a)).toBe(toHex(want));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sparse and extreme values: single bits, all ones, the reduction polynomial’s bits', () => {
    const values: Uint8Array[] = [new Uint8Array(16), new Uint8Array(16).fill(0xff)];
    for (const bit of [0, 1, 15, 16, 31, 32, 63, 64, 95, 96, 113, 114, 120, 121, 125, 126, 127]) {
      const v = new Uint8Array(16);
      v[bit >> 3] = 1 << (bit & 7);
      values.push(v);
    }
    const data = new Uint8Array(16 * values.length);
    for (const [i, v] of values.entries()) data.set(v, 16 * i);
    for (const h of values) {
      for (const reversed of [false, true]) {
        const acc = new Uint8Array(16).fill(0xa5);
        expect(toHex(polyval(h, data, acc, reversed))).toBe(toHex(refUpdate(h, acc, data, reversed)));
      }
    }
  });

  it('dispose() zeroes every word of the state; no product of a call stays in scratch', () => {
    const { hash, state } = loadPolyvalInternal(hex(VECTORS[7].key));
    const acc = new Uint8Array(16);
    hash.update(acc, hex(VECTORS[7].msg), false);
    expect(toHex(acc)).toBe(VECTORS[7].digest);
    expect(state.sums.every((w) => w === 0)).toBe(true);
    expect(state.acc.every((w) => w === 0)).toBe(true);
    expect(state.powers.some((w) => w !== 0)).toBe(true);
    hash.dispose();
    expect(state.memory.every((w) => w === 0)).toBe(true);
  });
});
