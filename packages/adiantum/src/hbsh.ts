/**
 * HBSH (hash, block cipher, stream cipher, hash: Crowley and Biggers, "Adiantum: length-preserving
 * encryption for entry-level processors", ToSC 2018(4), §2): a tweakable, length-preserving encryption of
 * messages of 16 bytes or more, a super-pseudorandom permutation (one flipped bit changes every byte of
 * the output). Adiantum and HPolyC are HBSH with XChaCha as the stream cipher S, AES-256 as the block
 * cipher E, and a hash H: NH + Poly1305 (Adiantum), Poly1305 alone (HPolyC).
 *
 * A message P = P_L ‖ P_R (P_R the last 16 bytes) under tweak T, with ⊞/⊟ addition and subtraction of
 * 16-byte little-endian integers mod 2^128 (§2.3):
 *
 *   P_M = P_R ⊞ H(T, P_L);  C_M = E(P_M);  C_L = P_L ⊕ S(C_M ‖ 1 ‖ 0^7);  C_R = C_M ⊟ H(T, C_L)
 *
 * and decryption the mirror: C_M = C_R ⊞ H(T, C_L); P_L = C_L ⊕ S(C_M ‖ 1 ‖ 0^7); P_M = D(C_M);
 * P_R = P_M ⊟ H(T, P_L). Both are one procedure: X = R_in ⊞ H(T, L_in); Y = E(X) (D to decrypt); the
 * nonce N = C_M (Y to encrypt, X to decrypt); L_out = L_in ⊕ S(N); R_out = Y ⊟ H(T, L_out).
 *
 * The subkeys are XChaCha(K, 01 ‖ 0^23) (§6): K_E (32 bytes), then the hash keys. H(T, M) is, for
 * Adiantum, Poly1305_{K_T}(le128(8·|M|) ‖ T) ⊞ Poly1305_{K_M}(NH_{K_N}(M zero-padded to 16 bytes)), and for
 * HPolyC Poly1305_{K_H}(le32(8·|T|) ‖ T, zero-padded to 16 bytes, ‖ M) (Poly1305 without its final
 * addition, `core.ts`). The arithmetic runs in a core (`core.ts`: WebAssembly SIMD128 or portable); the
 * AES block goes through the AES kernels of `@x/aes-kernels`. With a native kernel the whole construction
 * runs in its addon instead (NativeCipher: one native call per message or sector call).
 *
 * The sector calls run in groups of messages that fit the core's memory, in three passes, so that the AES
 * blocks of a whole group are one batched kernel call: X of every message; Y = E(X) (or D) for all; then
 * the stream and the second hash of every message. The header's hash state (bit length and tweak) is made
 * once per message and serves both hashes.
 */
import { defineMode } from '@x/aes-kernels';
import { checkBlocks, checkBytes, checkDataUnit, checkSectors, checkSide } from '@x/aes-kernels/checks';
import { type AesKernel, type AesKeyedKernel, ViewCache } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import type { HbshCore, HbshVariant } from './core.js';

export type { HbshVariant } from './core.js';
import {
  DATA,
  DATA_BYTES,
  DERIVED,
  HDR,
  HDR_BYTES,
  KEY,
  MAX_GROUP,
  NONCE,
  STATE_BYTES,
  STATES,
  XS,
  YS,
} from './layout.js';

const PREFIX = '@x/adiantum';
/** The tweak of the sector calls: 32 bytes, as Linux's adiantum(xchacha12,aes) takes its IV. */
export const SECTOR_TWEAK_BYTES = 32;
/** HPolyC writes the tweak's length in bits in 32 bits: tweaks up to 2^29 − 1 bytes. */
const HPOLYC_MAX_TWEAK = 2 ** 29 - 1;
/** The chunks of a long message: whole NH chunks and ChaCha blocks, with room after the last for R. */
const CHUNK = DATA_BYTES - 1024;

/** The cores that run XChaCha, NH and Poly1305 (the `core` option and property). */
export type HbshCoreName = 'native' | 'wasm-simd128' | 'portable';

