/**
 * Emits POLYVAL (RFC 8452 §3) for the kernel's module: the multiply-accumulate acc = (acc ^ X)·H·x^-128
 * over whole blocks, in constant time on v128 integer multiplications.
 *
 * Carry-less products from integer products with holes (the idea of BearSSL's `ghash_ctmul`): a 16-bit
 * piece u is split into three classes u_k = u & C_k, C_k the bits j ≡ k (mod 3). In the integer product
 * u_k·v_l every column sits at a position ≡ k + l (mod 3) and sums at most 6 one-bit terms, so it fits the
 * 3 bits up to the next column of its class and never carries into it: bit j of u_k·v_l, for j ≡ k + l,
 * is the parity of its column. Hence clmul(u, v) = ⊕_r (⊕_{k+l ≡ r} u_k·v_l) & M_r (M_r: bits j ≡ r of 32):
 * nine `i32x4.mul` (exact, as 16×16 bits fit 32), XORs and ANDs.
 *
 * Four blocks side by side, one per 32-bit lane: four blocks are transposed so that vector i holds word i
 * of each, and split into 8 vectors of 16-bit pieces. A 128×128-bit product is Karatsuba over the pieces,
 * three levels: 27 products of 16-bit pieces (operands are XORs of pieces). Aggregated reduction (Gueron):
 * a batch of 8 blocks X_0..X_7 gives acc' = Σ (X_i [^ acc for i = 0])·K_{8-i}·x^-128 with K_1 = H and
 * K_{k+1} = K_k·H·x^-128, so the 8 products are summed unreduced, lane sums and all, and reduced once.
 * The key side (the powers' pieces, Karatsuba sums and classes: 2 × 27 × 3 vectors) is expanded once per
 * key activation into the table at POLY_TABLE; the powers themselves are computed at load with the same
 * batch function.
 *
 * Everything linear is deferred: the class masks are applied once per leaf product for both groups of
 * four blocks together, and Karatsuba's recombination runs once per batch, on the sums of both groups
 * (each leaf product is stored at POLY_LEAVES as it is made, and read back for the recombination).
 *
 * Reduction (x^128 + x^127 + x^126 + x^121 + 1, Montgomery by x^128): for a product D = D_0 + D_1·x^128,
 * Q = D_0·(1 + x^121 + x^126 + x^127) mod x^128 makes D + Q·P divisible by x^128, and
 * D·x^-128 = D_1 ^ Q ^ Q>>1 ^ Q>>2 ^ Q>>7 (128-bit shifts): shifts of the 64-bit lanes and two constant
 * swizzles.
 */
import {
  PAGE,
  POLY_ACC,
  POLY_END,
  POLY_LEAVES,
  POLY_POW,
  POLY_TABLE,
  POLY_TABLE_BYTES,
  POLY_TAIL,
  TABLES,
} from '../src/layout.js';

/** What this file needs of the module emitter of wat.ts. */
export interface PolyvalEmitter {
  constant(name: string, bytes: number[]): string;
  block(prefix: string, entries: number[][]): number;
  T(name: string): string;
  swizzleBy(v: string, mask: string): string;
  hoisting(emit: () => string[]): { locals: string; prologue: string[]; body: string[] };
}

const xor = (a: string, b: string) => `(v128.xor ${a} ${b})`;
const and = (a: string, b: string) => `(v128.and ${a} ${b})`;
const get = (n: string) => `(local.get $${n})`;
const set = (n: string, e: string) => `(local.set $${n} ${e})`;

const splat32 = (x: number) => Array.from({ length: 16 }, (_, i) => (x >>> (8 * (i & 3))) & 255);
const classMask = (bits: number, r: number) => {
  let x = 0;
  for (let j = r; j < bits; j += 3) x |= 2 ** j;
  return x >>> 0;
};

/** Byte indices of a two-operand shuffle: lanes of 32 bits (0–3 from a, 4–7 from b). */
const lanes32 = (l: number[]) => l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]);
const shuffle = (l: number[], a: string, b: string) => `(i8x16.shuffle ${lanes32(l).join(' ')} ${a} ${b})`;
const lo32 = (a: string, b: string) => shuffle([0, 4, 1, 5], a, b);
const hi32 = (a: string, b: string) => shuffle([2, 6, 3, 7], a, b);
const lo64 = (a: string, b: string) => shuffle([0, 1, 4, 5], a, b);
const hi64 = (a: string, b: string) => shuffle([2, 3, 6, 7], a, b);

