/**
 * HCTR2 (Crowley, Huckleberry, Biggers, "Length-preserving encryption with HCTR2", ePrint 2021/1441): a
 * tweakable wide-block cipher on AES. A message of n ≥ 16 bytes is encrypted as a whole: changing any bit
 * of it (or of the tweak) changes every block of the output. Linux uses it as `hctr2(aes)` (fscrypt file
 * names, dm-crypt `aes-hctr2-plain64`) with 32-byte tweaks.
 *
 * With hbar = E_K(bin(0)), L = E_K(bin(1)) (bin: 16 bytes little-endian) and H the hash of `hash.ts`,
 * encryption of P = M ‖ N (M the first block) under tweak T is (the paper's §3 pseudocode):
 *
 *   MM = M ^ H(T, N);  UU = E_K(MM);  S = MM ^ UU ^ L;  V = N ^ XCTR_K(S);  U = UU ^ H(T, V);  C = U ‖ V
 *
 * and decryption the same steps mirrored: UU = U ^ H(T, V), MM = D_K(UU), S as above, N = V ^ XCTR_K(S),
 * M = MM ^ H(T, N). XCTR's keystream block i (from 1) is E_K(S ^ bin(i)) (`@x/ctr/hazmat`, counter
 * `'xctr'`); POLYVAL is the kernel's or the portable one (`polyvalOn`).
 *
 * Both directions are one procedure: X = first block ^ H(T, rest of the input); Y = E_K(X) (or D_K);
 * S = X ^ Y ^ L; the rest of the output = the rest of the input ^ XCTR_K(S); first output block =
 * Y ^ H(T, rest of the output). The sector calls run it in three passes so that the one-block AES calls of
 * all sectors are one batched kernel call: the hashes of every input, then E_K (or D_K) of every X, then
 * XCTR, the second hash and the first block of every sector.
 *
 * A kernel with the contract's `hctr2` fast path (native-x64, native-arm64 where the path has CTR and
 * POLYVAL) runs all of that itself: one call per message, or per sector call, instead of the generic
 * code's several kernel calls per message. Its hash key is then bound with that kernel's own
 * `loadPolyval`, as the fast path requires.
 */
import { defineMode } from '@x/aes-kernels';
import { checkBlocks, checkDataUnit, checkSectors, checkSide, OverlapMemo } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey, type PolyvalKernel, ViewCache } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { CtrScratch, ctrXor } from '@x/ctr/hazmat';
import { Hctr2Hash, SECTOR_TWEAK_BYTES } from './hash.js';

const PREFIX = '@x/hctr2';

/** Options of `newHctr2`. */
export interface Hctr2Options {
  /** Forces a kernel by name (see `kernels()`); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
}

/**
 * An HCTR2 key bound to one kernel. Every method checks its arguments first and writes nothing when they
 * are wrong; in place (`dst` and `src` the same bytes) works, any byteOffset works.
 */
export interface Hctr2 {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /** Encrypts one message of any length ≥ 16 bytes under `tweak` (any length, 0 included). */
  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /** Decrypts one message of any length ≥ 16 bytes under `tweak`. */
  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /**
   * Encrypts `src.length / sectorSize` sectors, each a message of its own; sector i uses the 32-byte tweak
   * `tweaks[32i .. 32i+32)` (Linux `hctr2(aes)`'s IV: dm-crypt's plain64 is the sector number, 8 bytes
   * little-endian, zero-padded).
   */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Decrypts `src.length / sectorSize` sectors; sector i uses `tweaks[32i .. 32i+32)`. */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Wipes the round keys, the hash key and every scratch buffer. Every later call throws. */
  dispose(): void;
}

/** How a POLYVAL key is bound on a kernel: `polyvalOn` of `@x/aes-kernels/hazmat`, or the portable one. */
export type PolyvalLoader = (kernel: AesKernel, h: Uint8Array) => PolyvalKernel;

class Hctr2Cipher implements Hctr2 {
  readonly kernel: string;
  #k: AesKeyedKernel | undefined;
  readonly #hash: Hctr2Hash;
  readonly #ctr: CtrScratch;
  /** L = E_K(bin(1)). */
  readonly #l = new Uint8Array(16);
  /** XCTR's starting value S of the message at hand. */
  readonly #s = new Uint8Array(16);
  /** The POLYVAL accumulator. */
  readonly #acc = new Uint8Array(16);
  /**
   * Per message of a call: X (the first block ^ the first hash) at [0, 16·cap), Y = E_K(X) or D_K(X) at
   * [16·cap, 32·cap), the hash state after the tweak at [32·cap, 48·cap). Grows to the largest call.
   */
  #store = new Uint8Array(48);
  #cap = 1;
  /** The views of X and Y for the batched AES call, exactly `#count` blocks long (made when it changes). */
  #x = this.#store.subarray(0, 16);
  #y = this.#store.subarray(16, 32);
  #count = 1;
  readonly #views = new ViewCache();
  /** The kernel's own POLYVAL key of hbar when `#k` has the `hctr2` fast path (the hash's; it owns it). */
  readonly #fast: PolyvalKernel | undefined;
  /** The overlap checks' memo of the last call's arrays (`@x/aes-kernel-contract`'s OverlapMemo). */
  readonly #memo = new OverlapMemo();