/** Options of `newAdiantum` and `newHpolyc`. */
export interface AdiantumOptions {
  /** XChaCha's rounds: 12 (the default, Adiantum-XChaCha12), 20, or 8. */
  rounds?: 8 | 12 | 20;
  /** Forces the AES kernel by name (see `kernels()`); else `X_AES_KERNEL`, else the best present. */
  kernel?: string;
  /**
   * Forces the core: `'native'` (the native kernels' own, in the addon: only with `native-x64` or
   * `native-arm64`), `'wasm-simd128'` or `'portable'`. By default: native with a native kernel, portable
   * with the portable kernel, WebAssembly otherwise (portable where WebAssembly is missing).
   */
  core?: HbshCoreName;
}

/**
 * An Adiantum or HPolyC key bound to one AES kernel and one core. Every method checks its arguments first
 * and writes nothing when they are wrong; in place (`dst` and `src` the same bytes) works, any byteOffset
 * works.
 */
export interface Adiantum {
  /** The AES kernel chosen at construction. */
  readonly kernel: string;
  /** The core that runs XChaCha, NH and Poly1305: `'native'`, `'wasm-simd128'` or `'portable'`. */
  readonly core: HbshCoreName;
  /** Encrypts one message of any length ≥ 16 bytes under `tweak` (any length, 0 included). */
  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /** Decrypts one message of any length ≥ 16 bytes under `tweak`. */
  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void;
  /**
   * Encrypts `src.length / sectorSize` sectors, each a message of its own; sector i uses the 32-byte tweak
   * `tweaks[32i .. 32i+32)` (Linux's IV: dm-crypt's plain64 is the sector number, 8 bytes little-endian,
   * zero-padded).
   */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Decrypts `src.length / sectorSize` sectors; sector i uses `tweaks[32i .. 32i+32)`. */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void;
  /** Wipes the round keys, the hash and stream keys and every scratch byte. Every later call throws. */
  dispose(): void;
}

/**
 * A core for an AES kernel: the one `wanted` names (one of the entry's `cores`), or by default the
 * WebAssembly one unless the kernel is the portable one (see index.ts); throws where it cannot run here.
 */
export type CoreFor = (kernel: AesKernel, wanted: HbshCoreName | undefined) => HbshCore;

/** What a native kernel's `loadHbsh` gives (`NativeHbsh` of @x/aes-native-addon/types). */
export interface NativeHbshKey {
  readonly core: string;
  crypt(
    dst: Uint8Array,
    src: Uint8Array,
    unitSize: number,
    tweaks: Uint8Array,
    tweakBytes: number,
    aes: AesKeyedKernel,
    decrypt: boolean,
  ): void;
  dispose(): void;
}

/** A native kernel's `loadHbsh` (`NativeKernel` of @x/aes-native-addon/types). */
export type LoadHbsh = (
  key: Uint8Array,
  rounds: number,
  hpolyc: boolean,
  ke: Uint8Array,
  portable?: boolean,
) => NativeHbshKey;

/** The native core of a kernel, where it has one: its `loadHbsh`. */
export const nativeCoreOf = (kernel: AesKernel): LoadHbsh | undefined => {
  const load = (kernel as { loadHbsh?: unknown }).loadHbsh;
  return typeof load === 'function' ? (load as LoadHbsh) : undefined;
};

class HbshCipher implements Adiantum {
  readonly kernel: string;
  readonly core: HbshCoreName;
  #k: AesKeyedKernel | undefined;
  readonly #core: HbshCore;
  readonly #m: Uint8Array;
  readonly #hpolyc: boolean;
  /** Views of the core's memory (X, Y, DATA) and of the caller's buffers, reused while they are the same. */
  readonly #mine = new ViewCache();
  readonly #theirs = new ViewCache();

  constructor(kernel: AesKernel, core: HbshCore, key: Uint8Array, rounds: number, variant: HbshVariant) {
    const m = core.memory;
    m.set(key, KEY);
    core.setup(rounds, variant === 'hpolyc' ? 1 : 0);
    const schedule = expandKey(m.subarray(DERIVED, DERIVED + 32));
    m.fill(0, DERIVED, DERIVED + 64);
    try {
      this.#k = kernel.load(schedule);
    } catch (error) {
      m.fill(0);
      throw error;
    } finally {
      schedule.wipe();
    }
    this.kernel = kernel.name;
    this.core = core.name as HbshCoreName;
    this.#core = core;
    this.#m = m;
    this.#hpolyc = variant === 'hpolyc';
  }

