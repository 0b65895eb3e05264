/**
 * What a browser bundler makes of an entry point: esbuild, bundled, minified, for the browser, from the
 * packages' TypeScript sources (the "source" export condition, so no build is needed first); and the
 * commands' bundles for Node that the command tests run.
 */
import { join } from 'node:path';
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

/**
 * Bundles commands for Node from their TypeScript sources (the `source` export condition: no build of the
 * packages needed) into `outdir`, one `<name>.mjs` per entry, and returns their paths. The bundles are ES
 * modules with a `require` of their own: hash-wasm's UMD build and Node's createRequire need one.
 *
 * @example
 * ```ts
 * const { 'x-luks': bin } = await bundleNodeCommands({ 'x-luks': '/repo/packages/cli/src/x-luks.ts' }, dir);
 * ```
 */
export async function bundleNodeCommands<Name extends string>(
  entries: Record<Name, string>,
  outdir: string,
): Promise<Record<Name, string>> {
  await build({
    entryPoints: entries,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __xCreateRequire } from 'node:module'; const require = __xCreateRequire(import.meta.url);",
    },
  });
  return Object.fromEntries(Object.keys(entries).map((name) => [name, join(outdir, `${name}.mjs`)])) as Record<
    Name,
    string
  >;
}
