/**
 * Generates src/bitsliced.generated.ts: the bitsliced AES layers of @x/aes-portable.
 *
 *   npm run generate            write src/bitsliced.generated.ts (`npm run build` runs it first)
 *   CI=true npm run generate    write nothing; exit 1 when the committed file differs from what this
 *                               generator makes now (so does `npx tsx scripts/generate.ts --check`)
 *
 * What it does, in order:
 * 1. parses the two S-box circuits of `@x/circuits` (tools/circuits) and checks them on all 256 inputs
 *    against the S-box computed there from its definition (FIPS 197 §5.1.1: inversion in GF(2^8), then
 *    the affine map);
 * 2. compiles each circuit to 32-bit word operations, moving every NOT (XNOR) out of the circuit: a
 *    complement travels through XORs, turns AND into OR or AND-NOT where it must, and what is left at the
 *    inputs (C_IN) and outputs (C_OUT) is a constant byte that the kernel folds into the round keys, so
 *    the S-box costs no NOT at all; it checks the compiled program on all 256 inputs again;
 * 3. emits the layers of the 32-block layout (SubBytes with ShiftRows as a choice of input words,
 *    MixColumns with AddRoundKey, the final rounds), the 32×32 bit transposes that convert to and from
 *    it, and the fixsliced one-block rounds for serial CBC encryption.
 */
import { fileURLToPath } from 'node:url';
import {
  INV_SBOX,
  INV_SBOX_DEPTH16,
  SBOX,
  SBOX_113,
  evaluateProgram,
  generatedHeader,
  generatorInputs,
  parseProgram,
  writeOrCheck,
  type ProgramGate,
} from '@x/circuits';

/** Where the generated code goes. @example `readFileSync(GENERATED, 'utf8') === generate()` */
export const GENERATED = new URL('../src/bitsliced.generated.ts', import.meta.url);

// ---- complement-free compilation ----
type WOp = '^' | '&' | '|' | '&~';
interface WGate {
  out: string;
  op: WOp;
  a: string;
  b: string;
}
interface Compiled {
  gates: WGate[];
  cIn: number;
  cOut: number;
  andNots: number;
  outs: string[];
}

/**
 * Compiles with the inputs complemented where cIn has a 1 bit. Each signal carries a "complemented" flag;
 * XOR/XNOR combine flags, AND of two complemented signals becomes OR (complemented), AND of one becomes
 * AND-NOT. The flags left on the outputs are cOut.
 */
function compile(gates: readonly ProgramGate[], outs: string[], cIn: number): Compiled {
  const flip = new Map<string, number>();
  for (let i = 0; i < 8; i++) flip.set(`U${i}`, (cIn >> (7 - i)) & 1);
  const out: WGate[] = [];
  let andNots = 0;
  for (const g of gates) {
    const fa = flip.get(g.a)!,
      fb = flip.get(g.b)!;
    if (g.op !== '&') {
      out.push({ out: g.out, op: '^', a: g.a, b: g.b });
      flip.set(g.out, fa ^ fb ^ (g.op === '#' ? 1 : 0));
    } else if (fa === fb) {
      out.push({ out: g.out, op: fa ? '|' : '&', a: g.a, b: g.b });
      flip.set(g.out, fa);
    } else {
      andNots++;
      // (~a) & b = b & ~a; a & (~b) = a & ~b
      out.push(fa ? { out: g.out, op: '&~', a: g.b, b: g.a } : { out: g.out, op: '&~', a: g.a, b: g.b });
      flip.set(g.out, 0);
    }
  }
  let cOut = 0;
  for (let i = 0; i < 8; i++) cOut |= flip.get(outs[i])! << (7 - i);
  return { gates: out, cIn, cOut, andNots, outs };
}

