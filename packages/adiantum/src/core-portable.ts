/**
 * The portable HBSH core: the contract of `core.ts` in plain JavaScript, for runtimes without WebAssembly
 * SIMD128 and for bundles that must carry no WebAssembly. Constant time by construction: ChaCha is 32-bit
 * ARX; NH's and Poly1305's products are of 16-bit (NH) and 13/16-bit (Poly1305) pieces, exact in doubles
 * (every sum stays below 2^53), with carries taken by multiplying by powers of two, never by a branch; no
 * array index or loop bound depends on a key or on data. Its key material lives in `memory` alone, so that
 * wiping the memory wipes the core.
 */
import type { HbshCore } from './core.js';
import { DERIVED, KEY, MEMORY_BYTES, NH_CHUNK, NH_KEY, PRIVATE } from './layout.js';

/** "expand 32-byte k" (RFC 8439 §2.3). */
const SIGMA0 = 0x61707865;
const SIGMA1 = 0x3320646e;
const SIGMA2 = 0x79622d32;
const SIGMA3 = 0x6b206574;

/** PRIVATE areas of this core: the rounds, the two clamped Poly1305 keys (10 limbs of 13 bits, u32 each). */
const ROUNDS = PRIVATE;
const R_HEADER = PRIVATE + 16;
const R_MESSAGE = PRIVATE + 64;
/** A zero-padded copy of a message's last partial NH unit or Poly1305 block. */
const PAD = PRIVATE + 112;
/** The copies of a state's accumulators that `finish` works on. */
const ACC_A = PRIVATE + 128;
const ACC_B = PRIVATE + 176;
/** H = reduce(A) + reduce(B) as 16 bytes, and reduce(B). */
const HASH = PRIVATE + 224;
const HASH_B = PRIVATE + 240;
/** NH's output for one chunk (32 bytes). */
const NH_OUT = PRIVATE + 256;
/** The state's accumulator B, at this offset from A. */
const B_OFFSET = 48;

const TWO13 = 8192;
const INV13 = 1 / 8192;
const TWO16 = 65536;
const INV16 = 1 / 65536;
const TWO32 = 4294967296;
const INV32 = 1 / 4294967296;

/**
 * The portable core over a fresh memory of MEMORY_BYTES (or over `memory`, MEMORY_BYTES long: the
 * constant-time test hands it a memory that records every access).
 *
 * @example
 * ```ts
 * const core = portableCore();
 * core.memory.set(key, KEY);
 * core.setup(12, 0); // Adiantum-XChaCha12: K_E at DERIVED, the hash keys bound
 * ```
 */
export function portableCore(memory: Uint8Array = new Uint8Array(MEMORY_BYTES)): HbshCore {
  return new PortableCore(memory);
}

class PortableCore implements HbshCore {
  readonly name = 'portable';
  readonly memory: Uint8Array;
  /** The ChaCha input state and one output block (in words). */
  readonly #input = new Uint32Array(16);
  readonly #block = new Uint32Array(16);
  /** The Poly1305 accumulator and key of the call at hand (13-bit limbs). */
  readonly #h = new Float64Array(10);
  readonly #r = new Float64Array(10);
  /** The column sums of one Poly1305 multiplication. */
  readonly #d = new Float64Array(10);
  /** NH's 4 passes × (low·low, mixed, high·high) sums of 16-bit piece products. */
  readonly #nh = new Float64Array(12);

  constructor(memory: Uint8Array) {
    this.memory = memory;
  }

  setup(rounds: number, hpolyc: number): void {
    const m = this.memory;
    m[ROUNDS] = rounds;
    const bytes = hpolyc === 1 ? 48 : NH_KEY + 16 * (NH_CHUNK / 16 + 3) - DERIVED;
    m.fill(0, DERIVED, DERIVED + bytes);
    // The nonce 01 ‖ 0^23, in PAD (the construction's NONCE area is the caller's).
    m.fill(0, PAD, PAD + 24);
    m[PAD] = 1;
    this.stream(PAD, DERIVED, bytes, 0);
    m.fill(0, PAD, PAD + 24);
    m[ROUNDS + 1] = hpolyc;
    clampInto(m, DERIVED + 32, R_HEADER);
    if (hpolyc !== 1) clampInto(m, DERIVED + 48, R_MESSAGE);
  }

  header(ptr: number, len: number, statePtr: number, more: number): void {
    const m = this.memory;
    if (more === 0) m.fill(0, statePtr, statePtr + 96);
    this.#poly(ptr, len, statePtr, R_HEADER);
  }