/** An operand piece of the recursion: the pieces of the original operand it XORs (sorted). */
type PieceSet = number[];
const keyOf = (s: PieceSet) => s.join('_');
const symdiff = (a: PieceSet, b: PieceSet) =>
  [...a.filter((x) => !b.includes(x)), ...b.filter((x) => !a.includes(x))].sort((x, y) => x - y);

/**
 * Karatsuba over pieces, symbolically: a·b = L + (M - L - H)·y + H·y², y = x^(16·n/2), L = a_lo·b_lo,
 * H = a_hi·b_hi, M = (a_lo + a_hi)(b_lo + b_hi). Returns the operand of each leaf product (by the key of
 * its piece set), depth first (L, H, then M at every level: the order {@link recombine} reads them back
 * in), and the operand sets needed, in an order where every set comes after the two it is the XOR of.
 */
function karatsuba(): { leaves: string[]; sets: [string, PieceSet, string | null, string | null][] } {
  const sets = new Map<string, [string, PieceSet, string | null, string | null]>();
  for (let i = 0; i < 8; i++) sets.set(keyOf([i]), [keyOf([i]), [i], null, null]);
  const leaves: string[] = [];
  const rec = (ops: PieceSet[]): void => {
    if (ops.length === 1) {
      leaves.push(keyOf(ops[0]));
      return;
    }
    const h = ops.length / 2;
    const lo = ops.slice(0, h),
      hi = ops.slice(h);
    const mid = lo.map((a, i) => {
      const s = symdiff(a, hi[i]);
      if (!sets.has(keyOf(s))) sets.set(keyOf(s), [keyOf(s), s, keyOf(a), keyOf(hi[i])]);
      return s;
    });
    rec(lo);
    rec(hi);
    rec(mid);
  };
  rec(Array.from({ length: 8 }, (_, i) => [i]));
  return { leaves, sets: [...sets.values()] };
}

/**
 * Karatsuba's recombination of the leaf products stored at POLY_LEAVES (in {@link karatsuba}'s order),
 * for a product of n pieces from leaf `first` on: statements into `body`, and the locals holding its
 * 2n - 1 slots (slot s: 32 bits at bit 16s). L at slot 0, H at slot n, M ^ L ^ H at slot n/2.
 */
function recombine(body: string[], names: string[], n: number, first: number): string[] {
  if (n === 1) {
    const name = `l${first}`;
    body.push(set(name, `(v128.load (i32.const ${POLY_LEAVES + 16 * first}))`));
    names.push(name);
    return [name];
  }
  const h = n / 2;
  const count = 3 ** Math.log2(h);
  const lo = recombine(body, names, h, first);
  const hi = recombine(body, names, h, first + count);
  const mid = recombine(body, names, h, first + 2 * count);
  const terms: string[][] = Array.from({ length: 2 * n - 1 }, () => []);
  for (let i = 0; i < 2 * h - 1; i++) {
    const name = `m${n}_${first}_${i}`;
    body.push(set(name, xor(xor(get(mid[i]), get(lo[i])), get(hi[i]))));
    names.push(name);
    terms[i].push(lo[i]);
    terms[i + n].push(hi[i]);
    terms[i + h].push(name);
  }
  return terms.map((t, i) => {
    if (t.length === 1) return t[0];
    const name = `r${n}_${first}_${i}`;
    body.push(
      set(
        name,
        t.map(get).reduce((a, b) => xor(a, b)),
      ),
    );
    names.push(name);
    return name;
  });
}

const KARATSUBA = karatsuba();
/** Leaves (27) of one 128×128-bit product. */
export const LEAVES = KARATSUBA.leaves.length;
/** Bytes of the expanded key table: 2 groups of 4 lanes × LEAVES operands × 3 classes. */
if (POLY_TABLE_BYTES !== 2 * LEAVES * 3 * 16 || POLY_TABLE + POLY_TABLE_BYTES > POLY_ACC) throw new Error('POLY_TABLE');
if (POLY_LEAVES + 16 * LEAVES !== POLY_END || POLY_END > PAGE) throw new Error('POLY_LEAVES');

