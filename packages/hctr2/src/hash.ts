/**
 * HCTR2's hash (Crowley, Huckleberry, Biggers, "Length-preserving encryption with HCTR2", ePrint 2021/1441,
 * §3, H_hbar): POLYVAL (RFC 8452 §3) over
 *
 *   bin(2·|T| + 2) ‖ pad(T) ‖ M                 when |M| is a whole number of 16-byte blocks,
 *   bin(2·|T| + 3) ‖ pad(T) ‖ pad(M ‖ 0x01)     otherwise,
 *
 * with |T| the tweak's length in bits, bin(x) the 16-byte little-endian encoding of x and pad(·) zero
 * padding to whole blocks. An HCTR2 call hashes the same tweak twice (once per side of the message), so
 * the tweak part is hashed once per message into a state both hashes continue from; for the 32-byte tweaks
 * of disk sectors (Linux `hctr2(aes)`) the state after the length block is precomputed per key, for both
 * kinds of message. Nothing here allocates after construction.
 */
import type { PolyvalKernel } from '@x/aes-kernels/hazmat';

/** The tweak length of disk sectors (Linux `hctr2(aes)`'s IV size). */
export const SECTOR_TWEAK_BYTES = 32;

/**
 * The longest message part (after the first block) whose hash runs as one POLYVAL call with its 32-byte
 * tweak, both copied into the staging buffer, instead of two calls. Measured against two calls (A/B in one
 * process, sector calls): wasm-simd128 1.4× faster with 512- and 4096-byte sectors; native-x64 about
 * the same with 512-byte sectors and 0.75× with 4096-byte ones (copying 4 KiB twice costs more than a
 * native call); portable the same. So only short parts are folded.
 */
const FOLD_BYTES = 1024;

/** Blocks of the staging buffer: a 32-byte tweak and a message part of up to FOLD_BYTES. */
const STAGE_BLOCKS = 2 + FOLD_BYTES / 16;

/** Writes bin(2·8·len + 2 + partial), 16 bytes little-endian, at `b[o ..]`. */
function lengthBlock(b: Uint8Array, o: number, len: number, partial: number): void {
  let v = 16 * len + 2 + partial;
  for (let i = 0; i < 16; i++) {
    b[o + i] = v % 256;
    v = Math.floor(v / 256);
  }
}

/** The hash of one HCTR2 key: a POLYVAL key and its precomputed prefixes. */
export class Hctr2Hash {
  readonly #poly: PolyvalKernel;
  /**
   * POLYVAL's state after bin(2·256 + 2) (bytes 0..15, messages of whole blocks) and after bin(2·256 + 3)
   * (bytes 16..31, the others): the start of every hash with a 32-byte tweak.
   */
  readonly #prefix = new Uint8Array(32);
  /**
   * {@link start}'s last result for a tweak length other than 32 bytes (`#lastKey` = 2·len + partial, −1
   * for none): a caller that keeps one tweak length (a file system's 16-byte nonces, say) skips the POLYVAL
   * call of the length block. Like the prefixes, a function of the key alone; wiped on dispose.
   */
  readonly #last = new Uint8Array(16);
  #lastKey = -1;
  readonly #stage = new Uint8Array(16 * STAGE_BLOCKS);
  /** `#views[m]` is the first m blocks of the staging buffer, made once. */
  readonly #views: Uint8Array[] = [];
  /** How many bytes of the staging buffer calls have written since the last wipe. */
  #used = 0;

