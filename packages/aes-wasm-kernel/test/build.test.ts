/**
 * The committed module is what the sources build, and it is constant time by construction: its only
 * data-dependent instructions are v128 bitwise operations, shifts and swizzles into constant tables; no
 * instruction turns a v128 into a scalar, so no address, branch or loop bound can depend on key or data.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { GENERATED, build } from '../scripts/build.js';
import { checkCircuits, sboxCircuit } from '../scripts/circuit.js';
import { moduleBytes } from '../src/module.js';
import { RELAXED_BYTES, RELAXED_SHA256, WASM_BYTES, WASM_SHA256 } from '../src/wasm.generated.js';

/** Every instruction the module may contain. Scalars (i32) come only from parameters and constants. */
const ALLOWED = new Set([
  // v128: loads and stores at public addresses, and operations that take the same time for every value.
  'v128.load', 'v128.store', 'v128.xor', 'v128.and', 'i16x8.shr_u', 'i64x2.shr_u', 'i64x2.shr_s', 'i64x2.shl',
  'i8x16.swizzle', 'i8x16.relaxed_swizzle',
  // Locals, calls and structured control flow on public i32 values.
  'local.get', 'local.set', 'local.tee', 'call', 'block', 'loop', 'end', 'br', 'br_if',
  'i32.const', 'i32.add', 'i32.sub', 'i32.and', 'i32.shl', 'i32.eq', 'i32.gt_u', 'i32.ge_u', 'i32.eqz',
]);

/** The module as text, as wabt disassembles it. */
async function textOf(relaxed: boolean): Promise<string> {
  const wabt = await wabtInit();
  const mod = wabt.readWasm(moduleBytes(relaxed), { readDebugNames: false, simd: true, relaxed_simd: true });
  try {
    return mod.toText({ foldExprs: false, inlineExport: false });
  } finally {
    mod.destroy();
  }
}

describe('the generated module', () => {
  it('is identical to a fresh build (npm run build)', async () => {
    const { source, wasm, relaxed } = await build();
    expect(readFileSync(GENERATED, 'utf8')).toBe(source);
    expect(Buffer.compare(moduleBytes(false), wasm)).toBe(0);
    expect(Buffer.compare(moduleBytes(true), relaxed)).toBe(0);
  });

  it('evaluates the intended S-box circuits, right on all 256 inputs', () => {
    expect(() => checkCircuits()).not.toThrow();
    const count = (dir: 'enc' | 'dec', op: 'and' | 'xor') => sboxCircuit(dir).gates.filter((g) => g.op === op).length;
    // The tower circuit (37 AND, 97 XOR) and Boyar–Peralta's depth-16 inverse, NOTs folded (34 AND, 93 XOR).
    expect([count('enc', 'and'), count('enc', 'xor'), count('dec', 'and'), count('dec', 'xor')]).toEqual([37, 97, 34, 93]);
  });

  it('matches its recorded lengths and SHA-256 hashes', () => {
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect([moduleBytes(false).length, sha(moduleBytes(false))]).toEqual([WASM_BYTES, WASM_SHA256]);
    expect([moduleBytes(true).length, sha(moduleBytes(true))]).toEqual([RELAXED_BYTES, RELAXED_SHA256]);
  });

  it('has two builds that differ only in the swizzle instruction', async () => {
    const [plain, relaxed] = await Promise.all([textOf(false), textOf(true)]);
    expect(plain).not.toContain('relaxed_swizzle');
    expect(relaxed.replaceAll('i8x16.relaxed_swizzle', 'i8x16.swizzle')).toBe(plain);
  });

  it.each([false, true])('uses only constant-time instructions and no v128-to-scalar conversion (relaxed: %s)', async (relaxed) => {
    const text = await textOf(relaxed);
    const used = new Set<string>();
    let inFunc = false;
    for (const line of text.split('\n')) {
      const t = line.trim();
      if (t.startsWith('(func')) inFunc = true;
      else if (inFunc && /^[a-z]/.test(t)) used.add(t.split(/[\s)]/)[0]);
      else if (/^\((memory|data|export|type)/.test(t)) inFunc = false;
    }
    expect([...used].filter((op) => !ALLOWED.has(op))).toEqual([]);
    expect([used.has('i8x16.swizzle'), used.has('i8x16.relaxed_swizzle')]).toEqual([!relaxed, relaxed]);
    // The memory has a maximum of one page: it can never grow.
    expect(text).toMatch(/\(memory \(;0;\) 1 1\)/);
  });
});
