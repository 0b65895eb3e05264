/**
 * What the shared suite does not reach: CTR counters that carry or wrap exactly where kernel.ts cuts the
 * input into chunks (CHUNK bytes per call into WebAssembly, the counter state carried over at IV), the
 * partial batch and partial block at the end of a multi-chunk call, and POLYVAL updates longer than a
 * chunk (the accumulator carried over at POLY_ACC) with a partial batch of every size at the end.
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { assertBytes, refCtr, refPolyval } from '@x/testkit';
import { kernel } from '../src/index.js';
import { CHUNK, WIDTH } from '../src/layout.js';

const CHUNK_BLOCKS = CHUNK / 16;
/** Random bytes in a Uint8Array of their own (a Buffer's slice() would share its memory). */
const randomBytes = (n: number) => new Uint8Array(nodeRandomBytes(n));

function load(key: Uint8Array) {
  const s = expandKey(key);
  const k = kernel.load(s);
  s.wipe();
  return k;
}

/** A 16-byte IV whose last `bytes` bytes, as a big-endian integer, are 2^(8·bytes) - `before`. */
function ivBefore(before: number, bytes: number): Uint8Array {
  const iv = randomBytes(16);
  let v = BigInt(before);
  let borrow = 0n;
  for (let i = 15; i >= 16 - bytes; i--) {
    // 2^(8·bytes) - before, byte by byte from the right.
    const d = (0n - (v & 0xffn) - borrow) & 0xffn;
    borrow = (v & 0xffn) + borrow > 0n ? 1n : 0n;
    v >>= 8n;
    iv[i] = Number(d);
  }
  return iv;
}

describe('wasm-simd128 ctr at chunk edges', () => {
  const lengths = [CHUNK - 1, CHUNK, CHUNK + 1, CHUNK + 15, CHUNK + 16 * WIDTH + 9, 2 * CHUNK + 7];
  // Where the counter carries or wraps, in blocks from the start: just before, at and after the chunk edge.
  const at = [CHUNK_BLOCKS - 1, CHUNK_BLOCKS, CHUNK_BLOCKS + 1, CHUNK_BLOCKS + WIDTH - 1];

  it.each([16, 24, 32])('be128: carries out of the low 64 and 32 bits at the chunk edge (AES-%i)', (n) => {
    const key = randomBytes(n);
    const k = load(key);
    for (const len of lengths) {
      for (const where of at) {
        for (const bytes of [4, 8, 16]) {
          const iv = ivBefore(where, bytes);
          const src = randomBytes(len);
          const dst = new Uint8Array(len);
          k.ctr(dst, src, iv, 'be128');
          assertBytes(dst, refCtr(key, src, iv, 'be128'), `${len} bytes, carry after ${where} blocks, ${bytes}`);
        }
      }
    }
    k.dispose();
  });

  it('be32: wraps to zero at the chunk edge, byte 11 untouched', () => {
    const key = randomBytes(16);
    const k = load(key);
    for (const len of lengths) {
      for (const where of at) {
        const iv = ivBefore(where, 4);
        const src = randomBytes(len);
        const dst = new Uint8Array(len);
        k.ctr(dst, src, iv, 'be32');
        assertBytes(dst, refCtr(key, src, iv, 'be32'), `${len} bytes, wrap after ${where} blocks`);
      }
    }
    k.dispose();
  });

  it('xctr: the little-endian counter continues across chunks; in place', () => {
    const key = randomBytes(32);
    const k = load(key);
    for (const len of lengths) {
      const iv = randomBytes(16);
      const src = randomBytes(len);
      const buf = src.slice();
      k.ctr(buf, buf, iv, 'xctr');
      assertBytes(buf, refCtr(key, src, iv, 'xctr'), `${len} bytes in place`);
    }
    k.dispose();
  });

  it('a partial last batch and block after whole chunks: every tail of 1..8 blocks, 1..16 bytes', () => {
    const key = randomBytes(16);
    const k = load(key);
    const iv = randomBytes(16);
    for (let blocks = 0; blocks <= WIDTH; blocks++) {
      for (const extra of [1, 8, 15, 16]) {
        const len = CHUNK + 16 * blocks + extra - 16;
        const src = randomBytes(len);
        const dst = new Uint8Array(len);
        for (const c of ['be128', 'be32', 'xctr'] as const) {
          k.ctr(dst, src, iv, c);
          assertBytes(dst, refCtr(key, src, iv, c), `${len} bytes, ${c}`);
        }
      }
    }
    k.dispose();
  });
});

describe('wasm-simd128 POLYVAL across chunks', () => {
  it('updates of a chunk and more, every partial batch at the end, both orders', () => {
    const h = randomBytes(16);
    const p = kernel.loadPolyval(h);
    for (const blocks of [
      CHUNK_BLOCKS - 1,
      CHUNK_BLOCKS,
      ...Array.from({ length: 8 }, (_, r) => CHUNK_BLOCKS + r + 1),
    ]) {
      for (const reversed of [false, true]) {
        const acc = randomBytes(16);
        const data = randomBytes(16 * blocks);
        const a = acc.slice();
        p.update(a, data, reversed);
        expect(Buffer.from(a).toString('hex'), `${blocks} blocks`).toBe(
          Buffer.from(refPolyval(h, acc, data, reversed)).toString('hex'),
        );
      }
    }
    p.dispose();
  });

  it('three chunks and a partial batch, the AES key of the same instance used in between', () => {
    const h = randomBytes(16);
    const p = kernel.loadPolyval(h);
    const k = load(randomBytes(16));
    const data = randomBytes(3 * CHUNK + 16 * 5);
    const acc = new Uint8Array(16);
    p.update(acc, data.subarray(0, CHUNK + 16), true);
    k.ctr(new Uint8Array(100), randomBytes(100), randomBytes(16), 'be32');
    p.update(acc, data.subarray(CHUNK + 16), true);
    expect(Buffer.from(acc).toString('hex')).toBe(
      Buffer.from(refPolyval(h, new Uint8Array(16), data, true)).toString('hex'),
    );
    p.dispose();
    k.dispose();
  });

  it('throws once disposed', () => {
    const p = kernel.loadPolyval(randomBytes(16));
    p.dispose();
    expect(() => p.update(new Uint8Array(16), new Uint8Array(16), false)).toThrow(
      '@x/aes-wasm-kernel: the POLYVAL key was disposed',
    );
  });
});