  #live(): AesKeyedKernel {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return k;
  }

  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    this.#checkMessage(dst, src, tweak);
    this.#message(k, dst, src, tweak, false);
  }

  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    this.#checkMessage(dst, src, tweak);
    this.#message(k, dst, src, tweak, true);
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES);
    this.#sectors(k, dst, src, sectorSize, tweaks, false);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES);
    this.#sectors(k, dst, src, sectorSize, tweaks, true);
  }

  #checkMessage(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    checkDataUnit(PREFIX, dst, src);
    checkSide(PREFIX, 'tweak', tweak, dst, src.length);
    if (this.#hpolyc && tweak.length > HPOLYC_MAX_TWEAK) {
      throw new RangeError(`${PREFIX}: HPolyC tweaks are at most ${HPOLYC_MAX_TWEAK} bytes, got ${tweak.length}`);
    }
  }

  /** The header's length: the bit-length prefix (16 bytes, HPolyC 4) and the tweak (HPolyC: padded to 16). */
  #headerBytes(tlen: number): number {
    return this.#hpolyc ? (4 + tlen + 15) & ~15 : 16 + tlen;
  }

  /**
   * Writes `len` bytes of the header of a message of `size` bytes under `tweak[toff .. toff+tlen)` from its
   * byte `from` at `at` in the core's memory: the prefix (Adiantum le128(8·(size − 16)), HPolyC
   * le32(8·tlen)), the tweak, HPolyC's zero padding.
   */
  #writeHeader(at: number, from: number, len: number, size: number, tweak: Uint8Array, toff: number, tlen: number) {
    const m = this.#m;
    const prefix = this.#hpolyc ? 4 : 16;
    const bits = this.#hpolyc ? 8 * tlen : 8 * (size - 16);
    for (let i = 0; i < len; i++) {
      const j = from + i;
      let b = 0;
      if (j < prefix) {
        // 8·n < 2^53: bytes 0–3 from the low 32 bits, 4–6 from the rest, the others 0.
        b = j < 4 ? (bits >>> (8 * j)) & 255 : j < 8 ? (Math.floor(bits / 2 ** 32) >>> (8 * (j - 4))) & 255 : 0;
      } else if (j < prefix + tlen) {
        b = tweak[toff + j - prefix];
      }
      m[at + i] = b;
    }
  }

  /**
   * Writes the bit-length prefix of a message of `size` bytes under a `tlen`-byte tweak at HDR (Adiantum
   * le128(8·(size − 16)), HPolyC le32(8·tlen)); returns where the tweak goes.
   */
  #prefix(size: number, tlen: number): number {
    const m = this.#m;
    const bits = this.#hpolyc ? 8 * tlen : 8 * (size - 16);
    const high = Math.floor(bits / 2 ** 32);
    for (let j = 0; j < 4; j++) m[HDR + j] = bits >>> (8 * j);
    if (this.#hpolyc) return HDR + 4;
    for (let j = 0; j < 4; j++) m[HDR + 4 + j] = high >>> (8 * j);
    for (let j = 8; j < 16; j++) m[HDR + j] = 0;
    return HDR + 16;
  }

  /** The header's hash state of one message at `state`: through HDR when it fits, else in chunks via DATA. */
  #header(size: number, tweak: Uint8Array, toff: number, tlen: number, state: number): void {
    const core = this.#core;
    const total = this.#headerBytes(tlen);
    if (total <= HDR_BYTES) {
      this.#writeHeader(HDR, 0, total, size, tweak, toff, tlen);
      core.header(HDR, total, state, 0);
      return;
    }
    for (let from = 0; from < total; from += DATA_BYTES) {
      const len = Math.min(DATA_BYTES, total - from);
      this.#writeHeader(DATA, from, len, size, tweak, toff, tlen);
      core.header(DATA, len, state, from === 0 ? 0 : 1);
    }
  }

  /** The AES call of `count` messages of a group: Y = E(X), or D(X) to decrypt. */
  #blocks(k: AesKeyedKernel, count: number, decrypt: boolean): void {
    const x = this.#mine.get(0, this.#m, XS, 16 * count);
    const y = this.#mine.get(1, this.#m, YS, 16 * count);
    if (decrypt) k.decryptBlocks(y, x);
    else k.encryptBlocks(y, x);
  }

  /** The stream nonce N ‖ 1 ‖ 0^7 from the 16 bytes at `from`. */
  #nonce(from: number): void {
    const m = this.#m;
    m.copyWithin(NONCE, from, from + 16);
    m[NONCE + 16] = 1;
    m.fill(0, NONCE + 17, NONCE + 24);
  }

  /**
   * `count` messages of `size` bytes each, message i at `src[off + i·size ..]` under the tweak
   * `tweaks[toff + i·tlen ..)` of `tlen` bytes, all in the core's memory at once (count ≤ MAX_GROUP,
   * count·size ≤ DATA_BYTES, header ≤ HDR_BYTES).
   */
  #group(
    k: AesKeyedKernel,
    dst: Uint8Array,
    src: Uint8Array,
    off: number,
    size: number,
    count: number,
    tweaks: Uint8Array,
    toff: number,
    tlen: number,
    decrypt: boolean,
    slot: number,
  ): void {
    const core = this.#core;
    const m = this.#m;
    const bytes = count * size;
    const n = size - 16;
    m.set(this.#theirs.get(2 * slot, src, off, bytes), DATA);
    // The header's prefix and padding once; per message only the tweak changes.
    const hlen = this.#headerBytes(tlen);
    const at0 = this.#prefix(size, tlen);
    for (let j = at0 + tlen; j < HDR + hlen; j++) m[j] = 0;
    for (let i = 0; i < count; i++) {
      const state = STATES + STATE_BYTES * i;
      const at = DATA + i * size;
      const t = toff + i * tlen;
      for (let j = 0; j < tlen; j++) m[at0 + j] = tweaks[t + j];
      core.header(HDR, hlen, state, 0);
      core.finish(at, n, state, XS + 16 * i, at + n, 0);
    }
    this.#blocks(k, count, decrypt);
    // The stream nonce N ‖ 1 ‖ 0^7, N = C_M: Y to encrypt, X to decrypt.
    const from = decrypt ? XS : YS;
    m[NONCE + 16] = 1;
    for (let j = NONCE + 17; j < NONCE + 24; j++) m[j] = 0;
    for (let i = 0; i < count; i++) {
      const state = STATES + STATE_BYTES * i;
      const at = DATA + i * size;
      for (let j = 0; j < 16; j++) m[NONCE + j] = m[from + 16 * i + j];
      core.stream(NONCE, at, n, 0);
      core.finish(at, n, state, at + n, YS + 16 * i, 1);
    }
    this.#theirs.get(2 * slot + 1, dst, off, bytes).set(this.#mine.get(2 + (slot & 1), m, DATA, bytes));
    // The scratch (header, X, Y, hash states, nonce) stays until the next call or dispose(), in the memory
    // that holds the keys themselves; wiping it per call would protect nothing they do not.
  }

  #sectors(k: AesKeyedKernel, dst: Uint8Array, src: Uint8Array, size: number, tweaks: Uint8Array, decrypt: boolean) {
    const total = src.length / size;
    if (size > DATA_BYTES) {
      for (let i = 0; i < total; i++) {
        this.#long(k, dst, src, i * size, size, tweaks, i * SECTOR_TWEAK_BYTES, SECTOR_TWEAK_BYTES, decrypt);
      }
      return;
    }
    const per = Math.min(MAX_GROUP, Math.floor(DATA_BYTES / size));
    for (let first = 0, slot = 0; first < total; first += per, slot++) {
      const count = Math.min(per, total - first);
      this.#group(
        k,
        dst,
        src,
        first * size,
        size,
        count,
        tweaks,
        first * SECTOR_TWEAK_BYTES,
        SECTOR_TWEAK_BYTES,
        decrypt,
        slot,
      );
    }
  }

  #message(k: AesKeyedKernel, dst: Uint8Array, src: Uint8Array, tweak: Uint8Array, decrypt: boolean): void {
    if (src.length <= DATA_BYTES && this.#headerBytes(tweak.length) <= HDR_BYTES) {
      this.#group(k, dst, src, 0, src.length, 1, tweak, 0, tweak.length, decrypt, 0);
    } else {
      this.#long(k, dst, src, 0, src.length, tweak, 0, tweak.length, decrypt);
    }
  }

  /**
   * One message of `size` bytes at `src[off ..]` that does not fit the core's memory at once (or whose
   * header does not): its left part passes through DATA in chunks of DATA_BYTES, twice.
   */
  #long(
    k: AesKeyedKernel,
    dst: Uint8Array,
    src: Uint8Array,
    off: number,
    size: number,
    tweak: Uint8Array,
    toff: number,
    tlen: number,
    decrypt: boolean,
  ): void {
    const core = this.#core;
    const m = this.#m;
    const n = size - 16;
    const state = STATES;
    const saved = STATES + STATE_BYTES;
    this.#header(size, tweak, toff, tlen, state);
    m.copyWithin(saved, state, state + STATE_BYTES);
    // Chunks of CHUNK bytes; the last (never empty unless the left part is) and R fit DATA together.
    const last = n === 0 ? 0 : n - CHUNK * Math.floor((n - 1) / CHUNK);
    for (let at = 0; at < n - last; at += CHUNK) {
      m.set(src.subarray(off + at, off + at + CHUNK), DATA);
      core.absorb(DATA, CHUNK, state);
    }
    m.set(src.subarray(off + n - last, off + size), DATA);
    core.finish(DATA, last, state, XS, DATA + last, 0);
    this.#blocks(k, 1, decrypt);
    this.#nonce(decrypt ? XS : YS);
    m.copyWithin(state, saved, saved + STATE_BYTES);
    for (let at = 0; at < n - last; at += CHUNK) {
      m.set(src.subarray(off + at, off + at + CHUNK), DATA);
      core.stream(NONCE, DATA, CHUNK, at / 64);
      dst.set(m.subarray(DATA, DATA + CHUNK), off + at);
      core.absorb(DATA, CHUNK, state);
    }
    m.set(src.subarray(off + n - last, off + n), DATA);
    core.stream(NONCE, DATA, last, (n - last) / 64);
    core.finish(DATA, last, state, DATA + last, YS, 1);
    dst.set(m.subarray(DATA, DATA + last + 16), off + n - last);
  }

  dispose(): void {
    if (this.#k === undefined) return;
    this.#k.dispose();
    this.#k = undefined;
    this.#m.fill(0);
    this.#mine.clear();
    this.#theirs.clear();
  }
}

