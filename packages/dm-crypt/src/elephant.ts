// BitLocker's AES-CBC + Elephant diffuser (N. Ferguson, "AES-CBC + Elephant diffuser: A Disk Encryption
// Algorithm for Windows Vista", Microsoft, 2006), the part that comes on top of CBC, as Linux dm-crypt runs
// it for the IV mode `elephant` (drivers/md/dm-crypt.c: crypt_iv_elephant, diffuser_a_decrypt/encrypt,
// diffuser_b_decrypt/encrypt). The CBC layer itself is @x/cbc with the data key, its IVs @x/disk-iv's eboiv.
//
//   key        data key ‖ elephant key, two equal halves (dm-crypt: key_parts 2, key_extra_size = key_size/2)
//   sector key Ks = E(K_elephant, e) ‖ E(K_elephant, e'), e = le64(IV sector × sector size) ‖ 0^8 and e' = e
//              with its byte 15 set to 0x80: 32 bytes, repeated over the sector
//   decrypt    CBC⁻¹, then diffuser B and diffuser A in their decryption direction, then ⊕ Ks
//   encrypt    ⊕ Ks, then diffuser A and diffuser B in their encryption direction, then CBC
//
// The diffusers read the sector as n = sectorSize / 4 little-endian 32-bit words d[0 … n), indices mod n:
//
//   A, decryption, 5 cycles of   for i = 0 … n−1:  d[i] += d[i−2] ⊕ (d[i−5] <<< Ra[i mod 4]),  Ra = 9, 0, 13, 0
//   B, decryption, 3 cycles of   for i = 0 … n−1:  d[i] += d[i+2] ⊕ (d[i+5] <<< Rb[i mod 4]),  Rb = 0, 10, 0, 25
//
// and the encryption direction undoes each: the same steps from i = n−1 down to 0, subtracting. Every step
// is an add, subtract, xor or rotation by a public amount at public indices: constant time.
//
// Speed: the sector keys of every sector of a call come from one ECB call (two blocks per sector) into
// scratch owned by this object. With a native AES kernel whose binary has them, the diffusers run there
// (@x/aes-native-addon's elephant.h: eight sectors side by side on AVX2, one per 32-bit lane), one native
// call for all the call's sectors; with the `wasm-simd128` kernel, in its WebAssembly module (core
// 'simd128': four sectors side by side, one per i32x4 lane), the same way. Elsewhere they run here, on an
// Int32Array view of the caller's buffer when the host is little-endian and the buffer 4-byte aligned (the
// view is kept while the memory stays the same, so a stream of calls on one I/O buffer allocates nothing),
// else on a one-sector word scratch, loaded and stored byte by byte in little-endian order.
import { registry } from '@x/aes-kernels/hazmat';
import { newCipher, type Cipher } from '@x/cbc';

/** Whether this host stores an Int32Array's words little-endian (checked once). */
export const LITTLE_ENDIAN = new Uint8Array(new Int32Array([0x0102_0304]).buffer)[0] === 0x04;

const TWO32 = 0x1_0000_0000;
const MASK64 = (1n << 64n) - 1n;
/** Rotations of diffuser A and B by i mod 4 (only the head and tail loops index these). */
const RA = [9, 0, 13, 0];
const RB = [0, 10, 0, 25];

/**
 * The Elephant layer of one key and sector geometry: sector keys and both diffusers. Internal to
 * `@x/dm-crypt`; `newSectorCipher('aes-cbc-elephant', …)` is the public way in.
 *
 * @example
 * ```ts
 * const el = newElephant(key.subarray(16), 512, 9);   // IV sector × 512 = sector << 9
 * el.sectorKeys(sector, count);
 * cbc.decryptSectors(dst, src, 512, ivs);
 * el.decrypt(dst, count);
 * ```
 */
export interface Elephant {
  /**
   * Where the diffusers run: `'avx2'` or `'c'` (native, in the AES kernel's addon), `'simd128'` (the
   * `wasm-simd128` kernel's module), or `'js'` (here).
   */
  readonly core: ElephantCore;
  /**
   * Makes the sector keys of `count` sectors from `sector` on (counted as `byteShift` says: sector
   * `s`'s byte offset for e is `s << byteShift`, modulo 2^64), for the next {@link decrypt} or
   * {@link encrypt}.
   */
  sectorKeys(sector: number | bigint, count: number): void;
  /** After CBC decryption: diffuser B, diffuser A (decryption direction), ⊕ Ks, on `dst`'s first `count` sectors in place. */
  decrypt(dst: Uint8Array, count: number): void;
  /**
   * Before CBC encryption: ⊕ Ks, diffuser A, diffuser B (encryption direction), from `src` into `dst`
   * (the same bytes or disjoint). Returns exactly `dst`'s first `count` sectors (a kept view when `dst`
   * is longer), for the CBC call.
   */
  encrypt(dst: Uint8Array, src: Uint8Array, count: number): Uint8Array;
  /** Wipes the elephant key's round keys and the scratch, and forgets the caller's buffers. */
  dispose(): void;
}

