/**
 * The Boolean circuits for the AES S-box and its inverse (FIPS 197 §5.1.1, §5.3.2) that the bitsliced
 * kernel evaluates: each wire is a v128 holding one bit of 128 bytes (8 blocks), so one evaluation
 * substitutes 8 blocks at once. Both are XOR/AND only; the constants 0x63 are left to the round keys: the
 * S-box circuit computes S(x) ^ 0x63 (0x63 folded into round keys 1..Nr), the inverse circuit InvS(x ^ 0x63)
 * (folded into round keys 0..Nr-1).
 *
 * - Inverse S-box: Boyar and Peralta's depth-16 circuit (127 gates, 34 AND), read from its one
 *   definition in the private workspace `@x/circuits` (tools/circuits; the portable kernel's generator
 *   compiles the same text; a build-time import, nothing of it reaches the module but the gates). Its bit
 *   order is translated (U_i, W_i = bit 7 - i there, bit j here) and its NOTs removed (see
 *   {@link fromProgram}).
 * - S-box: derived here from a tower field as in tables.ts (with β and the GF(2^4) basis chosen by a small
 *   search), 134 gates. Boyar and Peralta's 113-gate S-box (same workspace) was measured slower in this kernel
 *   (1–6 % on V8's x64 code, both builds): V8 reorders the gates itself and spills more of its deeper,
 *   narrower middle layer, so the smaller circuit does not pay here.
 *
 * Tower form: x = p + q·β (tables.ts) has inverse x^-1 = ((p + q) + q·β) / N with N = p² + pq + νq² in
 * GF(2^4): one GF(2^4) product for N (16 ANDs), one GF(2^4) inversion (from its algebraic normal form), two
 * products for the result; squaring and the multiplication by ν are GF(2)-linear, and the XORs that
 * collect the AND terms are merged into the linear maps that consume them. The basis change in front (FIPS
 * byte → p, q) and behind (→ FIPS byte, through the affine map) are GF(2)-linear maps, each a network of
 * XORs.
 */
import { INV_SBOX, INV_SBOX_DEPTH16, SBOX, affine, inv, mul, parseProgram, pow } from '@x/circuits';
import { affineInv } from './tables.js';

export type Gate = { op: 'xor' | 'and'; a: number; b: number };

/** A straight-line circuit: wires 0..7 are the input bits (bit j = value 1 << j), then one per gate. */
export interface Circuit {
  readonly gates: readonly Gate[];
  /** The wire of output bit j. */
  readonly outputs: readonly number[];
}

/** Builds a circuit, one gate per distinct (operation, operands). */
class Builder implements Circuit {
  readonly gates: Gate[] = [];
  outputs: number[] = [];
  private readonly memo = new Map<string, number>();
  constructor(readonly inputs = 8) {}
  private gate(op: Gate['op'], a: number, b: number): number {
    if (a > b) [a, b] = [b, a];
    const key = `${op}${a},${b}`;
    let w = this.memo.get(key);
    if (w === undefined) {
      w = this.inputs + this.gates.length;
      this.gates.push({ op, a, b });
      this.memo.set(key, w);
    }
    return w;
  }
  xor = (a: number, b: number) => this.gate('xor', a, b);
  and = (a: number, b: number) => this.gate('and', a, b);
  /** XOR of a list of wires (at least one). */
  sum(ws: number[]): number {
    if (ws.length === 0) throw new Error('empty sum');
    return ws.reduce((acc, w) => this.xor(acc, w));
  }
  /**
   * y = M·x over GF(2), M given by its columns (col[i] = image of input bit i, as a bit mask of `outBits`
   * bits). Pairs of inputs shared by several outputs are XORed once (a greedy common-subexpression pass).
   */
  linear(x: number[], cols: number[], outBits: number): number[] {
    const rows: Set<number>[] = Array.from(
      { length: outBits },
      (_, k) => new Set(x.filter((_, i) => (cols[i] >> k) & 1)),
    );
    for (;;) {
      const count = new Map<string, number>();
      for (const r of rows) {
        const ws = [...r].sort((a, b) => a - b);
        for (let i = 0; i < ws.length; i++)
          for (let j = i + 1; j < ws.length; j++) {
            const key = `${ws[i]},${ws[j]}`;
            count.set(key, (count.get(key) ?? 0) + 1);
          }
      }
      let best: string | undefined,
        n = 1;
      for (const [key, c] of count) {
        if (c > n) {
          best = key;
          n = c;
        }
      }
      if (!best) break;
      const [a, b] = best.split(',').map(Number);
      const w = this.xor(a, b);
      for (const r of rows) {
        if (r.has(a) && r.has(b)) {
          r.delete(a);
          r.delete(b);
          r.add(w);
        }
      }
    }
    return rows.map((r) => this.sum([...r]));
  }
}