/**
 * Adiantum or HPolyC on a native kernel's own core (@x/aes-native-addon's native/hbsh.h): XChaCha, NH,
 * Poly1305 and the HBSH passes in C (AVX2 on x86-64 where the CPU has it), the AES block through the
 * same binary's AES code; one native call per message or per sector call, on the caller's bytes. The
 * hash and stream keys live in native memory, wiped on dispose().
 */
class NativeCipher implements Adiantum {
  readonly kernel: string;
  readonly core = 'native';
  #k: AesKeyedKernel | undefined;
  readonly #h: NativeHbshKey;
  readonly #hpolyc: boolean;

  constructor(kernel: AesKernel, load: LoadHbsh, key: Uint8Array, rounds: number, variant: HbshVariant) {
    const ke = new Uint8Array(32);
    const h = load(key, rounds, variant === 'hpolyc', ke);
    const schedule = expandKey(ke);
    ke.fill(0);
    try {
      this.#k = kernel.load(schedule);
    } catch (error) {
      h.dispose();
      throw error;
    } finally {
      schedule.wipe();
    }
    this.kernel = kernel.name;
    this.#h = h;
    this.#hpolyc = variant === 'hpolyc';
  }

  #live(): AesKeyedKernel {
    const k = this.#k;
    if (k === undefined) throw new Error(`${PREFIX}: cipher was disposed`);
    return k;
  }

  #checkMessage(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    checkDataUnit(PREFIX, dst, src);
    checkSide(PREFIX, 'tweak', tweak, dst, src.length);
    if (this.#hpolyc && tweak.length > HPOLYC_MAX_TWEAK) {
      throw new RangeError(`${PREFIX}: HPolyC tweaks are at most ${HPOLYC_MAX_TWEAK} bytes, got ${tweak.length}`);
    }
  }

  encrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    this.#checkMessage(dst, src, tweak);
    this.#h.crypt(dst, src, src.length, tweak, tweak.length, k, false);
  }

  decrypt(dst: Uint8Array, src: Uint8Array, tweak: Uint8Array): void {
    const k = this.#live();
    this.#checkMessage(dst, src, tweak);
    this.#h.crypt(dst, src, src.length, tweak, tweak.length, k, true);
  }

  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES);
    this.#h.crypt(dst, src, sectorSize, tweaks, SECTOR_TWEAK_BYTES, k, false);
  }

  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, tweaks: Uint8Array): void {
    const k = this.#live();
    checkBlocks(PREFIX, dst, src);
    checkSectors(PREFIX, dst, src, sectorSize, tweaks, 'tweaks', SECTOR_TWEAK_BYTES);
    this.#h.crypt(dst, src, sectorSize, tweaks, SECTOR_TWEAK_BYTES, k, true);
  }

  dispose(): void {
    if (this.#k === undefined) return;
    this.#k.dispose();
    this.#k = undefined;
    this.#h.dispose();
  }
}