/**
 * Statements that put four blocks (expressions) into the 8 piece vectors `${p}0..7` (lane b: piece i of
 * block b, 16 bits), then every Karatsuba operand set into `${p}s_<set>`.
 */
function pieces(m: PolyvalEmitter, blocks: string[], p: string): string[] {
  const out: string[] = [];
  for (const [i, b] of blocks.entries()) out.push(set(`${p}d${i}`, b));
  const d = (i: number) => get(`${p}d${i}`);
  out.push(
    set(`${p}t0`, lo32(d(0), d(1))),
    set(`${p}t1`, lo32(d(2), d(3))),
    set(`${p}t2`, hi32(d(0), d(1))),
    set(`${p}t3`, hi32(d(2), d(3))),
  );
  const t = (i: number) => get(`${p}t${i}`);
  const words = [lo64(t(0), t(1)), hi64(t(0), t(1)), lo64(t(2), t(3)), hi64(t(2), t(3))];
  const low16 = m.T(m.constant('pv_ffff', splat32(0xffff)));
  for (const [i, w] of words.entries()) {
    out.push(set(`${p}w`, w));
    out.push(set(`${p}s_${2 * i}`, and(get(`${p}w`), low16)));
    out.push(set(`${p}s_${2 * i + 1}`, `(i32x4.shr_u ${get(`${p}w`)} (i32.const 16))`));
  }
  for (const [key, , a, b] of KARATSUBA.sets) {
    if (a !== null && b !== null) out.push(set(`${p}s_${key}`, xor(get(`${p}s_${a}`), get(`${p}s_${b}`))));
  }
  return out;
}

/** The locals {@link pieces} uses with prefix p. */
const piecesLocals = (p: string) => [
  ...[0, 1, 2, 3].flatMap((i) => [`${p}d${i}`, `${p}t${i}`]),
  `${p}w`,
  ...KARATSUBA.sets.map(([key]) => `${p}s_${key}`),
];

const classConst = (m: PolyvalEmitter, bits: number, r: number) =>
  m.T(m.constant(`pv_c${bits}_${r}`, splat32(classMask(bits, r))));

/** Address of class l of leaf t's key operand for group g in the expanded table. */
const tableAt = (g: number, t: number, l: number) => POLY_TABLE + 16 * (3 * (LEAVES * g + t) + l);

/**
 * The key expansion: powers K_1..K_8 at POLY_POW + 16(k-1) into the table (group g, lane b: the power of
 * block 4g + b, K_{8-4g-b}), every leaf operand split into its three classes.
 */
function expandFunction(m: PolyvalEmitter): string {
  const body: string[] = [];
  for (const g of [0, 1]) {
    const blocks = [0, 1, 2, 3].map((b) => `(v128.load (i32.const ${POLY_POW + 16 * (7 - 4 * g - b)}))`);
    body.push(...pieces(m, blocks, 'k'));
    for (const [t, leaf] of KARATSUBA.leaves.entries()) {
      for (const l of [0, 1, 2]) {
        body.push(`(v128.store (i32.const ${tableAt(g, t, l)}) ${and(get(`ks_${leaf}`), classConst(m, 16, l))})`);
      }
    }
  }
  const locals = piecesLocals('k')
    .map((n) => `(local $${n} v128)`)
    .join(' ');
  return `(func $polyval_expand (export "polyval_expand") (local $t i32) ${locals}\n  ${body.join('\n  ')})`;
}

const SWAP_LOW_TO_HIGH = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7];
const SWAP_HIGH_TO_LOW = [8, 9, 10, 11, 12, 13, 14, 15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80];
const shuf = (m: PolyvalEmitter, p: number[], v: string) =>
  m.swizzleBy(v, m.T(m.constant(`p${p.map((x) => x.toString(16)).join('')}`, p)));

/**
 * The batch: 8 blocks at $p, each swizzled by $mask (identity, or byte reversal for GHASH), $acc XORed
 * into the first; returns Σ X_i·K_{8-i}·x^-128 (acc' of the aggregated reduction).
 */
function batchFunction(m: PolyvalEmitter): string {
  const { locals: consts, prologue, body: emitted } = m.hoisting(() => batchBody(m));
  return `(func $polyval8 (param $p i32) (param $mask v128) (param $acc v128) (result v128) (local $t i32) ${consts} ${emitted[0]}
  ${[...prologue, ...emitted.slice(1)].join('\n  ')})`;
}