/** A tower-field representation: β (β + β^16 = 1) and a GF(2)-basis of GF(2^4) for the nibbles. */
export interface Tower {
  readonly beta: number;
  readonly basis: readonly number[];
  /** GF(2^4) products by Karatsuba (9 ANDs) rather than schoolbook (16). */
  readonly karatsuba: boolean;
}

/** Columns of a GF(2)-linear byte map. */
const cols8 = (f: (x: number) => number) => [0, 1, 2, 3, 4, 5, 6, 7].map((b) => f(1 << b));

/**
 * The S-box (`enc`) or the inverse S-box without its constant (`dec`: x ↦ inv(affine^-1(x)), the
 * caller adds 0x63 first) as a circuit on the 8 bits of a byte, for a given tower representation.
 */
export function sboxCircuitFor(dir: 'enc' | 'dec', { beta, basis, karatsuba }: Tower): Builder {
  const g = basis[0] === 1 ? basis[1] : basis[0];
  const polyNib = (n: number) => [0, 1, 2, 3].reduce((acc, m) => ((n >> m) & 1 ? acc ^ pow(g, m) : acc), 0);
  const popParity = (v: number) => (v ^ (v >> 1) ^ (v >> 2) ^ (v >> 3)) & 1;
  const nib = (n: number) => basis.reduce((acc, e, b) => ((n >> b) & 1 ? acc ^ e : acc), 0);
  const unnibTable = new Map<number, number>();
  for (let n = 0; n < 16; n++) unnibTable.set(nib(n), n);
  if (unnibTable.size !== 16) throw new Error('not a basis');
  const unnib = (y: number) => {
    const n = unnibTable.get(y);
    if (n === undefined) throw new Error('not in GF(16)');
    return n;
  };
  const cols4 = (f: (e: number) => number) => basis.map((e) => unnib(f(e)));
  const nu = pow(beta, 17);
  // x = nib(p) + nib(q)·β; the byte (p << 4) | q.
  const fromTower = (w: number) => nib(w >> 4) ^ mul(nib(w & 15), beta);
  const tower = new Array<number>(256);
  for (let w = 0; w < 256; w++) tower[fromTower(w)] = w;
  /**
   * Product: AND terms, with the nibble each contributes to a·b (a linear map consumes them).
   * Schoolbook: the 16 terms a_i·b_j. Karatsuba (two levels, 9 terms) on the coordinates in the
   * polynomial basis 1, g, g², g³ (g = the first basis element), which are linear forms of the nibbles.
   */
  const product = (a: number[], b: number[]): [number[], number[]] => {
    const terms: number[] = [],
      cols: number[] = [];
    if (!karatsuba) {
      for (let i = 0; i < 4; i++)
        for (let j = 0; j < 4; j++) {
          terms.push(c.and(a[i], b[j]));
          cols.push(unnib(mul(basis[i], basis[j])));
        }
      return [terms, cols];
    }
    // The 9 Karatsuba forms on polynomial coordinates (bit m = coordinate of g^m), and for each term the
    // polynomial coefficients it enters: c = l + (m + l + h)·x² + h·x⁴ with l, m, h 2-coefficient products.
    const forms = [0b0001, 0b0010, 0b0011, 0b0100, 0b1000, 0b1100, 0b0101, 0b1010, 0b1111];
    const l = [[0], [0, 1, 2], [1]]; // coefficient j of a 2×2 Karatsuba product: which of its 3 terms
    const coeff = new Array<number>(9).fill(0); // bit mask over x^0..x^6
    for (let j = 0; j < 3; j++)
      for (const t of l[j]) {
        coeff[t] ^= 1 << j; // low
        coeff[3 + t] ^= (1 << (j + 4)) ^ (1 << (j + 2)); // high: h·x⁴ and h·x² (from m + l + h)
        coeff[6 + t] ^= 1 << (j + 2); // middle
      }
    for (let j = 0; j < 3; j++) for (const t of l[j]) coeff[t] ^= 1 << (j + 2); // l·x² (from m + l + h)
    // Linear forms on the nibble bits: coordinate m of basis element e_i in the polynomial basis.
    const polyCoord = (e: number) => {
      for (let n = 0; n < 16; n++) if (polyNib(n) === e) return n;
      throw new Error('not in GF(16)');
    };
    const P = basis.map(polyCoord); // P[i] = polynomial coordinates of e_i
    const formCols = (f: number) => P.map((pc) => popParity(pc & f));
    const fa = c.linear(
      a,
      a.map((_, i) => forms.reduce((acc, f, k) => acc | (formCols(f)[i] << k), 0)),
      9,
    );
    const fb = c.linear(
      b,
      b.map((_, i) => forms.reduce((acc, f, k) => acc | (formCols(f)[i] << k), 0)),
      9,
    );
    for (let k = 0; k < 9; k++) {
      terms.push(c.and(fa[k], fb[k]));
      let v = 0;
      for (let m = 0; m <= 6; m++) if ((coeff[k] >> m) & 1) v ^= pow(g, m);
      cols.push(unnib(v));
    }
    return [terms, cols];
  };
  const c = new Builder(8);
  const x = [0, 1, 2, 3, 4, 5, 6, 7];
  const into = dir === 'enc' ? (y: number) => tower[y] : (y: number) => tower[affineInv(y)];
  const w = c.linear(x, cols8(into), 8); // tower form: q = bits 0..3, p = bits 4..7
  const q = w.slice(0, 4),
    p = w.slice(4, 8);
  // N = p² + pq + νq², one linear map over the product terms and p, q.
  const [pq, pqCols] = product(p, q);
  const n = c.linear(
    [...pq, ...p, ...q],
    [...pqCols, ...cols4((e) => mul(e, e)), ...cols4((e) => mul(nu, mul(e, e)))],
    4,
  );
  // 1/N in GF(2^4) from its algebraic normal form.
  const f = (v: number) => (v === 0 ? 0 : unnib(inv(nib(v))));
  const mono = new Map<number, number>();
  const wire = (m: number): number => {
    let r = mono.get(m);
    if (r === undefined) {
      const low = m & -m,
        rest = m ^ low;
      r = rest === 0 ? n[Math.log2(low)] : c.and(wire(rest), n[Math.log2(low)]);
      mono.set(m, r);
    }
    return r;
  };
  const d = [0, 1, 2, 3].map((k) => {
    const anf = Array.from({ length: 16 }, (_, v) => (f(v) >> k) & 1);
    for (let b = 0; b < 4; b++) for (let v = 0; v < 16; v++) if (v & (1 << b)) anf[v] ^= anf[v ^ (1 << b)];
    return c.sum(anf.flatMap((bit, m) => (bit && m ? [wire(m)] : [])));
  });
  // x^-1 = (p + q)/N + (q/N)·β, then back to a FIPS byte (through the affine map for the S-box).
  // As products of p and q with 1/N: x^-1 = p/N + (q/N)·(1 + β).
  const [pd, pdCols] = product(p, d);
  const [qd, qdCols] = product(q, d);
  const out = dir === 'enc' ? affine : (y: number) => y;
  c.outputs = c.linear(
    [...pd, ...qd],
    [...pdCols.map((v) => out(nib(v))), ...qdCols.map((v) => out(mul(nib(v), 1 ^ beta)))],
    8,
  );
  return c;
}

