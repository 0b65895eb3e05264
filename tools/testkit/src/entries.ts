/**
 * The entries test every mode package with a `/portable` entry runs: a browser bundle of `<package>/portable`
 * carries no WebAssembly module and no native loader (and is smaller by the WebAssembly kernel), and its
 * ciphers run the portable kernel, give the bytes of the package's own, and refuse any other kernel.
 */
import assert from 'node:assert/strict';
import { browserBundle, WASM_BASE64_MAGIC } from './bundle.js';
import type { Suite } from './suite.js';

/** A mode package's two entries, as the test sees them. */
export interface PortableEntry {
  /** The package: `'@x/xts'`; its portable entry is `'@x/xts/portable'`. */
  package: string;
  /** Where the bundler resolves the package from: the test's `import.meta.dirname`. */
  dir: string;
  /** The portable entry's `kernels()`. */
  kernels(): string[];
  /**
   * The same input through a cipher of each entry (one case per constructor the package has): the portable
   * entry's cipher's `kernel`, and both outputs.
   */
  same(): { kernel: string; portable: Uint8Array; best: Uint8Array }[];
  /** A call of the portable entry's constructor with `{ kernel: 'wasm-simd128' }`. */
  forceWasm(): unknown;
  /** What the portable entry runs, in the second test's title (default: "the portable kernel"). */
  runs?: string;
}

/**
 * The two entries tests, in a `describe('entries')`.
 *
 * @example
 * ```ts
 * portableEntryTests({ describe, it }, { package: '@x/xts', dir: import.meta.dirname, kernels, same, forceWasm });
 * ```
 */
export function portableEntryTests({ describe, it }: Suite, entry: PortableEntry): void {
  const name = entry.package;
  describe('entries', () => {
    it(`a browser bundle of ${name}/portable has no WebAssembly module and no native loader`, async () => {
      const portable = await browserBundle(`${name}/portable`, entry.dir);
      const all = await browserBundle(name, entry.dir);
      assert.ok(all.includes(WASM_BASE64_MAGIC), `${name} carries the WebAssembly kernel`);
      assert.ok(!portable.includes(WASM_BASE64_MAGIC), 'a WebAssembly module');
      assert.ok(!portable.includes('aes-native-arm64'), 'the native loader');
      assert.ok(!portable.includes('wasm-simd128'), 'the WebAssembly kernel');
      // What the portable entry leaves out: the WebAssembly kernel (its compressed modules are 24.7 KB of
      // base64) and the rest of the registry.
      assert.ok(all.length - portable.length > 25_000, `${all.length} − ${portable.length} bytes`);
    });

    it(`${name}/portable runs ${entry.runs ?? 'the portable kernel'} and gives the same bytes as ${name}`, () => {
      assert.deepEqual(entry.kernels(), ['portable']);
      for (const { kernel, portable, best } of entry.same()) {
        assert.equal(kernel, 'portable');
        assert.deepEqual(portable, best);
      }
      assert.throws(entry.forceWasm, {
        name: 'RangeError',
        message: `${name}: unknown kernel "wasm-simd128"; usable here: portable`,
      });
    });
  });
}

/**
 * A mode package's two entries by their constructors, for {@link modeEntryTests}: what differs between the
 * mode packages (the package, its constructors, its key and IV lengths, the call), the rest is the suite's.
 */
export interface ModeEntries<C extends { readonly kernel: string }> {
  /** The package: `'@x/xts'`. */
  package: string;
  /** Where the bundler resolves the package from: the test's `import.meta.dirname`. */
  dir: string;
  /** The portable entry's `kernels()`. */
  kernels(): string[];
  /** The package's constructor (`newXts` of `@x/xts`) and its portable entry's (of `@x/xts/portable`). */
  best(key: Uint8Array): C;
  portable(key: Uint8Array, options?: { kernel?: string }): C;
  /** The key's length in bytes, and the `iv` handed to {@link run} (IVs, tweaks or a nonce). */
  keyLength: number;
  ivLength: number;
  /** Bytes `run` writes to `dst` beyond the 1024 of `src` (an AEAD's tag). */
  extra?: number;
  /** One call of the cipher: `src` is 1024 bytes, `dst` 1024 + extra. */
  run(cipher: C, dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void;
}

/** `n` bytes whose byte i is `i * mul + add` (mod 256): fixed inputs, different for key, IV and data. */
const pattern = (n: number, mul: number, add: number) => new Uint8Array(n).map((_, i) => i * mul + add);

/**
 * {@link portableEntryTests} of a mode package with one constructor in each entry: the same key, IV and
 * 1024 bytes of data through both, and the portable constructor asked for the WebAssembly kernel.
 *
 * @example
 * ```ts
 * modeEntryTests({ describe, it }, {
 *   package: '@x/xts', dir: import.meta.dirname, kernels, best: newXts, portable: newPortable,
 *   keyLength: 64, ivLength: 32, run: (c, dst, src, tweaks) => c.encryptSectors(dst, src, 512, tweaks),
 * });
 * ```
 */
export function modeEntryTests<C extends { readonly kernel: string }>(suite: Suite, entries: ModeEntries<C>): void {
  const key = pattern(entries.keyLength, 7, 1);
  const iv = pattern(entries.ivLength, 1, 0);
  const src = pattern(1024, 13, 0);
  const out = 1024 + (entries.extra ?? 0);
  portableEntryTests(suite, {
    package: entries.package,
    dir: entries.dir,
    kernels: entries.kernels,
    same() {
      const p = entries.portable(key);
      const portable = new Uint8Array(out),
        best = new Uint8Array(out);
      entries.run(p, portable, src, iv);
      entries.run(entries.best(key), best, src, iv);
      return [{ kernel: p.kernel, portable, best }];
    },
    forceWasm: () => entries.portable(key, { kernel: 'wasm-simd128' }),
  });
}
