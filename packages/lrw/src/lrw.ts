/**
 * LRW-AES (Liskov, Rivest and Wagner's tweakable block cipher as IEEE P1619 drafted it for disks, and as
 * Linux's `lrw(aes)` runs it, crypto/lrw.c): the mode of TrueCrypt 4.1–4.3 volumes and of dm-crypt's
 * `aes-lrw-benbi`. The key is an AES key K1 followed by a 16-byte tweak key K2; block j of a data unit
 * whose first block has the index I (the 16-byte IV, a big-endian number) is C = E_K1(P ⊕ T) ⊕ T with
 * T = K2 ⊗ (I + j) in GF(2^128). Output is byte-identical to Linux (testmgr's `lrw(aes)` vectors).
 *
 * The mode owns K2's tables (gf128.ts) and the blocks (blocks.ts) over the kernel's block primitives; key
 * schedule, argument rules and kernel choice are `@x/aes-keyschedule`'s and `@x/aes-kernels`'.
 */
import { defineMode } from '@x/aes-kernels';
import { checkBlocks, checkBytes, checkIv, checkSectors } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { LrwScratch, lrwBlocks } from './blocks.js';
import { LrwTables } from './gf128.js';

const PREFIX = '@x/lrw';

/** Options of {@link newLrw}. */
export interface LrwOptions {
  /** Forces a kernel by name (see {@link kernels}); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
}

/**
 * An LRW-AES key (K1 ‖ K2) bound to one kernel. Every method checks its arguments first and writes
 * nothing when they are wrong; in place (`dst` and `src` the same bytes) works, any byteOffset works.
 */
export interface Lrw {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /** Encrypts one data unit of whole 16-byte blocks; `iv` is the index of its first block (big-endian). */
  encrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /** Decrypts one data unit of whole 16-byte blocks. */
  decrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /** Encrypts `src.length / sectorSize` sectors; sector i starts at the block index `ivs[16i .. 16i+16)`. */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** Decrypts `src.length / sectorSize` sectors; sector i starts at the block index `ivs[16i .. 16i+16)`. */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  /** Wipes K1's round keys, K2's tables and the scratch. Every later call throws. */
  dispose(): void;
}

class LrwCipher implements Lrw {
  readonly kernel: string;
  #data: AesKeyedKernel | undefined;
  readonly #tables: LrwTables;
  readonly #scratch: LrwScratch;

  constructor(kernel: AesKernel, key: Uint8Array) {
    this.#data = loadKey(kernel, expandKey(key.subarray(0, key.length - 16)));
    this.#tables = new LrwTables(key, key.length - 16);
    this.kernel = kernel.name;
    this.#scratch = new LrwScratch(kernel.parallelBlocks);
  }

  #live(): AesKeyedKernel {
    const data = this.#data;
    if (data === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return data;
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const data = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, ivs, 'ivs');
    lrwBlocks(data, this.#scratch, this.#tables, dst, src, sectorSize, ivs, false);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const data = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, ivs, 'ivs');
    lrwBlocks(data, this.#scratch, this.#tables, dst, src, sectorSize, ivs, true);
  }

  encrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    this.#unit(dst, src, iv, false);
  }

  decrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    this.#unit(dst, src, iv, true);
  }

  #unit(dst: Uint8Array, src: Uint8Array, iv: Uint8Array, decrypt: boolean): void {
    const data = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkIv(PREFIX, iv, dst, src.length, 'iv');
    if (src.length === 0) return;
    lrwBlocks(data, this.#scratch, this.#tables, dst, src, src.length, iv, decrypt);
  }

  dispose(): void {
    this.#data?.dispose();
    this.#data = undefined;
    this.#tables.wipe();
    this.#scratch.wipe();
  }
}

/** K1 ‖ K2: an AES key of 16, 24 or 32 bytes and the 16-byte tweak key (Linux lrw: keylen − 16 for AES). */
function checkLrwKey(key: unknown): asserts key is Uint8Array {
  checkBytes(PREFIX, 'key', key);
  if (key.length !== 32 && key.length !== 40 && key.length !== 48) {
    throw new RangeError(
      `${PREFIX}: key must be 32, 40 or 48 bytes (an AES-128, AES-192 or AES-256 key ‖ the 16-byte tweak key), got ${key.length}`,
    );
  }
}

const entries = /* @__PURE__ */ defineMode<Lrw, LrwOptions>({
  prefix: PREFIX,
  checkKey: checkLrwKey,
  create: (kernel, key) => new LrwCipher(kernel, key),
});

/**
 * An LRW cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels
 * the registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newLrwOn = entries.on;

/** {@link newLrw} over the kernels of `registry` (all of them, or the portable one alone). */
export const newLrwFrom = entries.from;