/** The elements of GF(2^4) inside GF(2^8). */
const GF16 = Array.from({ length: 256 }, (_, x) => x).filter((x) => pow(x, 16) === x);

/** Every representation considered: β with trace 1, and polynomial or normal bases of GF(2^4). */
export function towers(): Tower[] {
  const betas = Array.from({ length: 256 }, (_, b) => b).filter((b) => (b ^ pow(b, 16)) === 1);
  const bases: number[][] = [];
  for (const g of GF16) {
    if (pow(g, 4) === g) continue; // in GF(4): no basis of GF(16) from it
    bases.push([1, g, pow(g, 2), pow(g, 3)], [g, pow(g, 2), pow(g, 4), pow(g, 8)]);
  }
  const independent = (b: number[]) =>
    new Set(Array.from({ length: 16 }, (_, n) => b.reduce((a, e, i) => ((n >> i) & 1 ? a ^ e : a), 0))).size === 16;
  return [false, true].flatMap((karatsuba) =>
    betas.flatMap((beta) => bases.filter(independent).map((basis) => ({ beta, basis, karatsuba }))),
  );
}

/**
 * The tower representation for one direction: the first, in the order of {@link towers}, with the fewest
 * gates (a search of 640 candidates, a second at build time).
 */
export function bestTower(dir: 'enc' | 'dec'): Tower {
  let best: Tower | undefined,
    n = Infinity;
  for (const t of towers()) {
    const g = sboxCircuitFor(dir, t).gates.length;
    if (g < n) {
      n = g;
      best = t;
    }
  }
  if (!best) throw new Error('no tower representation');
  return best;
}

