/**
 * BitLocker's Elephant diffusers on WebAssembly SIMD128 (`kernel.loadElephant()`): the module that
 * scripts/elephant.ts generates, four sectors side by side, one per 32-bit lane. It has its own instance
 * and its own memory (keyless: one per realm, shared by every caller), compiled on first use, or ahead of
 * time by `init()`. JavaScript only moves bytes here: each call copies the sectors and their keys into
 * the module's memory, diffuses them there and copies the sectors back, then wipes what it used.
 */
import { ELEPHANT_CHUNK, ELEPHANT_DATA, ELEPHANT_KEYS, ELEPHANT_LANES, ELEPHANT_WORK } from './elephant-layout.js';
import { ELEPHANT_BASE64 } from './elephant.generated.js';

const PREFIX = '@x/aes-wasm-kernel';
const PAGE = 65536;

/**
 * The Elephant diffusers of the `wasm-simd128` kernel: what `kernel.loadElephant()` returns, the shape of
 * the native kernels' `NativeElephant` (@x/aes-native-addon), so that `@x/dm-crypt` runs them the same way.
 *
 * @example
 * ```ts
 * const el = kernel.loadElephant();
 * el?.decrypt(sectors, 512, sectorKeys); // after CBC decryption, in place
 * ```
 */
export interface WasmElephant {
  /** `'simd128'`: four sectors at a time, one per 32-bit lane of a v128. */
  readonly core: 'simd128';
  /**
   * Diffuser B, diffuser A (decryption direction: after CBC decryption), then sector s ⊕= its 32-byte key
   * `keys[32s ..]` repeated, for the `data.length / sectorSize` sectors of `data`, in place. `sectorSize`
   * is 512, 1024, 2048 or 4096 (else a RangeError, as for a `data` that is not whole sectors).
   */
  decrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
  /** The inverse, before CBC encryption: ⊕ the key, then diffuser A and diffuser B in the encryption direction. */
  encrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void;
}

type Export = (data: number, keys: number, count: number, sectorSize: number) => void;

let diffusers: Diffusers | undefined;
let syncFailed = false;

/** The module's bytes, decoded from the embedded constant (atob exists in every supported runtime). */
export function elephantModuleBytes(): Uint8Array<ArrayBuffer> {
  const s = atob(ELEPHANT_BASE64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/**
 * The shared diffusers, instantiated synchronously on first call (unless {@link initElephant} did it), or
 * undefined where the module cannot run (no WebAssembly or SIMD128, a Content-Security-Policy without
 * 'wasm-unsafe-eval', a main thread that refuses synchronous compilation). Never throws.
 */
export function elephantDiffusers(): WasmElephant | undefined {
  if (diffusers || syncFailed) return diffusers;
  try {
    diffusers = new Diffusers(new WebAssembly.Instance(new WebAssembly.Module(elephantModuleBytes()), {}));
  } catch {
    // initElephant() may still succeed where only synchronous compilation is refused.
  }
  syncFailed = diffusers === undefined;
  return diffusers;
}

/** Compiles and instantiates the module asynchronously (`init()` calls it); resolves too where it cannot. */
export async function initElephant(): Promise<void> {
  if (diffusers) return;
  try {
    const { instance } = await WebAssembly.instantiate(elephantModuleBytes(), {});
    diffusers ??= new Diffusers(instance);
  } catch {
    // Unavailable here: loadElephant() gives undefined and the caller keeps its own diffusers.
  }
}

/** The module's memory once instantiated (for the tests; not exported by the package). */
export function elephantMemory(): WebAssembly.Memory | undefined {
  return diffusers && Diffusers.memoryOf(diffusers);
}

class Diffusers implements WasmElephant {
  readonly core = 'simd128' as const;
  readonly #memory: WebAssembly.Memory;
  readonly #decrypt: Export;
  readonly #encrypt: Export;
  #mem: Uint8Array;
  /** Views of ELEPHANT_DATA by length, made once per length (and again after the memory grows). */
  #views = new Map<number, Uint8Array>();

  constructor(instance: WebAssembly.Instance) {
    const e = instance.exports as Record<string, unknown>;
    this.#memory = e.memory as WebAssembly.Memory;
    this.#decrypt = e.elephant_decrypt as Export;
    this.#encrypt = e.elephant_encrypt as Export;
    this.#mem = new Uint8Array(this.#memory.buffer);
  }

  static memoryOf(d: Diffusers): WebAssembly.Memory {
    return d.#memory;
  }

  decrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void {
    this.#run(this.#decrypt, data, sectorSize, keys);
  }

  encrypt(data: Uint8Array, sectorSize: number, keys: Uint8Array): void {
    this.#run(this.#encrypt, data, sectorSize, keys);
  }

  /**
   * `fn` over the sectors of `data` in chunks of up to ELEPHANT_CHUNK bytes (a call of that size or less is
   * one chunk and allocates nothing once its view exists), then wipes the sectors, keys and work area.
   */
  #run(fn: Export, data: Uint8Array, size: number, keys: Uint8Array): void {
    const n = data.length;
    if ((size !== 512 && size !== 1024 && size !== 2048 && size !== 4096) || n % size !== 0) {
      throw new RangeError(`${PREFIX}: Elephant takes whole sectors of 512, 1024, 2048 or 4096 bytes`);
    }
    if (keys.length < (32 * n) / size) throw new RangeError(`${PREFIX}: Elephant needs 32 bytes of key per sector`);
    if (n === 0) return;
    const first = Math.min(n, ELEPHANT_CHUNK);
    this.#fit(ELEPHANT_DATA + first);
    const mem = this.#mem;
    for (let off = 0; off < n; off += ELEPHANT_CHUNK) {
      const len = Math.min(ELEPHANT_CHUNK, n - off);
      const k = len / size;
      const from = (32 * off) / size;
      mem.set(keys.length === 32 * k ? keys : keys.subarray(from, from + 32 * k), ELEPHANT_KEYS);
      mem.set(len === n ? data : data.subarray(off, off + len), ELEPHANT_DATA);
      fn(ELEPHANT_DATA, ELEPHANT_KEYS, k, size);
      data.set(this.#view(len), off);
    }
    mem.fill(0, ELEPHANT_WORK, ELEPHANT_WORK + ELEPHANT_LANES * size);
    mem.fill(0, ELEPHANT_KEYS, ELEPHANT_KEYS + (32 * first) / size);
    mem.fill(0, ELEPHANT_DATA, ELEPHANT_DATA + first);
  }

  /** Grows the memory to at least `bytes` (it never shrinks). */
  #fit(bytes: number): void {
    const have = this.#memory.buffer.byteLength;
    if (have >= bytes) return;
    this.#memory.grow(Math.ceil((bytes - have) / PAGE));
    this.#mem = new Uint8Array(this.#memory.buffer);
    this.#views.clear();
  }

  #view(len: number): Uint8Array {
    let v = this.#views.get(len);
    if (v === undefined) {
      v = new Uint8Array(this.#memory.buffer, ELEPHANT_DATA, len);
      this.#views.set(len, v);
    }
    return v;
  }
}
