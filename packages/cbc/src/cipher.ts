/**
 * AES-CBC for disk encryption (NIST SP 800-38A §6.2), the TypeScript counterpart of a Go package of the
 * same purpose: one call decrypts many sectors, each its own chain with its own IV, on the best kernel
 * this runtime has. Output is byte-identical to OpenSSL / node:crypto `aes-*-cbc` with padding off.
 */
import { defineMode } from '@x/aes-kernels';
import { checkBlocks, checkIv, checkSectors, OverlapMemo } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { CbcScratch, decryptSectors, encrypt, encryptSectors } from './generic.js';

const PREFIX = '@x/cbc';

/** Options of {@link newCipher}. */
export interface CipherOptions {
  /**
   * Forces a kernel by name (see {@link kernels}); unknown or unavailable names throw. Without it the
   * environment variable `X_AES_KERNEL` decides, else the best kernel present.
   */
  kernel?: string;
}

/**
 * An AES key bound to one kernel. Every method checks its arguments first and writes nothing to `dst`
 * when they are wrong. `dst` and `src` may be exactly the same bytes (in place) or disjoint; any
 * byteOffset works. Methods allocate nothing.
 */
export interface Cipher {
  /** The kernel chosen at construction: `'native-arm64'`, `'wasm-simd128'` or `'portable'`. */
  readonly kernel: string;
  /** Decrypts one CBC chain: P[i] = D(C[i]) ^ C[i-1], C[-1] = iv. Parallel inside the kernel. */
  decrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /**
   * Decrypts `src.length / sectorSize` sectors in one call: sector i is its own CBC chain with IV
   * `ivs[16i .. 16i+16)`.
   */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** Encrypts one CBC chain: C[i] = E(P[i] ^ C[i-1]), C[-1] = iv. Serial by nature. */
  encrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /**
   * Encrypts `src.length / sectorSize` sectors in one call: sector i is its own CBC chain with IV
   * `ivs[16i .. 16i+16)`. Each chain is serial, but the kernel runs many sectors side by side.
   */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** Encrypts every 16-byte block on its own (the building block of disk IVs such as essiv). */
  encryptECB(dst: Uint8Array, src: Uint8Array): void;
  /** Decrypts every 16-byte block on its own. */
  decryptECB(dst: Uint8Array, src: Uint8Array): void;
  /** Wipes the round keys. Every later call throws. */
  dispose(): void;
}

/**
 * A key bound to one kernel. Each operation is the kernel's fast path when it has one (contract v2,
 * `@x/aes-kernels/hazmat`), else this package's generic code over the kernel's block primitives
 * (`generic.ts`); the bytes are the same either way.
 */
class CbcCipher implements Cipher {
  readonly kernel: string;
  #keyed: AesKeyedKernel | undefined;
  readonly #scratch: CbcScratch;
  /**
   * Where the caller's arrays lie, so that calls on the same arrays do not read `.buffer` and
   * `.byteOffset` again (100 ns of a 4 KiB call on Node 20; the errors are the same).
   */
  readonly #memo = new OverlapMemo();

  constructor(kernel: AesKernel, key: Uint8Array) {
    this.#keyed = loadKey(kernel, expandKey(key));
    this.kernel = kernel.name;
    this.#scratch = new CbcScratch(kernel.parallelBlocks);
  }

  #live(): AesKeyedKernel {
    const keyed = this.#keyed;
    if (keyed === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return keyed;
  }

  decrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkIv(PREFIX, iv, dst, src.length, 'iv', this.#memo);
    // One chain is one sector as long as src.
    if (src.length > 0) this.#decryptSectors(keyed, dst, src, src.length, iv);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkSectors(PREFIX, dst, src, sectorSize, ivs, 'ivs', 16, this.#memo);
    this.#decryptSectors(keyed, dst, src, sectorSize, ivs);
  }

  #decryptSectors(keyed: AesKeyedKernel, dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    if (keyed.cbcDecryptSectors) keyed.cbcDecryptSectors(dst, src, sectorSize, ivs);
    else decryptSectors(keyed, this.#scratch, dst, src, sectorSize, ivs);
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkSectors(PREFIX, dst, src, sectorSize, ivs, 'ivs', 16, this.#memo);
    if (keyed.cbcEncryptSectors) keyed.cbcEncryptSectors(dst, src, sectorSize, ivs);
    else encryptSectors(keyed, this.#scratch, dst, src, sectorSize, ivs);
  }

  encrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    checkIv(PREFIX, iv, dst, src.length, 'iv', this.#memo);
    if (keyed.cbcEncrypt) keyed.cbcEncrypt(dst, src, iv);
    else encrypt(keyed, this.#scratch, dst, src, iv);
  }

  encryptECB(dst: Uint8Array, src: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    keyed.encryptBlocks(dst, src);
  }

  decryptECB(dst: Uint8Array, src: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src, this.#memo);
    keyed.decryptBlocks(dst, src);
  }

  dispose(): void {
    this.#keyed?.dispose();
    this.#keyed = undefined;
    this.#scratch.wipe();
    this.#memo.clear();
  }
}

const entries = /* @__PURE__ */ defineMode<Cipher, CipherOptions>({
  prefix: PREFIX,
  create: (kernel, key) => new CbcCipher(kernel, key),
});

/**
 * A cipher on `kernel` itself, whatever the registry says: for tests that run the modes on kernels the
 * registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newCipherOn = entries.on;

/** {@link newCipher} over the kernels of `registry` (all of them, or the portable one alone). */
export const newCipherFrom = entries.from;
