/**
 * XTS-AES (IEEE Std 1619-2018), the disk mode of LUKS2 (aes-xts-plain64), BitLocker, VeraCrypt and
 * FileVault: many sectors per call, both directions parallel inside the kernel, ciphertext stealing for
 * data units that are not whole blocks. Output is byte-identical to OpenSSL / node:crypto `aes-*-xts`.
 *
 * The mode owns what is XTS-specific: the two keys, the tweak encryption (one batched call for all
 * sectors), ciphertext stealing (§5.3.2), and the whole blocks: the kernel's `xtsEncrypt`/`xtsDecrypt`
 * fast path where it has one, else `generic.ts` over its block primitives. Argument rules and kernel
 * choice are `@x/aes-kernels`'.
 */
import { defineMode } from '@x/aes-kernels';
import { checkBlocks, checkBytes, checkDataUnit, checkIv, checkSectors } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, loadKey } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { mulAlpha, xtsBlocks, XtsScratch } from './generic.js';

const PREFIX = '@x/xts';

/** Options of {@link newXts}. */
export interface XtsOptions {
  /** Forces a kernel by name (see {@link kernels}); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
}

/**
 * An XTS-AES key (key1 ‖ key2) bound to one kernel. Every method checks its arguments first and writes
 * nothing when they are wrong; in place (`dst` and `src` the same bytes) works, any byteOffset works.
 */
export interface Xts {
  /** The kernel chosen at construction. */
  readonly kernel: string;
  /** Encrypts one data unit of any length ≥ 16 bytes (ciphertext stealing past whole blocks). */
  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /** Decrypts one data unit of any length ≥ 16 bytes. */
  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /** Encrypts `src.length / sectorSize` sectors; sector i uses `tweaks[16i .. 16i+16)`. */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Decrypts `src.length / sectorSize` sectors; sector i uses `tweaks[16i .. 16i+16)`. */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Wipes both keys' round keys and the tweak scratch. Every later call throws. */
  dispose(): void;
}

/** Constant-time equality of a[0 .. n) and a[n .. 2n). */
function halvesEqual(a: Uint8Array, n: number): boolean {
  let d = 0;
  for (let i = 0; i < n; i++) d |= a[i] ^ a[n + i];
  return d === 0;
}

class XtsCipher implements Xts {
  readonly kernel: string;
  #data: AesKeyedKernel | undefined;
  #tweak: AesKeyedKernel | undefined;
  /** Encrypted tweaks for the sector calls: grows to the largest call, then is reused. */
  #tweakStore = new Uint8Array(16 * 64);
  /**
   * The view of {@link #tweakStore} that the last call used, exactly as long as its tweaks (kernels copy
   * whole arrays without making views of them): a new view only when the sector count changes.
   */
  #tweakView = this.#tweakStore.subarray(0, 0);
  /** One data unit's tweak T·α^j, and two blocks of ciphertext-stealing scratch. */
  readonly #t = new Uint8Array(16);
  readonly #a = new Uint8Array(16);
  readonly #b = new Uint8Array(16);
  readonly #scratch: XtsScratch;

  constructor(kernel: AesKernel, key: Uint8Array) {
    const half = key.length >>> 1;
    this.#data = loadKey(kernel, expandKey(key.subarray(0, half)));
    this.#tweak = loadKey(kernel, expandKey(key.subarray(half)));
    this.kernel = kernel.name;
    this.#scratch = new XtsScratch(kernel.parallelBlocks);
  }

  /** The key1 kernel; throws once disposed (key2's is disposed with it). */
  #live(): AesKeyedKernel {
    const data = this.#data;
    if (data === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return data;
  }

  /** The encrypted tweaks T = E_K2(i) of every sector, in one call of the tweak key's block primitive (IEEE 1619 §5.3.1 step 1). */
  #encryptTweaks(tweaks: Uint8Array): Uint8Array {
    if (this.#tweakView.length !== tweaks.length) {
      if (this.#tweakStore.length < tweaks.length) {
        this.#tweakStore.fill(0);
        this.#tweakStore = new Uint8Array(tweaks.length);
      }
      this.#tweakView = this.#tweakStore.subarray(0, tweaks.length);
    }
    this.#tweak!.encryptBlocks(this.#tweakView, tweaks);
    return this.#tweakView;
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const data = this.#live();
    this.#checkSectors(dst, src, sectorSize, tweaks);
    this.#blocks(data, dst, src, sectorSize, this.#encryptTweaks(tweaks), false);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const data = this.#live();
    this.#checkSectors(dst, src, sectorSize, tweaks);
    this.#blocks(data, dst, src, sectorSize, this.#encryptTweaks(tweaks), true);
  }

