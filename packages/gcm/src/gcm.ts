/**
 * AES-GCM (NIST SP 800-38D): authenticated encryption, byte-identical to OpenSSL / node:crypto
 * `aes-*-gcm`, with any nonce length ≥ 1 byte and tags of 12 to 16 bytes.
 *
 * The mode owns what is GCM's: the hash key H = E_K(0^128), the pre-counter block J0 (§7.1 step 2), the
 * order of the GHASH input (A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64, step 5), the tag (step 6) and
 * its constant-time check before any plaintext is written (§7.2). The keystream is `@x/ctr/hazmat`'s
 * (GCTR with inc32: one kernel call for the whole body), the GF(2^128) multiply-accumulate the kernel's
 * POLYVAL (RFC 8452) through `polyvalOn`, in GHASH's bit order as RFC 8452 Appendix A says. A seal
 * with a 12-byte nonce is five kernel calls at most: E(J0), the keystream, and up to three hash calls
 * (long AAD, ciphertext, the partial blocks and the lengths); a short one (≤ 96 bytes, AAD ≤ 256) is two.
 * Where the keyed kernel has `gcmSeal` and `gcmOpen` (the native kernels), a seal or an open of any length
 * is one call: E(J0), the keystream, GHASH and the tag (and its constant-time check) there (on native-x64's
 * `avx512` path, a seal's keystream and GHASH in one pass).
 */
import {
  aeadTagLength,
  authenticationFailed,
  checkOpenDst,
  checkSealDst,
  ciphertextLength,
  defineMode,
} from '@x/aes-kernels';
import { checkBytes, checkSide, checkStream, OverlapMemo, overlaps } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey, polyvalOn, ViewCache } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { CtrScratch, ctrXor } from '@x/ctr/hazmat';
import { Ghash, polyvalKeyOfGhash, STAGE_BYTES, writeLengths } from './ghash.js';

const PREFIX = '@x/gcm';

/**
 * The longest plaintext (and ciphertext) of one message: 2^39 − 256 bits (SP 800-38D §5.2.1.1), that is
 * 2^32 − 2 blocks, so that the 32-bit counter never comes back to J0. Longer ones are refused.
 *
 * @example
 * ```ts
 * import { MAX_MESSAGE_BYTES } from '@x/gcm';
 * if (file.length > MAX_MESSAGE_BYTES) throw new Error('split it: one GCM message holds at most 64 GiB − 32 bytes');
 * ```
 */
export const MAX_MESSAGE_BYTES = 2 ** 36 - 32;

/**
 * Messages up to this many bytes take the short path: one keystream call from J0 gives E_K(J0) and the
 * keystream together (a kernel call less), on a copy in the cipher's scratch, and the ciphertext is
 * copied into the hash's scratch with the AAD and the length block (one hash call).
 */
const SHORT = 96;

const EMPTY = new Uint8Array(0);
/** Slots of the cipher's ViewCache: views of caller buffers handed to the kernels. */
const AAD = 0,
  SEAL_BLOCKS = 1,
  OPEN_BLOCKS = 2,
  OPEN_BODY = 3;

/** Options of {@link newGcm}. */
export interface GcmOptions {
  /** Forces a kernel by name (see `kernels()`); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
  /** Bytes of tag, 12 to 16 (SP 800-38D §5.2.1.2); default 16. */
  tagLength?: number;
}

/**
 * An AES-GCM key bound to one kernel. Every method checks its arguments first and writes nothing when
 * they are wrong; `seal` in place (`plaintext` the first bytes of `dst`) and `open` in place (`dst` the
 * first bytes of `sealed`) work, any byteOffset works.
 */
export interface Gcm {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /**
   * Encrypts and authenticates: writes ciphertext ‖ tag to `dst`, which must be exactly
   * `plaintext.length + tagLength` bytes. `nonce` is at least 1 byte (12 is the fast path and the one to
   * use: never twice with one key); `aad` is authenticated, not encrypted.
   */
  seal(dst: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): void;
  /**
   * Verifies and decrypts `sealed` (ciphertext ‖ tag) into `dst`, exactly `sealed.length − tagLength`
   * bytes. The tag is checked in constant time before anything is written: on a wrong tag it throws
   * `Error('@x/gcm: authentication failed')` and `dst` is untouched.
   */
  open(dst: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): void;
  /** Wipes the round keys, the hash key and its powers, and the scratch. Every later call throws. */
  dispose(): void;
}

