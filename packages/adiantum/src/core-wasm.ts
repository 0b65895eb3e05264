/**
 * The WebAssembly SIMD128 HBSH core: the contract of `core.ts` over the module of scripts/wat.ts
 * (embedded in wasm.generated.ts). XChaCha runs four blocks at once, one per 32-bit lane; NH multiplies
 * with `i64x2.extmul_low_i32x4_u`; Poly1305 is scalar i64 on 26-bit limbs. Constant time by construction
 * (test/wasm-build.test.ts scans the module): keys and data live only in v128 values and in Poly1305's
 * i64 arithmetic, and no instruction turns either into an i32, so no address, branch or loop bound can
 * depend on them.
 *
 * The module is compiled once per realm — synchronously on first use where the runtime allows it (Node,
 * Deno, Bun, workers), or ahead of time by {@link initCore} (browser main threads) — and instantiated
 * once per core: each core owns its memory (MEMORY_BYTES, which cannot grow).
 */
import type { HbshCore } from './core.js';
import { WASM_BASE64 } from './wasm.generated.js';

/** The module's exports (scripts/wat.ts): the contract's functions, with the variant passed explicitly. */
interface Exports {
  memory: WebAssembly.Memory;
  setup(rounds: number, bytes: number): void;
  header(ptr: number, len: number, statePtr: number, more: number): void;
  absorb(ptr: number, len: number, statePtr: number, hpolyc: number): void;
  finish(
    ptr: number,
    len: number,
    statePtr: number,
    outPtr: number,
    basePtr: number,
    sign: number,
    hpolyc: number,
  ): void;
  stream(noncePtr: number, ptr: number, len: number, block: number, blockHi: number, rounds: number): void;
}

/** Bytes of subkeys `setup` derives: K_E, K_T, K_M and the NH key (Adiantum), or K_E and K_H (HPolyC). */
const DERIVED_ADIANTUM = 32 + 16 + 16 + 1072;
const DERIVED_HPOLYC = 32 + 16;

let compiled: WebAssembly.Module | undefined;
let syncFailed = false;

/** The module's bytes, decoded from the embedded base64 (atob exists in every supported runtime). */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const s = atob(WASM_BASE64);
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}

/** Whether this runtime has WebAssembly with SIMD128 (the module validates). Never throws. */
function supported(bytes: Uint8Array<ArrayBuffer>): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/** The compiled module: synchronously on first call, unless {@link initCore} did it; undefined if refused. */
function compiledModule(): WebAssembly.Module | undefined {
  if (compiled || syncFailed) return compiled;
  try {
    const bytes = moduleBytes();
    if (supported(bytes)) compiled = new WebAssembly.Module(bytes);
  } catch {
    // A main thread that refuses synchronous compilation, or a CSP without 'wasm-unsafe-eval':
    // initCore() may still succeed asynchronously.
  }
  syncFailed = compiled === undefined;
  return compiled;
}

/**
 * Compiles the module asynchronously, for browser main threads (where large synchronous compiles are
 * refused). Resolves when {@link wasmCore} can return a core; resolves too, leaving it unavailable, when
 * WebAssembly or SIMD128 is missing or blocked, so that callers fall back to the portable core.
 *
 * @example
 * ```ts
 * import { initCore, wasmCore } from './core-wasm.js';
 * await initCore();
 * const core = wasmCore() ?? portableCore();
 * ```
 */
export async function initCore(): Promise<void> {
  if (compiled) return;
  try {
    const bytes = moduleBytes();
    if (!supported(bytes)) return;
    compiled = await WebAssembly.compile(bytes);
    syncFailed = false;
  } catch {
    // Unavailable here: wasmCore() returns undefined.
  }
}

/**
 * A new SIMD128 core with its own memory, or undefined when this runtime has no WebAssembly SIMD128 or
 * refuses to compile or instantiate it. Never throws.
 *
 * @example
 * ```ts
 * const core = wasmCore();
 * if (core) {
 *   core.memory.set(key, KEY);
 *   core.setup(12, 0); // Adiantum-XChaCha12
 *   core.stream(NONCE, DATA, 4080, 0);
 * }
 * ```
 */
export function wasmCore(): HbshCore | undefined {
  const mod = compiledModule();
  if (!mod) return undefined;
  let e: Exports;
  try {
    e = new WebAssembly.Instance(mod, {}).exports as unknown as Exports;
  } catch {
    return undefined;
  }
  const memory = new Uint8Array(e.memory.buffer);
  let rounds = 12;
  let hpolyc = 0;
  return {
    name: 'wasm-simd128',
    memory,
    setup(r: number, h: number): void {
      rounds = r;
      hpolyc = h === 1 ? 1 : 0;
      e.setup(r, hpolyc === 1 ? DERIVED_HPOLYC : DERIVED_ADIANTUM);
    },
    header(ptr: number, len: number, statePtr: number, more: number): void {
      e.header(ptr, len, statePtr, more);
    },
    absorb(ptr: number, len: number, statePtr: number): void {
      e.absorb(ptr, len, statePtr, hpolyc);
    },
    finish(ptr: number, len: number, statePtr: number, outPtr: number, basePtr: number, sign: number): void {
      e.finish(ptr, len, statePtr, outPtr, basePtr, sign, hpolyc);
    },
    stream(noncePtr: number, ptr: number, len: number, block: number): void {
      // The 64-bit block counter as two 32-bit halves (an i64 parameter would cost a BigInt a call).
      e.stream(noncePtr, ptr, len, block >>> 0, (block / 4294967296) >>> 0, rounds);
    },
  };
}
