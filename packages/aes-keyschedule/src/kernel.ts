/**
 * The kernel contract: what every AES backend (`portable`, `wasm-simd128`, `native-arm64`) implements, so
 * that a mode (`@x/cbc`, later `@x/xts`) is written once and runs on any of them. It is batch-first, as
 * RustCrypto's backends are: a call carries many blocks, and the kernel interleaves them as it likes.
 *
 * Kernels check nothing that the mode packages already check. Before any call the caller guarantees:
 * every length is a whole number of 16-byte blocks (and of sectors, for the sector calls), `dst` is at
 * least as long as `src`, IVs are 16 bytes, and `dst` and `src` are either exactly the same bytes (same
 * buffer and byteOffset: "in place") or do not overlap at all. Kernels read `src.length` bytes and write
 * that many bytes to the start of `dst`; they never modify `src` (unless it is `dst`), `iv` or `ivs`.
 */
import type { KeySchedule } from './expand.js';

/** An AES implementation. One instance per backend, shared by every key. */
export interface AesKernel {
  /** The stable kernel name users pass as `options.kernel` or `X_AES_KERNEL`. */
  readonly name: string;
  /** Blocks this kernel processes best per batch (RustCrypto's `par_size`); a hint for modes. */
  readonly parallelBlocks: number;
  /** Whether this runtime can run the kernel (feature detection; never throws, never faults). */
  isAvailable(): boolean;
  /**
   * Binds a key: the kernel copies (or converts) the round keys it needs out of `schedule`, which the
   * caller may wipe afterwards.
   */
  load(schedule: KeySchedule): AesKeyedKernel;
}

/** A kernel bound to one key. Calls allocate nothing; `dispose()` wipes the kernel's copy of the keys. */
export interface AesKeyedKernel {
  /** 10, 12 or 14. */
  readonly rounds: number;
  /** Each block of `src` encrypted on its own (FIPS 197 §5.1). */
  encryptECB(dst: Uint8Array, src: Uint8Array): void;
  /** Each block of `src` decrypted on its own (FIPS 197 §5.3). */
  decryptECB(dst: Uint8Array, src: Uint8Array): void;
  /** CBC encryption of one chain (NIST SP 800-38A §6.2): C[i] = E(P[i] ^ C[i-1]), C[-1] = iv. Serial. */
  encryptCBC(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /** CBC decryption of one chain: P[i] = D(C[i]) ^ C[i-1], C[-1] = iv. Every block is independent. */
  decryptCBC(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /**
   * CBC decryption of `src.length / sectorSize` chains at once: sector s is its own chain, bytes
   * [s·sectorSize, (s+1)·sectorSize) of `src`, with IV `ivs[16s .. 16s+16)`.
   */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /**
   * CBC encryption of `src.length / sectorSize` chains at once: sector s is its own chain, bytes
   * [s·sectorSize, (s+1)·sectorSize) of `src`, with IV `ivs[16s .. 16s+16)`. Each chain is serial, but the
   * chains are independent, so kernels interleave sectors: block k of many sectors in one batch.
   */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /**
   * XTS-AES (IEEE 1619 §5.3.1) of whole blocks, for `src.length / unitSize` data units at once, with this
   * kernel's key as key1. Unit u is bytes [u·unitSize, (u+1)·unitSize) of `src`, and `tweaks[16u .. 16u+16)`
   * (`tweaks` may be longer than 16 bytes per unit; the rest is not read) is its first tweak value already encrypted with key2, T = E_K2(i) (the mode computes those with
   * `encryptECB` of a second keyed kernel). Block j of a unit is C = E_K1(P ^ T·α^j) ^ T·α^j, where ·α is
   * doubling in GF(2^128) (§5.2), done without branches. `unitSize` is a positive multiple of 16.
   * Ciphertext stealing for units that are not whole blocks is the mode's (§5.3.2).
   */
  encryptXTS(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks; the arguments as for {@link encryptXTS}. */
  decryptXTS(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void;
  /** Wipes the round keys the kernel holds. Nothing may be called afterwards. */
  dispose(): void;
}
