/**
 * The contract of an HBSH core: XChaCha, NH and Poly1305 over one memory laid out as `layout.ts` says.
 * Two cores keep it, byte for byte: `core-wasm.ts` (WebAssembly SIMD128) and `core-portable.ts` (plain
 * JavaScript, for runtimes without WebAssembly and for bundles that must carry none). Everything here is
 * ARX or integer multiplication on values of fixed width: no table, no branch or address depends on a key
 * or on data.
 *
 * Definitions (Crowley and Biggers, "Adiantum: length-preserving encryption for entry-level processors",
 * ToSC 2018(4), §2 and §6; the authors' Python reference, github.com/google/adiantum python/):
 * - XChaCha_r(K, N): ChaCha with r rounds under the subkey HChaCha_r(K, N[0..16)), state words 12–13 the
 *   64-bit block counter (from 0) and words 14–15 N[16..24) (djb's layout, as Linux's xchacha12/20).
 * - Poly1305 here is the polynomial alone, without the final addition of s: the accumulator h starts at 0;
 *   each 16-byte block c (the final one may be shorter) gives h = (h + c + 2^(8·|c|))·r mod 2^130 − 5, r
 *   clamped as RFC 8439 §2.5 says. `reduce(h)` is h fully reduced mod 2^130 − 5, taken mod 2^128.
 * - NH (4 passes, stride 2): a chunk of at most 1024 bytes, a whole number of 16-byte units, hashed to four
 *   64-bit sums; pass i adds, over each unit u of words m0..m3, (m0 + k0)·(m2 + k2) + (m1 + k1)·(m3 + k3),
 *   with k0..k3 the key words 4u + 4i .. 4u + 4i + 3, the additions mod 2^32 and the products 64-bit, the
 *   sum mod 2^64; the output is the four sums, 8 bytes little-endian each.
 */

/** What `setup` derives: Adiantum (1136 bytes of subkeys, NH + Poly1305) or HPolyC (48, Poly1305 alone). */
export type HbshVariant = 'adiantum' | 'hpolyc';

/** An HBSH core bound to one memory. Pointers are byte offsets into `memory`. */
export interface HbshCore {
  /** `'wasm-simd128'` or `'portable'`. */
  readonly name: string;
  /** The core's memory, MEMORY_BYTES long. */
  readonly memory: Uint8Array;
  /**
   * Derives the subkeys from the master key at KEY: XChaCha_rounds(K, 01 ‖ 0^23) XORed over zeros, 1136
   * bytes (`hpolyc` 0) or 48 (`hpolyc` 1) at DERIVED, and the clamped Poly1305 keys into the core's own
   * scratch (Adiantum: K_T from DERIVED+32, K_M from DERIVED+48; HPolyC: K_H from DERIVED+32). Remembers
   * `rounds` (8, 12 or 20) for `stream`. The caller may then wipe DERIVED[0, 64): only the NH key at
   * NH_KEY is read again.
   */
  setup(rounds: number, hpolyc: number): void;
  /**
   * Absorbs the header bytes [ptr, ptr+len) into accumulator A of the state at `statePtr` with the header
   * key (Adiantum K_T, HPolyC K_H). `more` 0 first zeroes the whole state (A and Adiantum's message
   * accumulator B); `more` 1 continues, and then every earlier call had a multiple of 16 bytes.
   */
  header(ptr: number, len: number, statePtr: number, more: number): void;
  /**
   * Absorbs a part of the message that is not its last: `len` a positive multiple of NH_CHUNK. Adiantum:
   * each 1024 bytes give NH_{K_N} (32 bytes), absorbed into B with K_M as two blocks. HPolyC: absorbed into
   * A with K_H. Updates the state.
   */
  absorb(ptr: number, len: number, statePtr: number): void;
  /**
   * Absorbs the last part of the message (`len` ≥ 0) into a copy of the state (the state itself is left as
   * it was) and writes out = base + H (`sign` 0) or base − H (`sign` 1), 16-byte little-endian integers mod
   * 2^128; `outPtr` may equal `basePtr`. Adiantum: the part zero-padded to whole 16-byte units, hashed by NH
   * per 1024 bytes into B; H = reduce(A) + reduce(B). HPolyC: absorbed into A (its last block shorter if
   * `len` is not a multiple of 16); H = reduce(A).
   */
  finish(ptr: number, len: number, statePtr: number, outPtr: number, basePtr: number, sign: number): void;
  /**
   * XORs [ptr, ptr+len) with XChaCha_rounds(K at KEY, the 24-byte nonce at `noncePtr`)'s keystream from
   * its 64-byte block `block` on.
   */
  stream(noncePtr: number, ptr: number, len: number, block: number): void;
}