function evalCompiled(c: Compiled, x: number): number {
  const v = new Map<string, number>();
  for (let i = 0; i < 8; i++) v.set(`U${i}`, (x >> (7 - i)) & 1);
  for (const g of c.gates) {
    const a = v.get(g.a)!,
      b = v.get(g.b)!;
    v.set(g.out, g.op === '^' ? a ^ b : g.op === '&' ? a & b : g.op === '|' ? a | b : a & (1 ^ b));
  }
  let y = 0;
  for (let i = 0; i < 8; i++) y |= v.get(c.outs[i])! << (7 - i);
  return y;
}

/**
 * Checks a circuit on all 256 inputs against `table`, then compiles it with the input complement that
 * leaves the fewest AND-NOTs, and checks the compiled program on all 256 inputs again.
 */
function best(gates: readonly ProgramGate[], out: string, table: readonly number[], name: string): Compiled {
  for (let x = 0; x < 256; x++) {
    if (evaluateProgram(gates, out, x) !== table[x]) throw new Error(`${name}: circuit wrong at ${x}`);
  }
  const outs = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `${out}${i}`);
  let bestC: Compiled | undefined;
  for (let c = 0; c < 256; c++) {
    const k = compile(gates, outs, c);
    if (!bestC || k.andNots < bestC.andNots) bestC = k;
  }
  const k = bestC!;
  for (let x = 0; x < 256; x++) {
    if ((evalCompiled(k, x ^ k.cIn) ^ k.cOut) !== table[x]) throw new Error(`${name}: compiled circuit wrong at ${x}`);
  }
  return k;
}

/** The two compiled S-boxes: forward (Boyar–Matthews–Peralta, 113 gates) and inverse (Boyar–Peralta depth 16). */
interface Sboxes {
  readonly fwd: Compiled;
  readonly inv: Compiled;
}

function compiledSboxes(): Sboxes {
  return {
    fwd: best(parseProgram(SBOX_113), 'S', SBOX, 'S-box'),
    inv: best(parseProgram(INV_SBOX_DEPTH16), 'W', INV_SBOX, 'inverse S-box'),
  };
}

function gateCount(c: Compiled): string {
  const n = { '^': 0, '&': 0, '|': 0, '&~': 0 };
  for (const g of c.gates) n[g.op]++;
  return `${c.gates.length} operations (${n['^']} XOR, ${n['&']} AND, ${n['|']} OR, ${n['&~']} AND-NOT)`;
}

// ---- emission ----
const P = 'g_'; // prefix of circuit signals in emitted code

/** Signals a compiled circuit assigns, as emitted local names. */
function signals(c: Compiled): string[] {
  return c.gates.map((g) => P + g.out);
}

/**
 * Emits one S-box evaluation: `inputs[b]` is the expression of bit b (b = 0 is the least significant
 * bit, i.e. U7), `outputs[b]` the local that receives output bit b.
 */
function emitSbox(c: Compiled, inputs: string[], outputs: string[], ind: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 8; i++) lines.push(`${ind}${P}U${i} = ${inputs[7 - i]};`);
  for (const g of c.gates) {
    const e = g.op === '&~' ? `${P}${g.a} & ~${P}${g.b}` : `${P}${g.a} ${g.op} ${P}${g.b}`;
    lines.push(`${ind}${P}${g.out} = ${e};`);
  }
  for (let i = 0; i < 8; i++) lines.push(`${ind}${outputs[7 - i]} = ${P}${c.outs[i]};`);
  return lines;
}

function decl(names: string[], ind: string): string[] {
  const uniq = [...new Set(names)];
  const lines: string[] = [];
  for (let i = 0; i < uniq.length; i += 12)
    lines.push(
      `${ind}let ${uniq
        .slice(i, i + 12)
        .map((n) => `${n} = 0`)
        .join(', ')};`,
    );
  return lines;
}

/** xtime (FIPS 197 §4.2.1) on bitsliced bits: the expression of bit b of 2·v, given bit names v[0..7]. */
function xt(v: string[], b: number): string {
  switch (b) {
    case 0:
      return v[7];
    case 1:
    case 3:
    case 4:
      return `(${v[b - 1]} ^ ${v[7]})`;
    default:
      return v[b - 1];
  }
}