  /** Takes ownership of `poly` (POLYVAL bound to hbar = E_K(bin(0))). */
  constructor(poly: PolyvalKernel) {
    this.#poly = poly;
    for (let m = 0; m <= STAGE_BLOCKS; m++) this.#views.push(this.#stage.subarray(0, 16 * m));
    for (let partial = 0; partial < 2; partial++) {
      const acc = this.#prefix.subarray(16 * partial, 16 * partial + 16);
      lengthBlock(this.#stage, 0, SECTOR_TWEAK_BYTES, partial);
      poly.update(acc, this.#views[1], false);
    }
    this.#stage.fill(0);
  }

  /**
   * acc = POLYVAL's state after bin(2·|T| + 2 + partial) ‖ pad(T), T = tw[off .. off+len). `partial` is 1
   * when the message (after its first block) is not whole blocks.
   */
  tweak(acc: Uint8Array, tw: Uint8Array, off: number, len: number, partial: number): void {
    const st = this.#stage;
    this.#used = st.length; // (rare sizes: wipe it all)
    if (len === SECTOR_TWEAK_BYTES) {
      for (let i = 0; i < 16; i++) acc[i] = this.#prefix[16 * partial + i];
      for (let i = 0; i < SECTOR_TWEAK_BYTES; i++) st[i] = tw[off + i];
      this.#poly.update(acc, this.#views[SECTOR_TWEAK_BYTES >>> 4], false);
      return;
    }
    acc.fill(0);
    lengthBlock(st, 0, len, partial);
    // The length block, then the tweak, a staging buffer at a time, its last block zero-padded.
    let first = 16;
    let p = 0;
    do {
      const take = Math.min(st.length - first, len - p);
      for (let i = 0; i < take; i++) st[first + i] = tw[off + p + i];
      const bytes = first + take;
      const blocks = (bytes + 15) >>> 4;
      for (let i = bytes; i < 16 * blocks; i++) st[i] = 0;
      this.#poly.update(acc, this.#views[blocks], false);
      p += take;
      first = 0;
    } while (p < len);
  }

  /**
   * acc = POLYVAL's state after the length block bin(2·8·len + 2 + partial) alone: the `start` of a
   * kernel's `hctr2` fast path. The precomputed prefix for 32-byte tweaks, else one update of that block.
   */
  start(acc: Uint8Array, len: number, partial: number): void {
    if (len === SECTOR_TWEAK_BYTES) {
      for (let i = 0; i < 16; i++) acc[i] = this.#prefix[16 * partial + i];
      return;
    }
    const last = this.#last;
    if (this.#lastKey === 2 * len + partial) {
      for (let i = 0; i < 16; i++) acc[i] = last[i];
      return;
    }
    acc.fill(0);
    lengthBlock(this.#stage, 0, len, partial);
    if (this.#used < 16) this.#used = 16;
    this.#poly.update(acc, this.#views[1], false);
    for (let i = 0; i < 16; i++) last[i] = acc[i];
    this.#lastKey = 2 * len + partial;
  }

  /**
   * Whether {@link folded} takes a message part of `n` bytes under a tweak of `tlen` bytes: a 32-byte tweak
   * and whole blocks, up to FOLD_BYTES.
   */
  foldable(tlen: number, n: number): boolean {
    return tlen === SECTOR_TWEAK_BYTES && (n & 15) === 0 && n <= FOLD_BYTES;
  }

  /**
   * acc = H(T, X) in one POLYVAL call, T = tw[off .. off+32) and X = `part` (whole blocks, at most
   * FOLD_BYTES, possibly none): from the precomputed state after the length block, over T and X copied
   * side by side into the staging buffer.
   */
  folded(acc: Uint8Array, tw: Uint8Array, off: number, part: Uint8Array): void {
    const st = this.#stage;
    for (let i = 0; i < 16; i++) acc[i] = this.#prefix[i];
    for (let i = 0; i < SECTOR_TWEAK_BYTES; i++) st[i] = tw[off + i];
    st.set(part, SECTOR_TWEAK_BYTES);
    const bytes = SECTOR_TWEAK_BYTES + part.length;
    if (bytes > this.#used) this.#used = bytes;
    this.#poly.update(acc, this.#views[bytes >>> 4], false);
  }

  /**
   * acc continues over the message part a[off .. off+n): its whole blocks through `whole` (a view of
   * exactly those bytes; ignored when there are none), then a last partial block padded with 0x01 and
   * zeros.
   */
  message(acc: Uint8Array, whole: Uint8Array, a: Uint8Array, off: number, n: number): void {
    if (n >= 16) this.#poly.update(acc, whole, false);
    const rem = n & 15;
    if (rem !== 0) {
      const st = this.#stage;
      const from = off + n - rem;
      for (let i = 0; i < rem; i++) st[i] = a[from + i];
      st[rem] = 1;
      for (let i = rem + 1; i < 16; i++) st[i] = 0;
      if (this.#used < 16) this.#used = 16;
      this.#poly.update(acc, this.#views[1], false);
    }
  }

  /** Zeroes what calls wrote into the staging buffer (tweaks and message bytes). */
  wipe(): void {
    const st = this.#stage;
    const used = this.#used;
    if (used === st.length) st.fill(0);
    else for (let i = 0; i < used; i++) st[i] = 0;
    this.#used = 0;
  }

  /** Wipes the POLYVAL key, the prefixes and the staging buffer. */
  dispose(): void {
    this.#poly.dispose();
    this.#prefix.fill(0);
    this.#last.fill(0);
    this.#lastKey = -1;
    this.#stage.fill(0);
  }
}