/** Checks an HBSH key: 32 bytes (Adiantum's and HPolyC's K, XChaCha's key). */
function checkKey32(key: unknown): asserts key is Uint8Array {
  checkBytes(PREFIX, 'key', key);
  if (key.length !== 32) throw new RangeError(`${PREFIX}: key must be 32 bytes, got ${key.length}`);
}

/** The options read and checked: XChaCha's rounds and the core asked for (undefined: the default). */
interface HbshParams {
  rounds: number;
  core: HbshCoreName | undefined;
}

function checkParams(options: AdiantumOptions | undefined): HbshParams {
  const rounds = options?.rounds ?? 12;
  if (rounds !== 8 && rounds !== 12 && rounds !== 20) {
    throw new RangeError(`${PREFIX}: rounds must be 8, 12 or 20, got ${String(rounds)}`);
  }
  const core: unknown = options?.core;
  if (core !== undefined && typeof core !== 'string') throw new TypeError(`${PREFIX}: options.core must be a string`);
  return { rounds, core: core as HbshCoreName | undefined };
}

/**
 * What the entry points take besides the registry: the core for the chosen kernel, the native core of a
 * native kernel (absent from `@x/adiantum/portable`), and the variant.
 */
export interface HbshChoice {
  /** The names `options.core` may take with this entry (`@x/adiantum/portable`: `'portable'` alone). */
  cores: readonly string[];
  coreFor: CoreFor;
  nativeFor?: (kernel: AesKernel) => LoadHbsh | undefined;
  variant: HbshVariant;
}

