/**
 * AES-CTR (NIST SP 800-38A §6.5) with the whole 16-byte counter block a big-endian integer, incremented
 * modulo 2^128 (Appendix B.1's standard incrementing function over all 128 bits): byte-identical to
 * OpenSSL / node:crypto `aes-*-ctr`, including where the counter wraps. Argument rules and kernel choice
 * are `@x/aes-kernels`'; the keystream is `@x/ctr/hazmat`'s.
 */
import { defineMode } from '@x/aes-kernels';
import { checkIv, checkStream } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { ctrXor, CtrScratch } from './hazmat.js';

const PREFIX = '@x/ctr';

/** Options of {@link newCtr}. */
export interface CtrOptions {
  /** Forces a kernel by name (see `kernels()`); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
}

/**
 * An AES-CTR key bound to one kernel. `xorKeyStream` checks its arguments first and writes nothing when
 * they are wrong; in place (`dst` and `src` the same bytes) works, any byteOffset works.
 */
export interface Ctr {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /**
   * dst = src ^ keystream, for `src.length` bytes of any length, from the initial counter block `iv`
   * (16 bytes). Encryption and decryption are the same call. Each call starts from `iv` again: to go on
   * with a message, pass the counter block after the last whole block used.
   */
  xorKeyStream(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
  /** Wipes the round keys and the scratch. Every later call throws. */
  dispose(): void;
}

class CtrCipher implements Ctr {
  readonly kernel: string;
  #k: AesKeyedKernel | undefined;
  readonly #scratch: CtrScratch;

  constructor(kernel: AesKernel, key: Uint8Array) {
    this.#k = loadKey(kernel, expandKey(key));
    this.kernel = kernel.name;
    this.#scratch = new CtrScratch(kernel.parallelBlocks);
  }

  xorKeyStream(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    checkStream(PREFIX, dst, src);
    checkIv(PREFIX, iv, dst, src.length);
    ctrXor(k, this.#scratch, dst, src, iv, 'be128');
  }

  dispose(): void {
    this.#k?.dispose();
    this.#k = undefined;
    this.#scratch.wipe();
  }
}

const entries = /* @__PURE__ */ defineMode<Ctr, CtrOptions>({
  prefix: PREFIX,
  create: (kernel, key) => new CtrCipher(kernel, key),
});

/**
 * A CTR cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels the
 * registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newCtrOn = entries.on;

/** `newCtr` over the kernels of `registry`. */
export const newCtrFrom = entries.from;