const PREFIX = '@x/dm-crypt';

/**
 * Where the diffusers run: native SIMD (`'avx2'`), native portable C (`'c'`), WebAssembly SIMD128
 * (`'simd128'`, with the `wasm-simd128` kernel), or this file (`'js'`).
 */
export type ElephantCore = 'avx2' | 'c' | 'simd128' | 'js';

/**
 * What a kernel's `loadElephant` gives (`NativeElephant` of @x/aes-native-addon/types, `WasmElephant` of
 * @x/aes-wasm-kernel).
 */
interface NativeElephant {
  readonly core: string;
  decrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
  encrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
}

/** The native or WebAssembly diffusers of `kernel` (a name the registry knows), or undefined if it has none. */
function nativeOf(kernel: string, portable: boolean): NativeElephant | undefined {
  const load = (registry.chooseKernel(PREFIX, kernel) as { loadElephant?: unknown }).loadElephant;
  return typeof load === 'function' ? (load as (portable: boolean) => NativeElephant | undefined)(portable) : undefined;
}

/**
 * The Elephant layer for `elephantKey` (16 or 32 bytes), `sectorSize`-byte sectors, and the shift that
 * turns a sector number into e's byte offset. By default the diffusers run natively where the chosen AES
 * kernel has them (the native kernels, `wasm-simd128`); `core` forces where (for the tests: `'c'` the native
 * portable C, `'simd128'` with the `wasm-simd128` kernel, `'js'` this file; a core that cannot run here
 * throws a RangeError). `wordViews: false` forces the byte-by-byte path of `'js'` (the
 * one a big-endian host takes).
 *
 * @example
 * ```ts
 * const el = newElephant(elephantKey, 4096, 12, { kernel: 'portable' });
 * ```
 */
export function newElephant(
  elephantKey: Uint8Array,
  sectorSize: number,
  byteShift: number,
  options: { kernel?: string; core?: ElephantCore; wordViews?: boolean } = {},
): Elephant {
  return new ElephantLayer(elephantKey, sectorSize, byteShift, options);
}

class ElephantLayer implements Elephant {
  readonly core: ElephantCore;
  readonly #ecb: Cipher;
  readonly #native: NativeElephant | undefined;
  readonly #size: number;
  /** Words per sector. */
  readonly #n: number;
  readonly #shift: number;
  readonly #wordViews: boolean;
  /** The e, e' blocks of a call (bytes 8–14 zero, byte 15 of every second block 0x80) and their view. */
  #e = new Uint8Array(0);
  #eView = new Uint8Array(0);
  /** The sector keys of a call, and the view of them the last call used. */
  #ks = new Uint8Array(0);
  #ksView = new Uint8Array(0);
  /** One sector as words, for buffers that cannot be viewed as words. */
  readonly #scratch: Int32Array;
  /** The last word view of a caller's buffer, and the last exact-length byte view of one. */
  #words: Int32Array | undefined;
  #bytes: Uint8Array | undefined;

  constructor(
    key: Uint8Array,
    sectorSize: number,
    byteShift: number,
    options: { kernel?: string; core?: ElephantCore; wordViews?: boolean },
  ) {
    const ecb = newCipher(key, { kernel: options.kernel });
    const wanted = options.core;
    const native = wanted === 'js' ? undefined : nativeOf(ecb.kernel, wanted === 'c');
    if (wanted !== undefined && wanted !== (native?.core ?? 'js')) {
      ecb.dispose();
      throw new RangeError(`${PREFIX}: the Elephant core "${wanted}" does not run with kernel ${ecb.kernel} here`);
    }
    this.#ecb = ecb;
    this.#native = native;
    this.core = (native?.core ?? 'js') as ElephantCore;
    this.#size = sectorSize;
    this.#n = sectorSize >>> 2;
    this.#shift = byteShift;
    this.#wordViews = options.wordViews ?? LITTLE_ENDIAN;
    this.#scratch = new Int32Array(this.#n);
  }

