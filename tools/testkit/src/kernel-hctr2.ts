/**
 * The kernel suite's section for the `hctr2` fast path (ePrint 2021/1441 §3), against the paper's
 * pseudocode over slow references (`refHctr2`): one message of every length around the batch, tweaks of 0
 * to 47 bytes, many sectors in one call with 32-byte tweaks, both directions, in place and not, odd
 * offsets and guard bytes; and one native call for 2048 sectors where the kernel counts them. The path
 * takes the kernel's own POLYVAL key of hbar, so a kernel with `hctr2` must have `loadPolyval`.
 */
import assert from 'node:assert/strict';
import type { AesKernel, AesKeyedKernel, PolyvalKernel } from '@x/aes-kernels/hazmat';
import { assertBytes, backing, outside, placed, random } from './bytes.js';
import { KEY_BYTES, type KernelSuiteOptions, load, offsets } from './kernel-operations.js';
import { refEcb, refHctr2 } from './reference.js';
import type { Suite } from './suite.js';

/** HCTR2's bin(x): 16 bytes little-endian (x < 2^53 here). */
function bin(x: number): Uint8Array {
  const b = new Uint8Array(16);
  for (let i = 0, v = x; i < 8; i++, v = Math.floor(v / 256)) b[i] = v % 256;
  return b;
}

/** A keyed kernel with `hctr2`, and what the fast path takes besides: its POLYVAL key of hbar, and L. */
interface Hctr2Key {
  key: Uint8Array;
  k: AesKeyedKernel;
  hash: PolyvalKernel;
  l: Uint8Array;
}

/** The tweak lengths of the one-message tests. */
const TWEAKS = [0, 1, 16, 17, 32, 47];

/** Keys `key`: hbar = E_K(bin(0)) and L = E_K(bin(1)) from node:crypto, hbar bound with the kernel's loadPolyval. */
function setup(kernel: AesKernel, key: Uint8Array): Hctr2Key {
  assert.ok(kernel.loadPolyval, `${kernel.name} has hctr2 but no loadPolyval, whose key hctr2 takes`);
  const hl = refEcb(true, key, Uint8Array.from([...bin(0), ...bin(1)]));
  return { key, k: load(kernel, key), hash: kernel.loadPolyval(hl.subarray(0, 16)), l: hl.slice(16) };
}

function done(K: Hctr2Key): void {
  K.k.dispose();
  K.hash.dispose();
}

/** POLYVAL's state after the length block bin(2·8·tlen + 2 + (unit mod 16 ≠ 0)): the `start` argument. */
function start(K: Hctr2Key, tlen: number, unit: number): Uint8Array {
  const acc = new Uint8Array(16);
  K.hash.update(acc, bin(16 * tlen + 2 + (unit % 16 === 0 ? 0 : 1)), false);
  return acc;
}

/** `k.hctr2` over src (messages of `unit` bytes), with guard bytes around every argument it reads. */
function call(
  K: Hctr2Key,
  dst: Uint8Array,
  src: Uint8Array,
  unit: number,
  tweaks: Uint8Array,
  tlen: number,
  decrypt: boolean,
  label: string,
  offset = 0,
): void {
  const st = placed(start(K, tlen, unit), (offset + 5) & 15),
    l = placed(K.l, (offset + 9) & 15),
    tw = placed(tweaks, (offset + 3) & 15);
  const before = [backing(st), backing(l), backing(tw)];
  (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>)(dst, src, unit, tw, tlen, K.hash, st, l, decrypt);
  for (const [i, a] of [st, l, tw].entries()) {
    assertBytes(backing(a), before[i], `${label}: changed ${['start', 'l', 'tweaks'][i]} or the bytes around it`);
  }
}