const A = (r: number, b: number) => `a${r}_${b}`;
const AS = (r: number) => [0, 1, 2, 3, 4, 5, 6, 7].map((b) => A(r, b));
const BITS = [0, 1, 2, 3, 4, 5, 6, 7];

// Code size matters more than instruction count here: V8's optimized code for a fully unrolled
// round (16 S-boxes, 4 MixColumns) is 30-40 KB and runs out of the CPU's decoded-instruction cache, so
// the layers are loops over byte positions (2 S-boxes an iteration) and over columns (a column an
// iteration), with the state and round keys in Int32Arrays. On the 32-block layout, state word 8p + b
// holds bit b of byte p (FIPS 197 §3.4 order, p = 4c + r) of the 32 blocks, bit j = block j.

/**
 * SubBytes and ShiftRows (or InvSubBytes and InvShiftRows), optionally followed by AddRoundKey. The
 * output byte p takes the S-box of input byte 5p mod 16 (ShiftRows, FIPS 197 §5.1.2: s'[r][c] =
 * s[r][(c + r) mod 4]) or 13p mod 16 (InvShiftRows, §5.3.1), so ShiftRows costs nothing.
 */
function emitSubLayer(sboxes: Sboxes, kind: 'enc' | 'dec', withKey: boolean): string {
  const c = kind === 'enc' ? sboxes.fwd : sboxes.inv;
  const names = ['i', `${P}U0`, `${P}U1`, `${P}U2`, `${P}U3`, `${P}U4`, `${P}U5`, `${P}U6`, `${P}U7`, ...signals(c)];
  const ind = '    ';
  const body: string[] = [];
  for (let u = 0; u < 2; u++) {
    body.push(`${ind}i = (${kind === 'enc' ? 5 : 13} * (o + ${8 * u})) & 127;`);
    const outs = BITS.map((b) => `o${b}`);
    names.push(...outs);
    body.push(
      ...emitSbox(
        c,
        BITS.map((b) => `s[i + ${b}]`),
        outs,
        ind,
      ),
    );
    for (let b = 0; b < 8; b++) {
      const at = `o + ${8 * u + b}`;
      body.push(`${ind}d[${at}] = o${b}${withKey ? ` ^ k[${at}]` : ''};`);
    }
  }
  const name = kind === 'enc' ? (withKey ? 'encLast' : 'subShift') : withKey ? 'decLast' : 'invSubShift';
  const what =
    kind === 'enc'
      ? `SubBytes (FIPS 197 §5.1.1) and ShiftRows (§5.1.2)${withKey ? ', then AddRoundKey (§5.1.4): the final round of the cipher' : ''}`
      : `InvSubBytes (FIPS 197 §5.3.2) and InvShiftRows (§5.3.1)${withKey ? ', then AddRoundKey: the final round of the equivalent inverse cipher (§5.3.5)' : ''}`;
  return [
    `/** ${what}, on 32 bitsliced blocks: reads \`s\`, writes \`d\`${withKey ? ', round key `k[0 .. 127]`' : ''}. */`,
    `export function ${name}(s: Int32Array, d: Int32Array${withKey ? ', k: Int32Array' : ''}): void {`,
    ...decl(names, '  '),
    `  for (let o = 0; o < 128; o += 16) {`,
    ...body,
    '  }',
    '}',
  ].join('\n');
}

