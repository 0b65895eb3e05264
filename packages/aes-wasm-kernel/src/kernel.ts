/**
 * The `wasm-simd128` kernel: the kernel contract of `@x/aes-kernel-contract` (contract v2: the two block
 * primitives and every fast path but `hctr2`, `gcmSeal` and `gcmOpen`) over the generated module.
 *
 * JavaScript only moves bytes here (TypedArray `set`/`fill`, with public offsets and lengths); every
 * operation on key or data bytes happens in WebAssembly, on v128 values, without tables indexed by them.
 * One instance and one fixed memory serve every key: each keyed kernel keeps its converted round keys
 * and copies them into the key area when it is not the active one.
 */
import type { AesKernel, AesKeyedKernel, CtrCounter, PolyvalKernel } from '@x/aes-kernel-contract';
import type { KeySchedule } from '@x/aes-keyschedule';
import {
  CHUNK,
  DATA,
  IV,
  IV_BYTES,
  IVS,
  IVS_BYTES,
  KEY_ENC,
  KEY_IN,
  POLY_ACC,
  POLY_END,
  POLY_POW,
  POLY_POW_BYTES,
  POLY_TABLE,
  POLY_TABLE_BYTES,
  WIDTH,
} from './layout.js';
import { elephantDiffusers, type WasmElephant } from './elephant.js';
import { getInstance, type PolyvalFunctions, polyvalFunctions, roundFunctions, type RoundFunctions } from './module.js';

const PREFIX = '@x/aes-wasm-kernel';
/** The converted round keys of one key: KEY_ENC, KEY_DEC, BS_ENC and BS_DEC, up to IV. */
const KEY_AREA = IV - KEY_ENC;
/** Bytes of each of WIDTH sectors per call when sectors are too large for WIDTH of them in a chunk. */
const PIECE = CHUNK / WIDTH;

/** What all keyed kernels of one instance share. */
interface Shared {
  readonly mem: Uint8Array;
  /** Views of DATA of every length, made once per length so that calls allocate nothing. */
  readonly views: Uint8Array[];
  readonly fns: Map<number, RoundFunctions>;
  readonly poly: PolyvalFunctions;
  /** The POLYVAL accumulator in WebAssembly memory. */
  readonly acc: Uint8Array;
  active: WasmKeyedKernel | null;
  activePolyval: WasmPolyvalKernel | null;
}

const shared = new WeakMap<WebAssembly.Instance, Shared>();

function sharedOf(inst: WebAssembly.Instance): Shared {
  let s = shared.get(inst);
  if (!s) {
    const memory = inst.exports.memory as WebAssembly.Memory;
    s = {
      mem: new Uint8Array(memory.buffer),
      views: [],
      fns: new Map(),
      poly: polyvalFunctions(inst),
      acc: new Uint8Array(memory.buffer, POLY_ACC, 16),
      active: null,
      activePolyval: null,
    };
    for (const r of [10, 12, 14]) s.fns.set(r, roundFunctions(inst, r));
    shared.set(inst, s);
  }
  return s;
}

function dataView(s: Shared, len: number): Uint8Array {
  let view = s.views[len >>> 4];
  if (view === undefined) {
    view = new Uint8Array(s.mem.buffer, DATA, len);
    s.views[len >>> 4] = view;
  }
  return view;
}

type ChunkFunction = (ptr: number, len: number, arg: number) => void;

/**
 * The `wasm-simd128` kernel bound to one key: what `kernel.load(schedule)` returns. It has the two block
 * primitives of the kernel contract and every fast path; its converted round keys are private.
 *
 * @example
 * ```ts
 * const k = kernel.load(expandKey(new Uint8Array(16)));
 * k.encryptBlocks(block, block);
 * k.dispose();
 * ```
 */
export class WasmKeyedKernel implements AesKeyedKernel {
  /** 10, 12 or 14 (FIPS 197 §5 Figure 4). */
  readonly rounds: number;
  readonly #s: Shared;
  readonly #f: RoundFunctions;
  readonly #keys = new Uint8Array(KEY_AREA);
  #disposed = false;

