/**
 * The kernel contract, version 2: what an AES backend (`portable`, `wasm-simd128`, `native-arm64`, `native-x64`, …)
 * implements so that every mode is written once, in the mode's own package, and runs on any backend.
 *
 * A kernel must do one thing: encrypt and decrypt many independent blocks per call, in batches of its
 * {@link AesKernel.parallelBlocks}. That alone runs every mode correctly: `@x/cbc`, `@x/xts`, `@x/ctr`
 * (the keystream of `@x/gcm` and `@x/hctr2`) and `@x/hctr2` hold a generic implementation of each operation
 * over these two primitives, and the POLYVAL of a kernel without its own is the portable kernel's. A kernel that is faster at an
 * operation as a whole (CBC decryption of many sectors, XTS, …) says so by having the optional method
 * for it, and the mode then calls that instead: Go's `cbcDecAble` and RustCrypto's `par_size`, in
 * TypeScript. Either way the output is the same bytes.
 *
 * Kernels check nothing (they are `hazmat`). Before any call the caller guarantees: every length is a
 * whole number of 16-byte blocks (and of sectors or data units, for those calls), `dst` is at least as
 * long as `src`, IVs are 16 bytes, and `dst` and `src` are either exactly the same bytes (same buffer and
 * byteOffset: "in place") or do not overlap at all; IVs and tweaks do not overlap the bytes written.
 * Kernels read `src.length` bytes and write that many to the start of `dst`; they never modify `src`
 * (unless it is `dst`), `iv`, `ivs` or `tweaks`, and allocate nothing per call.
 *
 * This package sits below every kernel and every mode: each kernel package declares its kernel object
 * `satisfies AesKernel`, the native glue (`@x/aes-native-addon`) derives its types from these, and the
 * registry (`@x/aes-kernels`) lists kernels by this type, so no kernel imports the registry.
 */
import type { KeySchedule } from '@x/aes-keyschedule';

/** An AES implementation. One instance per backend, shared by every key. */
export interface AesKernel {
  /** The stable kernel name users pass as `options.kernel` or `X_AES_KERNEL`. */
  readonly name: string;
  /**
   * Blocks the kernel processes at once (RustCrypto's `par_size`): the generic modes hand it whole
   * multiples of this many blocks, and lay out that many independent chains (sectors) side by side.
   */
  readonly parallelBlocks: number;
  /** Whether this runtime can run the kernel (feature detection; never throws, never faults). */
  isAvailable(): boolean;
  /**
   * Binds a key: the kernel copies (or converts) the round keys it needs out of `schedule`, which the
   * caller may wipe afterwards.
   */
  load(schedule: KeySchedule): AesKeyedKernel;
  /**
   * Optional: binds a POLYVAL hash key (RFC 8452 §3), for the GF(2^128) multiply-accumulate of GHASH
   * (GCM) and POLYVAL (HCTR2, AES-GCM-SIV). `h` is 16 bytes in POLYVAL's byte order; the kernel copies
   * what it needs (H, H^2, … H^8 for aggregated reduction) and the caller may wipe `h` afterwards. A kernel
   * without it gets the portable kernel's (`@x/aes-portable`), which every kernel's result must equal.
   */
  loadPolyval?(h: Uint8Array): PolyvalKernel;
}

/**
 * The GF(2^128) multiply-accumulate, bound to one hash key H: POLYVAL's field (RFC 8452 §3, the
 * polynomial x^128 + x^127 + x^126 + x^121 + 1, little-endian bytes). GHASH is the same multiplication in
 * the other bit order (RFC 8452 Appendix A): GHASH_H(X…) = ByteReverse(POLYVAL_{mulX(ByteReverse(H))}
 * (ByteReverse(X)…)), so a GHASH caller passes the converted key to {@link AesKernel.loadPolyval} once, keeps its
 * accumulator byte-reversed, and asks for each block to be byte-reversed on the way in.
 *
 * Constant time in every kernel: no branch and no memory access that depends on H, the accumulator or
 * the data.
 */