/** MixColumns (or InvMixColumns) and AddRoundKey, one column of 32 words an iteration. */
function emitMixLayer(kind: 'enc' | 'dec'): string {
  const ind = '    ';
  const names: string[] = [];
  for (let r = 0; r < 4; r++) names.push(...AS(r));
  const body: string[] = [];
  for (let r = 0; r < 4; r++) for (let b = 0; b < 8; b++) body.push(`${ind}${A(r, b)} = s[o + ${8 * r + b}];`);
  if (kind === 'dec') {
    body.push(`${ind}// InvMixColumns (FIPS 197 §5.3.3) = MixColumns after a0 ^= 4(a0 ^ a2), a2 ^= 4(a0 ^ a2),`);
    body.push(`${ind}// a1 ^= 4(a1 ^ a3), a3 ^= 4(a1 ^ a3): {0e,0b,0d,09} = {02,03,01,01}·{05,00,04,00} over GF(2^8).`);
    for (const [x, y, tag] of [
      [0, 2, 'u'],
      [1, 3, 'v'],
    ] as const) {
      const e = BITS.map((b) => `${tag}e${b}`);
      const f = BITS.map((b) => `${tag}f${b}`);
      const g = BITS.map((b) => `${tag}g${b}`);
      names.push(...e, ...f, ...g);
      for (let b = 0; b < 8; b++) body.push(`${ind}${e[b]} = ${A(x, b)} ^ ${A(y, b)};`);
      for (let b = 0; b < 8; b++) body.push(`${ind}${f[b]} = ${xt(e, b)};`);
      for (let b = 0; b < 8; b++) body.push(`${ind}${g[b]} = ${xt(f, b)};`);
      for (let b = 0; b < 8; b++) body.push(`${ind}${A(x, b)} ^= ${g[b]}; ${A(y, b)} ^= ${g[b]};`);
    }
  }
  body.push(`${ind}// MixColumns (FIPS 197 §5.1.3): a'_r = 2·(a_r ^ a_{r+1}) ^ a_r ^ (a_0 ^ a_1 ^ a_2 ^ a_3).`);
  const d = (r: number) => BITS.map((b) => `d${r}_${b}`);
  for (let r = 0; r < 4; r++) {
    names.push(...d(r));
    for (let b = 0; b < 8; b++) body.push(`${ind}d${r}_${b} = ${A(r, b)} ^ ${A((r + 1) % 4, b)};`);
  }
  for (let b = 0; b < 8; b++) {
    names.push(`t${b}`);
    body.push(`${ind}t${b} = d0_${b} ^ d2_${b};`);
  }
  for (let r = 0; r < 4; r++) {
    for (let b = 0; b < 8; b++) {
      const at = `o + ${8 * r + b}`;
      body.push(`${ind}d[${at}] = ${A(r, b)} ^ t${b} ^ ${xt(d(r), b)} ^ k[${at}];`);
    }
  }
  const name = kind === 'enc' ? 'mixColumns' : 'invMixColumns';
  return [
    `/** ${kind === 'enc' ? 'MixColumns (FIPS 197 §5.1.3)' : 'InvMixColumns (FIPS 197 §5.3.3)'} and AddRoundKey (§5.1.4) on 32 bitsliced blocks: reads \`s\`, writes \`d\`, round key \`k[0 .. 127]\`. */`,
    `export function ${name}(s: Int32Array, d: Int32Array, k: Int32Array): void {`,
    ...decl(names, '  '),
    '  for (let o = 0; o < 128; o += 32) {',
    ...body,
    '  }',
    '}',
  ].join('\n');
}

/** The 32×32 bit transpose (5 rounds of swaps of bit j of the row and column index) on locals x0..x31. */
function transpose(x: (i: number) => string, ind: string): string[] {
  const lines: string[] = [];
  const masks: Record<number, string> = {
    16: '0x0000ffff',
    8: '0x00ff00ff',
    4: '0x0f0f0f0f',
    2: '0x33333333',
    1: '0x55555555',
  };
  for (const j of [16, 8, 4, 2, 1]) {
    for (let i = 0; i < 32; i++) {
      if (i & j) continue;
      lines.push(`${ind}t = ((${x(i)} >>> ${j}) ^ ${x(i + j)}) & ${masks[j]}; ${x(i + j)} ^= t; ${x(i)} ^= t << ${j};`);
    }
  }
  return lines;
}

