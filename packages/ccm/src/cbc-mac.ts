/**
 * The CBC-MAC of CCM (NIST SP 800-38C §6.1 steps 2–4, RFC 3610 §2.2): Y_0 = E(B_0), Y_i = E(B_i ^
 * Y_(i−1)), T = MSB_t(Y_r). It is CBC encryption from a zero IV with only the last block kept, so it runs
 * on the kernel's `cbcEncrypt` fast path, whose last output block is the next Y: what is not block-aligned
 * in the caller's buffers (B0, the AAD's length encoding, the AAD, the last partial block, each
 * zero-padded to whole blocks as §A.2 says) is staged in a chunk of the MAC's own, one call per chunk; the
 * whole blocks of a message are MACed where they lie ({@link CbcMac.absorb}). A kernel without
 * `cbcEncrypt` (a kernel reduced to its block primitives) runs the chain one `encryptBlocks` call per
 * block on the 16-byte Y.
 */
import type { AesKeyedKernel } from '@x/aes-kernels/hazmat';

/** Bytes staged per kernel call: 256 blocks. */
export const CHUNK = 4096;

/** A CBC-MAC in progress, and the chunk it stages blocks in. */
export class CbcMac {
  /** Y, the chaining value; after {@link finish}, the MAC T (its first t bytes are the tag's). */
  readonly y = new Uint8Array(16);
  /** The staging chunk. `@x/ccm`'s `open` also decrypts into it, chunk by chunk, before MACing. */
  readonly chunk = new Uint8Array(CHUNK);
  /** `views[m]` is the first m blocks of {@link chunk}, made once. */
  readonly views: Uint8Array[] = [];
  /** Bytes staged in the chunk. */
  #pos = 0;
  /** How far into the chunk this call wrote (what {@link wipe} clears). */
  #used = 0;

  constructor() {
    for (let m = 0; m <= CHUNK / 16; m++) this.views.push(this.chunk.subarray(0, 16 * m));
  }

  /** Starts a MAC: Y = 0, nothing staged. */
  reset(): void {
    this.y.fill(0);
    this.#pos = 0;
  }

  /** Stages `src[from .. to)`, MACing each chunk as it fills. */
  put(k: AesKeyedKernel, src: Uint8Array, from: number, to: number): void {
    const chunk = this.chunk;
    let i = from;
    while (i < to) {
      let pos = this.#pos;
      const end = pos + (to - i) < CHUNK ? pos + (to - i) : CHUNK;
      while (pos < end) chunk[pos++] = src[i++]!;
      this.#pos = pos;
      if (pos === CHUNK) this.flush(k);
    }
  }

  /** Zero bytes up to the next block boundary (§A.2.2, §A.2.3: the AAD and the message are padded). */
  pad(k: AesKeyedKernel): void {
    const pos = this.#pos;
    const end = (pos + 15) & ~15;
    this.chunk.fill(0, pos, end);
    this.#pos = end;
    if (end === CHUNK) this.flush(k);
  }

  /** MACs what is staged (whole blocks: call {@link pad} first) and empties the chunk. */
  flush(k: AesKeyedKernel): void {
    const m = this.#pos >>> 4;
    this.#pos = 0;
    if (m > 0) this.macBlocks(k, m);
  }

  /**
   * MACs the first `m` blocks of the chunk, whatever is staged: the kernel's `cbcEncrypt` over them in
   * place, from Y, then Y = the last output block; else one block at a time.
   */
  macBlocks(k: AesKeyedKernel, m: number): void {
    const y = this.y,
      chunk = this.chunk;
    const bytes = 16 * m;
    if (bytes > this.#used) this.#used = bytes;
    if (k.cbcEncrypt !== undefined) {
      k.cbcEncrypt(this.views[m]!, this.views[m]!, y);
      for (let x = 0; x < 16; x++) y[x] = chunk[bytes - 16 + x]!;
      return;
    }
    for (let o = 0; o < bytes; o += 16) {
      for (let x = 0; x < 16; x++) y[x]! ^= chunk[o + x]!;
      k.encryptBlocks(y, y);
    }
  }

  /**
   * MACs `src`, whole blocks, where it lies: the kernel's `cbcEncrypt` from Y into `out` (as long as
   * `src`, not overlapping it: scratch the caller may overwrite), then Y = the last output block; else one
   * block at a time, `out` untouched. Nothing may be staged: {@link flush} first.
   */
  absorb(k: AesKeyedKernel, out: Uint8Array, src: Uint8Array): void {
    const y = this.y;
    const bytes = src.length;
    if (bytes === 0) return;
    if (k.cbcEncrypt !== undefined) {
      k.cbcEncrypt(out, src, y);
      for (let x = 0; x < 16; x++) y[x] = out[bytes - 16 + x]!;
      return;
    }
    for (let o = 0; o < bytes; o += 16) {
      for (let x = 0; x < 16; x++) y[x]! ^= src[o + x]!;
      k.encryptBlocks(y, y);
    }
  }

  /** Pads and MACs what is left: Y is then T. */
  finish(k: AesKeyedKernel): void {
    this.pad(k);
    this.flush(k);
  }

  /** Zeroes Y and the part of the chunk that calls have written. */
  wipe(): void {
    this.y.fill(0);
    const used = this.#used > this.#pos ? this.#used : this.#pos;
    this.chunk.fill(0, 0, used);
    this.#used = 0;
    this.#pos = 0;
  }
}