/** The body of {@link batchFunction}: its locals' declarations, then its statements. */
function batchBody(m: PolyvalEmitter): string[] {
  const body: string[] = [];
  for (const g of [0, 1]) {
    const blocks = [0, 1, 2, 3].map((b) => {
      const x = m.swizzleBy(`(v128.load offset=${16 * (4 * g + b)} (local.get $p))`, get('mask'));
      return g === 0 && b === 0 ? xor(x, get('acc')) : x;
    });
    body.push(...pieces(m, blocks, `g${g}`));
  }
  for (const [t, leaf] of KARATSUBA.leaves.entries()) {
    // z_r = Σ over both groups and k + l ≡ r (mod 3) of u_k·v_l, each class masked once.
    for (const g of [0, 1]) {
      for (const k of [0, 1, 2]) body.push(set(`u${g}${k}`, and(get(`g${g}s_${leaf}`), classConst(m, 16, k))));
    }
    for (const r of [0, 1, 2]) {
      const terms: string[] = [];
      for (const g of [0, 1]) {
        for (const k of [0, 1, 2]) {
          const l = (r - k + 3) % 3;
          terms.push(`(i32x4.mul ${get(`u${g}${k}`)} (v128.load (i32.const ${tableAt(g, t, l)})))`);
        }
      }
      body.push(
        set(
          `z${r}`,
          terms.reduce((a, b) => xor(a, b)),
        ),
      );
    }
    body.push(
      set(
        'z',
        xor(
          xor(and(get('z0'), classConst(m, 32, 0)), and(get('z1'), classConst(m, 32, 1))),
          and(get('z2'), classConst(m, 32, 2)),
        ),
      ),
    );
    // Stored: the stores also keep V8 from hoisting every table load of the batch to the top (and spilling
    // them all), as loads may not pass stores.
    body.push(`(v128.store (i32.const ${POLY_LEAVES + 16 * t}) ${get('z')})`);
  }
  const names: string[] = [];
  const slots = recombine(body, names, 8, 0);
  // Slot s holds 32 bits at bit 16s of each lane's 256-bit product: word j = s_2j ^ s_2j+1 << 16 ^ s_2j-1 >> 16.
  const slot = (s: number) => (s >= 0 && s < slots.length ? get(slots[s]) : null);
  for (let j = 0; j < 8; j++) {
    const terms = [
      slot(2 * j),
      slot(2 * j + 1) && `(i32x4.shl ${slot(2 * j + 1)} (i32.const 16))`,
      slot(2 * j - 1) && `(i32x4.shr_u ${slot(2 * j - 1)} (i32.const 16))`,
    ].filter((x): x is string => x !== null);
    body.push(
      set(
        `w${j}`,
        terms.reduce((a, b) => xor(a, b)),
      ),
    );
  }
  // The sum over the four lanes: word j of D in lane j of D_0 (words 0..3) and D_1 (words 4..7).
  for (const h of [0, 1]) {
    const w = (i: number) => get(`w${4 * h + i}`);
    body.push(set('a', xor(lo32(w(0), w(1)), hi32(w(0), w(1)))));
    body.push(set('b', xor(lo32(w(2), w(3)), hi32(w(2), w(3)))));
    body.push(set(`D${h}`, xor(lo64(get('a'), get('b')), hi64(get('a'), get('b')))));
  }
  // Montgomery reduction: Q = D_0 ^ (D_0 << 121 ^ D_0 << 126 ^ D_0 << 127), result D_1 ^ Q ^ Q>>1 ^ Q>>2 ^ Q>>7.
  const shl = (v: string, n: number) => `(i64x2.shl ${v} (i32.const ${n}))`;
  const shr = (v: string, n: number) => `(i64x2.shr_u ${v} (i32.const ${n}))`;
  const spill = (v: string) => xor(xor(shl(v, 63), shl(v, 62)), shl(v, 57));
  body.push(set('q', xor(get('D0'), shuf(m, SWAP_LOW_TO_HIGH, spill(get('D0'))))));
  body.push(
    xor(
      xor(xor(get('D1'), get('q')), xor(xor(shr(get('q'), 1), shr(get('q'), 2)), shr(get('q'), 7))),
      shuf(m, SWAP_HIGH_TO_LOW, spill(get('q'))),
    ),
  );
  names.push(
    ...piecesLocals('g0'),
    ...piecesLocals('g1'),
    ...[0, 1].flatMap((g) => [0, 1, 2].map((k) => `u${g}${k}`)),
    'z0',
    'z1',
    'z2',
    'z',
    ...Array.from({ length: 8 }, (_, j) => `w${j}`),
    'a',
    'b',
    'D0',
    'D1',
    'q',
  );
  return [names.map((n) => `(local $${n} v128)`).join(' '), ...body];
}

