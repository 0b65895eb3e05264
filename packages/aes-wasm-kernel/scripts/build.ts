/**
 * Generates src/wasm.generated.ts: builds the kernel's WebAssembly modules from source with npm packages
 * only (wabt's WAT assembler, run in WebAssembly itself, pinned in the root package.json) and embeds
 * them as base64, with their length and SHA-256 in their TSDoc, so that bundlers and browsers need no
 * file loading. The output is byte-for-byte deterministic. Two builds of the same code: with
 * `i8x16.swizzle` (SIMD128), and with `i8x16.relaxed_swizzle` for runtimes that have relaxed-simd (same
 * results, see scripts/wat.ts). The second build pays for itself: where relaxed-simd runs it is 2–17 %
 * faster on the parallel paths and about 35 % faster on serial CBC encryption (bench/relaxed.ts).
 *
 *   npm run generate                   write src/wasm.generated.ts (`npm run build` runs it first)
 *   CI=true npm run generate           write nothing; exit 1 when src/wasm.generated.ts differs from a
 *                                      fresh build (so does `npx tsx scripts/build.ts --check`)
 *   npx tsx scripts/build.ts --wat     print the WebAssembly text (of the i8x16.swizzle build)
 */
import { fileURLToPath } from 'node:url';
import { generatedHeader, generatorInputs, writeOrCheck } from '@x/circuits';
import { assembler, embed, WABT } from '@x/circuits/wasm';
import { checkCircuits, kernelCircuits } from './circuit.js';
import { selfCheck } from './tables.js';
import { moduleText } from './wat.js';

/** Where the generated modules go. @example `readFileSync(GENERATED, 'utf8') === (await build()).source` */
export const GENERATED = new URL('../src/wasm.generated.ts', import.meta.url);

/**
 * Checks the tables and circuits exhaustively, then emits and assembles the two builds of the module:
 * the text and bytes of each, and the TypeScript source that embeds them (the content of
 * src/wasm.generated.ts).
 *
 * @example
 * ```ts
 * const { source } = await build();
 * readFileSync(GENERATED, 'utf8') === source; // the committed modules are up to date
 * ```
 */
export async function build(): Promise<{
  wat: string;
  wasm: Uint8Array<ArrayBuffer>;
  relaxed: Uint8Array<ArrayBuffer>;
  source: string;
}> {
  selfCheck();
  const circuits = kernelCircuits();
  checkCircuits(circuits);
  const assemble = await assembler('aes.wat');
  const wat = moduleText({ circuits, swizzle: 'i8x16.swizzle' });
  const wasm = assemble(wat);
  const relaxed = assemble(moduleText({ circuits, swizzle: 'i8x16.relaxed_swizzle' }));
  const source = [
    generatedHeader('scripts/build.ts', [...generatorInputs(new URL(import.meta.url)), WABT]),
    '// Regenerate with `npm run generate` in packages/aes-wasm-kernel (`npm run build` runs it); under CI=true',
    '// that command checks this file instead, and fails when it differs from a fresh build.',
    '',
    ...embed('WASM_BASE64', 'The SIMD128 module (i8x16.swizzle)', wasm),
    '',
    ...embed('RELAXED_BASE64', 'The same module with i8x16.relaxed_swizzle, for runtimes with relaxed-simd', relaxed),
    '',
  ].join('\n');
  return { wat, wasm, relaxed, source };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { wat, wasm, relaxed, source } = await build();
  if (process.argv.includes('--wat')) {
    process.stdout.write(wat);
  } else if (writeOrCheck(GENERATED, source)) {
    console.log(`modules of ${wasm.length} and ${relaxed.length} bytes`);
  }
}