  sectorKeys(sector: number | bigint, count: number): void {
    const bytes = 32 * count;
    if (this.#eView.length !== bytes) {
      if (this.#e.length < bytes) {
        this.#ks.fill(0);
        this.#e = new Uint8Array(bytes);
        this.#ks = new Uint8Array(bytes);
        for (let o = 31; o < bytes; o += 32) this.#e[o] = 0x80; // e': byte 15 of the second block
      }
      this.#eView = this.#e.subarray(0, bytes);
      this.#ksView = this.#ks.subarray(0, bytes);
    }
    // the byte offset sector << shift, modulo 2^64 (dm-crypt's u64 iv_sector * sector_size), as halves
    const shift = this.#shift;
    let lo: number;
    let hi: number;
    if (typeof sector === 'number') {
      // sector < 2^53 and shift <= 15: both halves stay exact before the carry is taken out
      const sHi = Math.floor(sector / TWO32);
      const scaled = (sector - sHi * TWO32) * 2 ** shift;
      const carry = Math.floor(scaled / TWO32);
      lo = scaled - carry * TWO32;
      hi = (sHi * 2 ** shift + carry) >>> 0;
    } else {
      const v = (sector << BigInt(shift)) & MASK64;
      lo = Number(v & 0xffff_ffffn);
      hi = Number(v >> 32n);
    }
    const step = 2 ** shift;
    const e = this.#e;
    for (let o = 0; o < bytes; o += 32) {
      putLe32(e, o, lo);
      putLe32(e, o + 4, hi);
      putLe32(e, o + 16, lo);
      putLe32(e, o + 20, hi);
      lo += step;
      if (lo >= TWO32) {
        lo -= TWO32;
        hi = (hi + 1) >>> 0;
      }
    }
    this.#ecb.encryptECB(this.#ksView, this.#eView);
  }