/**
 * The exports: `polyval_update(p, n, reversed)` absorbs the n bytes (whole blocks) at p into the
 * accumulator at POLY_ACC: batches of 8, then a last batch of r < 8 blocks laid out at the end of the
 * zeroed POLY_TAIL (the batch's first 8 - r blocks are zero, so its powers K_r..K_1 meet the r blocks),
 * with acc XORed into its first block. `polyval_init()` computes K_2..K_8 from K_1 = H at POLY_POW
 * (K_2..K_8 zero on entry) with the batch over a table expanded from H alone, then expands the table.
 */
export function polyvalFunctions(m: PolyvalEmitter): string[] {
  const ID = Array.from({ length: 16 }, (_, i) => i);
  const masks = m.block('pvmask', [ID, [...ID].reverse()]);
  const zeroTail = Array.from(
    { length: 8 },
    (_, i) => `(v128.store (i32.const ${POLY_TAIL + 16 * i}) (v128.const i64x2 0 0))`,
  );
  if (masks < TABLES) throw new Error('masks');
  const update = `(func (export "polyval_update") (param $p i32) (param $n i32) (param $rev i32)
  (local $end i32) (local $d i32) (local $mask v128) (local $acc v128)
  (local.set $end (i32.add (local.get $p) (local.get $n)))
  (local.set $mask (v128.load offset=${masks} (i32.shl (local.get $rev) (i32.const 4))))
  (local.set $acc (v128.load (i32.const ${POLY_ACC})))
  (block $w_done (loop $w
    (br_if $w_done (i32.gt_u (i32.add (local.get $p) (i32.const 128)) (local.get $end)))
    (local.set $acc (call $polyval8 (local.get $p) (local.get $mask) (local.get $acc)))
    (local.set $p (i32.add (local.get $p) (i32.const 128)))
    (br $w)))
  (block $tail_done
    (br_if $tail_done (i32.ge_u (local.get $p) (local.get $end)))
    ${zeroTail.join('\n    ')}
    (local.set $d (i32.sub (i32.const ${POLY_TAIL + 128}) (i32.sub (local.get $end) (local.get $p))))
    (v128.store (local.get $d) (v128.xor ${m.swizzleBy('(v128.load (local.get $p))', get('mask'))} (local.get $acc)))
    (block $copy_done (loop $copy
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (local.set $d (i32.add (local.get $d) (i32.const 16)))
      (br_if $copy_done (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store (local.get $d) ${m.swizzleBy('(v128.load (local.get $p))', get('mask'))})
      (br $copy)))
    (local.set $acc (call $polyval8 (i32.const ${POLY_TAIL}) (v128.load offset=${masks} (i32.const 0)) (v128.const i64x2 0 0)))
    ${zeroTail.join('\n    ')})
  (v128.store (i32.const ${POLY_ACC}) (local.get $acc)))`;
  const powers = Array.from({ length: 7 }, (_, i) => {
    const k = i + 2;
    return `(v128.store (i32.const ${POLY_TAIL + 112}) (v128.load (i32.const ${POLY_POW + 16 * (k - 2)})))
  (v128.store (i32.const ${POLY_POW + 16 * (k - 1)}) (call $polyval8 (i32.const ${POLY_TAIL}) (v128.load offset=${masks} (i32.const 0)) (v128.const i64x2 0 0)))`;
  });
  const init = `(func (export "polyval_init")
  ${zeroTail.join('\n  ')}
  (call $polyval_expand)
  ${powers.join('\n  ')}
  ${zeroTail.join('\n  ')}
  (call $polyval_expand))`;
  return [expandFunction(m), batchFunction(m), update, init];
}