  /** Use `kernel.load(schedule)`. */
  constructor(s: Shared, schedule: KeySchedule) {
    this.rounds = schedule.rounds;
    this.#s = s;
    this.#f = s.fns.get(schedule.rounds) as RoundFunctions;
    const mem = s.mem;
    mem.set(schedule.encryptionKeys, KEY_IN);
    this.#f.prepEnc();
    mem.set(schedule.decryptionKeys, KEY_IN);
    this.#f.prepDec();
    mem.fill(0, KEY_IN, KEY_IN + 256);
    this.#keys.set(mem.subarray(KEY_ENC, KEY_ENC + KEY_AREA));
    s.active = this;
  }

  /** Puts this key's round keys into the key area unless they are there already. */
  #activate(): Shared {
    if (this.#disposed) throw new Error(`${PREFIX}: the kernel was disposed`);
    const s = this.#s;
    if (s.active !== this) {
      s.mem.set(this.#keys, KEY_ENC);
      s.active = this;
    }
    return s;
  }

  /** Runs `fn` over src[start, end) in chunks, in place in DATA, writing dst[start, end). */
  #chunks(s: Shared, dst: Uint8Array, src: Uint8Array, start: number, end: number, fn: ChunkFunction, arg: number) {
    const mem = s.mem;
    for (let off = start; off < end; off += CHUNK) {
      const len = Math.min(CHUNK, end - off);
      mem.set(len === src.length ? src : src.subarray(off, off + len), DATA);
      fn(DATA, len, arg);
      dst.set(dataView(s, len), off);
    }
  }