/** Messages of `unit` bytes in `src`, each checked against the reference: separate buffers, then in place. */
function exercise(
  K: Hctr2Key,
  src: Uint8Array,
  unit: number,
  tweaks: Uint8Array,
  tlen: number,
  decrypt: boolean,
  want: Uint8Array,
  i: number,
  label: string,
): void {
  const [so, dso] = offsets(i);
  const n = src.length;
  const s = placed(src, so),
    d = placed(random(n + 16), dso);
  const srcBefore = backing(s),
    around = outside(d.subarray(0, n));
  call(K, d, s, unit, tweaks, tlen, decrypt, label, i);
  assertBytes(d.subarray(0, n), want, `${label}, separate buffers`);
  assertBytes(outside(d.subarray(0, n)), around, `${label}: wrote outside dst[0, src.length)`);
  assertBytes(backing(s), srcBefore, `${label}: changed src or the bytes around it`);
  const buf = placed(src, dso ^ 1);
  const bufAround = outside(buf);
  call(K, buf, buf, unit, tweaks, tlen, decrypt, `${label}, in place`, i + 1);
  assertBytes(buf, want, `${label}, in place`);
  assertBytes(outside(buf), bufAround, `${label}, in place: wrote outside dst`);
}

/** The reference of every message of `src`. */
function model(
  key: Uint8Array,
  src: Uint8Array,
  unit: number,
  tweaks: Uint8Array,
  tlen: number,
  decrypt: boolean,
): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let u = 0; u < src.length / unit; u++) {
    const msg = src.subarray(u * unit, (u + 1) * unit);
    out.set(refHctr2(key, tweaks.subarray(u * tlen, (u + 1) * tlen), msg, decrypt), u * unit);
  }
  return out;
}

/**
 * The HCTR2 section of `kernel`, which has the `hctr2` fast path.
 *
 * @example
 * ```ts
 * hctr2Suite(kernel, { describe, it }, { throwsAfterDispose: true });
 * ```
 */
export function hctr2Suite(kernel: AesKernel, { describe, it }: Suite, options: KernelSuiteOptions): void {
  describe(`${kernel.name}: HCTR2 in one call (hctr2)`, () => {
    hctr2MessageTests(kernel, it);
    hctr2SectorTests(kernel, it, options);
  });
}

/** One message of every length, and every tweak length, both ways. */
function hctr2MessageTests(kernel: AesKernel, it: Suite['it']): void {
  const p = kernel.parallelBlocks;
  const longest = 16 * (2 * p + 3) + 15;
  for (const n of KEY_BYTES) {
    it(`AES-${n * 8}: one message of every length 16..${longest} bytes, tweaks of ${TWEAKS.join(', ')} bytes by turns; separate, in place, odd offsets, guard bytes`, () => {
      const K = setup(kernel, random(n));
      for (let len = 16; len <= longest; len++) {
        const i = len - 16;
        const tlen = TWEAKS[i % TWEAKS.length];
        const data = random(len),
          tweak = random(tlen);
        const want = refHctr2(K.key, tweak, data, false);
        exercise(K, data, len, tweak, tlen, false, want, i, `encrypt of ${len} bytes, ${tlen}-byte tweak`);
        // Decryption gives the message back (against the model itself in the next tests).
        exercise(K, want, len, tweak, tlen, true, data, i + 7, `decrypt of ${len} bytes, ${tlen}-byte tweak`);
      }
      done(K);
    });
  }

  it(`tweaks of ${TWEAKS.join(', ')} bytes, messages of 16, 17, 31, 32, ${16 * p + 5} bytes, both ways against the model, every key size`, () => {
    let i = 0;
    for (const n of KEY_BYTES) {
      const K = setup(kernel, random(n));
      for (const tlen of TWEAKS) {
        for (const len of [16, 17, 31, 32, 16 * p + 5]) {
          const data = random(len),
            tweak = random(tlen);
          for (const decrypt of [false, true]) {
            const label = `AES-${n * 8} ${decrypt ? 'decrypt' : 'encrypt'} of ${len} bytes, ${tlen}-byte tweak`;
            exercise(K, data, len, tweak, tlen, decrypt, refHctr2(K.key, tweak, data, decrypt), i++, label);
          }
        }
      }
      done(K);
    }
  });
}

