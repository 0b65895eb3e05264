/**
 * AES-CCM (NIST SP 800-38C, RFC 3610): authenticated encryption, byte-identical to OpenSSL / node:crypto
 * `aes-*-ccm`, with nonces of 7 to 13 bytes and tags of 4, 6, …, 16 bytes.
 *
 * The mode owns what is CCM's: the formatting (B0, the AAD's length encoding, the counter blocks:
 * `format.ts`), the CBC-MAC over it (`cbc-mac.ts`, on the kernel's `cbcEncrypt` fast path), the tag
 * T ^ MSB_t(S0) (§6.1 step 8) and its constant-time check before anything is written (§6.2 steps 9–10).
 * The keystream is `@x/ctr/hazmat`'s with the 128-bit big-endian counter: CCM's counter is the last L
 * bytes of A_i and never carries out of them, so A0 + i as a 128-bit integer is A_i.
 *
 * A message of up to {@link SHORT} bytes (BitLocker's wrapped keys are tens of bytes) is two kernel calls
 * when B0, the AAD and the message fit the MAC's chunk: the CBC-MAC, and one keystream call from A0 over
 * [T ‖ message] (or [received tag ‖ ciphertext]) on a copy in the cipher's scratch, which gives S0 and
 * the keystream together. A longer one: `seal` MACs the plaintext's whole blocks where they lie (the
 * CBC output goes to `dst`, which the ciphertext then overwrites; in place, a chunk at a time through the
 * MAC's scratch), encrypts A0, and runs the keystream from A1 straight from `plaintext` to `dst`; `open`
 * decrypts the ciphertext a chunk at a time into the MAC's scratch and MACs it there, checks the tag, and
 * only then decrypts again, in one call, into `dst`.
 */
import {
  aeadTagLength,
  authenticationFailed,
  checkOpenDst,
  checkSealDst,
  ciphertextLength,
  defineMode,
} from '@x/aes-kernels';
import { checkBytes, overlaps } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey, ViewCache } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { CtrScratch, ctrXor } from '@x/ctr/hazmat';
import { CbcMac, CHUNK } from './cbc-mac.js';
import { aadLengthHeader, addToCounter, MAX_NONCE, MIN_NONCE, maxMessageBytes, writeA0, writeB0 } from './format.js';

const PREFIX = '@x/ccm';

/** Messages up to this many bytes take the short path (one keystream call from A0 on a copy). */
const SHORT = 512;

const EMPTY = new Uint8Array(0);
/**
 * ViewCache slots: `open`'s ciphertext (the first n bytes of `sealed`); `seal`'s whole blocks of dst and
 * of plaintext (the CBC-MAC where they lie); `open`'s ciphertext chunk i at OPEN_CHUNK + i for the first
 * {@link CACHED_CHUNKS} chunks, the later ones sharing the last slot (a view made per chunk past
 * 64 KiB, so that the cache does not grow with the message).
 */
const OPEN_BODY = 0,
  SEAL_OUT = 1,
  SEAL_IN = 2,
  OPEN_CHUNK = 3;
const CACHED_CHUNKS = 16;

/** The tag lengths SP 800-38C §A.1 and RFC 3610 §2 allow. */
const TAG_LENGTHS: readonly number[] = [4, 6, 8, 10, 12, 14, 16];