  /** Zeroes what a call left in memory: the part of the chunk buffer it used, the chaining value or counter. */
  #wipe(s: Shared, n: number): void {
    s.mem.fill(0, IV, IV + IV_BYTES);
    s.mem.fill(0, DATA, DATA + Math.min(n, CHUNK));
  }

  /**
   * Each 16-byte block of `src` encrypted on its own (FIPS 197 §5.1): the bitsliced core, 8 blocks at a
   * time, then the one-block core for the last 1–7.
   *
   * @example `k.encryptBlocks(dst, src)`
   */
  encryptBlocks(dst: Uint8Array, src: Uint8Array): void {
    const s = this.#activate();
    this.#chunks(s, dst, src, 0, src.length, this.#f.ecbEnc, 0);
    this.#wipe(s, src.length);
  }

  /**
   * Each 16-byte block of `src` decrypted on its own (FIPS 197 §5.3.5, the equivalent inverse cipher).
   *
   * @example `k.decryptBlocks(dst, src)`
   */
  decryptBlocks(dst: Uint8Array, src: Uint8Array): void {
    const s = this.#activate();
    this.#chunks(s, dst, src, 0, src.length, this.#f.ecbDec, 0);
    this.#wipe(s, src.length);
  }

  /**
   * CBC encryption of one chain (NIST SP 800-38A §6.2): serial, the one-block core with the chaining value
   * in a register; chunks continue from the chaining value stored back at IV.
   *
   * @example `k.cbcEncrypt(dst, src, iv)`
   */
  cbcEncrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const s = this.#activate();
    s.mem.set(iv, IV);
    this.#chunks(s, dst, src, 0, src.length, this.#f.cbcEnc, 0);
    this.#wipe(s, src.length);
  }

  /**
   * Whole units (sectors, XTS data units) that fit a chunk, as many per call of `fn` as the chunk and the
   * IVS area hold: their IVs or encrypted tweaks at IVS, their bytes at DATA. The exports that take fewer
   * arguments ignore the last one.
   */
  #wholeUnits(
    s: Shared,
    dst: Uint8Array,
    src: Uint8Array,
    unit: number,
    ivs: Uint8Array,
    fn: RoundFunctions['xtsEnc'],
  ): void {
    const mem = s.mem;
    const n = src.length;
    const count = n / unit;
    const per = Math.min(Math.floor(CHUNK / unit), IVS_BYTES / 16);
    for (let i = 0; i < count; i += per) {
      const k = Math.min(per, count - i);
      const len = k * unit;
      const off = i * unit;
      mem.set(16 * k === ivs.length ? ivs : ivs.subarray(16 * i, 16 * (i + k)), IVS);
      mem.set(len === n ? src : src.subarray(off, off + len), DATA);
      fn(DATA, len, unit, IVS);
      dst.set(dataView(s, len), off);
    }
    mem.fill(0, IVS, IVS + Math.min(16 * count, IVS_BYTES));
  }

  /**
   * CBC decryption (NIST SP 800-38A §6.2) of sectors of `sectorSize` bytes, sector s with IV
   * `ivs[16s .. 16s+16)`. One chain (one sector as long as `src`) goes through `cbc_dec`, chunk by chunk;
   * sectors that fit a chunk go through `sec_dec`, as many per call as the chunk and the IVS area hold;
   * larger sectors, one chain each through `cbc_dec`.
   *
   * @example `k.cbcDecryptSectors(dst, src, 512, ivs); k.cbcDecryptSectors(dst, src, src.length, iv)`
   */
  cbcDecryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const s = this.#activate();
    const mem = s.mem;
    const n = src.length;
    const count = n / sectorSize;
    if (count === 1 || sectorSize > CHUNK) {
      // One chain per sector, each through the chunked CBC path.
      for (let i = 0; i < count; i++) {
        for (let b = 0; b < 16; b++) mem[IV + b] = ivs[16 * i + b];
        this.#chunks(s, dst, src, i * sectorSize, (i + 1) * sectorSize, this.#f.cbcDec, IV);
      }
    } else {
      this.#wholeUnits(s, dst, src, sectorSize, ivs, this.#f.secDec);
    }
    this.#wipe(s, n);
  }

  /**
   * CBC encryption (NIST SP 800-38A §6.2) of sectors of `sectorSize` bytes, sector s with IV
   * `ivs[16s .. 16s+16)`: `sec_enc` runs 8 sectors' chains side by side in the bitsliced core.
   *
   * @example `k.cbcEncryptSectors(dst, src, 512, ivs)`
   */
  cbcEncryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const s = this.#activate();
    const mem = s.mem;
    const n = src.length;
    const count = n / sectorSize;
    const per = Math.min(Math.floor(CHUNK / sectorSize), IVS_BYTES / 16);
    if (count <= per || per >= WIDTH) {
      // Whole sectors per chunk (all of them, or at least a full group of WIDTH): sec_enc interleaves
      // the chains WIDTH at a time.
      this.#wholeUnits(s, dst, src, sectorSize, ivs, this.#f.secEnc);
    } else {
      // Sectors too large for WIDTH of them in a chunk (so the input is larger than a chunk): groups of
      // WIDTH sectors go through in pieces of PIECE bytes of each, laid out one after the other as whole
      // sectors of the piece's size; the chaining values stay at IVS between pieces.
      for (let i = 0; i < count; i += WIDTH) {
        const k = Math.min(WIDTH, count - i);
        for (let b = 0; b < 16 * k; b++) mem[IVS + b] = ivs[16 * i + b];
        for (let from = 0; from < sectorSize; from += PIECE) {
          const len = Math.min(PIECE, sectorSize - from);
          for (let g = 0, off = i * sectorSize + from; g < k; g++, off += sectorSize) {
            mem.set(src.subarray(off, off + len), DATA + g * len);
          }
          this.#f.secEnc(DATA, k * len, len);
          for (let g = 0, off = i * sectorSize + from; g < k; g++, off += sectorSize) {
            dst.set(mem.subarray(DATA + g * len, DATA + (g + 1) * len), off);
          }
        }
      }
      mem.fill(0, IVS, IVS + 16 * WIDTH);
    }
    this.#wipe(s, n);
  }

  /**
   * XTS-AES encryption (IEEE 1619 §5.3.1) of whole blocks of data units of `unitSize` bytes, unit u from
   * the encrypted tweak `tweaks[16u .. 16u+16)`.
   *
   * @example `k.xtsEncrypt(dst, src, 512, encryptedTweaks)`
   */
  xtsEncrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    this.#xts(dst, src, unitSize, tweaks, this.#f.xtsEnc);
  }

  /**
   * XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks; the arguments as for `xtsEncrypt`.
   *
   * @example `k.xtsDecrypt(dst, src, 512, encryptedTweaks)`
   */
  xtsDecrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    this.#xts(dst, src, unitSize, tweaks, this.#f.xtsDec);
  }

  /** XTS (IEEE 1619 §5.3.1, §5.4.1) of whole blocks, unit u from the encrypted tweak tweaks[16u ..]. */
  #xts(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array, fn: RoundFunctions['xtsEnc']): void {
    const s = this.#activate();
    const mem = s.mem;
    const n = src.length;
    const count = n / unitSize;
    if (unitSize > CHUNK) {
      // Units larger than a chunk: the chunks of a unit continue from the tweak stored back at IV.
      for (let i = 0; i < count; i++) {
        for (let b = 0; b < 16; b++) mem[IV + b] = tweaks[16 * i + b];
        for (let off = i * unitSize, end = off + unitSize; off < end; off += CHUNK) {
          const len = Math.min(CHUNK, end - off);
          mem.set(src.subarray(off, off + len), DATA);
          fn(DATA, len, len, IV);
          dst.set(dataView(s, len), off);
        }
      }
    } else {
      this.#wholeUnits(s, dst, src, unitSize, tweaks, fn);
    }
    this.#wipe(s, n);
  }

  /**
   * A CTR keystream XORed into `dst` (NIST SP 800-38A §6.5), `src.length` bytes of any length, the counter
   * blocks from `iv` as `counter` says (`'be128'`, `'be32'` for GCM, `'xctr'` for HCTR2). The counter
   * blocks are made and encrypted in WebAssembly, 8 at a time by the bitsliced core, and XORed into the
   * chunk in place; the counter state continues at IV from chunk to chunk. A partial last block is
   * computed whole in the chunk buffer and only its bytes are copied out.
   *
   * @example `k.ctr(dst, src, iv, 'be128')`
   */
  ctr(dst: Uint8Array, src: Uint8Array, iv: Uint8Array, counter: CtrCounter): void {
    const s = this.#activate();
    const mem = s.mem;
    const n = src.length;
    const fn = this.#f.ctr[counter];
    mem.set(iv, IV);
    // XCTR's counter j + 1 starts at 1, a little-endian integer beside the IV.
    if (counter === 'xctr') {
      mem.fill(0, IV + 16, IV + IV_BYTES);
      mem[IV + 16] = 1;
    }
    for (let off = 0; off < n; off += CHUNK) {
      const len = Math.min(CHUNK, n - off);
      const whole = len & ~15;
      mem.set(len === n ? src : src.subarray(off, off + len), DATA);
      fn(DATA, (len + 15) & ~15, IV);
      if (whole > 0) dst.set(dataView(s, whole), off);
      for (let i = whole; i < len; i++) dst[off + i] = mem[DATA + i];
    }
    this.#wipe(s, (n + 15) & ~15);
  }

  /**
   * Wipes this key's round keys: its own copy and, if it is the active key, the key area in WebAssembly
   * memory. Calls afterwards throw.
   *
   * @example `k.dispose()`
   */
  dispose(): void {
    this.#disposed = true;
    this.#keys.fill(0);
    const s = this.#s;
    if (s.active === this) {
      s.mem.fill(0, KEY_ENC, KEY_ENC + KEY_AREA);
      s.active = null;
    }
  }
}

