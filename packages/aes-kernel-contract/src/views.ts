/**
 * Views of callers' buffers, made again only when the memory they cover changes. Kernels, the CTR
 * keystream and POLYVAL take whole arrays (no offsets), and HCTR2 hands them the bytes after each
 * message's first block: a new `subarray` per message would be an allocation per call. A cipher that is
 * called again and again on the same buffers (a disk driver's I/O buffer) reuses its views; the cache
 * holds the last buffers it viewed until they change or the cipher is disposed. And the batch of blocks a
 * mode's generic path runs the kernel on, with its views made once.
 */

/**
 * A slot-indexed cache of views, for modes that hand kernels part of a caller's buffer.
 *
 * @example
 * ```ts
 * const views = new ViewCache();
 * keyed.encryptBlocks(out, views.get(0, src, 16, src.length - 16)); // the same view while src is the same
 * ```
 */
export class ViewCache {
  #views: Uint8Array[] = [];

  /** The first `n` bytes of `a`: `a` itself when that is all of it, else {@link get} from offset 0. */
  prefix(slot: number, a: Uint8Array, n: number): Uint8Array {
    return n === a.length ? a : this.get(slot, a, 0, n);
  }

  /**
   * The view of `n` bytes of `a` from `a[off]`: the one in `slot` when it covers exactly those bytes of the
   * same memory, else a new one, kept in `slot`.
   */
  get(slot: number, a: Uint8Array, off: number, n: number): Uint8Array {
    const v = this.#views[slot];
    if (v !== undefined && v.length === n && v.byteOffset === a.byteOffset + off && v.buffer === a.buffer) return v;
    const w = new Uint8Array(a.buffer, a.byteOffset + off, n);
    this.#views[slot] = w;
    return w;
  }

  /** Forgets every view (and so every caller buffer). */
  clear(): void {
    this.#views = [];
  }
}

/**
 * The batch of blocks a mode owns for its generic paths (kernels without the mode's fast path): the mode
 * fills `batch`, hands the kernel `views[m]`, the first m blocks, and finishes the batch. A mode's scratch
 * extends it with its own state (the tweaks, the counter) and its `wipe`.
 *
 * @example
 * ```ts
 * class MyScratch extends BlockBatch {
 *   readonly masks = new Uint8Array(16 * this.blocks);
 *   override wipe(): void { super.wipe(); this.masks.fill(0); }
 * }
 * keyed.encryptBlocks(s.views[m], s.views[m]); // in place, in the scratch; nothing allocated per call
 * ```
 */
export class BlockBatch {
  /** Blocks per kernel call: a whole multiple of the kernel's `parallelBlocks`, at least 32. */
  readonly blocks: number;
  /** One batch of blocks. */
  readonly batch: Uint8Array;
  /** `views[m]` is the first m blocks of {@link batch} (m from 0 to {@link blocks}), made once. */
  readonly views: Uint8Array[] = [];

  constructor(parallelBlocks: number) {
    this.blocks = parallelBlocks * Math.ceil(32 / parallelBlocks);
    this.batch = new Uint8Array(16 * this.blocks);
    for (let m = 0; m <= this.blocks; m++) this.views.push(this.batch.subarray(0, 16 * m));
  }

  /** Zeroes everything a call left behind (a subclass zeroes its own state too). */
  wipe(): void {
    this.batch.fill(0);
  }
}