  constructor(kernel: AesKernel, key: Uint8Array, loadPolyval: PolyvalLoader) {
    const k = loadKey(kernel, expandKey(key));
    this.#k = k;
    // hbar = E_K(bin(0)) and L = E_K(bin(1)) in one call.
    const hl = new Uint8Array(32);
    hl[16] = 1;
    k.encryptBlocks(hl, hl);
    try {
      // The fast path takes the POLYVAL key of this same kernel's loadPolyval (the contract's `hash`).
      const fast = k.hctr2 !== undefined && kernel.loadPolyval !== undefined;
      const poly = fast ? kernel.loadPolyval?.(hl.subarray(0, 16)) : loadPolyval(kernel, hl.subarray(0, 16));
      this.#hash = new Hctr2Hash(poly as PolyvalKernel);
      this.#fast = fast ? poly : undefined;
    } catch (error) {
      k.dispose();
      throw error;
    } finally {
      this.#l.set(hl.subarray(16));
      hl.fill(0);
    }
    this.kernel = kernel.name;
    this.#ctr = new CtrScratch(kernel.parallelBlocks);
  }

  #live(): AesKeyedKernel {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return k;
  }

  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    checkDataUnit(PREFIX, dst, src, this.#memo);
    checkSide(PREFIX, 'tweak', tweak, dst, src.length, this.#memo);
    if (this.#fast) this.#native(k, dst, src, src.length, tweak, tweak.length, false);
    else this.#run(k, dst, src, src.length, 1, tweak, tweak.length, false);
  }

  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    checkDataUnit(PREFIX, dst, src, this.#memo);
    checkSide(PREFIX, 'tweak', tweak, dst, src.length, this.#memo);
    if (this.#fast) this.#native(k, dst, src, src.length, tweak, tweak.length, true);
    else this.#run(k, dst, src, src.length, 1, tweak, tweak.length, true);
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES, this.#memo);
    const count = src.length / sectorSize;
    if (count === 0) return;
    if (this.#fast) this.#native(k, dst, src, sectorSize, tweaks, SECTOR_TWEAK_BYTES, false);
    else this.#run(k, dst, src, sectorSize, count, tweaks, SECTOR_TWEAK_BYTES, false);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES, this.#memo);
    const count = src.length / sectorSize;
    if (count === 0) return;
    if (this.#fast) this.#native(k, dst, src, sectorSize, tweaks, SECTOR_TWEAK_BYTES, true);
    else this.#run(k, dst, src, sectorSize, count, tweaks, SECTOR_TWEAK_BYTES, true);
  }

  /**
   * The kernel's `hctr2` fast path over messages of `size` bytes under `tlen`-byte tweaks: one kernel call
   * (two for a tweak length other than 32 bytes: POLYVAL's start state is one update of the length block).
   */
  #native(
    k: AesKeyedKernel,
    dst: Uint8Array,
    src: Uint8Array,
    size: number,
    tweaks: Uint8Array,
    tlen: number,
    decrypt: boolean,
  ): void {
    const start = this.#acc;
    this.#hash.start(start, tlen, (size & 15) === 0 ? 0 : 1);
    k.hctr2?.(dst, src, size, tweaks, tlen, this.#fast as PolyvalKernel, start, this.#l, decrypt);
    start.fill(0);
    this.#hash.wipe();
  }

  /** Sizes the per-message store for `count` messages; new views only when the count changes. */
  #prepare(count: number): void {
    if (count === this.#count) return;
    if (count > this.#cap) {
      this.#store.fill(0);
      this.#store = new Uint8Array(48 * count);
      this.#cap = count;
    }
    this.#x = this.#store.subarray(0, 16 * count);
    this.#y = this.#store.subarray(16 * this.#cap, 16 * this.#cap + 16 * count);
    this.#count = count;
  }

  /**
   * `count` messages of `size` bytes, message m at `src[m·size ..]` with tweak `tweaks[m·tlen .. +tlen)`,
   * encrypted (or decrypted) into the same place of `dst`.
   */
  #run(
    k: AesKeyedKernel,
    dst: Uint8Array,
    src: Uint8Array,
    size: number,
    count: number,
    tweaks: Uint8Array,
    tlen: number,
    decrypt: boolean,
  ): void {
    this.#prepare(count);
    const st = this.#store;
    const yo = 16 * this.#cap;
    const to = 32 * this.#cap;
    const acc = this.#acc;
    const s = this.#s;
    const l = this.#l;
    const hash = this.#hash;
    const views = this.#views;
    // The rest of each message after its first block: n bytes, `whole` of them in whole blocks.
    const n = size - 16;
    const whole = n & ~15;
    const partial = n === whole ? 0 : 1;
    const split = partial === 1 && whole > 0;
    // Short parts under 32-byte tweaks (disk sectors): each hash is one POLYVAL call over the tweak and the
    // part copied together. Else the tweak is hashed once and both hashes continue from its state.
    const fold = hash.foldable(tlen, n);

    // Pass 1: X = first block ^ H(T, rest of the input).
    for (let m = 0; m < count; m++) {
      const o = m * size;
      const rest = views.get(4 * m, src, o + 16, n);
      if (fold) {
        hash.folded(acc, tweaks, m * tlen, rest);
      } else {
        hash.tweak(acc, tweaks, m * tlen, tlen, partial);
        for (let i = 0; i < 16; i++) st[to + 16 * m + i] = acc[i];
        hash.message(acc, split ? views.get(4 * m + 2, src, o + 16, whole) : rest, src, o + 16, n);
      }
      for (let i = 0; i < 16; i++) st[16 * m + i] = src[o + i] ^ acc[i];
    }
    // Pass 2: Y = E_K(X) (D_K to decrypt), every message in one kernel call.
    if (decrypt) k.decryptBlocks(this.#y, this.#x);
    else k.encryptBlocks(this.#y, this.#x);
    // Pass 3: S = X ^ Y ^ L; the rest of the output by XCTR; first block = Y ^ H(T, rest of the output).
    for (let m = 0; m < count; m++) {
      const o = m * size;
      for (let i = 0; i < 16; i++) s[i] = st[16 * m + i] ^ st[yo + 16 * m + i] ^ l[i];
      const out = views.get(4 * m + 1, dst, o + 16, n);
      if (n > 0) ctrXor(k, this.#ctr, out, views.get(4 * m, src, o + 16, n), s, 'xctr');
      if (fold) {
        hash.folded(acc, tweaks, m * tlen, out);
      } else {
        for (let i = 0; i < 16; i++) acc[i] = st[to + 16 * m + i];
        hash.message(acc, split ? views.get(4 * m + 3, dst, o + 16, whole) : out, dst, o + 16, n);
      }
      for (let i = 0; i < 16; i++) dst[o + i] = st[yo + 16 * m + i] ^ acc[i];
    }
    // Wipe what the call left: X, Y, the tweak states, S, the accumulator, the staging buffer.
    this.#x.fill(0);
    this.#y.fill(0);
    for (let i = to; i < to + 16 * count; i++) st[i] = 0;
    s.fill(0);
    acc.fill(0);
    hash.wipe();
  }

  dispose(): void {
    if (this.#k === undefined) return;
    this.#k.dispose();
    this.#k = undefined;
    this.#hash.dispose();
    this.#l.fill(0);
    this.#store.fill(0);
    this.#ctr.wipe();
    this.#views.clear();
    this.#memo.clear();
  }
}

const entries = /* @__PURE__ */ defineMode<Hctr2, Hctr2Options, undefined, PolyvalLoader>({
  prefix: PREFIX,
  create: (kernel, key, _, loadPolyval) => new Hctr2Cipher(kernel, key, loadPolyval),
});

/**
 * An HCTR2 cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels
 * the registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export function newHctr2On(kernel: AesKernel, key: Uint8Array, loadPolyval: PolyvalLoader): Hctr2 {
  return entries.on(kernel, key, undefined, loadPolyval);
}

/** `newHctr2` over the kernels of `registry` (all of them, or the portable one alone), POLYVAL bound with `loadPolyval`. */
export const newHctr2From = entries.from;