function emitPack(): string {
  const ind = '    ';
  const x = (i: number) => `x${i}`;
  const lines: string[] = [];
  for (let j = 0; j < 32; j++) {
    const at = (i: number) => `src[p + ${16 * j + i}]`;
    lines.push(`${ind}${x(j)} = ${at(0)} | (${at(1)} << 8) | (${at(2)} << 16) | (${at(3)} << 24);`);
    lines.push(`${ind}raw[v + ${4 * j}] = ${x(j)};`);
  }
  lines.push(...transpose(x, ind));
  for (let b = 0; b < 32; b++) lines.push(`${ind}s[q + ${b}] = ${x(b)} ^ k[q + ${b}];`);
  return [
    '/**',
    ' * Loads the 32 consecutive blocks at `src[o ..]` into the bitsliced state `s`, XORing round key 0',
    ' * (AddRoundKey, FIPS 197 §5.1.4). For each word w (bytes 4w .. 4w+3 of a block, assembled little-endian',
    " * by explicit shifts), the 32×32 bit matrix of the 32 blocks' words w is transposed, so that state word",
    ' * 32w + b holds bit b of word w of every block. The raw words also go to `raw[4 + 4j + w]`: they are',
    ' * the chaining values of CBC decryption. `o` is a byte offset with `o + 512 <= src.length`.',
    ' */',
    `export function pack(src: Uint8Array, o: number, s: Int32Array, raw: Int32Array, k: Int32Array): void {`,
    ...decl(['t', ...Array.from({ length: 32 }, (_, i) => x(i))], '  '),
    '  for (let w = 0; w < 4; w++) {',
    '    const p = (o + 4 * w) | 0, q = 32 * w, v = 4 + w;',
    ...lines,
    '  }',
    '}',
  ].join('\n');
}

function emitUnpack(withXor: boolean): string {
  const ind = '    ';
  const x = (i: number) => `x${i}`;
  const lines: string[] = [];
  for (let b = 0; b < 32; b++) lines.push(`${ind}${x(b)} = s[q + ${b}];`);
  lines.push(...transpose(x, ind));
  for (let j = 0; j < 32; j++) {
    const at = (i: number) => `dst[p + ${16 * j + i}]`;
    if (withXor) lines.push(`${ind}${x(j)} ^= raw[w + ${4 * j}];`);
    lines.push(
      `${ind}${at(0)} = ${x(j)}; ${at(1)} = ${x(j)} >>> 8; ${at(2)} = ${x(j)} >>> 16; ${at(3)} = ${x(j)} >>> 24;`,
    );
  }
  const sig = withXor
    ? `export function unpackXor(s: Int32Array, raw: Int32Array, dst: Uint8Array, o: number): void {`
    : `export function unpack(s: Int32Array, dst: Uint8Array, o: number): void {`;
  return [
    '/**',
    ` * The inverse of {@link pack}: transposes the state \`s\` back and stores the 32 blocks at \`dst[o ..]\`${withXor ? ',\n * each XORed with its chaining value `raw[4j .. 4j+3]` (CBC decryption, NIST SP 800-38A §6.2)' : ''}.`,
    ' */',
    sig,
    ...decl(['t', ...Array.from({ length: 32 }, (_, i) => x(i))], '  '),
    '  for (let w = 0; w < 4; w++) {',
    '    const p = (o + 4 * w) | 0, q = 32 * w;',
    ...lines,
    '  }',
    '}',
  ].join('\n');
}

/**
 * The one-block layout (serial CBC encryption): word b (of 8) holds bit b of byte p = 4c + r at bit p and
 * again at bit 16 + p, so a 32-bit rotation is a rotation of the 16-bit state. The rounds are fixsliced
 * (Adomnicai and Peyrin, "Fixslicing AES-like ciphers", TCHES 2021/1): ShiftRows is never applied; after
 * round i the state is SR^-i of the true one (row r shifted back by i·r columns), round i's key is
 * stored shifted the same way, and MixColumns of round i finds the bytes of a column through
 * rotations that depend on i mod 4. One fix-up of SR^(Nr mod 4) at the end restores the true state.
 */