  decrypt(dst: Uint8Array, count: number): void {
    if (this.#native) {
      this.#native.decrypt(this.#prefix(dst, count * this.#size), this.#size, this.#ksView);
      this.#ks.fill(0, 0, 32 * count);
      return;
    }
    const n = this.#n;
    const ks = this.#ks;
    const words = this.#viewOf(dst, count);
    for (let s = 0; s < count; s++) {
      const d = words ?? this.#scratch;
      const base = words ? s * n : 0;
      if (!words) load(d, dst, s * this.#size, n);
      bDecrypt(d, base, n);
      aDecrypt(d, base, n);
      xorKey(d, base, n, ks, 32 * s);
      if (!words) store(dst, s * this.#size, d, n);
    }
    ks.fill(0, 0, 32 * count);
  }

  encrypt(dst: Uint8Array, src: Uint8Array, count: number): Uint8Array {
    if (this.#native) {
      const out = this.#prefix(dst, count * this.#size);
      if (src.buffer !== dst.buffer || src.byteOffset !== dst.byteOffset) out.set(src);
      this.#native.encrypt(out, this.#size, this.#ksView);
      this.#ks.fill(0, 0, 32 * count);
      return out;
    }
    const n = this.#n;
    const ks = this.#ks;
    const words = this.#viewOf(dst, count);
    if (words && (src.buffer !== dst.buffer || src.byteOffset !== dst.byteOffset)) dst.set(src);
    for (let s = 0; s < count; s++) {
      const d = words ?? this.#scratch;
      const base = words ? s * n : 0;
      if (!words) load(d, src, s * this.#size, n);
      xorKey(d, base, n, ks, 32 * s);
      aEncrypt(d, base, n);
      bEncrypt(d, base, n);
      if (!words) store(dst, s * this.#size, d, n);
    }
    ks.fill(0, 0, 32 * count);
    return this.#prefix(dst, count * this.#size);
  }

  /** `dst`'s first `count` sectors as words, when they can be viewed so; else undefined. */
  #viewOf(dst: Uint8Array, count: number): Int32Array | undefined {
    if (!this.#wordViews || (dst.byteOffset & 3) !== 0) return undefined;
    const len = count * this.#n;
    const v = this.#words;
    if (v !== undefined && v.length === len && v.byteOffset === dst.byteOffset && v.buffer === dst.buffer) return v;
    const w = new Int32Array(dst.buffer, dst.byteOffset, len);
    this.#words = w;
    return w;
  }

  /** `dst`'s first `bytes` bytes: `dst` itself when that is all of it, else a kept view. */
  #prefix(dst: Uint8Array, bytes: number): Uint8Array {
    if (dst.length === bytes) return dst;
    const v = this.#bytes;
    if (v !== undefined && v.length === bytes && v.byteOffset === dst.byteOffset && v.buffer === dst.buffer) return v;
    const w = new Uint8Array(dst.buffer, dst.byteOffset, bytes);
    this.#bytes = w;
    return w;
  }

  dispose(): void {
    this.#ecb.dispose();
    this.#ks.fill(0);
    this.#e.fill(0);
    this.#scratch.fill(0);
    this.#words = this.#bytes = undefined;
  }
}

function putLe32(b: Uint8Array, o: number, v: number): void {
  b[o] = v;
  b[o + 1] = v >>> 8;
  b[o + 2] = v >>> 16;
  b[o + 3] = v >>> 24;
}

/** n little-endian words of `b` from byte `o` into `d`. */
function load(d: Int32Array, b: Uint8Array, o: number, n: number): void {
  for (let j = 0; j < n; j++, o += 4) d[j] = b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

/** n words of `d` into `b` from byte `o`, little-endian. */
function store(b: Uint8Array, o: number, d: Int32Array, n: number): void {
  for (let j = 0; j < n; j++, o += 4) {
    const w = d[j];
    b[o] = w;
    b[o + 1] = w >>> 8;
    b[o + 2] = w >>> 16;
    b[o + 3] = w >>> 24;
  }
}

/** d[base … base+n) ⊕= the 32-byte sector key at ks[k …), repeated (as 8 little-endian words). */
function xorKey(d: Int32Array, base: number, n: number, ks: Uint8Array, k: number): void {
  const k0 = ks[k] | (ks[k + 1] << 8) | (ks[k + 2] << 16) | (ks[k + 3] << 24);
  const k1 = ks[k + 4] | (ks[k + 5] << 8) | (ks[k + 6] << 16) | (ks[k + 7] << 24);
  const k2 = ks[k + 8] | (ks[k + 9] << 8) | (ks[k + 10] << 16) | (ks[k + 11] << 24);
  const k3 = ks[k + 12] | (ks[k + 13] << 8) | (ks[k + 14] << 16) | (ks[k + 15] << 24);
  const k4 = ks[k + 16] | (ks[k + 17] << 8) | (ks[k + 18] << 16) | (ks[k + 19] << 24);
  const k5 = ks[k + 20] | (ks[k + 21] << 8) | (ks[k + 22] << 16) | (ks[k + 23] << 24);
  const k6 = ks[k + 24] | (ks[k + 25] << 8) | (ks[k + 26] << 16) | (ks[k + 27] << 24);
  const k7 = ks[k + 28] | (ks[k + 29] << 8) | (ks[k + 30] << 16) | (ks[k + 31] << 24);
  for (let i = base; i < base + n; i += 8) {
    d[i] ^= k0;
    d[i + 1] ^= k1;
    d[i + 2] ^= k2;
    d[i + 3] ^= k3;
    d[i + 4] ^= k4;
    d[i + 5] ^= k5;
    d[i + 6] ^= k6;
    d[i + 7] ^= k7;
  }
}

// The diffusers on the sector d[base … base+n), n a power of two >= 128 and base a multiple of n (so
// i − base ≡ i mod 4). Each cycle is a short loop over the steps whose indices wrap around the sector
// (masked with n − 1) and an unrolled loop of four steps, i ≡ 0, 1, 2, 3 mod 4, over the rest.
// `| 0` reduces every sum and difference modulo 2^32 (as a signed word: the same 32 bits); `x << r |
// x >>> (32 − r)` is x <<< r (r = 0 too, as JavaScript takes shift counts mod 32).

/** Diffuser A, decryption direction: 5 cycles of d[i] += d[i−2] ⊕ (d[i−5] <<< Ra[i mod 4]), i upward. */
function aDecrypt(d: Int32Array, base: number, n: number): void {
  const m = n - 1;
  const end = base + n;
  for (let cycle = 0; cycle < 5; cycle++) {
    for (let i = 0; i < 8; i++) {
      const r = RA[i & 3];
      const x = d[base + ((i - 5) & m)];
      d[base + i] = (d[base + i] + (d[base + ((i - 2) & m)] ^ ((x << r) | (x >>> (32 - r))))) | 0;
    }
    // d[i−2] and d[i−1], just written, carried in locals: the step's only serial dependency
    let p2 = d[base + 6];
    let p1 = d[base + 7];
    for (let i = base + 8; i < end; i += 4) {
      let x = d[i - 5];
      const w0 = (d[i] + (p2 ^ ((x << 9) | (x >>> 23)))) | 0;
      const w1 = (d[i + 1] + (p1 ^ d[i - 4])) | 0;
      x = d[i - 3];
      p2 = (d[i + 2] + (w0 ^ ((x << 13) | (x >>> 19)))) | 0;
      p1 = (d[i + 3] + (w1 ^ d[i - 2])) | 0;
      d[i] = w0;
      d[i + 1] = w1;
      d[i + 2] = p2;
      d[i + 3] = p1;
    }
  }
}

/** Diffuser A, encryption direction: the steps of {@link aDecrypt} undone, i downward. */
function aEncrypt(d: Int32Array, base: number, n: number): void {
  const m = n - 1;
  const end = base + n;
  for (let cycle = 0; cycle < 5; cycle++) {
    for (let i = end - 4; i >= base + 8; i -= 4) {
      d[i + 3] = (d[i + 3] - (d[i + 1] ^ d[i - 2])) | 0;
      let x = d[i - 3];
      d[i + 2] = (d[i + 2] - (d[i] ^ ((x << 13) | (x >>> 19)))) | 0;
      d[i + 1] = (d[i + 1] - (d[i - 1] ^ d[i - 4])) | 0;
      x = d[i - 5];
      d[i] = (d[i] - (d[i - 2] ^ ((x << 9) | (x >>> 23)))) | 0;
    }
    for (let i = 7; i >= 0; i--) {
      const r = RA[i & 3];
      const x = d[base + ((i - 5) & m)];
      d[base + i] = (d[base + i] - (d[base + ((i - 2) & m)] ^ ((x << r) | (x >>> (32 - r))))) | 0;
    }
  }
}

/** Diffuser B, decryption direction: 3 cycles of d[i] += d[i+2] ⊕ (d[i+5] <<< Rb[i mod 4]), i upward. */
function bDecrypt(d: Int32Array, base: number, n: number): void {
  const m = n - 1;
  const stop = base + n - 8;
  for (let cycle = 0; cycle < 3; cycle++) {
    for (let i = base; i < stop; i += 4) {
      d[i] = (d[i] + (d[i + 2] ^ d[i + 5])) | 0;
      let x = d[i + 6];
      d[i + 1] = (d[i + 1] + (d[i + 3] ^ ((x << 10) | (x >>> 22)))) | 0;
      d[i + 2] = (d[i + 2] + (d[i + 4] ^ d[i + 7])) | 0;
      x = d[i + 8];
      d[i + 3] = (d[i + 3] + (d[i + 5] ^ ((x << 25) | (x >>> 7)))) | 0;
    }
    for (let i = n - 8; i < n; i++) {
      const r = RB[i & 3];
      const x = d[base + ((i + 5) & m)];
      d[base + i] = (d[base + i] + (d[base + ((i + 2) & m)] ^ ((x << r) | (x >>> (32 - r))))) | 0;
    }
  }
}

/** Diffuser B, encryption direction: the steps of {@link bDecrypt} undone, i downward. */
function bEncrypt(d: Int32Array, base: number, n: number): void {
  const m = n - 1;
  for (let cycle = 0; cycle < 3; cycle++) {
    for (let i = n - 1; i >= n - 8; i--) {
      const r = RB[i & 3];
      const x = d[base + ((i + 5) & m)];
      d[base + i] = (d[base + i] - (d[base + ((i + 2) & m)] ^ ((x << r) | (x >>> (32 - r))))) | 0;
    }
    for (let i = base + n - 12; i >= base; i -= 4) {
      let x = d[i + 8];
      d[i + 3] = (d[i + 3] - (d[i + 5] ^ ((x << 25) | (x >>> 7)))) | 0;
      d[i + 2] = (d[i + 2] - (d[i + 4] ^ d[i + 7])) | 0;
      x = d[i + 6];
      d[i + 1] = (d[i + 1] - (d[i + 3] ^ ((x << 10) | (x >>> 22)))) | 0;
      d[i] = (d[i] - (d[i + 2] ^ d[i + 5])) | 0;
    }
  }
}