/** Options of {@link newCcm}. */
export interface CcmOptions {
  /** Bytes of tag: 4, 6, 8, 10, 12, 14 or 16 (SP 800-38C §A.1); default 16. */
  tagLength?: 4 | 6 | 8 | 10 | 12 | 14 | 16;
  /** Forces a kernel by name (see `kernels()`); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
}

/**
 * An AES-CCM key bound to one kernel. Every method checks its arguments first and writes nothing when
 * they are wrong. `dst` and the message may be exactly the same bytes (in place: `plaintext` the first
 * bytes of `dst`, or `dst` the first bytes of `sealed`) or not overlap at all; any byteOffset works. The
 * nonce is 7 to 13 bytes (never twice with one key); L = 15 − nonce.length bounds the message at
 * 2^(8L) − 1 bytes (65 535 for a 13-byte nonce, 16 MiB − 1 for a 12-byte one). `aad`, authenticated and
 * not encrypted, is optional and of any length.
 */
export interface Ccm {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /** Bytes of tag. */
  readonly tagLength: number;
  /**
   * Encrypts and authenticates: writes ciphertext ‖ tag to `dst`, which must be exactly
   * `plaintext.length + tagLength` bytes (node:crypto's and RFC 3610's order).
   */
  seal(dst: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): void;
  /**
   * Verifies and decrypts `sealed` (ciphertext ‖ tag) into `dst`, exactly `sealed.length − tagLength`
   * bytes. The tag is checked in constant time before anything is written: on a wrong tag it throws
   * `Error('@x/ccm: authentication failed')` and `dst` is untouched.
   */
  open(dst: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): void;
  /**
   * {@link open} with the ciphertext and the tag (`tagLength` bytes) apart, as formats that store the
   * tag first (BitLocker) have them. `dst` is exactly `ciphertext.length` bytes.
   */
  openDetached(dst: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad?: Uint8Array): void;
  /**
   * {@link seal} with the ciphertext and the tag apart: the ciphertext to `dst` (exactly
   * `plaintext.length` bytes), the tag to `tag` (exactly `tagLength` bytes).
   */
  sealDetached(dst: Uint8Array, tag: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): void;
  /** Wipes the round keys and the scratch. Every later call throws. */
  dispose(): void;
}

class CcmCipher implements Ccm {
  readonly kernel: string;
  readonly tagLength: number;
  #k: AesKeyedKernel | undefined;
  readonly #mac = new CbcMac();
  readonly #ctr: CtrScratch;
  /** B0, then the AAD's length encoding (§A.2.1, §A.2.2). */
  readonly #block = new Uint8Array(16);
  /** A0 (the counter block of the tag mask) and A_i (the keystream's first counter block of a call). */
  readonly #a0 = new Uint8Array(16);
  readonly #ai = new Uint8Array(16);
  /** S0 = E(A0) on the long paths. */
  readonly #s0 = new Uint8Array(16);
  /** The short path's [T or tag ‖ message], and `#shortViews[m]`: its first m blocks, made once. */
  readonly #short = new Uint8Array(16 + SHORT);
  readonly #shortViews: Uint8Array[] = [];
  /**
   * Views of caller buffers for the kernels on the long paths (slots above): made when the buffer or the
   * length changes, not per call; the last buffers are held until then, or `dispose`.
   */
  readonly #views = new ViewCache();

  constructor(kernel: AesKernel, key: Uint8Array, tagLength: number) {
    this.#k = loadKey(kernel, expandKey(key));
    this.kernel = kernel.name;
    this.tagLength = tagLength;
    this.#ctr = new CtrScratch(kernel.parallelBlocks);
    for (let m = 0; m <= 1 + SHORT / 16; m++) this.#shortViews.push(this.#short.subarray(0, 16 * m));
  }

  #live(): AesKeyedKernel {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return k;
  }

