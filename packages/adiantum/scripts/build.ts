/**
 * Generates src/wasm.generated.ts: the SIMD128 core of scripts/wat.ts, assembled by wabt (pinned in the
 * root package.json, through @x/circuits) and embedded as base64 with its length and SHA-256. The output
 * is byte-for-byte deterministic.
 *
 *   npm run generate                   write src/wasm.generated.ts (`npm run build` runs it first)
 *   CI=true npm run generate           write nothing; exit 1 when src/wasm.generated.ts differs from a
 *                                      fresh build (so does `npx tsx scripts/build.ts --check`)
 *   npx tsx scripts/build.ts --wat     print the WebAssembly text
 */
import { fileURLToPath } from 'node:url';
import { generatedHeader, generatorInputs, writeOrCheck } from '@x/circuits';
import { assembler, embed, WABT } from '@x/circuits/wasm';
import { DEFAULT_OPTIONS, moduleText, type WatOptions } from './wat.js';

/** Where the generated module goes. @example `readFileSync(GENERATED, 'utf8') === (await build()).source` */
export const GENERATED = new URL('../src/wasm.generated.ts', import.meta.url);

/**
 * Emits and assembles the core: its text, its bytes, and the TypeScript source that embeds them (the
 * content of src/wasm.generated.ts). Other options build variants for measurement (bench/core.ts).
 *
 * @example
 * ```ts
 * const { source } = await build();
 * readFileSync(GENERATED, 'utf8') === source; // the committed module is up to date
 * ```
 */
export async function build(
  options: WatOptions = DEFAULT_OPTIONS,
): Promise<{ wat: string; wasm: Uint8Array<ArrayBuffer>; source: string }> {
  const assemble = await assembler('adiantum.wat');
  const wat = moduleText(options);
  const wasm = assemble(wat);
  const source = [
    generatedHeader('scripts/build.ts', [...generatorInputs(new URL(import.meta.url)), WABT]),
    '// Regenerate with `npm run generate` in packages/adiantum (`npm run build` runs it); under CI=true that',
    '// command checks this file instead, and fails when it differs from a fresh build.',
    '',
    ...embed('WASM_BASE64', 'The SIMD128 HBSH core (XChaCha, NH, Poly1305; scripts/wat.ts)', wasm),
    '',
  ].join('\n');
  return { wat, wasm, source };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { wat, wasm, source } = await build();
  if (process.argv.includes('--wat')) {
    process.stdout.write(wat);
  } else if (writeOrCheck(GENERATED, source)) {
    console.log(`module of ${wasm.length} bytes`);
  }
}