/**
 * Reads a straight-line program of `@x/circuits` (`out = a ^ b`, `a # b` XNOR, `a & b` AND; inputs U0..U7,
 * outputs `${out}0`..`${out}7`, U0 and out0 the most significant bit) as a circuit on this kernel's wires,
 * its input complemented by `cIn`, without NOTs: a complement travels through XORs as a flag and must never
 * reach an AND (it does not in the programs used: checked). Returns the circuit and the complement left on
 * its outputs.
 */
export function fromProgram(text: string, out: string, cIn: number): { circuit: Circuit; cOut: number } {
  const wire = new Map<string, number>(),
    flip = new Map<string, number>();
  for (let i = 0; i < 8; i++) {
    wire.set(`U${i}`, 7 - i);
    flip.set(`U${i}`, (cIn >> (7 - i)) & 1);
  }
  const signal = (name: string): [number, number] => {
    const w = wire.get(name),
      f = flip.get(name);
    if (w === undefined || f === undefined) throw new Error(`undefined signal ${name}`);
    return [w, f];
  };
  const gates: Gate[] = [];
  for (const g of parseProgram(text)) {
    const [a, fa] = signal(g.a),
      [b, fb] = signal(g.b);
    if (g.op === '&' && (fa || fb)) throw new Error(`complemented AND input: ${g.out} = ${g.a} & ${g.b}`);
    flip.set(g.out, g.op === '&' ? 0 : fa ^ fb ^ (g.op === '#' ? 1 : 0));
    wire.set(g.out, 8 + gates.length);
    gates.push({ op: g.op === '&' ? 'and' : 'xor', a, b });
  }
  const outputs: number[] = [];
  let cOut = 0;
  for (let j = 0; j < 8; j++) {
    const [w, f] = signal(`${out}${7 - j}`);
    outputs.push(w);
    cOut |= f << j;
  }
  return { circuit: { gates, outputs }, cOut };
}

/** Largest number of wires live at once while a circuit is evaluated in gate order (outputs live to the end). */
export function maxLive(c: Circuit): number {
  const last = new Array<number>(8 + c.gates.length).fill(-1);
  for (const [n, g] of c.gates.entries()) {
    last[g.a] = n;
    last[g.b] = n;
  }
  for (const o of c.outputs) last[o] = Infinity;
  let live = 8,
    peak = 8;
  c.gates.forEach((g, n) => {
    peak = Math.max(peak, ++live);
    for (const w of new Set([g.a, g.b])) if (last[w] === n) live--;
  });
  return peak;
}

/**
 * The gates reordered to keep few wires live: a greedy list schedule that, among the gates whose operands
 * are ready, takes the one that frees the most operands (their last use), then the one reading the most
 * recently computed wire, then the first in the given order; wires renumbered so that gate n is wire 8 + n.
 * (V8's optimizing compiler on Node 20 reschedules the gates itself — the x64 code is the same for either
 * order — but a compiler that keeps the order gets the smaller live set.)
 */