/**
 * POLYVAL (RFC 8452 §3) bound to one hash key on the `wasm-simd128` kernel: what `kernel.loadPolyval(h)`
 * returns. Its key powers H, H^2·x^-128, … (8 of them, for one reduction per 8 blocks) are private; they
 * are copied into WebAssembly memory and expanded there when another key was used in between.
 *
 * @example
 * ```ts
 * const p = kernel.loadPolyval(h);
 * const acc = new Uint8Array(16);
 * p.update(acc, blocks, false); // acc = POLYVAL(H, blocks)
 * p.dispose();
 * ```
 */
export class WasmPolyvalKernel implements PolyvalKernel {
  readonly #s: Shared;
  readonly #powers = new Uint8Array(POLY_POW_BYTES);
  #disposed = false;

  /** Use `kernel.loadPolyval(h)`. */
  constructor(s: Shared, h: Uint8Array) {
    this.#s = s;
    const mem = s.mem;
    mem.fill(0, POLY_POW, POLY_POW + POLY_POW_BYTES);
    mem.set(h.subarray(0, 16), POLY_POW);
    s.poly.init();
    this.#powers.set(mem.subarray(POLY_POW, POLY_POW + POLY_POW_BYTES));
    // The leaf products of computing the powers.
    mem.fill(0, POLY_ACC, POLY_END);
    s.activePolyval = this;
  }