class GcmCipher implements Gcm {
  readonly kernel: string;
  readonly #tagLength: number;
  #k: AesKeyedKernel | undefined;
  /**
   * Whether a seal and an open are the keyed kernel's `gcmSeal` and `gcmOpen` (it has them, and the hash
   * key is that kernel's own).
   */
  readonly #oneCall: boolean;
  readonly #ghash: Ghash;
  readonly #ctr: CtrScratch;
  /**
   * The overlap checks' memos (`@x/aes-kernel-contract`'s OverlapMemo: an array's buffer and offset read
   * once per new array, not at every call): dst against plaintext and nonce, and dst against the AAD.
   */
  readonly #memo = new OverlapMemo();
  readonly #aadMemo = new OverlapMemo();
  /** J0, then E_K(J0) (the tag mask), then the counter block of the first keystream block, inc32(J0). */
  readonly #j0 = new Uint8Array(16);
  readonly #mask = new Uint8Array(16);
  readonly #iv = new Uint8Array(16);
  /** The tag computed by a call. */
  readonly #tag = new Uint8Array(16);
  /** Sixteen zero bytes (GHASH's output unmasked, for J0). */
  readonly #zero = new Uint8Array(16);
  /** The short path's E_K(J0) ‖ message, and `#shortViews[n]`: its first 16 + n bytes, made once. */
  readonly #short = new Uint8Array(16 + SHORT);
  readonly #shortViews: Uint8Array[] = [];
  /**
   * Views of caller buffers for the kernels: AAD's whole blocks, and C's in `seal` (of dst) and in `open`
   * (of sealed), and all of C in `open`; a slot each, so that calls in turn of seal and open, each on its own
   * buffers, make none.
   */
  readonly #views = new ViewCache();

  constructor(kernel: AesKernel, key: Uint8Array, tagLength: number) {
    const k = loadKey(kernel, expandKey(key));
    // H = E_K(0^128) (§6.4), and the POLYVAL key that computes GHASH_H (RFC 8452 Appendix A).
    const h = new Uint8Array(16);
    const polyvalKey = new Uint8Array(16);
    try {
      k.encryptBlocks(h, h);
      polyvalKeyOfGhash(polyvalKey, h);
      this.#ghash = new Ghash(polyvalOn(kernel, polyvalKey));
    } catch (e) {
      k.dispose();
      throw e;
    } finally {
      h.fill(0);
      polyvalKey.fill(0);
    }
    this.#k = k;
    this.#oneCall = k.gcmSeal !== undefined && k.gcmOpen !== undefined && kernel.loadPolyval !== undefined;
    this.kernel = kernel.name;
    this.#tagLength = tagLength;
    this.#ctr = new CtrScratch(kernel.parallelBlocks);
    for (let n = 0; n <= SHORT; n++) this.#shortViews.push(this.#short.subarray(0, 16 + n));
  }

