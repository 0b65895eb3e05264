/**
 * Generates src/wasm.generated.ts: builds the kernel's WebAssembly modules from source with npm packages
 * only (wabt's WAT assembler, run in WebAssembly itself, pinned in the root package.json) and embeds
 * them, compressed together (scripts/lz.ts, decoded by src/lz.ts) as one base64 constant, with each
 * build's length and SHA-256 in its TSDoc, so that bundlers and browsers need no file loading. The output
 * is byte-for-byte deterministic. Two builds of the same code: with `i8x16.swizzle` (SIMD128), and with
 * `i8x16.relaxed_swizzle` for runtimes that have relaxed-simd (same results, see scripts/wat.ts). The
 * second build pays for itself: where relaxed-simd runs it is about 20 % faster on serial CBC encryption
 * (bench/relaxed.ts, figures in the README), and compressed after the first it adds about 2 KB.
 *
 *   npm run generate                   write src/wasm.generated.ts (`npm run build` runs it first)
 *   CI=true npm run generate           write nothing; exit 1 when src/wasm.generated.ts differs from a
 *                                      fresh build (so does `npx tsx scripts/build.ts --check`)
 *   npx tsx scripts/build.ts --wat     print the WebAssembly text (of the i8x16.swizzle build)
 */
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { generatedHeader, generatorInputs, writeOrCheck } from '@x/circuits';
import { assembler, WABT } from '@x/circuits/wasm';
import { checkCircuits, kernelCircuits } from './circuit.js';
import { compress } from './lz.js';
import { selfCheck } from './tables.js';
import { moduleText } from './wat.js';

/** Where the generated modules go. @example `readFileSync(GENERATED, 'utf8') === (await build()).source` */
export const GENERATED = new URL('../src/wasm.generated.ts', import.meta.url);

/**
 * The lines that embed `builds` (each `[what, bytes]`), one after another and compressed together, as the
 * base64 constant MODULES_BASE64 and the end offsets MODULE_ENDS.
 */
function embedBuilds(builds: [string, Uint8Array][]): string[] {
  const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const starts: number[] = [];
  const ends: number[] = [];
  let end = 0;
  for (const [, bytes] of builds) {
    starts.push(end);
    end += bytes.length;
    ends.push(end);
  }
  const all = new Uint8Array(end);
  for (const [i, [, bytes]] of builds.entries()) all.set(bytes, starts[i]);
  const stream = compress(all);
  return [
    '/**',
    ` * The module's builds, one after another (${end} bytes), compressed together to ${stream.length} bytes`,
    ' * (scripts/lz.ts; the format is in src/lz.ts), as base64. In the decompressed bytes:',
    ' *',
    ...builds.map(
      ([what, bytes], i) =>
        ` * - [${starts[i]}, ${ends[i]}): ${what}: ${bytes.length} bytes, SHA-256 ${sha256(bytes)}.`,
    ),
    ' *',
    ' * @example',
    ' * ```ts',
    ' * const all = decompress(Uint8Array.from(atob(MODULES_BASE64), (c) => c.charCodeAt(0)), MODULE_ENDS.at(-1));',
    ' * ```',
    ' */',
    'export const MODULES_BASE64 =',
    `${(
      Buffer.from(stream)
        .toString('base64')
        .match(/.{1,100}/g) ?? []
    )
      .map((l) => `  '${l}'`)
      .join(' +\n')};`,
    '',
    '/** Where each build of {@link MODULES_BASE64} ends in the decompressed bytes. @example `MODULE_ENDS[0]; // the length of the plain build` */',
    `export const MODULE_ENDS = [${ends.join(', ')}] as const;`,
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
  const assemble = await assembler('aes.wat');
  const wat = moduleText({ circuits, swizzle: 'i8x16.swizzle' });
  const wasm = assemble(wat);
  const relaxed = assemble(moduleText({ circuits, swizzle: 'i8x16.relaxed_swizzle' }));
  const source = [
    generatedHeader('scripts/build.ts', [...generatorInputs(new URL(import.meta.url)), WABT]),
    '// Regenerate with `npm run generate` in packages/aes-wasm-kernel (`npm run build` runs it); under CI=true',
    '// that command checks this file instead, and fails when it differs from a fresh build.',
    '',
    ...embedBuilds([
      ['the SIMD128 module (i8x16.swizzle)', wasm],
      ['the same module with i8x16.relaxed_swizzle, for runtimes with relaxed-simd', relaxed],
    ]),
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