  /** Puts this key's powers into WebAssembly memory, expanded, unless they are there already. */
  #activate(): Shared {
    if (this.#disposed) throw new Error(`${PREFIX}: the POLYVAL key was disposed`);
    const s = this.#s;
    if (s.activePolyval !== this) {
      s.mem.set(this.#powers, POLY_POW);
      s.poly.expand();
      s.activePolyval = this;
    }
    return s;
  }

  /**
   * For each 16-byte block X of `data`: acc = (acc ^ X)·H·x^-128, X byte-reversed first when `reversed`
   * (GHASH, RFC 8452 Appendix A). 8 blocks per reduction in WebAssembly; the data goes through the chunk
   * buffer, which is wiped afterwards, as is the accumulator's copy.
   *
   * @example `p.update(acc, data, false)`
   */
  update(acc: Uint8Array, data: Uint8Array, reversed: boolean): void {
    const s = this.#activate();
    const mem = s.mem;
    const n = data.length;
    mem.set(acc, POLY_ACC);
    for (let off = 0; off < n; off += CHUNK) {
      const len = Math.min(CHUNK, n - off);
      mem.set(len === n ? data : data.subarray(off, off + len), DATA);
      s.poly.update(DATA, len, reversed ? 1 : 0);
    }
    acc.set(s.acc);
    // The accumulator, the last partial batch and the batch's leaf products, all data-dependent.
    mem.fill(0, POLY_ACC, POLY_END);
    mem.fill(0, DATA, DATA + Math.min(n, CHUNK));
  }

  /**
   * Wipes the hash key's powers: this object's copy and, if it is the active key, WebAssembly memory's
   * (powers and expanded table). Calls afterwards throw.
   *
   * @example `p.dispose()`
   */
  dispose(): void {
    this.#disposed = true;
    this.#powers.fill(0);
    const s = this.#s;
    if (s.activePolyval === this) {
      s.mem.fill(0, POLY_POW, POLY_POW + POLY_POW_BYTES);
      s.mem.fill(0, POLY_TABLE, POLY_TABLE + POLY_TABLE_BYTES);
      s.activePolyval = null;
    }
  }
}

/**
 * The `wasm-simd128` kernel: constant-time AES by vector permutations on WebAssembly SIMD128, for every
 * JavaScript runtime, 8 blocks per batch. Modes (`@x/cbc`, `@x/xts`) choose it through `@x/aes-kernels`;
 * use it directly only to test or benchmark the kernel, or to write a mode.
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * import { kernel } from '@x/aes-wasm-kernel';
 * if (kernel.isAvailable()) {
 *   const schedule = expandKey(new Uint8Array(16));
 *   const k = kernel.load(schedule);
 *   schedule.wipe();
 *   const block = new Uint8Array(16);
 *   k.encryptBlocks(block, block); // 66e94bd4ef8a2c3b884cfa59ca342b2e
 *   k.dispose();
 * }
 * ```
 */
export const kernel = Object.freeze({
  name: 'wasm-simd128' as const,
  parallelBlocks: WIDTH,
  isAvailable(): boolean {
    return getInstance() !== undefined;
  },
  load(schedule: KeySchedule): WasmKeyedKernel {
    const inst = getInstance();
    if (!inst) {
      throw new Error(`${PREFIX}: WebAssembly SIMD128 is not available here (or await init() first on a main thread)`);
    }
    return new WasmKeyedKernel(sharedOf(inst), schedule);
  },
  /**
   * POLYVAL (RFC 8452 §3) bound to the hash key `h` (16 bytes, POLYVAL's byte order), in constant time
   * on v128 integer multiplications; the caller may wipe `h` afterwards.
   */
  loadPolyval(h: Uint8Array): WasmPolyvalKernel {
    const inst = getInstance();
    if (!inst) {
      throw new Error(`${PREFIX}: WebAssembly SIMD128 is not available here (or await init() first on a main thread)`);
    }
    return new WasmPolyvalKernel(sharedOf(inst), h);
  },
  /**
   * BitLocker's Elephant diffusers (for `@x/dm-crypt`'s `aes-cbc-elephant`) on SIMD128, four sectors side
   * by side, in the shape of the native kernels' `loadElephant()`: core `'simd128'`, keyless (one shared
   * object, nothing to dispose). Undefined where the module cannot run. The argument (the native kernels'
   * `portable`) is ignored: this kernel has one core.
   */
  loadElephant(_portable?: boolean): WasmElephant | undefined {
    return elephantDiffusers();
  },
}) satisfies AesKernel;