  #live(): AesKeyedKernel {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return k;
  }

  seal(dst: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = EMPTY): void {
    const k = this.#live();
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'plaintext', plaintext);
    const n = plaintext.length;
    if (n > MAX_MESSAGE_BYTES) {
      throw new RangeError(`${PREFIX}: plaintext is longer than 2^36 − 32 bytes (SP 800-38D §5.2.1.1)`);
    }
    checkSealDst(PREFIX, dst, n, this.#tagLength);
    checkStream(PREFIX, dst, plaintext, this.#memo);
    this.#checkSides(dst, nonce, aad);

    this.#j0Of(nonce);
    const t = this.#tagLength;
    if (this.#oneCall) {
      (k.gcmSeal as NonNullable<AesKeyedKernel['gcmSeal']>)(dst, plaintext, this.#j0, aad, this.#ghash.key, t);
      this.#j0.fill(0); // J0 and GHASH's state: functions of H when the nonce is not 12 bytes
      this.#ghash.acc.fill(0);
      return;
    }
    if (n <= SHORT) {
      // One keystream call from J0 itself: E_K(J0) (the tag mask) ‖ C, in the cipher's scratch.
      const buf = this.#short;
      for (let i = 0; i < n; i++) buf[16 + i] = plaintext[i]!;
      ctrXor(k, this.#ctr, this.#shortViews[n]!, this.#shortViews[n]!, this.#j0, 'be32');
      for (let i = 0; i < n; i++) dst[i] = buf[16 + i]!;
      this.#hash(aad, dst, n, SEAL_BLOCKS, false);
      this.#ghash.digest(this.#tag, buf, t);
    } else {
      this.#maskAndCounter(k);
      ctrXor(k, this.#ctr, dst, plaintext, this.#iv, 'be32');
      this.#hash(aad, dst, n, SEAL_BLOCKS, true);
      this.#ghash.digest(this.#tag, this.#mask, t);
    }
    for (let i = 0; i < t; i++) dst[n + i] = this.#tag[i]!;
    this.#end();
  }

  open(dst: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = EMPTY): void {
    const k = this.#live();
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'sealed', sealed);
    const t = this.#tagLength;
    const n = ciphertextLength(PREFIX, sealed, t);
    if (n > MAX_MESSAGE_BYTES) {
      throw new RangeError(`${PREFIX}: ciphertext is longer than 2^36 − 32 bytes (SP 800-38D §5.2.1.1)`);
    }
    checkOpenDst(PREFIX, dst, n, t);
    if (overlaps(dst, n, sealed, sealed.length) && dst.byteOffset !== sealed.byteOffset) {
      throw new RangeError(`${PREFIX}: dst and sealed overlap without being the same bytes`);
    }
    this.#checkSides(dst, nonce, aad);

    this.#j0Of(nonce);
    if (this.#oneCall) {
      // The tag checked in constant time before anything is written, there too.
      const ok = (k.gcmOpen as NonNullable<AesKeyedKernel['gcmOpen']>)(dst, sealed, this.#j0, aad, this.#ghash.key, t);
      this.#j0.fill(0);
      this.#ghash.acc.fill(0);
      if (!ok) throw authenticationFailed(PREFIX);
      return;
    }
    this.#hash(aad, sealed, n, OPEN_BLOCKS, false);
    const tag = this.#tag;
    const short = n <= SHORT;
    const buf = this.#short;
    if (short) {
      // One keystream call from J0 itself: E_K(J0) ‖ P into the cipher's scratch, not into dst yet.
      for (let i = 0; i < n; i++) buf[16 + i] = sealed[i]!;
      ctrXor(k, this.#ctr, this.#shortViews[n]!, this.#shortViews[n]!, this.#j0, 'be32');
      this.#ghash.digest(tag, buf, t);
    } else {
      this.#maskAndCounter(k);
      this.#ghash.digest(tag, this.#mask, t);
    }
    // §7.2 step 8, in constant time: every byte compared, one branch on the outcome.
    let diff = 0;
    for (let i = 0; i < t; i++) diff |= tag[i]! ^ sealed[n + i]!;
    if (diff !== 0) {
      this.#end();
      throw authenticationFailed(PREFIX);
    }
    if (short) for (let i = 0; i < n; i++) dst[i] = buf[16 + i]!;
    else ctrXor(k, this.#ctr, dst, this.#views.prefix(OPEN_BODY, sealed, n), this.#iv, 'be32');
    this.#end();
  }

  /** The nonce (≥ 1 byte) and the AAD: Uint8Arrays that do not overlap the bytes written to `dst`. */
  #checkSides(dst: Uint8Array, nonce: Uint8Array, aad: Uint8Array): void {
    checkSide(PREFIX, 'nonce', nonce, dst, dst.length, this.#memo);
    if (nonce.length === 0) throw new RangeError(`${PREFIX}: nonce must be at least 1 byte`);
    checkSide(PREFIX, 'aad', aad, dst, dst.length, this.#aadMemo);
  }

  /**
   * J0 (§7.1 step 2): a 12-byte nonce gives J0 = nonce ‖ 0^31 ‖ 1; any other length J0 = GHASH(nonce ‖
   * 0^(s+64) ‖ [len(nonce)]_64).
   */
  #j0Of(nonce: Uint8Array): void {
    const j0 = this.#j0;
    if (nonce.length === 12) {
      for (let i = 0; i < 12; i++) j0[i] = nonce[i]!;
      j0[12] = j0[13] = j0[14] = 0;
      j0[15] = 1;
    } else {
      const g = this.#ghash;
      g.reset();
      g.stage(nonce, 0, nonce.length);
      g.lengths(0, nonce.length);
      g.digest(j0, this.#zero, 16);
    }
  }

  /** E_K(J0) into the tag mask, and the counter block of the first keystream block, inc32(J0) (§6.2). */
  #maskAndCounter(k: AesKeyedKernel): void {
    const j0 = this.#j0;
    k.encryptBlocks(this.#mask, j0);
    // The last 4 bytes + 1 modulo 2^32, every byte touched whatever the carry.
    const iv = this.#iv;
    let carry = 1;
    for (let i = 15; i >= 12; i--) {
      carry += j0[i]!;
      iv[i] = carry & 0xff;
      carry >>>= 8;
    }
    for (let i = 0; i < 12; i++) iv[i] = j0[i]!;
  }

  /**
   * GHASH of aad ‖ 0^v ‖ C ‖ 0^u ‖ lengths (§7.1 step 5), C being `c[0 .. n)`. Short AAD and short C
   * are copied into the hash's scratch with the partial blocks and the length block; long ones go to the
   * kernel where they are. `sealing`: `c` is `dst` of a seal, whose tag bytes may hold the length block
   * for a moment when the tag is 16 bytes and C whole blocks, so that C and the lengths are one call.
   */
  #hash(aad: Uint8Array, c: Uint8Array, n: number, blocks: number, sealing: boolean): void {
    const g = this.#ghash;
    g.reset();
    const a = aad.length;
    if (a <= STAGE_BYTES) g.stage(aad, 0, a);
    else {
      const whole = a & ~15;
      g.direct(this.#views.prefix(AAD, aad, whole));
      g.stage(aad, whole, a);
    }
    if (n <= SHORT) {
      g.stage(c, 0, n);
      g.lengths(a, n);
      return;
    }
    const whole = n & ~15;
    if (sealing && whole === n && c.length === n + 16) {
      // c = C ‖ 16 tag bytes not written yet: the length block goes there, and c is hashed whole.
      writeLengths(c, n, a, n);
      g.direct(c);
      return;
    }
    g.direct(this.#views.prefix(blocks, c, whole));
    g.stage(c, whole, n);
    g.lengths(a, n);
  }

  /**
   * Zeroes what a call leaves that is not public: the tag mask E_K(J0), GHASH's state, the tag, J0 and
   * the counter (a function of H when the nonce is not 12 bytes), the short path's plaintext.
   */
  #end(): void {
    this.#j0.fill(0);
    this.#iv.fill(0);
    this.#mask.fill(0);
    this.#short.fill(0);
    this.#tag.fill(0);
    this.#ghash.acc.fill(0);
  }

  dispose(): void {
    this.#k?.dispose();
    if (this.#k !== undefined) this.#ghash.dispose();
    this.#k = undefined;
    this.#ctr.wipe();
    this.#end();
    this.#views.clear();
    this.#memo.clear();
    this.#aadMemo.clear();
  }
}

/** The tag lengths SP 800-38D §5.2.1.2 allows without the conditions of its Appendix C: 12 to 16 bytes. */
const TAG_LENGTHS: readonly number[] = [12, 13, 14, 15, 16];

const entries = /* @__PURE__ */ defineMode<Gcm, GcmOptions, number>({
  prefix: PREFIX,
  params: (options) => aeadTagLength(PREFIX, options, TAG_LENGTHS, 'an integer from 12 to 16'),
  create: (kernel, key, tagLength) => new GcmCipher(kernel, key, tagLength),
});

/**
 * A GCM cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels
 * the registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newGcmOn = entries.on;

/** {@link newGcm} over the kernels of `registry` (all of them, or the portable one alone). */
export const newGcmFrom = entries.from;