export function schedule(c: Circuit): Circuit {
  const n = c.gates.length;
  const uses = new Array<number>(8 + n).fill(0);
  for (const g of c.gates) for (const w of new Set([g.a, g.b])) uses[w]++;
  for (const o of c.outputs) uses[o]++; // never freed
  const done = new Array<boolean>(n).fill(false);
  const when = new Array<number>(8 + n).fill(-1); // step at which a wire was computed (inputs: -1)
  const rename = [0, 1, 2, 3, 4, 5, 6, 7];
  const gates: Gate[] = [];
  const ready = (w: number) => w < 8 || done[w - 8];
  for (let step = 0; step < n; step++) {
    let pick = -1,
      frees = -1,
      recent = -Infinity;
    c.gates.forEach((g, i) => {
      if (done[i] || !ready(g.a) || !ready(g.b)) return;
      const ops = [...new Set([g.a, g.b])];
      const f = ops.filter((w) => uses[w] === 1).length,
        r = Math.max(...ops.map((w) => when[w]));
      if (f > frees || (f === frees && r > recent)) {
        pick = i;
        frees = f;
        recent = r;
      }
    });
    const g = c.gates[pick];
    done[pick] = true;
    for (const w of new Set([g.a, g.b])) uses[w]--;
    when[8 + pick] = step;
    rename[8 + pick] = 8 + gates.length;
    gates.push({ op: g.op, a: rename[g.a], b: rename[g.b] });
  }
  return { gates, outputs: c.outputs.map((o) => rename[o]) };
}

/** The two circuits of the kernel (see {@link kernelCircuits}). @example `kernelCircuits().enc.outputs.length; // 8` */
export interface KernelCircuits {
  readonly enc: Circuit;
  readonly dec: Circuit;
}

/**
 * The circuits of the kernel: `enc` x ↦ S(x) ^ 0x63 (the tower circuit), `dec` x ↦ InvS(x ^ 0x63)
 * (Boyar–Peralta depth 16, scheduled by {@link schedule}). Computed afresh on each call (the tower search
 * takes about a second): the build computes them once and passes them on.
 *
 * @example
 * ```ts
 * const circuits = kernelCircuits();
 * checkCircuits(circuits);
 * circuits.dec.gates.length; // 127
 * ```
 */
export function kernelCircuits(): KernelCircuits {
  // The kernel's convention: InvS(x ^ 0x63) with no constant out, i.e. 0x63 complemented at the input.
  const { circuit, cOut } = fromProgram(INV_SBOX_DEPTH16, 'W', 0x63);
  if (cOut !== 0) throw new Error(`inverse S-box circuit leaves ${cOut} on its outputs`);
  return { enc: sboxCircuitFor('enc', bestTower('enc')), dec: schedule(circuit) };
}

/** Evaluates a circuit on one byte (a bit per wire). */
export function evaluate(c: Circuit, x: number): number {
  const v = [0, 1, 2, 3, 4, 5, 6, 7].map((b) => (x >> b) & 1);
  for (const g of c.gates) v.push(g.op === 'xor' ? v[g.a] ^ v[g.b] : v[g.a] & v[g.b]);
  return c.outputs.reduce((acc, w, b) => acc | (v[w] << b), 0);
}

/**
 * Checks both circuits exhaustively against the S-box of FIPS 197 §5.1.1 / §5.3.2 (`@x/circuits`, computed
 * from the definition): `enc` must compute S(x) ^ 0x63 and `dec` InvS(x ^ 0x63). Throws on a mismatch.
 */
export function checkCircuits({ enc, dec }: KernelCircuits): void {
  for (let x = 0; x < 256; x++) {
    if (evaluate(enc, x) !== (SBOX[x] ^ 0x63)) throw new Error(`S-box circuit wrong at ${x}`);
    if (evaluate(dec, x) !== INV_SBOX[x ^ 0x63]) throw new Error(`inverse S-box circuit wrong at ${x}`);
  }
}