  absorb(ptr: number, len: number, statePtr: number): void {
    if (this.memory[ROUNDS + 1] === 1) this.#poly(ptr, len, statePtr, R_HEADER);
    else this.#nhPoly(ptr, len, statePtr + B_OFFSET);
  }

  finish(ptr: number, len: number, statePtr: number, outPtr: number, basePtr: number, sign: number): void {
    const m = this.memory;
    m.copyWithin(ACC_A, statePtr, statePtr + 96);
    if (m[ROUNDS + 1] === 1) {
      this.#poly(ptr, len, ACC_A, R_HEADER);
      this.#emit(ACC_A, HASH);
    } else {
      this.#nhPoly(ptr, len, ACC_B);
      this.#emit(ACC_A, HASH);
      this.#emit(ACC_B, HASH_B);
      let c = 0;
      for (let i = 0; i < 16; i++) {
        c += m[HASH + i] + m[HASH_B + i];
        m[HASH + i] = c & 255;
        c >>>= 8;
      }
      m.fill(0, HASH_B, HASH_B + 16);
    }
    // out = base ± H mod 2^128; base − H as base + ~H + 1.
    let c = sign;
    const flip = -sign & 255;
    for (let i = 0; i < 16; i++) {
      c += m[basePtr + i] + (m[HASH + i] ^ flip);
      m[outPtr + i] = c & 255;
      c >>>= 8;
    }
    m.fill(0, ACC_A, HASH + 16);
  }

  stream(noncePtr: number, ptr: number, len: number, block: number): void {
    const m = this.memory;
    const s = this.#input;
    const o = this.#block;
    const doubleRounds = m[ROUNDS] >>> 1;
    // HChaCha (draft-irtf-cfrg-xchacha §2.2): the subkey is words 0–3 and 12–15 of the permuted state.
    s[0] = SIGMA0;
    s[1] = SIGMA1;
    s[2] = SIGMA2;
    s[3] = SIGMA3;
    for (let i = 0; i < 8; i++) s[4 + i] = le32(m, KEY + 4 * i);
    for (let i = 0; i < 4; i++) s[12 + i] = le32(m, noncePtr + 4 * i);
    permute(s, o, doubleRounds);
    for (let i = 0; i < 4; i++) {
      s[4 + i] = o[i];
      s[8 + i] = o[12 + i];
    }
    s[14] = le32(m, noncePtr + 16);
    s[15] = le32(m, noncePtr + 20);
    for (let at = 0; at < len; at += 64, block++) {
      s[12] = block >>> 0;
      s[13] = Math.floor(block * INV32);
      permute(s, o, doubleRounds);
      for (let i = 0; i < 16; i++) o[i] = (o[i] + s[i]) >>> 0;
      const n = Math.min(64, len - at);
      const p = ptr + at;
      for (let i = 0; i < n; i++) m[p + i] ^= o[i >>> 2] >>> (8 * (i & 3));
    }
    s.fill(0);
    o.fill(0);
  }

