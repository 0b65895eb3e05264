/**
 * Reading and running the straight-line programs of sbox.ts: one parser for both generators, which then
 * compile the gates each their own way (complement-free 32-bit word operations in `@x/aes-portable`,
 * v128 wires in `@x/aes-wasm-kernel`).
 */

/** A gate's operation: XOR, XNOR, AND. */
export type ProgramOp = '^' | '#' | '&';

/** One line of a program: `out = a op b`. */
export interface ProgramGate {
  readonly out: string;
  readonly op: ProgramOp;
  readonly a: string;
  readonly b: string;
}

/**
 * Parses a program (one gate a line, `out = a ^ b`, `out = a # b` or `out = a & b`, blank lines ignored).
 * Throws on a line of another shape, an operand not yet defined (inputs are U0..U7), or a signal assigned
 * twice: the result is in single-assignment form and in evaluation order.
 *
 * @example
 * ```ts
 * parseProgram(SBOX_113).filter((g) => g.op === '&').length; // 32
 * ```
 */
export function parseProgram(text: string): ProgramGate[] {
  const defined = new Set(['U0', 'U1', 'U2', 'U3', 'U4', 'U5', 'U6', 'U7']);
  const gates: ProgramGate[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const m = /^(\w+) = (\w+) ([\^#&]) (\w+)$/.exec(t);
    if (!m || defined.has(m[1]) || !defined.has(m[2]) || !defined.has(m[4])) throw new Error(`bad gate: ${t}`);
    defined.add(m[1]);
    gates.push({ out: m[1], op: m[3] as ProgramOp, a: m[2], b: m[4] });
  }
  return gates;
}

/**
 * Runs a program on byte x: input Ui is bit 7 - i of x, and the result's bit 7 - i is output `${out}i`
 * (the papers' order, bit 0 the most significant).
 *
 * @example
 * ```ts
 * evaluateProgram(parseProgram(SBOX_113), 'S', 0x00); // 0x63
 * ```
 */
export function evaluateProgram(gates: readonly ProgramGate[], out: string, x: number): number {
  const v = new Map<string, number>();
  for (let i = 0; i < 8; i++) v.set(`U${i}`, (x >> (7 - i)) & 1);
  const get = (name: string): number => {
    const bit = v.get(name);
    if (bit === undefined) throw new Error(`undefined signal ${name}`);
    return bit;
  };
  for (const g of gates) {
    const a = get(g.a),
      b = get(g.b);
    v.set(g.out, g.op === '&' ? a & b : g.op === '^' ? a ^ b : 1 ^ a ^ b);
  }
  let y = 0;
  for (let i = 0; i < 8; i++) y |= get(`${out}${i}`) << (7 - i);
  return y;
}
