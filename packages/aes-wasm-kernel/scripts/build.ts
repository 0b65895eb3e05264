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
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { generatedHeader, generatorInputs, writeOrCheck } from '@x/circuits';
import wabtInit from 'wabt';
import { checkCircuits, kernelCircuits } from './circuit.js';
import { selfCheck } from './tables.js';
import { moduleText } from './wat.js';

/** Where the generated modules go. @example `readFileSync(GENERATED, 'utf8') === (await build()).source` */
export const GENERATED = new URL('../src/wasm.generated.ts', import.meta.url);

/** The assembler and its version (an input of the build: named in the generated file's first line). */
const WABT = `wabt ${(createRequire(import.meta.url)('wabt/package.json') as { version: string }).version}`;

/**
 * wabt's assembler: WebAssembly text to a validated binary (LEBs canonical, no names section).
 *
 * @example
 * ```ts
 * const assemble = await assembler();
 * const bytes = assemble(moduleText({ circuits: kernelCircuits(), swizzle: 'i8x16.swizzle' }));
 * ```
 */
export async function assembler(): Promise<(text: string) => Uint8Array<ArrayBuffer>> {
  const wabt = await wabtInit();
  return (text) => {
    const mod = wabt.parseWat('aes.wat', text, { simd: true, multi_value: true, relaxed_simd: true });
    try {
      mod.validate();
      return new Uint8Array(mod.toBinary({ canonicalize_lebs: true, write_debug_names: false }).buffer);
    } finally {
      mod.destroy();
    }
  };
}

/** One module embedded as a base64 constant, its length and SHA-256 in the TSDoc. */
function embed(name: string, what: string, bytes: Uint8Array): string[] {
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
  const assemble = await assembler();
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
