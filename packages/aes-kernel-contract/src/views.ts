/**
 * Views of callers' buffers, made again only when the memory they cover changes. Kernels, the CTR
 * keystream and POLYVAL take whole arrays (no offsets), and HCTR2 hands them the bytes after each
 * message's first block: a new `subarray` per message would be an allocation per call. A cipher that is
 * called again and again on the same buffers (a disk driver's I/O buffer) reuses its views; the cache
 * holds the last buffers it viewed until they change or the cipher is disposed.
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