  /**
   * Poly1305's polynomial over [ptr, ptr+len) into the accumulator at `acc` (10 limbs, u32 each) under the
   * key at `rAt`; a last block shorter than 16 bytes is padded with 1 and zeros (RFC 8439 §2.5.1).
   */
  #poly(ptr: number, len: number, acc: number, rAt: number): void {
    const m = this.memory;
    const h = this.#h;
    const r = this.#r;
    for (let i = 0; i < 10; i++) {
      h[i] = le32(m, acc + 4 * i);
      r[i] = le32(m, rAt + 4 * i);
    }
    const whole = len & ~15;
    for (let at = 0; at < whole; at += 16) this.#polyBlock(m, ptr + at, 1);
    if (whole < len) {
      m.fill(0, PAD, PAD + 16);
      m.copyWithin(PAD, ptr + whole, ptr + len);
      m[PAD + len - whole] = 1;
      this.#polyBlock(m, PAD, 0);
      m.fill(0, PAD, PAD + 16);
    }
    for (let i = 0; i < 10; i++) put32(m, acc + 4 * i, h[i]);
    h.fill(0);
    r.fill(0);
  }

  /** h = (h + block + hibit·2^128)·r, partly reduced: 13-bit limbs (the first may carry a few bits more). */
  #polyBlock(m: Uint8Array, p: number, hibit: number): void {
    const h = this.#h;
    const r = this.#r;
    const t0 = m[p] | (m[p + 1] << 8);
    const t1 = m[p + 2] | (m[p + 3] << 8);
    const t2 = m[p + 4] | (m[p + 5] << 8);
    const t3 = m[p + 6] | (m[p + 7] << 8);
    const t4 = m[p + 8] | (m[p + 9] << 8);
    const t5 = m[p + 10] | (m[p + 11] << 8);
    const t6 = m[p + 12] | (m[p + 13] << 8);
    const t7 = m[p + 14] | (m[p + 15] << 8);
    // The 128 bits as 13-bit limbs (limb k: bits 13k .. 13k+12), the 2^128 bit at bit 11 of limb 9.
    h[0] += t0 & 0x1fff;
    h[1] += ((t0 >>> 13) | (t1 << 3)) & 0x1fff;
    h[2] += ((t1 >>> 10) | (t2 << 6)) & 0x1fff;
    h[3] += ((t2 >>> 7) | (t3 << 9)) & 0x1fff;
    h[4] += ((t3 >>> 4) | (t4 << 12)) & 0x1fff;
    h[5] += (t4 >>> 1) & 0x1fff;
    h[6] += ((t4 >>> 14) | (t5 << 2)) & 0x1fff;
    h[7] += ((t5 >>> 11) | (t6 << 5)) & 0x1fff;
    h[8] += ((t6 >>> 8) | (t7 << 8)) & 0x1fff;
    h[9] += (t7 >>> 5) | (hibit << 11);
    // d_i = Σ h_j·r_(i−j), with 2^130 ≡ 5: limbs < 2^14, 5·r < 2^16, so every d_i < 2^34 (exact).
    let c = 0;
    const d = this.#d;
    for (let i = 0; i < 10; i++) {
      let s = 0;
      for (let j = 0; j <= i; j++) s += h[j] * r[i - j];
      for (let j = i + 1; j < 10; j++) s += h[j] * 5 * r[i + 10 - j];
      d[i] = s;
    }
    for (let i = 0; i < 10; i++) {
      const v = d[i] + c;
      c = Math.floor(v * INV13);
      h[i] = v - c * TWO13;
    }
    const v0 = h[0] + c * 5;
    c = Math.floor(v0 * INV13);
    h[0] = v0 - c * TWO13;
    h[1] += c;
    d.fill(0);
  }

  /** reduce(accumulator at `acc`) (fully reduced mod 2^130 − 5, low 128 bits) as 16 bytes at `out`. */
  #emit(acc: number, out: number): void {
    const m = this.memory;
    const h = this.#h;
    for (let i = 0; i < 10; i++) h[i] = le32(m, acc + 4 * i);
    // Two carry passes leave every limb below 2^13 and h < 2^130 + small, i.e. h < 2p.
    for (let pass = 0; pass < 2; pass++) {
      let c = 0;
      for (let i = 0; i < 10; i++) {
        const v = h[i] + c;
        c = Math.floor(v * INV13);
        h[i] = v - c * TWO13;
      }
      h[0] += c * 5;
    }
    // g = h + 5 − 2^130; keep g where it did not borrow (h ≥ p), by a mask.
    const g = this.#r;
    let c = 5;
    for (let i = 0; i < 10; i++) {
      const v = h[i] + c;
      c = Math.floor(v * INV13);
      g[i] = v - c * TWO13;
    }
    // c is 1 exactly when h + 5 ≥ 2^130.
    const keep = -c; // 0 or -1 (all ones)
    for (let i = 0; i < 10; i++) h[i] = (g[i] & keep) | (h[i] & ~keep);
    let bits = 0;
    let buf = 0;
    let o = 0;
    for (let i = 0; i < 10; i++) {
      buf += h[i] * 2 ** bits;
      bits += 13;
      while (bits >= 8 && o < 16) {
        const q = Math.floor(buf * (1 / 256));
        m[out + o++] = buf - q * 256;
        buf = q;
        bits -= 8;
      }
    }
    h.fill(0);
    g.fill(0);
  }

  /**
   * NH over [ptr, ptr+len) zero-padded to whole 16-byte units, per 1024 bytes, each output absorbed into the
   * accumulator at `acc` with K_M. The padded last unit goes through PAD, as part of the last chunk.
   */
  #nhPoly(ptr: number, len: number, acc: number): void {
    const m = this.memory;
    const whole = len & ~15;
    const padded = (len + 15) & ~15;
    for (let at = 0; at < padded; at += NH_CHUNK) {
      const end = Math.min(at + NH_CHUNK, padded);
      const units = Math.min(end, whole);
      this.#nhAdd(m, ptr + at, units - at, 0);
      if (units < end) {
        m.fill(0, PAD, PAD + 16);
        m.copyWithin(PAD, ptr + whole, ptr + len);
        this.#nhAdd(m, PAD, 16, units - at);
        m.fill(0, PAD, PAD + 16);
      }
      this.#nhEmit(m);
      this.#poly(NH_OUT, 32, acc, R_MESSAGE);
    }
    m.fill(0, NH_OUT, NH_OUT + 32);
  }

  /** Adds NH's terms of the `n` bytes (whole units) at p, keyed from K_N's byte `keyAt`, to the sums. */
  #nhAdd(m: Uint8Array, p: number, n: number, keyAt: number): void {
    const s = this.#nh;
    for (let u = 0; u < n; u += 16) {
      const m0 = le32(m, p + u);
      const m1 = le32(m, p + u + 4);
      const m2 = le32(m, p + u + 8);
      const m3 = le32(m, p + u + 12);
      for (let i = 0; i < 4; i++) {
        const k = NH_KEY + keyAt + u + 16 * i;
        nhProduct(s, 3 * i, (m0 + le32(m, k)) >>> 0, (m2 + le32(m, k + 8)) >>> 0);
        nhProduct(s, 3 * i, (m1 + le32(m, k + 4)) >>> 0, (m3 + le32(m, k + 12)) >>> 0);
      }
    }
  }

  /** The four sums, HH·2^32 + MID·2^16 + LL mod 2^64 each, as 8 bytes little-endian at NH_OUT; then zero. */
  #nhEmit(m: Uint8Array): void {
    const s = this.#nh;
    for (let i = 0; i < 4; i++) {
      const ll = s[3 * i];
      const mid = s[3 * i + 1];
      const hh = s[3 * i + 2];
      const midHi = Math.floor(mid * INV16);
      const t = ll + (mid - midHi * TWO16) * TWO16;
      const carry = Math.floor(t * INV32);
      const lo = t - carry * TWO32;
      const hiSum = hh + midHi + carry;
      const hi = hiSum - Math.floor(hiSum * INV32) * TWO32;
      put32(m, NH_OUT + 8 * i, lo);
      put32(m, NH_OUT + 8 * i + 4, hi);
    }
    s.fill(0);
  }
}