  #checkSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks');
  }

  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    this.#unit(dst, src, tweak, false);
  }

  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    this.#unit(dst, src, tweak, true);
  }

  /**
   * One data unit (IEEE 1619 §5.3.1, §5.4.1). Whole blocks go through the kernel in one call; a partial
   * last block of b bytes is handled by ciphertext stealing (§5.3.2, §5.4.2) on the last two blocks.
   */
  #unit(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array, decrypt: boolean): void {
    const data = this.#live();
    checkDataUnit(PREFIX, dst, src);
    checkIv(PREFIX, tweak, dst, src.length, 'tweak');
    const t = this.#t;
    this.#tweak!.encryptBlocks(t, tweak);
    const b = src.length & 15;
    if (b === 0) {
      this.#blocks(data, dst, src, src.length, t, decrypt);
      t.fill(0);
      return;
    }
    // m whole blocks, then b bytes. Blocks 0 .. m-2 are plain XTS (these views are this path's only
    // allocation: units that are not whole blocks are rare on disks).
    const m = src.length >>> 4;
    const head = 16 * (m - 1);
    if (head > 0) {
      this.#blocks(data, dst.subarray(0, head), src.subarray(0, head), head, t, decrypt);
    }
    for (let j = 0; j < m - 1; j++) mulAlpha(t, 0, t, 0); // T·α^(m-1)
    const x = this.#a,
      y = this.#b;
    // Encryption: CC = XEX(P[m-1], T_{m-1}); C[m] = CC[0..b); C[m-1] = XEX(P[m] ‖ CC[b..16), T_m).
    // Decryption swaps the two tweaks: PP = XEX⁻¹(C[m-1], T_m); P[m] = PP[0..b);
    // P[m-1] = XEX⁻¹(C[m] ‖ PP[b..16), T_{m-1}).
    if (decrypt) {
      mulAlpha(y, 0, t, 0); // y = T_m, t = T_{m-1}
      this.#xex(data, x, src, head, y, true);
    } else {
      this.#xex(data, x, src, head, t, false);
      mulAlpha(t, 0, t, 0); // t = T_m
    }
    // x = CC (or PP). Swap its first b bytes with the partial block: they become the output's partial
    // block, and x becomes the last full block to process, with T_m (encryption) or T_{m-1}
    // (decryption), which t now holds. Each src byte is read before the same dst byte is written.
    for (let i = 0; i < b; i++) {
      const stolen = x[i];
      x[i] = src[head + 16 + i];
      dst[head + 16 + i] = stolen;
    }
    this.#xex(data, x, x, 0, t, decrypt);
    for (let i = 0; i < 16; i++) dst[head + i] = x[i];
    x.fill(0);
    y.fill(0);
    t.fill(0);
  }

  /** Whole blocks of units of `unitSize` bytes: the kernel's fast path, or the generic one. */
  #blocks(
    data: AesKeyedKernel,
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    decrypt: boolean,
  ): void {
    if (decrypt) {
      if (data.xtsDecrypt) data.xtsDecrypt(dst, src, unitSize, tweaks);
      else xtsBlocks(data, this.#scratch, dst, src, unitSize, tweaks, true);
    } else if (data.xtsEncrypt) data.xtsEncrypt(dst, src, unitSize, tweaks);
    else xtsBlocks(data, this.#scratch, dst, src, unitSize, tweaks, false);
  }

  /** out = E_K1(in[o..o+16) ^ T) ^ T (or with D_K1), for one block, through the block primitive. */
  #xex(data: AesKeyedKernel, out: Uint8Array, input: Uint8Array, o: number, tw: Uint8Array, decrypt: boolean): void {
    for (let i = 0; i < 16; i++) out[i] = input[o + i] ^ tw[i];
    if (decrypt) data.decryptBlocks(out, out);
    else data.encryptBlocks(out, out);
    for (let i = 0; i < 16; i++) out[i] ^= tw[i];
  }

  dispose(): void {
    this.#data?.dispose();
    this.#tweak?.dispose();
    this.#data = this.#tweak = undefined;
    this.#tweakStore.fill(0);
    this.#t.fill(0);
    this.#scratch.wipe();
  }
}

/** key1 ‖ key2: 32 or 64 bytes, the halves different (IEEE 1619 §5.1; OpenSSL refuses equal halves too). */
function checkXtsKey(key: unknown): asserts key is Uint8Array {
  checkBytes(PREFIX, 'key', key);
  if (key.length !== 32 && key.length !== 64) {
    throw new RangeError(
      `${PREFIX}: key must be 32 or 64 bytes (key1 ‖ key2 for AES-128 or AES-256), got ${key.length}`,
    );
  }
  if (halvesEqual(key, key.length >>> 1)) throw new RangeError(`${PREFIX}: key1 and key2 must differ`);
}

const entries = /* @__PURE__ */ defineMode<Xts, XtsOptions>({
  prefix: PREFIX,
  checkKey: checkXtsKey,
  create: (kernel, key) => new XtsCipher(kernel, key),
});

/**
 * An XTS cipher on `kernel` itself, whatever the registry says: for tests that run the mode on kernels
 * the registry does not list (a kernel reduced to its block primitives). Not exported from the package.
 */
export const newXtsOn = entries.on;

/** {@link newXts} over the kernels of `registry` (all of them, or the portable one alone). */
export const newXtsFrom = entries.from;
