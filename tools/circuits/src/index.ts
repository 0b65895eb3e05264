/**
 * `@x/circuits` (private): what the code generators of `@x/aes-portable` and `@x/aes-wasm-kernel` share.
 * The AES S-box circuits as straight-line programs and their parser, the S-box from its definition to
 * check them against, and the convention of generated files (header, `npm run generate`, the check
 * under CI). Generator-time only: no kernel imports this at run time.
 *
 * @example
 * ```ts
 * import { INV_SBOX, INV_SBOX_DEPTH16, evaluateProgram, parseProgram } from '@x/circuits';
 * const gates = parseProgram(INV_SBOX_DEPTH16);
 * for (let x = 0; x < 256; x++) if (evaluateProgram(gates, 'W', x) !== INV_SBOX[x]) throw new Error(`${x}`);
 * ```
 */
export { INV_SBOX, SBOX, affine, inv, mul, pow } from './field.js';
export { checkOnly, generatedHeader, generatorInputs, writeOrCheck } from './generated.js';
export { evaluateProgram, parseProgram, type ProgramGate, type ProgramOp } from './program.js';
export { INV_SBOX_DEPTH16, SBOX_113 } from './sbox.js';