/** Adds the 64-bit product a·b (a, b < 2^32) to the sums at s[at..at+3) as 16-bit piece products. */
function nhProduct(s: Float64Array, at: number, a: number, b: number): void {
  const al = a & 0xffff;
  const ah = a >>> 16;
  const bl = b & 0xffff;
  const bh = b >>> 16;
  s[at] += al * bl;
  s[at + 1] += al * bh + ah * bl;
  s[at + 2] += ah * bh;
}

/** The ChaCha permutation of `s` (2·doubleRounds rounds, RFC 8439 §2.3) into `o`, without feed-forward. */
function permute(s: Uint32Array, o: Uint32Array, doubleRounds: number): void {
  let x0 = s[0] | 0;
  let x1 = s[1] | 0;
  let x2 = s[2] | 0;
  let x3 = s[3] | 0;
  let x4 = s[4] | 0;
  let x5 = s[5] | 0;
  let x6 = s[6] | 0;
  let x7 = s[7] | 0;
  let x8 = s[8] | 0;
  let x9 = s[9] | 0;
  let x10 = s[10] | 0;
  let x11 = s[11] | 0;
  let x12 = s[12] | 0;
  let x13 = s[13] | 0;
  let x14 = s[14] | 0;
  let x15 = s[15] | 0;
  for (let r = 0; r < doubleRounds; r++) {
    // Columns.
    x0 = (x0 + x4) | 0;
    x12 = rotl(x12 ^ x0, 16);
    x8 = (x8 + x12) | 0;
    x4 = rotl(x4 ^ x8, 12);
    x0 = (x0 + x4) | 0;
    x12 = rotl(x12 ^ x0, 8);
    x8 = (x8 + x12) | 0;
    x4 = rotl(x4 ^ x8, 7);
    x1 = (x1 + x5) | 0;
    x13 = rotl(x13 ^ x1, 16);
    x9 = (x9 + x13) | 0;
    x5 = rotl(x5 ^ x9, 12);
    x1 = (x1 + x5) | 0;
    x13 = rotl(x13 ^ x1, 8);
    x9 = (x9 + x13) | 0;
    x5 = rotl(x5 ^ x9, 7);
    x2 = (x2 + x6) | 0;
    x14 = rotl(x14 ^ x2, 16);
    x10 = (x10 + x14) | 0;
    x6 = rotl(x6 ^ x10, 12);
    x2 = (x2 + x6) | 0;
    x14 = rotl(x14 ^ x2, 8);
    x10 = (x10 + x14) | 0;
    x6 = rotl(x6 ^ x10, 7);
    x3 = (x3 + x7) | 0;
    x15 = rotl(x15 ^ x3, 16);
    x11 = (x11 + x15) | 0;
    x7 = rotl(x7 ^ x11, 12);
    x3 = (x3 + x7) | 0;
    x15 = rotl(x15 ^ x3, 8);
    x11 = (x11 + x15) | 0;
    x7 = rotl(x7 ^ x11, 7);
    // Diagonals.
    x0 = (x0 + x5) | 0;
    x15 = rotl(x15 ^ x0, 16);
    x10 = (x10 + x15) | 0;
    x5 = rotl(x5 ^ x10, 12);
    x0 = (x0 + x5) | 0;
    x15 = rotl(x15 ^ x0, 8);
    x10 = (x10 + x15) | 0;
    x5 = rotl(x5 ^ x10, 7);
    x1 = (x1 + x6) | 0;
    x12 = rotl(x12 ^ x1, 16);
    x11 = (x11 + x12) | 0;
    x6 = rotl(x6 ^ x11, 12);
    x1 = (x1 + x6) | 0;
    x12 = rotl(x12 ^ x1, 8);
    x11 = (x11 + x12) | 0;
    x6 = rotl(x6 ^ x11, 7);
    x2 = (x2 + x7) | 0;
    x13 = rotl(x13 ^ x2, 16);
    x8 = (x8 + x13) | 0;
    x7 = rotl(x7 ^ x8, 12);
    x2 = (x2 + x7) | 0;
    x13 = rotl(x13 ^ x2, 8);
    x8 = (x8 + x13) | 0;
    x7 = rotl(x7 ^ x8, 7);
    x3 = (x3 + x4) | 0;
    x14 = rotl(x14 ^ x3, 16);
    x9 = (x9 + x14) | 0;
    x4 = rotl(x4 ^ x9, 12);
    x3 = (x3 + x4) | 0;
    x14 = rotl(x14 ^ x3, 8);
    x9 = (x9 + x14) | 0;
    x4 = rotl(x4 ^ x9, 7);
  }
  o[0] = x0;
  o[1] = x1;
  o[2] = x2;
  o[3] = x3;
  o[4] = x4;
  o[5] = x5;
  o[6] = x6;
  o[7] = x7;
  o[8] = x8;
  o[9] = x9;
  o[10] = x10;
  o[11] = x11;
  o[12] = x12;
  o[13] = x13;
  o[14] = x14;
  o[15] = x15;
}

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

