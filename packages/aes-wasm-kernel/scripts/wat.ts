/**
 * Emits the kernel as WebAssembly text: two cores over the same round keys.
 *
 * - Bitsliced, 8 blocks at once (ECB, CBC decryption, sectors): an 8×8 bit transpose per byte lane, the
 *   S-box circuit of circuit.ts, MixColumns as XORs and byte permutations of the bit planes.
 * - Vector permutation, one block (CBC encryption and the last 1..7 blocks of the parallel paths): the
 *   lookups of tables.ts with `i8x16.swizzle`, every round unrolled.
 *
 * CTR (`ctr_*`) makes its counter blocks in registers and runs them through the bitsliced core; POLYVAL
 * (`polyval_*`) is emitted by polyval.ts.
 *
 * The only data-dependent operations are v128 bitwise operations, shifts by constants, swizzles into
 * 16-byte constant tables or by constant permutations, lane additions (CTR's counters) and, in POLYVAL,
 * lane multiplications and shuffles by constant lane patterns.
 *
 * ShiftRows is never executed: after round r the state is kept permuted by σ_r = SR^r (σ_0 = identity),
 * SubBytes commutes with any byte permutation, and MixColumns' row rotation is conjugated by σ_r
 * (q1 = σ_r ∘ rot1 ∘ σ_r^-1). Round keys are stored permuted by σ_r^-1 to match, and the last round applies
 * σ_Nr once. SR^4 = identity, so σ_r only takes four values.
 */
import { polyvalFunctions } from './polyval.js';
import { allTables } from './tables.js';
import type { Circuit, KernelCircuits } from './circuit.js';
import { BS_DEC, BS_ENC, CHUNK, DATA, IV, IVS, KEY_DEC, KEY_ENC, KEY_IN, PAGE, TABLES, WIDTH } from '../src/layout.js';

type Perm = number[];
const ID: Perm = Array.from({ length: 16 }, (_, i) => i);
/** compose(a, b)[i] = a[b[i]], so that swizzle(swizzle(v, a), b) = swizzle(v, compose(a, b)). */
const compose = (a: Perm, b: Perm): Perm => b.map((x) => a[x]);
const invert = (a: Perm): Perm => {
  const r = new Array<number>(16);
  for (let i = 0; i < 16; i++) r[a[i]] = i;
  return r;
};
/** FIPS 197 §3.4: byte n of a block is row n % 4, column n / 4. */
const perm = (f: (c: number, r: number) => [number, number]): Perm =>
  ID.map((n) => {
    const [c, r] = f(n >> 2, n & 3);
    return 4 * c + r;
  });
/** ShiftRows (§5.1.2): s'[r][c] = s[r][(c + r) mod 4]. */
const SR = perm((c, r) => [(c + r) % 4, r]);
/** InvShiftRows (§5.3.1): s'[r][c] = s[r][(c - r) mod 4]. */
const ISR = perm((c, r) => [(c - r + 4) % 4, r]);
/** Row rotation within each column: s'[r][c] = s[(r + 1) mod 4][c] (MixColumns' structure, §5.1.3). */
const ROT1 = perm((c, r) => [c, (r + 1) % 4]);

/** σ_r for r = 0..rounds: σ_0 = id, σ_r = σ_{r-1} ∘ shift. */
function sigmas(shift: Perm, rounds: number): Perm[] {
  const s = [ID];
  for (let r = 1; r <= rounds; r++) s.push(compose(s[r - 1], shift));
  return s;
}

const xor = (a: string, b: string) => `(v128.xor ${a} ${b})`;
const and = (a: string, b: string) => `(v128.and ${a} ${b})`;
const get = (n: string) => `(local.get $${n})`;
const set = (n: string, e: string) => `(local.set $${n} ${e})`;
const i64shr = (v: string, n: number) => `(i64x2.shr_u ${v} (i32.const ${n}))`;
const i64shl = (v: string, n: number) => `(i64x2.shl ${v} (i32.const ${n}))`;

/** The byte-lookup instruction of a build (see {@link moduleText}). @example `const s: Swizzle = 'i8x16.swizzle'` */
export type Swizzle = 'i8x16.swizzle' | 'i8x16.relaxed_swizzle';

/**
 * What the module's functions are emitted with: the S-box circuits of circuit.ts, and the swizzle.
 *
 * @example `moduleText({ circuits: kernelCircuits(), swizzle: 'i8x16.relaxed_swizzle' })`
 */
export interface ModuleOptions {
  readonly circuits: KernelCircuits;
  readonly swizzle: Swizzle;
}

/**
 * One module being emitted: its options, and the 16-byte constants of its data segment, in order (the
 * tables of tables.ts, then byte permutations and masks as the functions use them). Every emitting
 * function below takes it as its first parameter: the generator keeps no state between modules.
 */
class Emitter {
  readonly circuits: KernelCircuits;
  readonly swizzle: Swizzle;
  readonly tables: Map<string, number[]>;
  readonly #addr: Map<string, number>;
  /**
   * Constants used by the function being emitted, loaded once into locals in its prologue: V8 hoists
   * loads from fixed addresses anyway, and one load per constant beats one spill slot per use.
   */
  #hoisted: Map<string, number> | null = null;
  /** Which addresses {@link hoisting} moves into locals (null: all). */
  #hoistable: ((addr: number) => boolean) | null = null;

  constructor({ circuits, swizzle }: ModuleOptions) {
    this.circuits = circuits;
    this.swizzle = swizzle;
    this.tables = allTables();
    this.#addr = new Map([...this.tables.keys()].map((name, i) => [name, TABLES + 16 * i]));
  }

  /** Adds a constant (unless it exists); returns its name. */
  constant(name: string, bytes: number[]): string {
    if (!this.tables.has(name)) {
      this.#addr.set(name, TABLES + 16 * this.tables.size);
      this.tables.set(name, bytes);
    }
    return name;
  }