function create(kernel: AesKernel, key: Uint8Array, { rounds, core }: HbshParams, choice: HbshChoice): Adiantum {
  const { cores, coreFor, nativeFor, variant } = choice;
  if (core !== undefined && !cores.includes(core)) {
    throw new RangeError(`${PREFIX}: unknown core "${core}"; the cores of this entry are ${cores.join(', ')}`);
  }
  if (core === undefined || core === 'native') {
    const load = nativeFor?.(kernel);
    if (load !== undefined) return new NativeCipher(kernel, load, key, rounds, variant);
    if (core === 'native') {
      throw new RangeError(`${PREFIX}: core "native" runs with a native kernel only, not with ${kernel.name}`);
    }
  }
  return new HbshCipher(kernel, coreFor(kernel, core), key, rounds, variant);
}

const entries = /* @__PURE__ */ defineMode<Adiantum, AdiantumOptions, HbshParams, HbshChoice>({
  prefix: PREFIX,
  checkKey: checkKey32,
  params: checkParams,
  create,
});

/** `newAdiantum` / `newHpolyc` over the kernels of `registry`, with the core `coreFor` gives the chosen kernel. */
export const newHbshFrom = entries.from;

/**
 * An HBSH cipher on `kernel` itself, whatever the registry says, with the core `coreFor` gives it: for
 * tests that pair cores and kernels freely. Not exported from the package.
 */
export const newHbshOn = entries.on;