const le32 = (m: Uint8Array, p: number): number => (m[p] | (m[p + 1] << 8) | (m[p + 2] << 16) | (m[p + 3] << 24)) >>> 0;

function put32(m: Uint8Array, p: number, v: number): void {
  m[p] = v;
  m[p + 1] = v >>> 8;
  m[p + 2] = v >>> 16;
  m[p + 3] = v >>> 24;
}

/** The 16-byte Poly1305 key at `from`, clamped (RFC 8439 §2.5), as 10 limbs of 13 bits (u32 each) at `to`. */
function clampInto(m: Uint8Array, from: number, to: number): void {
  const b = (i: number) => m[from + i];
  const clamped = (i: number) => b(i) & [255, 255, 255, 15, 252, 255, 255, 15, 252, 255, 255, 15, 252, 255, 255, 15][i];
  const t = (i: number) => clamped(2 * i) | (clamped(2 * i + 1) << 8);
  const limbs = [
    t(0) & 0x1fff,
    ((t(0) >>> 13) | (t(1) << 3)) & 0x1fff,
    ((t(1) >>> 10) | (t(2) << 6)) & 0x1fff,
    ((t(2) >>> 7) | (t(3) << 9)) & 0x1fff,
    ((t(3) >>> 4) | (t(4) << 12)) & 0x1fff,
    (t(4) >>> 1) & 0x1fff,
    ((t(4) >>> 14) | (t(5) << 2)) & 0x1fff,
    ((t(5) >>> 11) | (t(6) << 5)) & 0x1fff,
    ((t(6) >>> 8) | (t(7) << 8)) & 0x1fff,
    t(7) >>> 5,
  ];
  for (let i = 0; i < 10; i++) put32(m, to + 4 * i, limbs[i]);
  limbs.fill(0);
}