export interface PolyvalKernel {
  /**
   * For each 16-byte block X of `data` in order: acc = (acc ^ X) · H · x^-128 (POLYVAL's dot, §3), with X
   * byte-reversed first when `reversed` (GHASH). `acc` is 16 bytes, read and written; `data` is whole
   * blocks (possibly none) and does not overlap `acc`.
   */
  update(acc: Uint8Array, data: Uint8Array, reversed: boolean): void;
  /** Wipes the hash key and its powers. Nothing may be called afterwards. */
  dispose(): void;
}

/**
 * The counter of a CTR keystream ({@link AesFastPaths.ctr}): the counter block of block j (j = 0, 1, …)
 * of a call, from the 16-byte `iv`.
 * - `'be128'`: iv + j modulo 2^128, the whole block a big-endian integer (NIST SP 800-38A §6.5, B.1;
 *   OpenSSL `aes-*-ctr`).
 * - `'be32'`: the first 12 bytes of iv, then its last 4 bytes + j modulo 2^32, big-endian (NIST SP
 *   800-38D §6.2 inc32: GCM).
 * - `'xctr'`: iv ^ (j + 1) as a 16-byte little-endian integer (XCTR of HCTR2: the first block's counter
 *   is 1).
 */
export type CtrCounter = 'be128' | 'be32' | 'xctr';

/** What every keyed kernel has: the two block primitives. Nothing more is needed to run every mode. */
export interface AesBlockPrimitives {
  /** 10, 12 or 14. */
  readonly rounds: number;
  /** Each 16-byte block of `src` encrypted on its own (FIPS 197 §5.1). */
  encryptBlocks(dst: Uint8Array, src: Uint8Array): void;
  /** Each 16-byte block of `src` decrypted on its own (FIPS 197 §5.3). */
  decryptBlocks(dst: Uint8Array, src: Uint8Array): void;
  /** Wipes the round keys the kernel holds. Nothing may be called afterwards. */
  dispose(): void;
}

/**
 * Optional fast paths, each named for what it does. A mode calls one when the keyed kernel has it, and
 * else runs its own generic version over {@link AesBlockPrimitives}. Each must give exactly the bytes of
 * that generic version.
 */
