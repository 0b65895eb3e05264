/**
 * AES-CBC for disk encryption (NIST SP 800-38A §6.2), the TypeScript counterpart of a Go package of the
 * same purpose: one call decrypts many sectors, each its own chain with its own IV, on the best kernel
 * this runtime has. Output is byte-identical to OpenSSL / node:crypto `aes-*-cbc` with padding off.
 */
import { checkBlocks, checkIv, checkKey, checkSectors, chooseKernel } from '@x/aes-kernels';
import { expandKey, type AesKeyedKernel } from '@x/aes-keyschedule';

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

class CbcCipher implements Cipher {
  readonly kernel: string;
  #keyed: AesKeyedKernel | undefined;

  constructor(key: Uint8Array, kernelName: string | undefined) {
    const kernel = chooseKernel(PREFIX, kernelName);
    const schedule = expandKey(key);
    try {
      this.#keyed = kernel.load(schedule);
    } finally {
      schedule.wipe();
    }
    this.kernel = kernel.name;
  }

  #live(): AesKeyedKernel {
    const keyed = this.#keyed;
    if (keyed === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return keyed;
  }

  decrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkIv(PREFIX, iv, dst, src.length);
    keyed.decryptCBC(dst, src, iv);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, ivs);
    keyed.decryptSectors(dst, src, sectorSize, ivs);
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, ivs);
    keyed.encryptSectors(dst, src, sectorSize, ivs);
  }

  encrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkIv(PREFIX, iv, dst, src.length);
    keyed.encryptCBC(dst, src, iv);
  }

  encryptECB(dst: Uint8Array, src: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    keyed.encryptECB(dst, src);
  }

  decryptECB(dst: Uint8Array, src: Uint8Array): void {
    const keyed = this.#live();
    checkBlocks(PREFIX, dst, src);
    keyed.decryptECB(dst, src);
  }

  dispose(): void {
    this.#keyed?.dispose();
    this.#keyed = undefined;
  }
}

/**
 * Creates an AES-CBC cipher for a 16, 24 or 32-byte key (AES-128/192/256). The kernel is chosen here,
 * once: `options.kernel` if given, else `X_AES_KERNEL`, else the best present.
 *
 * @throws TypeError for a key that is not a Uint8Array or a kernel name that is not a string;
 *   RangeError for a bad key length or a kernel that is unknown or unavailable here.
 * @example
 * ```ts
 * import { newCipher } from '@x/cbc';
 * const cipher = newCipher(volumeKey);              // 16, 24 or 32 bytes
 * cipher.decryptSectors(plain, disk, 512, ivs);     // every 512-byte sector with its own IV
 * cipher.dispose();
 * ```
 */
export function newCipher(key: Uint8Array, options?: CipherOptions): Cipher {
  checkKey(PREFIX, key);
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`${PREFIX}: options must be an object`);
  }
  return new CbcCipher(key, options?.kernel);
}