/** Many sectors in one call, identical sectors, calls after dispose, and one native call. */
function hctr2SectorTests(kernel: AesKernel, it: Suite['it'], options: KernelSuiteOptions): void {
  const p = kernel.parallelBlocks;
  it(`many sectors of 16, 48, 512 and 4096 bytes in one call, 32-byte tweaks, both ways: every sector against the model`, () => {
    const shapes: [number, number[]][] = [
      [16, [0, 1, 2, p - 1, p, p + 1, 2 * p + 1]],
      [48, [1, 3, p, p + 1, 2 * p + 1]],
      [512, [1, 2, 9, p + 1]],
      [4096, [1, 3]],
    ];
    let i = 0;
    for (const n of KEY_BYTES) {
      const K = setup(kernel, random(n));
      for (const [unit, sectorCounts] of shapes) {
        for (const count of sectorCounts) {
          const src = random(unit * count),
            tweaks = random(32 * count);
          for (const decrypt of [false, true]) {
            const want = model(K.key, src, unit, tweaks, 32, decrypt);
            const label = `AES-${n * 8} ${decrypt ? 'decrypt' : 'encrypt'} of ${count} × ${unit}-byte sectors`;
            exercise(K, src, unit, tweaks, 32, decrypt, want, i++, label);
          }
        }
      }
      done(K);
    }
  });

  it('identical sectors under identical tweaks come out identical; a different tweak changes only its sector', () => {
    const K = setup(kernel, random(32));
    const count = 2 * p + 3;
    const one = random(512),
      tweak = random(32);
    const src = new Uint8Array(512 * count),
      tweaks = new Uint8Array(32 * count);
    for (let s = 0; s < count; s++) {
      src.set(one, 512 * s);
      tweaks.set(tweak, 32 * s);
    }
    tweaks[32 * p] ^= 1;
    const out = new Uint8Array(src.length);
    call(K, out, src, 512, tweaks, 32, false, 'identical sectors');
    const want = refHctr2(K.key, tweak, one, false);
    for (let s = 0; s < count; s++) {
      const got = out.subarray(512 * s, 512 * s + 512);
      if (s === p) assert.notDeepEqual(got, want, `sector ${s} has another tweak`);
      else assertBytes(got, want, `sector ${s}`);
    }
    done(K);
  });

  if (options.throwsAfterDispose) {
    it('refuses a call after dispose() of the keyed kernel or of the POLYVAL key', () => {
      const K = setup(kernel, random(16));
      const hctr2 = (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>).bind(K.k);
      const src = random(32),
        dst = new Uint8Array(32),
        tweak = random(32),
        st = start(K, 32, 32);
      K.hash.dispose();
      assert.throws(() => hctr2(dst, src, 32, tweak, 32, K.hash, st, K.l, false), /disposed/, 'disposed hash');
      K.k.dispose();
      assert.throws(() => hctr2(dst, src, 32, tweak, 32, K.hash, st, K.l, false), /disposed/, 'disposed kernel');
      assert.ok(
        dst.every((b) => b === 0),
        'wrote dst',
      );
    });
  }

  const count = options.callCount;
  if (count) {
    it('one hctr2 call over 2048 sectors of 512 bytes is one native call', () => {
      const K = setup(kernel, random(32));
      const src = random(2048 * 512),
        tweaks = random(32 * 2048);
      const dst = new Uint8Array(src.length);
      const st = start(K, 32, 512);
      const before = count();
      (K.k.hctr2 as NonNullable<AesKeyedKernel['hctr2']>)(dst, src, 512, tweaks, 32, K.hash, st, K.l, false);
      assert.equal(count() - before, 1);
      for (const s of [0, 1, 7, 8, 9, 1023, 2047]) {
        const want = refHctr2(K.key, tweaks.subarray(32 * s, 32 * s + 32), src.subarray(512 * s, 512 * s + 512), false);
        assertBytes(dst.subarray(512 * s, 512 * s + 512), want, `sector ${s}`);
      }
      done(K);
    });
  }
}
