/**
 * What the WebAssembly generators share: wabt's assembler (WebAssembly text to a validated binary, run in
 * WebAssembly itself, pinned in the root package.json) and the embedding of a module as a base64 constant
 * in a generated TypeScript file, so that bundlers and browsers need no file loading. Both are
 * deterministic: the same text gives the same bytes and the same source.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import wabtInit from 'wabt';

/**
 * The assembler and its version, as generated files name it among their inputs (it shapes the bytes).
 *
 * @example
 * ```ts
 * generatedHeader('scripts/build.ts', [...generatorInputs(new URL(import.meta.url)), WABT]);
 * ```
 */
export const WABT = `wabt ${(createRequire(import.meta.url)('wabt/package.json') as { version: string }).version}`;

/**
 * wabt's assembler: WebAssembly text to a validated binary (LEBs canonical, no names section), with the
 * SIMD128, multi-value and relaxed-simd proposals enabled. `name` only labels error messages.
 *
 * @example
 * ```ts
 * const assemble = await assembler();
 * const bytes = assemble('(module (func (export "f") (result i32) (i32.const 1)))');
 * ```
 */
export async function assembler(name = 'module.wat'): Promise<(text: string) => Uint8Array<ArrayBuffer>> {
  const wabt = await wabtInit();
  return (text) => {
    const mod = wabt.parseWat(name, text, { simd: true, multi_value: true, relaxed_simd: true });
    try {
      mod.validate();
      return new Uint8Array(mod.toBinary({ canonicalize_lebs: true, write_debug_names: false }).buffer);
    } finally {
      mod.destroy();
    }
  };
}

/**
 * One module embedded as an exported base64 constant (lines of 100 characters), its length and SHA-256
 * in the TSDoc: the lines of TypeScript source to put in a generated file.
 *
 * @example
 * ```ts
 * const lines = embed('WASM_BASE64', 'The SIMD128 module', bytes);
 * lines.at(-1)?.endsWith(';'); // true
 * ```
 */
export function embed(name: string, what: string, bytes: Uint8Array): string[] {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return [
    '/**',
    ` * ${what}: ${bytes.length} bytes, SHA-256 ${sha256}, as base64.`,
    ' *',
    ' * @example',
    ' * ```ts',
    ` * const module = await WebAssembly.compile(Uint8Array.from(atob(${name}), (c) => c.charCodeAt(0)));`,
    ' * ```',
    ' */',
    `export const ${name} =`,
    `${(
      Buffer.from(bytes)
        .toString('base64')
        .match(/.{1,100}/g) ?? []
    )
      .map((l) => `  '${l}'`)
      .join(' +\n')};`,
  ];
}