  seal(dst: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = EMPTY): void {
    const k = this.#live();
    const t = this.tagLength;
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'nonce', nonce);
    checkBytes(PREFIX, 'plaintext', plaintext);
    checkBytes(PREFIX, 'aad', aad);
    const n = plaintext.length;
    checkNonce(nonce, n, 'plaintext');
    checkSealDst(PREFIX, dst, n, t);
    checkSame(dst, dst.length, plaintext, n, 'plaintext');
    checkSide('nonce', nonce, dst, dst.length);
    checkSide('aad', aad, dst, dst.length);
    this.#seal(k, dst, dst, n, nonce, plaintext, aad);
  }

  sealDetached(
    dst: Uint8Array,
    tag: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array = EMPTY,
  ): void {
    const k = this.#live();
    const t = this.tagLength;
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'tag', tag);
    checkBytes(PREFIX, 'nonce', nonce);
    checkBytes(PREFIX, 'plaintext', plaintext);
    checkBytes(PREFIX, 'aad', aad);
    const n = plaintext.length;
    checkNonce(nonce, n, 'plaintext');
    if (dst.length !== n)
      throw new RangeError(`${PREFIX}: dst must be plaintext.length = ${n} bytes, got ${dst.length}`);
    if (tag.length !== t) throw new RangeError(`${PREFIX}: tag must be ${t} bytes, got ${tag.length}`);
    checkSame(dst, n, plaintext, n, 'plaintext');
    checkSide('tag', tag, dst, n);
    if (overlaps(tag, t, plaintext, n)) throw new RangeError(`${PREFIX}: tag overlaps plaintext`);
    checkSide('nonce', nonce, dst, n);
    checkSide('nonce', nonce, tag, t, 'tag');
    checkSide('aad', aad, dst, n);
    checkSide('aad', aad, tag, t, 'tag');
    this.#seal(k, dst, tag, 0, nonce, plaintext, aad);
  }

  open(dst: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = EMPTY): void {
    const k = this.#live();
    const t = this.tagLength;
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'nonce', nonce);
    checkBytes(PREFIX, 'sealed', sealed);
    checkBytes(PREFIX, 'aad', aad);
    const n = ciphertextLength(PREFIX, sealed, t);
    checkNonce(nonce, n, 'ciphertext');
    checkOpenDst(PREFIX, dst, n, t);
    checkSame(dst, n, sealed, sealed.length, 'sealed');
    checkSide('nonce', nonce, dst, n);
    checkSide('aad', aad, dst, n);
    this.#open(k, dst, nonce, sealed, n, sealed, n, aad);
  }

  openDetached(
    dst: Uint8Array,
    nonce: Uint8Array,
    ciphertext: Uint8Array,
    tag: Uint8Array,
    aad: Uint8Array = EMPTY,
  ): void {
    const k = this.#live();
    const t = this.tagLength;
    checkBytes(PREFIX, 'dst', dst);
    checkBytes(PREFIX, 'nonce', nonce);
    checkBytes(PREFIX, 'ciphertext', ciphertext);
    checkBytes(PREFIX, 'tag', tag);
    checkBytes(PREFIX, 'aad', aad);
    const n = ciphertext.length;
    checkNonce(nonce, n, 'ciphertext');
    if (dst.length !== n)
      throw new RangeError(`${PREFIX}: dst must be ciphertext.length = ${n} bytes, got ${dst.length}`);
    if (tag.length !== t) throw new RangeError(`${PREFIX}: tag must be ${t} bytes, got ${tag.length}`);
    checkSame(dst, n, ciphertext, n, 'ciphertext');
    checkSide('tag', tag, dst, n);
    checkSide('nonce', nonce, dst, n);
    checkSide('aad', aad, dst, n);
    this.#open(k, dst, nonce, ciphertext, n, tag, 0, aad);
  }

  /** Ciphertext to `dst[0 .. n)`, the tag to `tagOut[tagAt .. tagAt + t)`. Arguments checked. */
  #seal(
    k: AesKeyedKernel,
    dst: Uint8Array,
    tagOut: Uint8Array,
    tagAt: number,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array,
  ): void {
    const t = this.tagLength;
    const n = plaintext.length;
    // §6.1 steps 1–4: T = MAC of B0 ‖ [AAD length ‖ AAD] ‖ P, each padded; before anything is written,
    // since in place the plaintext is dst.
    this.#macStart(k, nonce, n, aad);
    const mac = this.#mac;
    const whole = n & ~15;
    if (n > SHORT && (k.cbcEncrypt === undefined || !sameBytes(dst, plaintext))) {
      // The whole blocks where they lie, the CBC output in dst (the ciphertext overwrites it next).
      mac.flush(k);
      const views = this.#views;
      mac.absorb(k, views.prefix(SEAL_OUT, dst, whole), views.prefix(SEAL_IN, plaintext, whole));
      mac.put(k, plaintext, whole, n);
    } else {
      // Short, or in place: staged (a copy), since dst is the plaintext.
      mac.put(k, plaintext, 0, n);
    }
    mac.finish(k);
    const y = mac.y;
    writeA0(this.#a0, nonce);
    if (n <= SHORT) {
      // One keystream call from A0 over [T ‖ P]: [T ^ S0 ‖ C] (steps 5–8).
      const buf = this.#short;
      for (let i = 0; i < 16; i++) buf[i] = y[i]!;
      for (let i = 0; i < n; i++) buf[16 + i] = plaintext[i]!;
      const v = this.#shortViews[1 + ((n + 15) >>> 4)]!;
      ctrXor(k, this.#ctr, v, v, this.#a0, 'be128');
      for (let i = 0; i < n; i++) dst[i] = buf[16 + i]!;
      for (let i = 0; i < t; i++) tagOut[tagAt + i] = buf[i]!;
    } else {
      const s0 = this.#s0;
      k.encryptBlocks(s0, this.#a0);
      this.#firstCounter();
      ctrXor(k, this.#ctr, dst, plaintext, this.#ai, 'be128');
      for (let i = 0; i < t; i++) tagOut[tagAt + i] = y[i]! ^ s0[i]!;
    }
    this.#end();
  }

  /**
   * `c[0 .. n)` decrypted to `dst` if the tag `tag[tagAt .. tagAt + t)` is right (§6.2); else throws
   * and writes nothing. Arguments checked.
   */
  #open(
    k: AesKeyedKernel,
    dst: Uint8Array,
    nonce: Uint8Array,
    c: Uint8Array,
    n: number,
    tag: Uint8Array,
    tagAt: number,
    aad: Uint8Array,
  ): void {
    const t = this.tagLength;
    const mac = this.#mac;
    const y = mac.y;
    writeA0(this.#a0, nonce);
    this.#macStart(k, nonce, n, aad);
    let diff = 0;
    if (n <= SHORT) {
      // One keystream call from A0 over [received tag ‖ C]: [tag ^ S0 ‖ P], into the scratch, not dst.
      const buf = this.#short;
      for (let i = 0; i < t; i++) buf[i] = tag[tagAt + i]!;
      for (let i = 0; i < n; i++) buf[16 + i] = c[i]!;
      const v = this.#shortViews[1 + ((n + 15) >>> 4)]!;
      ctrXor(k, this.#ctr, v, v, this.#a0, 'be128');
      mac.put(k, buf, 16, 16 + n);
      mac.finish(k);
      // §6.2 step 10, in constant time: every byte compared, one branch on the outcome.
      for (let i = 0; i < t; i++) diff |= buf[i]! ^ y[i]!;
      if (diff !== 0) {
        this.#end();
        throw authenticationFailed(PREFIX);
      }
      for (let i = 0; i < n; i++) dst[i] = buf[16 + i]!;
      this.#end();
      return;
    }
    // The plaintext, a chunk at a time, decrypted into the MAC's scratch and MACed there (§6.2 steps
    // 6–9): one keystream call from the caller's ciphertext and one CBC-MAC call per chunk.
    mac.flush(k);
    const chunk = mac.chunk;
    const ai = this.#ai;
    this.#firstCounter();
    const l = 15 - nonce.length;
    for (let off = 0, i = 0; off < n; off += CHUNK, i++) {
      const bytes = n - off < CHUNK ? n - off : CHUNK;
      const m = (bytes + 15) >>> 4;
      const slot = OPEN_CHUNK + (i < CACHED_CHUNKS ? i : CACHED_CHUNKS);
      ctrXor(k, this.#ctr, mac.views[m]!, this.#views.get(slot, c, off, bytes), ai, 'be128');
      chunk.fill(0, bytes, 16 * m);
      mac.macBlocks(k, m);
      addToCounter(ai, l, CHUNK / 16);
    }
    const s0 = this.#s0;
    k.encryptBlocks(s0, this.#a0);
    for (let i = 0; i < t; i++) diff |= y[i]! ^ s0[i]! ^ tag[tagAt + i]!;
    if (diff !== 0) {
      this.#end();
      throw authenticationFailed(PREFIX);
    }
    this.#firstCounter();
    ctrXor(k, this.#ctr, dst, this.#views.prefix(OPEN_BODY, c, n), ai, 'be128');
    this.#end();
  }

  /** Starts the CBC-MAC with B0 and, when there is AAD, its length encoding and the AAD, padded. */
  #macStart(k: AesKeyedKernel, nonce: Uint8Array, n: number, aad: Uint8Array): void {
    const mac = this.#mac;
    const block = this.#block;
    mac.reset();
    writeB0(block, nonce, this.tagLength, n, aad.length > 0);
    mac.put(k, block, 0, 16);
    if (aad.length === 0) return;
    mac.put(k, block, 0, aadLengthHeader(block, aad.length));
    mac.put(k, aad, 0, aad.length);
    mac.pad(k);
  }

  /** A1, the counter block of the first keystream block: A0 + 1 (the counter bytes of A0 are zero). */
  #firstCounter(): void {
    const ai = this.#ai;
    for (let i = 0; i < 15; i++) ai[i] = this.#a0[i]!;
    ai[15] = 1;
  }

  /** Zeroes what a call leaves that is not public: Y (T), S0, the staged plaintext, the keystream. */
  #end(): void {
    this.#mac.wipe();
    this.#s0.fill(0);
    this.#short.fill(0);
    this.#block.fill(0);
  }

  dispose(): void {
    this.#k?.dispose();
    this.#k = undefined;
    this.#ctr.wipe();
    this.#end();
    this.#views.clear();
  }
}

/** Whether `a` and `b` start at the same byte of the same memory (in place). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset === b.byteOffset;
}

/** RangeError unless the nonce is 7 to 13 bytes and the message no longer than its L allows (§A.1). */
function checkNonce(nonce: Uint8Array, n: number, what: string): void {
  const len = nonce.length;
  if (len < MIN_NONCE || len > MAX_NONCE) {
    throw new RangeError(`${PREFIX}: nonce must be ${MIN_NONCE} to ${MAX_NONCE} bytes, got ${len}`);
  }
  if (n > maxMessageBytes(len)) {
    const l = 15 - len;
    const most = l >= 7 ? `${Number.MAX_SAFE_INTEGER} bytes` : `2^${8 * l} − 1 bytes`;
    throw new RangeError(
      `${PREFIX}: ${what} is longer than a ${len}-byte nonce allows (L = ${l}: ${most}, SP 800-38C A.1)`,
    );
  }
}

/** RangeError when `dst[0 .. dn)` and `src[0 .. sn)` overlap without starting at the same byte. */
function checkSame(dst: Uint8Array, dn: number, src: Uint8Array, sn: number, name: string): void {
  if (overlaps(dst, dn, src, sn) && dst.byteOffset !== src.byteOffset) {
    throw new RangeError(`${PREFIX}: dst and ${name} overlap without being the same bytes`);
  }
}

/** RangeError when `value` overlaps the `written` bytes of `out` (a nonce, AAD or tag read by the call). */
function checkSide(name: string, value: Uint8Array, out: Uint8Array, written: number, outName = 'dst'): void {
  if (overlaps(out, written, value, value.length)) throw new RangeError(`${PREFIX}: ${name} overlaps ${outName}`);
}

const entries = /* @__PURE__ */ defineMode<Ccm, CcmOptions, number>({
  prefix: PREFIX,
  params: (options) => aeadTagLength(PREFIX, options, TAG_LENGTHS, '4, 6, 8, 10, 12, 14 or 16'),
  create: (kernel, key, tagLength) => new CcmCipher(kernel, key, tagLength),
});

/**
 * A CCM cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels
 * the registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newCcmOn = entries.on;

/** {@link newCcm} over the kernels of `registry` (all of them, or the portable one alone). */
export const newCcmFrom = entries.from;