const ror = (v: string, n: number) => {
  const m = ((n % 16) + 16) % 16; // the halves are copies: rotations are mod 16
  return `((${v} >>> ${m}) | (${v} << ${32 - m}))`;
};

function emitNarrowRound(fwd: Compiled, k: number | 'last'): string {
  const ind = '  ';
  const names = [`${P}U0`, `${P}U1`, `${P}U2`, `${P}U3`, `${P}U4`, `${P}U5`, `${P}U6`, `${P}U7`, ...signals(fwd)];
  const a = BITS.map((b) => `a${b}`);
  const h = BITS.map((b) => `h${b}`);
  const e = BITS.map((b) => `e${b}`);
  names.push(...a);
  const body: string[] = [];
  body.push(
    ...emitSbox(
      fwd,
      BITS.map((b) => `q[${b}]`),
      a,
      ind,
    ),
  );
  if (k === 'last') {
    for (let b = 0; b < 8; b++) body.push(`${ind}q[${b}] = ${a[b]} ^ k[${b}];`);
  } else {
    names.push(...h, ...e);
    // MixColumns (FIPS 197 §5.1.3) on the state shifted back by k: the byte below (r + 1, c) of a column
    // sits one row down and k columns right, the byte two below 2k columns right. With h_r = a_{r+1} and
    // e = a ^ h: a'_r = 2·e_r ^ h_r ^ e_{r+2}.
    for (let b = 0; b < 8; b++) {
      body.push(`${ind}${h[b]} = (${ror(a[b], 4 * k + 1)} & 0x77777777) | (${ror(a[b], 4 * k - 3)} & 0x88888888);`);
      body.push(`${ind}${e[b]} = ${a[b]} ^ ${h[b]};`);
    }
    for (let b = 0; b < 8; b++) {
      body.push(
        `${ind}q[${b}] = ${xt(e, b)} ^ ${h[b]} ^ (${ror(e[b], 8 * k + 2)} & 0x33333333) ^ (${ror(e[b], 8 * k - 2)} & 0xcccccccc) ^ k[${b}];`,
      );
    }
  }
  const name = k === 'last' ? 'narrowLast' : `narrowRound${k}`;
  const what =
    k === 'last'
      ? 'The final round of the cipher (SubBytes, AddRoundKey; FIPS 197 §5.1), fixsliced (ShiftRows left out)'
      : `A round of the cipher (SubBytes, MixColumns, AddRoundKey; FIPS 197 §5.1), fixsliced for round numbers ≡ ${k} mod 4 (ShiftRows left out)`;
  return [
    `/** ${what}, on one bitsliced block \`q[0..7]\` in place; round key \`k[0 .. 7]\`. */`,
    `export function ${name}(q: Int32Array, k: Int32Array): void {`,
    ...decl(names, ind),
    ...body,
    '}',
  ].join('\n');
}

/** ShiftRows applied twice (FIPS 197 §5.1.2): rows 1 and 3 rotate by two columns, i.e. 8 bits. */
function emitNarrowShiftRows2(): string {
  const body: string[] = [];
  for (let b = 0; b < 8; b++) body.push(`  q[${b}] = (q[${b}] & 0x55555555) | (${ror(`q[${b}]`, 8)} & 0xaaaaaaaa);`);
  return [
    "/** ShiftRows twice (FIPS 197 §5.1.2) on one bitsliced block `q[0..7]`, in place: the fixsliced rounds' fix-up. */",
    'export function narrowShiftRows2(q: Int32Array): void {',
    ...body,
    '}',
  ].join('\n');
}

const hex = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;

