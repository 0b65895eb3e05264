/**
 * Feature detection, compilation and the one shared instance. The module is compiled once per realm and
 * cached: synchronously on first use where the runtime allows it (Node, Deno, Bun, workers), or ahead of
 * time by {@link init} (browser main threads, where large synchronous compiles are refused).
 */
import { initElephant } from './elephant.js';
import { decompress } from './lz.js';
import { MODULE_ENDS, MODULES_BASE64 } from './wasm.generated.js';

/** A typed view on the exports a keyed kernel calls. */
export interface RoundFunctions {
  prepEnc(): void;
  prepDec(): void;
  ecbEnc(ptr: number, len: number): void;
  ecbDec(ptr: number, len: number): void;
  cbcEnc(ptr: number, len: number): void;
  cbcDec(ptr: number, len: number, ivPtr: number): void;
  secDec(ptr: number, len: number, sectorSize: number): void;
  secEnc(ptr: number, len: number, sectorSize: number): void;
  xtsEnc(ptr: number, len: number, unitSize: number, tweakPtr: number): void;
  xtsDec(ptr: number, len: number, unitSize: number, tweakPtr: number): void;
  /** CTR keystreams by counter kind: `len` a multiple of 16, the counter state at `statePtr`. */
  ctr: Record<'be128' | 'be32' | 'xctr', (ptr: number, len: number, statePtr: number) => void>;
}

/** A typed view on the POLYVAL exports (scripts/polyval.ts); one set for every key. */
export interface PolyvalFunctions {
  /** K_2..K_8 from K_1 = H at POLY_POW, and the expanded table. */
  init(): void;
  /** The expanded table from the powers at POLY_POW. */
  expand(): void;
  /** Absorbs `len` bytes (whole blocks) at `ptr` into the accumulator at POLY_ACC; `reversed` is 0 or 1. */
  update(ptr: number, len: number, reversed: number): void;
}

/** `(module (func (param v128) (result v128) (i8x16.swizzle (local.get 0) (local.get 0))))`. */
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01,
  0x00, 0x0a, 0x0a, 0x01, 0x08, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0x0e, 0x0b,
]);

/** The same with `i8x16.relaxed_swizzle` (relaxed-simd). */
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01,
  0x00, 0x0a, 0x0b, 0x01, 0x09, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0x80, 0x02, 0x0b,
]);

let instance: WebAssembly.Instance | undefined;
let syncFailed = false;

/** Whether WebAssembly with SIMD128 is present. Never throws. */
export function simdSupported(): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Whether relaxed-simd is present too. Then the kernel uses the build with `i8x16.relaxed_swizzle`, which
 * computes the same bytes (every index it swizzles with is one the specification pins down) with one
 * instruction less per lookup on x64.
 */
export function relaxedSupported(): boolean {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

/**
 * The bytes of one build, decompressed from the embedded constant (atob exists in every supported
 * runtime). Both builds are decoded, the relaxed one being stored as differences from the plain one; the
 * bytes are not kept: the compiled module is what stays.
 */
export function moduleBytes(relaxed = relaxedSupported()): Uint8Array<ArrayBuffer> {
  const s = atob(MODULES_BASE64);
  const stream = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) stream[i] = s.charCodeAt(i);
  const both = decompress(stream, MODULE_ENDS[1]);
  return relaxed ? both.slice(MODULE_ENDS[0]) : both.slice(0, MODULE_ENDS[0]);
}

/**
 * The shared instance, compiled synchronously on first call (unless {@link init} already did it), or
 * undefined when this runtime cannot compile or instantiate it (no SIMD128, a Content-Security-Policy
 * without 'wasm-unsafe-eval', a main thread that refuses synchronous compilation). Never throws.
 */
export function getInstance(): WebAssembly.Instance | undefined {
  if (instance || syncFailed) return instance;
  if (simdSupported()) {
    for (const relaxed of builds()) {
      try {
        instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(relaxed)), {});
        break;
      } catch {
        // Next build; after the last, remember the failure: init() may still succeed asynchronously
        // where only synchronous compilation is refused.
      }
    }
  }
  syncFailed = instance === undefined;
  return instance;
}

/** The builds to try, best first: the relaxed-simd one where it validates, then the plain one. */
const builds = (): boolean[] => (relaxedSupported() ? [true, false] : [false]);

/**
 * Compiles and instantiates the module asynchronously, for browser main threads, and the Elephant
 * diffuser module (`kernel.loadElephant()`) beside it. Resolves when the kernel is ready; resolves too
 * (leaving the kernel unavailable) when WebAssembly or SIMD128 is missing or blocked, so that callers
 * fall back to another kernel.
 *
 * @example
 * ```ts
 * import { init, kernel } from '@x/aes-wasm-kernel';
 * await init();
 * kernel.isAvailable(); // true where SIMD128 is present
 * ```
 */
export async function init(): Promise<void> {
  await Promise.all([initAes(), initElephant()]);
}

/** {@link init} for the AES module. */
async function initAes(): Promise<void> {
  if (instance) return;
  if (!simdSupported()) return;
  for (const relaxed of builds()) {
    try {
      const { instance: inst } = await WebAssembly.instantiate(moduleBytes(relaxed), {});
      instance ??= inst;
      return;
    } catch {
      // Next build; after the last, unavailable here: isAvailable() stays false.
    }
  }
}

/** The exported functions for one round count, typed. */
export function roundFunctions(inst: WebAssembly.Instance, rounds: number): RoundFunctions {
  const e = inst.exports as Record<string, (...a: number[]) => void>;
  return {
    prepEnc: e[`prep_enc_${rounds}`],
    prepDec: e[`prep_dec_${rounds}`],
    ecbEnc: e[`ecb_enc_${rounds}`],
    ecbDec: e[`ecb_dec_${rounds}`],
    cbcEnc: e[`cbc_enc_${rounds}`],
    cbcDec: e[`cbc_dec_${rounds}`],
    secDec: e[`sec_dec_${rounds}`],
    secEnc: e[`sec_enc_${rounds}`],
    xtsEnc: e[`xts_enc_${rounds}`],
    xtsDec: e[`xts_dec_${rounds}`],
    ctr: {
      be128: e[`ctr_be128_${rounds}`],
      be32: e[`ctr_be32_${rounds}`],
      xctr: e[`ctr_xctr_${rounds}`],
    },
  };
}

/** The POLYVAL exports, typed. */
export function polyvalFunctions(inst: WebAssembly.Instance): PolyvalFunctions {
  const e = inst.exports as Record<string, (...a: number[]) => void>;
  return { init: e.polyval_init, expand: e.polyval_expand, update: e.polyval_update };
}