export interface AesFastPaths {
  /** CBC encryption of one chain (NIST SP 800-38A §6.2): C[i] = E(P[i] ^ C[i-1]), C[-1] = iv. Serial. */
  cbcEncrypt?(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /**
   * CBC decryption of `src.length / sectorSize` chains: sector s is bytes [s·sectorSize, (s+1)·sectorSize)
   * of `src`, its IV `ivs[16s .. 16s+16)`, and P[i] = D(C[i]) ^ C[i-1]. One chain is one sector as long as
   * `src`. `sectorSize` is a positive multiple of 16.
   */
  cbcDecryptSectors?(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /**
   * CBC encryption of `src.length / sectorSize` chains laid out as for {@link cbcDecryptSectors}. Each chain
   * is serial, but the chains are independent: kernels run block k of many sectors in one batch.
   */
  cbcEncryptSectors?(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /**
   * XTS-AES (IEEE 1619 §5.3.1) of whole blocks, for `src.length / unitSize` data units, with this kernel's
   * key as key1. Unit u is bytes [u·unitSize, (u+1)·unitSize) of `src`, and `tweaks[16u .. 16u+16)` is its
   * first tweak already encrypted with key2, T = E_K2(i) (`tweaks` may be longer; the rest is not read).
   * Block j of a unit is C = E_K1(P ^ T·α^j) ^ T·α^j, where ·α is doubling in GF(2^128) (§5.2), done
   * without branches. `unitSize` is a positive multiple of 16. Ciphertext stealing is the mode's (§5.3.2).
   */
  xtsEncrypt?(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks; the arguments as for {@link xtsEncrypt}. */
  xtsDecrypt?(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /**
   * A CTR keystream XORed into `dst`: dst[i] = src[i] ^ E(counter block of block ⌊i/16⌋)[i mod 16], for
   * `src.length` bytes of any length (the last block partial: the rest of its keystream is dropped). The
   * counter blocks come from the 16-byte `iv` as {@link CtrCounter} says. Unlike the other paths, `src`
   * need not be whole blocks.
   */
  ctr?(dst: Uint8Array, src: Uint8Array, iv: Uint8Array, counter: CtrCounter): void;
  /**
   * HCTR2 (Crowley, Huckleberry, Biggers, ePrint 2021/1441 §3) of `src.length / unitSize` messages of
   * `unitSize` bytes (at least 16; one message of any length is `unitSize === src.length`), this kernel's
   * key as K, message u with the tweak `tweaks[u·tweakBytes .. (u+1)·tweakBytes)`. `hash` is what this same
   * kernel's `loadPolyval` returned for hbar = E_K(0^128), `start` (16 bytes) is POLYVAL's state after the
   * length block bin(2·8·tweakBytes + 2 + (unitSize mod 16 ≠ 0)), and `l` is E_K(bin(1)). For each message,
   * with R its bytes after the first block and H(X) POLYVAL from `start` over pad(tweak) ‖ X (X padded with
   * 0x01 then zeros when it is not whole blocks): Xf = first ^ H(R); Y = E_K(Xf), or D_K(Xf) to `decrypt`;
   * R' = R ^ XCTR_K(Xf ^ Y ^ l) (counter 'xctr'); first' = Y ^ H(R'); the output is first' ‖ R'. One call
   * for many disk sectors; the mode's generic version does the same with `ctr`, `encryptBlocks` and `hash`.
   */
  hctr2?(
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    hash: PolyvalKernel,
    start: Uint8Array,
    l: Uint8Array,
    decrypt: boolean,
  ): void;
  /**
   * AES-GCM encryption of one message (NIST SP 800-38D §7.1 steps 3–6) from its pre-counter block J0, in
   * one call: C = GCTR_K(inc32(J0), src) into `dst[0, n)` (n = `src.length`, any length; inc32 wraps the
   * last four bytes modulo 2^32), S = GHASH_H(A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64) with A = `aad`,
   * and the tag MSB_t(E_K(J0) ⊕ S) into `dst[n, n + tagLength)`. `hash` is what this same kernel's
   * `loadPolyval` returned for GHASH's key (RFC 8452 Appendix A: mulX_POLYVAL(ByteReverse(H)), blocks
   * byte-reversed), so a kernel with this path has `loadPolyval`. `j0` is 16 bytes, `tagLength` 1 to 16,
   * `dst` at least n + tagLength bytes; `src` may be the first n bytes of `dst` (in place); `aad` and `j0`
   * do not overlap `dst`. The mode (`@x/gcm`) does the same with `encryptBlocks`, `ctr` and the hash.
   */
  gcmSeal?(
    dst: Uint8Array,
    src: Uint8Array,
    j0: Uint8Array,
    aad: Uint8Array,
    hash: PolyvalKernel,
    tagLength: number,
  ): void;
  /**
   * AES-GCM decryption of one message (NIST SP 800-38D §7.2) from its pre-counter block J0, in one call:
   * `sealed` is C ‖ T with T its last `tagLength` bytes (1 to 16) and n = `sealed.length − tagLength`. The
   * tag of A = `aad` and C is computed as {@link gcmSeal} computes it and compared with T in constant time;
   * only when they match is P = GCTR_K(inc32(J0), C) written to `dst[0, n)`. Returns whether they matched
   * (false: `dst` untouched). `hash` and `j0` as for {@link gcmSeal}; `dst` is at least n bytes and may be
   * the first n bytes of `sealed` (in place); `aad` does not overlap `dst`.
   */
  gcmOpen?(
    dst: Uint8Array,
    sealed: Uint8Array,
    j0: Uint8Array,
    aad: Uint8Array,
    hash: PolyvalKernel,
    tagLength: number,
  ): boolean;
}

/** A kernel bound to one key: the block primitives, and whichever fast paths the kernel has. */
export type AesKeyedKernel = AesBlockPrimitives & AesFastPaths;

/** The names of the optional fast paths, for kernels' and tests' use. */
export const FAST_PATHS = [
  'cbcEncrypt',
  'cbcDecryptSectors',
  'cbcEncryptSectors',
  'xtsEncrypt',
  'xtsDecrypt',
  'ctr',
  'hctr2',
  'gcmSeal',
  'gcmOpen',
] as const;

/** One of {@link FAST_PATHS}. */
export type FastPath = (typeof FAST_PATHS)[number];