/** Gives every exported function's TSDoc an `@example`: a call with its parameter names. */
function withExamples(code: string): string {
  return code.replace(
    /(\/\*\*(?:(?!\*\/)[\s\S])*?)\s*\*\/\nexport function (\w+)\(([^)]*)\)/g,
    (all, doc: string, name: string, params: string) => {
      if (doc.includes('@example')) return all;
      const args = params
        .split(',')
        .map((x) => x.split(':')[0].trim())
        .join(', ');
      const text = doc.startsWith('/** ') && !doc.includes('\n') ? `/**\n * ${doc.slice(4)}` : doc;
      return `${text}\n *\n * @example\n * \`${name}(${args}); // inside the kernel, with its scratch buffers\`\n */\nexport function ${name}(${params})`;
    },
  );
}

/**
 * The content of src/bitsliced.generated.ts. Deterministic, and nothing is kept between calls.
 *
 * @example
 * ```ts
 * readFileSync(GENERATED, 'utf8') === generate(); // the committed file is up to date
 * ```
 */
export function generate(): string {
  const sboxes = compiledSboxes();
  const { fwd, inv } = sboxes;
  return withExamples(
    [
      generatedHeader('scripts/generate.ts', generatorInputs(new URL(import.meta.url))),
      '// Regenerate with `npm run generate` in packages/aes-portable (`npm run build` runs it); under CI=true',
      '// that command checks this file instead, and fails when it differs from what the generator makes now.',
      '',
      '/**',
      ` * The S-box constants the kernel folds into its round keys (see scripts/generate.ts): the byte entering`,
      ` * the compiled S-box is x ^ C_IN and the byte leaving it S(x) ^ C_OUT, for every x.`,
      ` * Forward S-box (Boyar–Matthews–Peralta, 113 gates): ${gateCount(fwd)}.`,
      ` * Inverse S-box (Boyar–Peralta depth 16): ${gateCount(inv)}.`,
      ` *`,
      ` * @example`,
      ' * ```ts',
      ' * SBOX_C_OUT; // 0x63, the affine constant of FIPS 197 §5.1.1',
      ' * ```',
      ' */',
      `export const SBOX_C_IN = ${hex(fwd.cIn)};`,
      `/** See {@link SBOX_C_IN}. @example \`SBOX_C_OUT; // 0x63\` */`,
      `export const SBOX_C_OUT = ${hex(fwd.cOut)};`,
      `/** See {@link SBOX_C_IN}: the input complement of the compiled inverse S-box. @example \`INV_SBOX_C_IN; // 0x63\` */`,
      `export const INV_SBOX_C_IN = ${hex(inv.cIn)};`,
      `/** See {@link SBOX_C_IN}: the output complement of the compiled inverse S-box. @example \`INV_SBOX_C_OUT; // 0x00\` */`,
      `export const INV_SBOX_C_OUT = ${hex(inv.cOut)};`,
      '',
      emitSubLayer(sboxes, 'enc', false),
      '',
      emitMixLayer('enc'),
      '',
      emitSubLayer(sboxes, 'enc', true),
      '',
      emitSubLayer(sboxes, 'dec', false),
      '',
      emitMixLayer('dec'),
      '',
      emitSubLayer(sboxes, 'dec', true),
      '',
      emitPack(),
      '',
      emitUnpack(false),
      '',
      emitUnpack(true),
      '',
      emitNarrowRound(fwd, 0),
      '',
      emitNarrowRound(fwd, 1),
      '',
      emitNarrowRound(fwd, 2),
      '',
      emitNarrowRound(fwd, 3),
      '',
      emitNarrowRound(fwd, 'last'),
      '',
      emitNarrowShiftRows2(),
      '',
    ].join('\n'),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (writeOrCheck(GENERATED, generate())) {
    const { fwd, inv } = compiledSboxes();
    console.log(`forward S-box: ${gateCount(fwd)}, C_IN ${hex(fwd.cIn)}, C_OUT ${hex(fwd.cOut)}`);
    console.log(`inverse S-box: ${gateCount(inv)}, C_IN ${hex(inv.cIn)}, C_OUT ${hex(inv.cOut)}`);
  }
}
