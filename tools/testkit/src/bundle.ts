/**
 * What a browser bundler makes of an entry point: esbuild, bundled, minified, for the browser, from the
 * packages' TypeScript sources (the "source" export condition, so no build is needed first).
 */
import { build } from 'esbuild';

/** The start of every WebAssembly module ("\0asm", version 1) in base64, as the wasm kernel embeds it. */
export const WASM_BASE64_MAGIC = 'AGFzbQEAAAA';

/**
 * The minified browser bundle of `export * from '<entry>'`, resolved from `resolveDir`.
 *
 * @example
 * ```ts
 * const js = await browserBundle('@x/cbc/portable', import.meta.dirname);
 * expect(js).not.toContain(WASM_BASE64_MAGIC);
 * ```
 */
export async function browserBundle(entry: string, resolveDir: string): Promise<string> {
  const out = await build({
    stdin: { contents: `export * from '${entry}';`, resolveDir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['source'],
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}