  /** Contiguous constants (allocated together so that an address can be computed from an index). */
  block(prefix: string, entries: number[][]): number {
    const base = TABLES + 16 * this.tables.size;
    for (const [i, e] of entries.entries()) this.constant(`${prefix}${i}`, e);
    if (this.#addr.get(`${prefix}0`) !== base) throw new Error('constants not contiguous');
    return base;
  }

  /** A constant's value in an expression. */
  T(name: string): string {
    const a = this.#addr.get(name);
    if (a === undefined) throw new Error(`no table ${name}`);
    return this.loadAt(a, name);
  }

  /** The 16 bytes at a fixed address: loaded in place, or from a local loaded in the prologue. */
  loadAt(addr: number, name = `k${addr}`): string {
    if (!this.#hoisted || (this.#hoistable && !this.#hoistable(addr)))
      return `(v128.load offset=${addr} (local.get $t))`;
    this.#hoisted.set(name, addr);
    return `(local.get $C_${name})`;
  }

  /**
   * Emits a function body with its constants hoisted (those at addresses `only` accepts, if given; the
   * others are loaded where they are used); returns it with the locals and prologue they need.
   */
  hoisting(
    emit: () => string[],
    only?: (addr: number) => boolean,
  ): { locals: string; prologue: string[]; body: string[] } {
    this.#hoisted = new Map();
    this.#hoistable = only ?? null;
    try {
      const body = emit();
      const locals = [...this.#hoisted].map(([name]) => `(local $C_${name} v128)`).join(' ');
      const prologue = [...this.#hoisted].map(
        ([name, addr]) => `(local.set $C_${name} (v128.load offset=${addr} (local.get $t)))`,
      );
      return { locals, prologue, body };
    } finally {
      this.#hoisted = null;
      this.#hoistable = null;
    }
  }

  /** A lookup of `idx`'s bytes in a 16-byte table. */
  swz(table: string, idx: string): string {
    return `(${this.swizzle} ${this.T(table)} ${idx})`;
  }

  /**
   * A fixed (public) byte permutation. V8 materialises an `i8x16.shuffle` mask with four instructions at
   * every use; a swizzle by a mask kept in a local costs two, so permutations are constants too.
   */
  shuf(p: Perm, v: string): string {
    return `(${this.swizzle} ${v} ${this.T(this.constant(`p${p.map((x) => x.toString(16)).join('')}`, p))})`;
  }

  /** A swizzle by a mask held in a local. */
  swizzleBy(v: string, mask: string): string {
    return `(${this.swizzle} ${v} ${mask})`;
  }

  /** M(x) = lo[x & 15] ^ hi[x >> 4]: a GF(2)-linear byte map by two lookups. */
  linear(pre: string, x: string): string {
    return xor(
      this.swz(`${pre}l`, and(x, this.T('m0f'))),
      this.swz(`${pre}h`, and(`(i16x8.shr_u ${x} (i32.const 4))`, this.T('m0f'))),
    );
  }

  /** The 16-byte constant with every byte b. */
  splat(b: number): string {
    return this.T(this.constant(`splat${b.toString(16)}`, new Array(16).fill(b)));
  }
}

type Dir = 'enc' | 'dec';

/** The statements of one round for block b, as a list so that blocks can be interleaved statement-wise. */
function frontEnd(m: Emitter, b: number): string[] {
  const v = (n: string) => n + b;
  return [
    set(v('k'), and(get(v('z')), m.T('m0f'))),
    set(v('i'), and(`(i16x8.shr_u ${get(v('z'))} (i32.const 4))`, m.T('m0f'))),
    set(v('j'), xor(get(v('i')), get(v('k')))),
    set(v('k'), m.swz('ta', get(v('k')))), // a/k
    set(v('t'), xor(m.swz('tinv', get(v('i'))), get(v('k')))), // 1/i + a/k
    set(v('u'), xor(m.swz('tinv', get(v('j'))), get(v('k')))), // 1/j + a/k
    set(v('o'), xor(m.swz('tinv', get(v('t'))), get(v('j')))), // io
    set(v('p'), xor(m.swz('tinv', get(v('u'))), get(v('i')))), // jo
  ];
}
const out = (m: Emitter, name: string, b: number) =>
  xor(m.swz(`${name}u`, get(`o${b}`)), m.swz(`${name}v`, get(`p${b}`)));

function round(m: Emitter, dir: Dir, b: number, r: number, rounds: number, chain = false): string[] {
  const s = sigmas(dir === 'enc' ? SR : ISR, rounds);
  const keys = dir === 'enc' ? KEY_ENC : KEY_DEC;
  const key = m.loadAt(keys + 16 * r);
  const z = `z${b}`,
    a = `a${b}`,
    c = `c${b}`;
  if (r === rounds && chain) {
    // Last round of a CBC chain (encryption, one block): the ciphertext block C = σ(S) ^ k into $prev, and
    // the next block's input but for its plaintext, T(C) ^ T(k0) = σ(T∘S) ^ (T(k) ^ T(k0)), into $z0 (the
    // e1 tables give T∘S; T(k) ^ T(k0) is $kx): the next block starts without a conversion into tower form.
    return [
      ...frontEnd(m, b),
      set(z, xor(m.shuf(s[r], out(m, 'e1', b)), get('kx'))),
      set('prev', xor(m.shuf(s[r], out(m, 'ef', b)), key)),
    ];
  }
  if (r === rounds) {
    // Last round (FIPS 197 §5.1, §5.3.5): no (Inv)MixColumns; undo the pending permutation once.
    return [...frontEnd(m, b), set(a, out(m, dir === 'enc' ? 'ef' : 'df', b)), set(z, xor(m.shuf(s[r], get(a)), key))];
  }
  const q1 = compose(compose(s[r], ROT1), invert(s[r]));
  if (dir === 'enc') {
    // MixColumns (§5.1.3): 2A ^ 3·q1(A) ^ q2(A) ^ q3(A) = c ^ (q3 A ^ k) ^ q1 c with c = 2A ^ q1 A. In this
    // order (measured, serial CBC encryption): the 2A lookups after q1 A, whose lookups the critical path
    // waits on, and the round key joined off the path, so that only q1 c and one XOR follow c.
    const q3 = compose(compose(s[r], compose(compose(ROT1, ROT1), ROT1)), invert(s[r]));
    const t = `t${b}`;
    return [
      ...frontEnd(m, b),
      set(a, out(m, 'e1', b)),
      set(c, m.shuf(q1, get(a))),
      set(t, xor(m.shuf(q3, get(a)), key)),
      set(c, xor(get(c), out(m, 'e2', b))),
      set(z, xor(m.shuf(q1, get(c)), xor(get(c), get(t)))),
    ];
  }
  // InvMixColumns (§5.3.3) by Horner: 14A ^ q1(11A ^ q1(13A ^ q1(9A))).
  return [
    ...frontEnd(m, b),
    set(a, out(m, 'd9', b)),
    set(c, xor(out(m, 'd13', b), m.shuf(q1, get(a)))),
    set(c, xor(out(m, 'd11', b), m.shuf(q1, get(c)))),
    set(z, xor(xor(out(m, 'd14', b), m.shuf(q1, get(c))), key)),
  ];
}

/** The vector-permutation cipher, unrolled for `rounds`, on `width` blocks interleaved (1 is used). */
function coreFunction(m: Emitter, dir: Dir, width: number, rounds: number): string {
  const blocks = Array.from({ length: width }, (_, b) => b);
  const params = `(param $t i32) ${blocks.map((b) => `(param $z${b} v128)`).join(' ')}`;
  const results = blocks.map(() => 'v128').join(' ');
  const locals = blocks
    .flatMap((b) => ['k', 'i', 'j', 't', 'u', 'o', 'p', 'a', 'c'].map((n) => `(local $${n}${b} v128)`))
    .join(' ');
  const {
    locals: consts,
    prologue,
    body,
  } = m.hoisting(
    () => [...coreBody(m, dir, blocks, rounds), blocks.map((b) => get(`z${b}`)).join(' ')],
    roundKeys(dir),
  );
  return `(func $${dir}${width}_${rounds} ${params} (result ${results}) ${locals} ${consts}\n  ${[...prologue, ...body].join('\n  ')})`;
}

/**
 * What the one-block core hoists into locals: the round keys. Its tables are loaded where they are used
 * (cheap loads at fixed addresses): hoisted too, they kept V8's registers full and it spilled and reloaded
 * them (serial CBC encryption was about 1 % slower).
 */
const roundKeys =
  (dir: Dir) =>
  (addr: number): boolean => {
    const keys = dir === 'enc' ? KEY_ENC : KEY_DEC;
    return addr >= keys && addr < keys + 16 * 15;
  };

/** The one-block core's statements on $z0.. (in place); emitted inside {@link Emitter.hoisting}. */
function coreBody(m: Emitter, dir: Dir, blocks: number[], rounds: number, chain = false): string[] {
  const keys = dir === 'enc' ? KEY_ENC : KEY_DEC;
  const body: string[] = [];
  // Initial AddRoundKey (§5.1.4) in the working form: enc T(x) ^ T(k0); dec R(x) ^ (R(k0) ^ T(0x05)).
  // (In a chain, $z0 arrives in that form.)
  if (!chain)
    for (const b of blocks)
      body.push(set(`z${b}`, xor(m.linear(dir === 'enc' ? 'ein' : 'din', get(`z${b}`)), m.loadAt(keys))));
  for (let r = 1; r <= rounds; r++) {
    const per = blocks.map((b) => round(m, dir, b, r, rounds, chain));
    for (let s = 0; s < per[0].length; s++) for (const b of blocks) body.push(per[b][s]);
  }
  return body;
}

/**
 * One CBC chain (NIST SP 800-38A §6.2): $n bytes at $p, the chaining value at $iv (read, and written back
 * at the end). The one-block core is inlined into the loop (no call per block; its round keys loaded once
 * per call), and the chaining value goes from one block to the next in tower form: the last round gives
 * T(C) ^ T(k0) beside C (two lookups more), and the next block adds T(P), made off the critical path (its
 * plaintext does not depend on the chain), instead of converting P ^ C after C. Each iteration reads the
 * 16 bytes after its block, the next plaintext block; after the last block those bytes (still inside the
 * memory, at a public address) are read and not used.
 */
function chainFunction(m: Emitter, rounds: number): string {
  const locals = ['z', 'k', 'i', 'j', 't', 'u', 'o', 'p', 'a', 'c'].map((n) => `(local $${n}0 v128)`).join(' ');
  const k0 = () => m.loadAt(KEY_ENC);
  const {
    locals: consts,
    prologue,
    body,
  } = m.hoisting(
    () => [
      set('kx', xor(m.linear('ein', m.loadAt(KEY_ENC + 16 * rounds)), k0())),
      set('z0', xor(m.linear('ein', xor(load(0), get('prev'))), k0())),
      loop(1, [
        ...coreBody(m, 'enc', [0], rounds, true),
        store(0, get('prev')),
        set('z0', xor(get('z0'), m.linear('ein', '(v128.load offset=16 (local.get $p))'))),
      ]),
    ],
    roundKeys('enc'),
  );
  return `(func $cbc_chain_${rounds} (param $p i32) (param $n i32) (param $iv i32) (local $t i32) (local $end i32) (local $prev v128) (local $kx v128) ${locals} ${consts}
  ${prologue.join('\n  ')}
  (local.set $end (i32.add (local.get $p) (local.get $n)))
  (local.set $prev (v128.load (local.get $iv)))
  ${body.join('\n  ')}
  (v128.store (local.get $iv) (local.get $prev)))`;
}

// ---------------------------------------------------------------------------------------------------
// Bitsliced AES over 8 blocks (the wide path). After an 8×8 bit transpose inside every byte lane, v128
// "plane" j holds bit j of the byte at each of the 16 positions, for the 8 blocks (bit k = block k), so
// SubBytes is one evaluation of the circuit of circuit.ts, and the row rotations of (Inv)MixColumns are
// byte permutations of each plane, conjugated by the pending ShiftRows permutation as in the vpaes path.

const PLANES = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * Transposes the 8×8 bit matrix in each byte lane of r0..r7 (in place): afterwards bit k of r_j is what
 * bit j of r_k was. Three rounds of SWAPMOVE on the off-diagonal blocks; its own inverse.
 */
function transpose(m: Emitter, r: string[]): string[] {
  const out: string[] = [];
  for (const [shift, mask] of [
    [1, 0x55],
    [2, 0x33],
    [4, 0x0f],
  ] as const) {
    for (let i = 0; i < 8; i++) {
      if (i & shift) continue;
      const a = r[i],
        b = r[i + shift];
      out.push(set('tt', and(xor(i64shr(get(a), shift), get(b)), m.splat(mask))));
      out.push(set(b, xor(get(b), get('tt'))));
      out.push(set(a, xor(get(a), i64shl(get('tt'), shift))));
    }
  }
  return out;
}

/** xtime on planes (FIPS 197 §4.2.1): multiply every byte by x modulo x^8 + x^4 + x^3 + x + 1. */
function xtime(src: string[], dst: string[]): string[] {
  const from = [7, 0, 1, 2, 3, 4, 5, 6];
  return PLANES.map((j) =>
    set(dst[j], j === 1 || j === 3 || j === 4 ? xor(get(src[from[j]]), get(src[7])) : get(src[from[j]])),
  );
}

/** SubBytes (or InvSubBytes without its constant) on planes s0..s7 into o0..o7. */
function sbox(c: Circuit): string[] {
  const w = (i: number) => (i < 8 ? get(`s${i}`) : get(`g${i}`));
  const body = c.gates.map((g, n) => set(`g${8 + n}`, `(v128.${g.op} ${w(g.a)} ${w(g.b)})`));
  for (const [j, o] of c.outputs.entries()) body.push(set(`o${j}`, w(o)));
  return body;
}

/** Plane j of the round key at $kp (the current round's). */
const bsKey = (j: number) => `(v128.load offset=${16 * j} (local.get $kp))`;
/**
 * The round's two permutations, from memory at $pp and $pp + 16 (public addresses: they depend on the
 * round number only), loaded once per round into $q0 / $q16. V8 does not merge repeated loads from
 * linear memory: with a load at every use it issued 8 loads per permutation and spilled the loaded masks.
 */
const loadPerms = (): string[] => [0, 16].map((o) => set(`q${o}`, `(v128.load offset=${o} (local.get $pp))`));
/** A permutation of the round (offset 0 or 16), as loaded by {@link loadPerms}. */
const permAt = (m: Emitter, offset: number, v: string) => m.swizzleBy(v, get(`q${offset}`));

/** MixColumns (§5.1.3) on planes x into s, plus the round key: t = x ^ q1 x; s = xtime(t) ^ q1 x ^ q2 t ^ k. */
function mixColumns(m: Emitter, x: string): string[] {
  return [
    ...PLANES.map((j) => set(`r${j}`, permAt(m, 0, get(x + j)))),
    ...PLANES.map((j) => set(`u${j}`, xor(get(x + j), get(`r${j}`)))),
    ...xtime(
      PLANES.map((j) => `u${j}`),
      PLANES.map((j) => `v${j}`),
    ),
    ...PLANES.map((j) =>
      set(`s${j}`, xor(xor(xor(get(`v${j}`), get(`r${j}`)), permAt(m, 16, get(`u${j}`))), bsKey(j))),
    ),
  ];
}

/**
 * The bitsliced cipher for any key size ($nr rounds). Rounds are a loop: the permutations of round r
 * depend only on r mod 4 and are read from a table at an address computed from r (public), the round
 * keys from $kp.
 */
function bitslicedFunction(m: Emitter, dir: Dir): string {
  const shift = dir === 'enc' ? SR : ISR;
  const sig = sigmas(shift, 3);
  const qs = sig.map((sg) => compose(compose(sg, ROT1), invert(sg)));
  const perms = m.block(
    `bs${dir}q`,
    qs.flatMap((q1) => [q1, compose(q1, q1)]),
  );
  const last = m.block(`bs${dir}last`, sig);
  const keys = dir === 'enc' ? BS_ENC : BS_DEC;
  const c = m.circuits[dir];
  const z = PLANES.map((j) => `z${j}`);
  const body: string[] = [];
  body.push(...transpose(m, z));
  body.push(set('kp', `(i32.const ${keys})`));
  body.push(...PLANES.map((j) => set(`s${j}`, xor(get(`z${j}`), bsKey(j)))));
  body.push(set('r', '(i32.const 1)'));
  const round: string[] = [
    ...sbox(c),
    '(br_if $last (i32.eq (local.get $r) (local.get $nr)))',
    set('kp', '(i32.add (local.get $kp) (i32.const 128))'),
    set('pp', `(i32.add (i32.const ${perms}) (i32.shl (i32.and (local.get $r) (i32.const 3)) (i32.const 5)))`),
    ...loadPerms(),
  ];
  if (dir === 'enc') {
    round.push(...mixColumns(m, 'o'));
  } else {
    // InvMixColumns = MixColumns ∘ (5 + 4·y²) on each column (FIPS 197 §5.3.3, as circulants):
    // p = o ^ 4·(o ^ q2 o), then MixColumns.
    round.push(...PLANES.map((j) => set(`u${j}`, xor(get(`o${j}`), permAt(m, 16, get(`o${j}`))))));
    round.push(
      ...xtime(
        PLANES.map((j) => `u${j}`),
        PLANES.map((j) => `v${j}`),
      ),
    );
    round.push(
      ...xtime(
        PLANES.map((j) => `v${j}`),
        PLANES.map((j) => `u${j}`),
      ),
    );
    round.push(...PLANES.map((j) => set(`o${j}`, xor(get(`o${j}`), get(`u${j}`)))));
    round.push(...mixColumns(m, 'o'));
  }
  round.push(set('r', '(i32.add (local.get $r) (i32.const 1))'), '(br $round)');
  body.push(`(block $last (loop $round\n    ${round.join('\n    ')}))`);
  // Last round: the pending ShiftRows permutation σ_Nr (Nr mod 4 picks it), and the last round key.
  body.push(set('kp', '(i32.add (local.get $kp) (i32.const 128))'));
  body.push(set('pp', `(i32.add (i32.const ${last}) (i32.shl (i32.and (local.get $nr) (i32.const 3)) (i32.const 4)))`));
  body.push(set('q0', `(v128.load (local.get $pp))`));
  body.push(...PLANES.map((j) => set(`z${j}`, xor(permAt(m, 0, get(`o${j}`)), bsKey(j)))));
  body.push(...transpose(m, z));
  body.push(z.map(get).join(' '));
  const names = [
    'tt',
    'q0',
    'q16',
    ...['s', 'o', 'r', 'u', 'v'].flatMap((p) => PLANES.map((j) => p + j)),
    ...c.gates.map((_, n) => `g${8 + n}`),
  ];
  const locals = `(local $r i32) (local $kp i32) (local $pp i32) ${names.map((n) => `(local $${n} v128)`).join(' ')}`;
  const params = `(param $t i32) (param $nr i32) ${z.map((n) => `(param $${n} v128)`).join(' ')}`;
  return `(func $bs${dir} ${params} (result ${z.map(() => 'v128').join(' ')}) ${locals}\n  ${body.join('\n  ')})`;
}

/** Bitsliced round keys: the converted key of each round, replicated into 8 blocks and transposed. */
function prepBitsliced(m: Emitter, dir: Dir, rounds: number): string[] {
  const sig = sigmas(dir === 'enc' ? SR : ISR, rounds);
  const out: string[] = [];
  const z = PLANES.map((j) => `z${j}`);
  for (let r = 0; r <= rounds; r++) {
    let k = m.loadAt(KEY_IN + 16 * r);
    // enc: 0x63 folded into keys 1..Nr (the circuit computes S(x) ^ 0x63); dec: into keys 0..Nr-1 (the
    // circuit wants the InvSubBytes input plus 0x63). Middle keys permuted by σ_r^-1.
    const fold = dir === 'enc' ? r > 0 : r < rounds;
    if (fold) k = xor(k, m.T('s63'));
    if (r > 0 && r < rounds) k = m.shuf(invert(sig[r]), k);
    out.push(set('z0', k), ...PLANES.slice(1).map((j) => set(`z${j}`, get('z0'))));
    out.push(...transpose(m, z));
    out.push(
      ...PLANES.map(
        (j) => `(v128.store (i32.const ${(dir === 'enc' ? BS_ENC : BS_DEC) + 128 * r + 16 * j}) ${get(`z${j}`)})`,
      ),
    );
  }
  return out;
}

/** Converts the schedule's round keys at KEY_IN into the working form (see tables.ts). */
function prepFunction(m: Emitter, dir: Dir, rounds: number): string {
  const s = sigmas(dir === 'enc' ? SR : ISR, rounds);
  const dst = dir === 'enc' ? KEY_ENC : KEY_DEC;
  const body: string[] = [];
  for (let r = 0; r <= rounds; r++) {
    const k = m.loadAt(KEY_IN + 16 * r);
    let v: string;
    if (dir === 'enc') {
      // The S-box constant 0x63 passes through MixColumns unchanged (1 ^ 1 ^ 2 ^ 3 = 1), so it joins the key.
      if (r === 0) v = m.linear('ein', k);
      else if (r < rounds) v = m.shuf(invert(s[r]), m.linear('ein', xor(k, m.T('s63'))));
      else v = xor(k, m.T('s63'));
    } else {
      if (r === 0) v = xor(m.linear('din', k), m.T('dc'));
      else if (r < rounds) v = m.shuf(invert(s[r]), xor(m.linear('din', k), m.T('dc')));
      else v = k;
    }
    body.push(`(v128.store (i32.const ${dst + 16 * r}) ${v})`);
  }
  body.push(...prepBitsliced(m, dir, rounds));
  const locals = ['tt', ...PLANES.map((j) => `z${j}`)].map((n) => `(local $${n} v128)`).join(' ');
  return `(func (export "prep_${dir}_${rounds}") (local $t i32) ${locals}\n  ${body.join('\n  ')})`;
}

/** Load `width` blocks at $p, call the core, leave results in $x0..; store with `post(b)` applied. */
function callCore(dir: Dir, width: number, rounds: number, pre: (b: number) => string): string[] {
  const out: string[] = width === 1 ? ['(i32.const 0)'] : ['(i32.const 0)', `(i32.const ${rounds})`];
  for (let b = 0; b < width; b++) out.push(pre(b));
  out.push(width === 1 ? `(call $${dir}1_${rounds})` : `(call $bs${dir})`);
  for (let b = width - 1; b >= 0; b--) out.push(`(local.set $x${b})`);
  return out;
}

const store = (b: number, v: string) => `(v128.store offset=${16 * b} (local.get $p) ${v})`;
const load = (b: number) => `(v128.load offset=${16 * b} (local.get $p))`;

/** for (; p + 16·width <= end; p += 16·width) { body } */
function loop(width: number, body: string[]): string {
  const label = `$w${width}`;
  return `(block ${label}_done (loop ${label}
    (br_if ${label}_done (i32.gt_u (i32.add (local.get $p) (i32.const ${16 * width})) (local.get $end)))
    ${body.join('\n    ')}
    (local.set $p (i32.add (local.get $p) (i32.const ${16 * width})))
    (br ${label})))`;
}

/** Swaps the two 64-bit halves of a v128 (a swizzle by this permutation). */
const SWAP_HALVES: Perm = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];
/**
 * The constants of the tweak arithmetic, loaded once per XTS call into locals ($Ks: SWAP_HALVES, $Kc: the
 * carries of a doubling, $Kl: the low 64-bit half), instead of loading them at every use.
 */
function tweakConstants(m: Emitter): string[] {
  const swap = m.constant(`p${SWAP_HALVES.map((x) => x.toString(16)).join('')}`, SWAP_HALVES);
  const carries = m.constant('xtsc', [0x87, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
  const low = m.constant('xtslo', [255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0]);
  return [set('Ks', m.T(swap)), set('Kc', m.T(carries)), set('Kl', m.T(low))];
}

/**
 * T·α in GF(2^128) (IEEE 1619 §5.2), T a little-endian 128-bit number: shift each 64-bit half left by one,
 * and add what falls out of each half into the other: bit 63 into bit 64, bit 127 as 0x87 into byte 0.
 * Without branches: the carries are the halves' sign bits spread by an arithmetic shift, swapped, masked.
 */
function double(m: Emitter, t: string): string {
  const carry = and(m.swizzleBy(`(i64x2.shr_s ${t} (i32.const 63))`, get('Ks')), get('Kc'));
  return xor(i64shl(t, 1), carry);
}

/**
 * The tweaks of one 8-block batch from T = $tw into $c0..$c7, and the next batch's T·α^8 into $tw, with
 * short dependency chains (a chain of 8 doublings held the batch's cipher call back): T·α^k for k = 2, 4, 6, 8
 * straight from T, and T·α^(k+1) = double(T·α^k). T·α^k (k <= 8): each half shifted left by k, the k bits
 * that fall out of the low half moved into the high half, and the k bits h that fall out of the high half
 * reduced, h·x^128 = h·(x^7 + x^2 + x + 1) = h ^ h<<1 ^ h<<2 ^ h<<7 carry-less (h < 2^8: it stays in the
 * low half). With $S = T with its halves swapped and $SL = its low half only: T<<k ^ S>>(64-k) ^
 * M(SL>>(64-k)). Shifts by constants, AND, XOR and one swizzle by a constant: no branch, no scalar.
 */
function batchTweaks(m: Emitter, width: number): string[] {
  if (width !== 8) throw new Error('batchTweaks assumes 8 blocks');
  const alphaK = (k: number) => {
    const h = i64shr(get('SL'), 64 - k);
    return xor(xor(i64shl(get('tw'), k), i64shr(get('S'), 64 - k)), xor(xor(i64shl(h, 1), i64shl(h, 2)), i64shl(h, 7)));
  };
  return [
    set('S', m.swizzleBy(get('tw'), get('Ks'))),
    set('SL', and(get('S'), get('Kl'))),
    set('c0', get('tw')),
    ...[2, 4, 6].map((k) => set(`c${k}`, alphaK(k))),
    ...[1, 3, 5, 7].map((k) => set(`c${k}`, double(m, get(`c${k - 1}`)))),
    set('tw', alphaK(8)),
  ];
}

function modeFunctions(m: Emitter, width: number, rounds: number): string[] {
  const xs = Array.from({ length: width }, (_, b) => `(local $x${b} v128) (local $c${b} v128)`).join(' ');
  const head = (name: string, extra = '') =>
    `(func $${name}_${rounds} (export "${name}_${rounds}") (param $p i32) (param $n i32)${extra} (local $end i32) (local $prev v128) ${xs}
  (local.set $end (i32.add (local.get $p) (local.get $n)))`;
  const fns: string[] = [];
  for (const dir of ['enc', 'dec'] as const) {
    const ecb = (w: number) => [
      ...callCore(dir, w, rounds, load),
      ...Array.from({ length: w }, (_, b) => store(b, `(local.get $x${b})`)),
    ];
    fns.push(`${head(`ecb_${dir}`)}\n  ${loop(width, ecb(width))}\n  ${loop(1, ecb(1))})`);
  }
  // CBC encryption (NIST SP 800-38A §6.2): serial, one block at a time; the chaining value at IV.
  fns.push(
    chainFunction(m, rounds),
    `(func (export "cbc_enc_${rounds}") (param $p i32) (param $n i32)\n  (call $cbc_chain_${rounds} (local.get $p) (local.get $n) (i32.const ${IV})))`,
  );
  // CBC decryption: P[i] = D(C[i]) ^ C[i-1]; every block independent, so `width` at a time. In place: the
  // ciphertext blocks are kept in locals before the plaintext overwrites them.
  const dec = (w: number) => [
    ...Array.from({ length: w }, (_, b) => `(local.set $c${b} ${load(b)})`),
    ...callCore('dec', w, rounds, (b) => `(local.get $c${b})`),
    ...Array.from({ length: w }, (_, b) => store(b, xor(`(local.get $x${b})`, get(b === 0 ? 'prev' : `c${b - 1}`)))),
    `(local.set $prev (local.get $c${w - 1}))`,
  ];
  fns.push(`${head('cbc_dec', ' (param $iv i32)')}
  (local.set $prev (v128.load (local.get $iv)))
  ${loop(width, dec(width))}
  ${loop(1, dec(1))}
  (v128.store (local.get $iv) (local.get $prev)))`);
  // XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks: units of $unit bytes, unit u starting from the
  // encrypted tweak at $tp + 16u; C = E(P ^ T) ^ T, T ← T·α after each block. The next tweak of each unit
  // is stored back, so that a unit larger than a chunk continues in the next call.
  for (const dir of ['enc', 'dec'] as const) {
    const xs = Array.from({ length: width }, (_, b) => b);
    fns.push(`(func (export "xts_${dir}_${rounds}") (param $p i32) (param $n i32) (param $unit i32) (param $tp i32)
  (local $t i32) (local $end i32) (local $uend i32) (local $tw v128) (local $Ks v128) (local $Kc v128) (local $Kl v128) (local $S v128) (local $SL v128) ${xs.map((b) => `(local $x${b} v128) (local $c${b} v128)`).join(' ')}
  (local.set $end (i32.add (local.get $p) (local.get $n)))
  ${tweakConstants(m).join('\n  ')}
  (block $done (loop $units
    (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
    (local.set $tw (v128.load (local.get $tp)))
    (local.set $uend (i32.add (local.get $p) (local.get $unit)))
    ${loop(width, [
      ...batchTweaks(m, width),
      ...callCore(dir, width, rounds, (b) => xor(load(b), `(local.get $c${b})`)),
      ...xs.map((b) => store(b, xor(`(local.get $x${b})`, `(local.get $c${b})`))),
    ]).replaceAll('(local.get $end)', '(local.get $uend)')}
    ${loop(1, [
      ...callCore(dir, 1, rounds, () => xor(load(0), '(local.get $tw)')),
      store(0, xor('(local.get $x0)', '(local.get $tw)')),
      `(local.set $tw ${double(m, '(local.get $tw)')})`,
    ]).replaceAll('(local.get $end)', '(local.get $uend)')}
    (v128.store (local.get $tp) (local.get $tw))
    (local.set $tp (i32.add (local.get $tp) (i32.const 16)))
    (br $units))))`);
  }
  // Many sectors, each its own CBC chain with its IV at IVS + 16·s.
  fns.push(`(func (export "sec_dec_${rounds}") (param $p i32) (param $n i32) (param $size i32) (local $iv i32)
  (local.set $iv (i32.const ${IVS}))
  (block $done (loop $next
    (br_if $done (i32.eqz (local.get $n)))
    (call $cbc_dec_${rounds} (local.get $p) (local.get $size) (local.get $iv))
    (local.set $p (i32.add (local.get $p) (local.get $size)))
    (local.set $n (i32.sub (local.get $n) (local.get $size)))
    (local.set $iv (i32.add (local.get $iv) (i32.const 16)))
    (br $next))))`);
  fns.push(...sectorEncryption(width, rounds));
  return fns;
}

/** The counter kinds of the kernel contract's `ctr` (`CtrCounter` of @x/aes-kernel-contract). */
export const CTR_KINDS = ['be128', 'be32', 'xctr'] as const;
type CtrKind = (typeof CTR_KINDS)[number];
/** Byte reversal of a block: a big-endian counter block to the little-endian integer held in registers. */
const REVERSE: Perm = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
/** Moves the low 64-bit lane into the high one and zeroes the low one (indices from 0x80 give 0). */
const LOW_TO_HIGH: Perm = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7];
const le = (value: number, width: 4 | 8) =>
  Array.from({ length: 16 }, (_, i) => (i < width ? Math.floor(value / 2 ** (8 * i)) & 255 : 0));

/**
 * c + k modulo 2^128 for a 128-bit little-endian integer c in a v128 and a small public k: the low lanes
 * add, and the carry out of the low lane is the top bit of c_lo & ~(c_lo + k) (k < 2^63, so the sum wrapped
 * exactly when c_lo had its top bit and the sum lost it); moved into the high lane by a constant swizzle.
 */
function add128(m: Emitter, c: string, k: number): string[] {
  if (k === 0) return [set('y', c)];
  const K = m.T(m.constant(`ctr64_${k}`, le(k, 8)));
  return [
    set('y', `(i64x2.add ${c} ${K})`),
    set('y', `(i64x2.add ${get('y')} ${m.shuf(LOW_TO_HIGH, i64shr(`(v128.andnot ${c} ${get('y')})`, 63))})`),
  ];
}

/** Counter block k of the batch that starts at the state $c, into $c{k} (for the core's input). */
function counterBlock(m: Emitter, kind: CtrKind, k: number): string[] {
  if (kind === 'be32') {
    // NIST SP 800-38D §6.2 inc32: the last 4 bytes, reversed into lane 0, add modulo 2^32 on their own.
    const K = m.T(m.constant(`ctr32_${k}`, le(k, 4)));
    return [set(`c${k}`, m.shuf(REVERSE, k === 0 ? get('c') : `(i32x4.add ${get('c')} ${K})`))];
  }
  const block = kind === 'be128' ? m.shuf(REVERSE, get('y')) : xor(get('y'), get('iv'));
  return [...add128(m, get('c'), k), set(`c${k}`, block)];
}

/** The state $c advanced by `width` blocks. */
function advance(m: Emitter, kind: CtrKind, width: number): string[] {
  if (kind === 'be32') return [set('c', `(i32x4.add ${get('c')} ${m.T(m.constant(`ctr32_${width}`, le(width, 4)))})`)];
  return [...add128(m, get('c'), width), set('c', get('y'))];
}

/**
 * CTR keystream (NIST SP 800-38A §6.5) XORed into $n bytes at $p ($n a multiple of 16; the kernel rounds
 * a partial last block up and copies back only its bytes). The counter state is at $s: for be128 and be32
 * the counter block itself, for xctr the IV at $s and the little-endian counter j + 1 at $s + 16 (HCTR2's
 * XCTR: block j is E(IV ^ le128(j + 1))). In registers the counter is a little-endian integer (the
 * big-endian kinds are byte-reversed on load and on the way into the core). Batches of `width` counter
 * blocks go through the bitsliced core; a last batch of fewer blocks computes `width` and stores only
 * its own (branches on public lengths). The state after the whole batches is stored back, so that a chunk
 * continues where the previous one stopped (only the last chunk of a call has a partial batch).
 */
function ctrFunction(m: Emitter, kind: CtrKind, width: number, rounds: number): string {
  const lanes = Array.from({ length: width }, (_, b) => b);
  const counters = lanes.flatMap((k) => counterBlock(m, kind, k));
  const core = callCore('enc', width, rounds, (b) => get(`c${b}`));
  const state = kind === 'xctr' ? `(i32.add (local.get $s) (i32.const 16))` : '(local.get $s)';
  const loadState =
    kind === 'xctr'
      ? [set('iv', '(v128.load (local.get $s))'), set('c', `(v128.load ${state})`)]
      : [set('c', m.shuf(REVERSE, '(v128.load (local.get $s))'))];
  const storeState = kind === 'xctr' ? get('c') : m.shuf(REVERSE, get('c'));
  const tailStores = lanes.map(
    (b) =>
      `(br_if $tail_done (i32.ge_u (i32.add (local.get $p) (i32.const ${16 * b})) (local.get $end)))\n      ${store(b, xor(load(b), get(`x${b}`)))}`,
  );
  return `(func (export "ctr_${kind}_${rounds}") (param $p i32) (param $n i32) (param $s i32)
  (local $t i32) (local $end i32) (local $c v128) (local $iv v128) (local $y v128) ${lanes.map((b) => `(local $x${b} v128) (local $c${b} v128)`).join(' ')}
  (local.set $end (i32.add (local.get $p) (local.get $n)))
  ${loadState.join('\n  ')}
  ${loop(width, [...counters, ...core, ...lanes.map((b) => store(b, xor(load(b), get(`x${b}`)))), ...advance(m, kind, width)])}
  (block $tail_done
    (br_if $tail_done (i32.ge_u (local.get $p) (local.get $end)))
    ${[...counters, ...core].join('\n    ')}
    ${tailStores.join('\n    ')})
  (v128.store ${state} ${storeState}))`;
}

/**
 * CBC encryption of many sectors (NIST SP 800-38A §6.2 per sector), sector s at $p + s·$size with its
 * chaining value at IVS + 16s. Each chain is serial, but the chains are independent: a group of `width`
 * sectors goes through the bitsliced core together, block k of every sector in one batch, lane b XORed
 * with its chaining value before the core and the output kept as the next one. A last group of fewer
 * than `width` sectors pads its lanes by repeating its last sector (lane b reads and writes sector
 * min(b, count - 1), with the same chaining value: the repeated lanes compute and store the same bytes),
 * unless only one or two sectors are left: those go through the one-block core, one chain after the
 * other. The chaining values are stored back, so that sectors larger than a chunk continue in the next
 * call (pieces of the same sectors, laid out the same way). Every address comes from $p, $n, $size.
 */
function sectorEncryption(width: number, rounds: number): string[] {
  const lanes = Array.from({ length: width }, (_, b) => b);
  const at = (b: number) => `(i32.add (local.get $a${b}) (local.get $o))`;
  // Lane b's sector and chaining value: the next sector's if there is one, else lane b - 1's.
  const clamp = lanes.slice(1).flatMap((b) => [
    set(`a${b}`, get(`a${b - 1}`)),
    set(`v${b}`, get(`v${b - 1}`)),
    `(block $l${b} (br_if $l${b} (i32.ge_u (i32.add (local.get $a${b - 1}) (local.get $size)) (local.get $end)))
      ${set(`a${b}`, `(i32.add (local.get $a${b - 1}) (local.get $size))`)}
      ${set(`v${b}`, `(i32.add (local.get $v${b - 1}) (i32.const 16))`)})`,
  ]);
  const batch = [
    ...callCore('enc', width, rounds, (b) => xor(`(v128.load ${at(b)})`, get(`c${b}`))),
    ...lanes.map((b) => set(`c${b}`, get(`x${b}`))),
    ...lanes.map((b) => `(v128.store ${at(b)} ${get(`c${b}`)})`),
  ];
  const many = `(func (export "sec_enc_${rounds}") (param $p i32) (param $n i32) (param $size i32)
  (local $end i32) (local $o i32) ${lanes.map((b) => `(local $a${b} i32) (local $v${b} i32)`).join(' ')} ${lanes.map((b) => `(local $x${b} v128) (local $c${b} v128)`).join(' ')}
  (local.set $end (i32.add (local.get $p) (local.get $n)))
  (local.set $v0 (i32.const ${IVS}))
  (block $done (loop $groups
    (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
    (block $wide
      (br_if $wide (i32.gt_u (local.get $end) (i32.add (local.get $p) (i32.shl (local.get $size) (i32.const 1)))))
      ;; One or two sectors left: one chain after the other through the one-block core.
      (call $cbc_chain_${rounds} (local.get $p) (local.get $size) (local.get $v0))
      (local.set $p (i32.add (local.get $p) (local.get $size)))
      (local.set $v0 (i32.add (local.get $v0) (i32.const 16)))
      (br $groups))
    (local.set $a0 (local.get $p))
    ${clamp.join('\n    ')}
    ${lanes.map((b) => set(`c${b}`, `(v128.load ${get(`v${b}`)})`)).join('\n    ')}
    (local.set $o (i32.const 0))
    (block $blocks_done (loop $blocks
      (br_if $blocks_done (i32.ge_u (local.get $o) (local.get $size)))
      ${batch.join('\n      ')}
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $blocks)))
    ${lanes.map((b) => `(v128.store ${get(`v${b}`)} ${get(`c${b}`)})`).join('\n    ')}
    (local.set $p (i32.add (local.get $p) (i32.shl (local.get $size) (i32.const ${Math.log2(width)}))))
    (local.set $v0 (i32.add (local.get $v0) (i32.const ${16 * width})))
    (br $groups))))`;
  return [many];
}

/**
 * The whole module as WebAssembly text. Deterministic: same options, same text; nothing is kept between
 * calls.
 *
 * `swizzle` is the lookup instruction: `i8x16.swizzle` (SIMD128, the build that ships), or
 * `i8x16.relaxed_swizzle` (relaxed-simd), which bench/relaxed.ts measures against it. The relaxed
 * instruction's result is fixed by the specification for indices below 16 (the lane) and from 128 up
 * (zero), and implementation-defined only in between; every index this kernel produces is in [0, 15] or
 * [0x80, 0x8f] (checked exhaustively in tables.ts), so both compute the same bytes everywhere.
 *
 * @example
 * ```ts
 * const wat = moduleText({ circuits: kernelCircuits(), swizzle: 'i8x16.swizzle' });
 * ```
 */
export function moduleText(options: ModuleOptions): string {
  const m = new Emitter(options);
  const parts: string[] = [];
  if (PAGE < DATA + CHUNK) throw new Error('layout does not fit one page');
  parts.push(bitslicedFunction(m, 'enc'), bitslicedFunction(m, 'dec'));
  for (const rounds of [10, 12, 14]) {
    for (const dir of ['enc', 'dec'] as const)
      parts.push(coreFunction(m, dir, 1, rounds), prepFunction(m, dir, rounds));
    parts.push(...modeFunctions(m, WIDTH, rounds));
    for (const kind of CTR_KINDS) parts.push(ctrFunction(m, kind, WIDTH, rounds));
  }
  parts.push(...polyvalFunctions(m));
  const hex = (bytes: number[]) => bytes.map((x) => `\\${x.toString(16).padStart(2, '0')}`).join('');
  if (16 * m.tables.size > KEY_IN - TABLES) throw new Error('constants do not fit');
  const data = [...m.tables.values()].map(hex).join('');
  return `${[
    ';; Generated by scripts/build.ts (scripts/wat.ts): the text of a module that src/wasm.generated.ts embeds.',
    '(module',
    `(memory (export "memory") 1 1)`,
    `(data (i32.const ${TABLES}) "${data}")`,
    ...parts,
    ')',
  ].join('\n')}\n`;
}
