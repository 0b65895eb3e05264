/**
 * Emits the WebAssembly SIMD128 HBSH core as WebAssembly text: XChaCha (4 blocks at once, one block per
 * 32-bit lane), NH (`i64x2.extmul_low_i32x4_u`) and Poly1305 (scalar i64, 26-bit limbs), over the memory
 * of src/layout.ts. src/core-wasm.ts binds the exports to the contract of src/core.ts.
 *
 * Where data lives: key- and data-dependent values are only ever v128 values or, in Poly1305, i64
 * values. Nothing converts either to i32 (no `*.extract_lane`, no `i32.wrap_i64`, no i32 load), so every
 * i32 (address, length, loop bound, branch condition) is computed from parameters and constants alone.
 * Every byte that is moved one at a time goes through a v128 (`v128.load8_splat`, `v128.store8_lane`).
 *
 * Definitions: ChaCha and HChaCha (RFC 8439 §2.1–2.3; XChaCha: draft-irtf-cfrg-xchacha-03 §2.2–2.3, with
 * djb's 64-bit counter in words 12–13 as Adiantum and Linux use it); NH and Poly1305 as Adiantum defines
 * them (Crowley and Biggers, ToSC 2018(4), §6.2–6.3; Poly1305 without the addition of s).
 */
import { DATA, DATA_BYTES, DERIVED, KEY, MEMORY_BYTES, NH_CHUNK, NH_KEY, PRIVATE } from '../src/layout.js';

/**
 * The core's own areas in PRIVATE [64, 1024). Poly1305 keys are 20 32-bit words: r0..r4 (26-bit limbs of
 * the clamped r), 5·r0..5·r4, r²'s limbs and their multiples by 5 (see `clamp`). A state (STATE_BYTES at the caller's pointer) holds A's five 26-bit limbs as
 * i64 at +0 and B's at +40.
 *
 * @example `PRIV.TAIL + 256 === 1024`
 */
export const PRIV = {
  /** Poly1305 key of the header accumulator A (Adiantum K_T, HPolyC K_H). */
  KEY_A: PRIVATE,
  /** Poly1305 key of the message accumulator B (Adiantum K_M). */
  KEY_M: PRIVATE + 80,
  /** The nonce 01 ‖ 0^23 of `setup`'s key derivation (the caller's NONCE area is left alone). */
  NONCE0: PRIVATE + 160,
  /** The 16 input rows of the 4-block ChaCha state, each word splatted over the 4 lanes. */
  ROWS: PRIVATE + 192,
  /** `finish`'s working copy of a state. */
  WORK: PRIVATE + 448,
  /** NH's four pass sums (i64x2 each, the two lanes added at the end of a chunk). */
  ACC: PRIVATE + 544,
  /** NH's 32-byte output for one chunk. */
  NHOUT: PRIVATE + 608,
  /** A zero-padded partial NH unit or Poly1305 block. */
  PAD: PRIVATE + 640,
  /** 256 bytes of keystream for a partial batch of 4 blocks. */
  TAIL: PRIVATE + 704,
} as const;

/** Offset of accumulator B in a state. @example `B_OFFSET === 40` */
export const B_OFFSET = 40;

/**
 * Choices of the emitted code that change its speed, never its results; bench/core.ts measures them side
 * by side (`--variants`). On this repository's x64 machine (Zen 4, V8 11.3) the rotation choice and the
 * interleaving move XChaCha12 by under 10 %; the defaults are the fastest measured.
 */
export interface WatOptions {
  /**
   * Rotation by 16 and by 8: `swizzle` (`i8x16.swizzle` by a constant mask: V8 emits one pshufb, the mask
   * built once per step and shared by its four rotations), `shuffle` (`i8x16.shuffle` by an immediate
   * pattern), or `shift` (shl, shr_u, or).
   */
  readonly rot8: 'shuffle' | 'swizzle' | 'shift';
  readonly rot16: 'shuffle' | 'swizzle' | 'shift';
  /** NH units per loop iteration (1, 2 or 4). */
  readonly nhUnroll: 1 | 2 | 4;
  /** How many of a round's four quarter rounds are emitted interleaved, step by step (1, 2 or 4). */
  readonly interleave?: 1 | 2 | 4;
  /**
   * How NH gets (m2 + k2, m3 + k3) into lanes 0–1: `shuffle` x's upper half, or `load` message and key
   * again 8 bytes on and add (an addition instead of a shuffle: shuffles compete with extmul's unpacks).
   */
  readonly nhHigh?: 'shuffle' | 'load';
}

/** The options of the committed build. @example `moduleText(DEFAULT_OPTIONS)` */
export const DEFAULT_OPTIONS: WatOptions = {
  rot8: 'swizzle',
  rot16: 'swizzle',
  nhUnroll: 1,
  interleave: 4,
  nhHigh: 'shuffle',
};

/** "expand 32-byte k" as four little-endian words (RFC 8439 §2.3). */
const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];
const hex = (n: number) => `0x${n.toString(16)}`;
const M26 = 0x3ffffff;

const get = (n: string) => `(local.get $${n})`;
const set = (n: string, e: string) => `(local.set $${n} ${e})`;
const add = (a: string, b: string) => `(i32x4.add ${a} ${b})`;
const xor = (a: string, b: string) => `(v128.xor ${a} ${b})`;
const load = (addr: number | string, base = '(i32.const 0)') =>
  typeof addr === 'number' ? `(v128.load offset=${addr} ${base})` : `(v128.load ${addr})`;
const store = (addr: number, base: string, v: string) => `(v128.store offset=${addr} ${base} ${v})`;
const i32 = (n: number) => `(i32.const ${n})`;
const i64 = (n: number | bigint) => `(i64.const ${n})`;
/** A byte shuffle of one vector by a constant pattern. */
const shuffle1 = (v: string, p: number[]) => `(i8x16.shuffle ${p.join(' ')} ${v} ${v})`;
/** A shuffle of two vectors by 32-bit lanes (indices 0–7). */
const lanes2 = (a: string, b: string, l: number[]) =>
  `(i8x16.shuffle ${l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]).join(' ')} ${a} ${b})`;
const lanes1 = (v: string, l: number[]) => lanes2(v, v, l);

/** Rotation of each 32-bit lane left by n (RFC 8439 §2.1's <<<). */
function rotl(v: string, n: number, o: WatOptions): string {
  const by16 = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
  const by8 = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
  if (n === 16 && o.rot16 === 'shuffle') return shuffle1(v, by16);
  if (n === 8 && o.rot8 === 'shuffle') return shuffle1(v, by8);
  if (n === 16 && o.rot16 === 'swizzle') return `(i8x16.swizzle ${v} (v128.const i8x16 ${by16.join(' ')}))`;
  if (n === 8 && o.rot8 === 'swizzle') return `(i8x16.swizzle ${v} (v128.const i8x16 ${by8.join(' ')}))`;
  return `(v128.or (i32x4.shl ${v} ${i32(n)}) (i32x4.shr_u ${v} ${i32(32 - n)}))`;
}

/**
 * The quarter rounds (RFC 8439 §2.1) on groups of four locals, emitted step by step across the groups so
 * that independent work is adjacent.
 */
function quarterRounds(groups: [string, string, string, string][], o: WatOptions): string[] {
  const out: string[] = [];
  for (const [r, [x, y, z]] of [
    [16, [0, 1, 3]],
    [12, [2, 3, 1]],
    [8, [0, 1, 3]],
    [7, [2, 3, 1]],
  ] as [number, [number, number, number]][]) {
    // x += y; z ^= x; z <<<= r, with (a, b, d) for 16 and 8 and (c, d, b) for 12 and 7.
    for (const g of groups) out.push(set(g[x], add(get(g[x]), get(g[y]))));
    for (const g of groups) out.push(set(g[z], rotl(xor(get(g[z]), get(g[x])), r, o)));
  }
  return out;
}

/**
 * The ChaCha double round (RFC 8439 §2.1–2.3: column round, then diagonal round) on the 16 rows x0..x15
 * of four blocks, `interleave` quarter rounds at a time emitted step by step.
 */
function doubleRound4(o: WatOptions): string[] {
  const k = o.interleave ?? 4;
  const x = (i: number) => `x${i}`;
  const cols = [0, 1, 2, 3].map((i) => [x(i), x(4 + i), x(8 + i), x(12 + i)] as [string, string, string, string]);
  const diags = [0, 1, 2, 3].map(
    (i) =>
      [x(i), x(4 + ((i + 1) % 4)), x(8 + ((i + 2) % 4)), x(12 + ((i + 3) % 4))] as [string, string, string, string],
  );
  const out: string[] = [];
  for (const round of [cols, diags])
    for (let i = 0; i < 4; i += k) out.push(...quarterRounds(round.slice(i, i + k), o));
  return out;
}

/**
 * `chacha4(p, rounds2)`: XORs the 256 bytes at p with four ChaCha blocks of the input rows at ROWS (the
 * counter rows 12–13 already there), `rounds2` double rounds each; the output block j is lane j of every
 * row, put in order by a 4×4 transpose of 32-bit lanes per group of four rows.
 */
function chacha4(o: WatOptions): string {
  const locals = Array.from({ length: 16 }, (_, i) => `(local $x${i} v128)`).join(' ');
  const body: string[] = [];
  for (let i = 0; i < 16; i++) body.push(set(`x${i}`, load(PRIV.ROWS + 16 * i)));
  body.push('(loop $rounds');
  body.push(...doubleRound4(o));
  body.push(`(br_if $rounds (local.tee $n (i32.sub ${get('n')} ${i32(1)})))`, ')');
  for (let i = 0; i < 16; i++) body.push(set(`x${i}`, add(get(`x${i}`), load(PRIV.ROWS + 16 * i))));
  for (let g = 0; g < 4; g++) {
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => get(`x${4 * g + i}`));
    body.push(
      set('t0', lanes2(a, b, [0, 4, 1, 5])),
      set('t1', lanes2(c, d, [0, 4, 1, 5])),
      set('t2', lanes2(a, b, [2, 6, 3, 7])),
      set('t3', lanes2(c, d, [2, 6, 3, 7])),
    );
    const rows = [
      lanes2(get('t0'), get('t1'), [0, 1, 4, 5]),
      lanes2(get('t0'), get('t1'), [2, 3, 6, 7]),
      lanes2(get('t2'), get('t3'), [0, 1, 4, 5]),
      lanes2(get('t2'), get('t3'), [2, 3, 6, 7]),
    ];
    for (let j = 0; j < 4; j++) {
      const off = 64 * j + 16 * g;
      body.push(store(off, get('p'), xor(load(off, get('p')), rows[j])));
    }
  }
  return [
    `(func $chacha4 (param $p i32) (param $n i32) ${locals} (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)`,
    ...body,
    ')',
  ].join('\n');
}

/**
 * `stream(noncePtr, ptr, len, block, blockHi, rounds)`: HChaCha_rounds (draft-irtf-cfrg-xchacha §2.2; one block,
 * row-wise, lanes rotated for the diagonal round) of the key at KEY and nonce[0..16) gives the subkey;
 * then ChaCha_rounds under it with words 14–15 = nonce[16..24) and the 64-bit counter from `block` (low word) and `blockHi`, four
 * blocks per `chacha4` call, a last partial batch as keystream into TAIL and XORed from there.
 */
function streamFunc(o: WatOptions): string {
  const rows = (i: number) => PRIV.ROWS + 16 * i;
  /** The 4×4 quarter rounds of one block held as four rows a, b, c, d. */
  const rowRound = (): string[] => {
    const q = quarterRounds([['a', 'b', 'c', 'd']], o);
    // Diagonal round: lane i of b, c, d moved to lane i - 1, i - 2, i - 3 (RFC 8439 §2.2's diagonals).
    return [
      ...q,
      set('b', lanes1(get('b'), [1, 2, 3, 0])),
      set('c', lanes1(get('c'), [2, 3, 0, 1])),
      set('d', lanes1(get('d'), [3, 0, 1, 2])),
      ...quarterRounds([['a', 'b', 'c', 'd']], o),
      set('b', lanes1(get('b'), [3, 0, 1, 2])),
      set('c', lanes1(get('c'), [2, 3, 0, 1])),
      set('d', lanes1(get('d'), [1, 2, 3, 0])),
    ];
  };
  const splat = (v: string, lane: number) => lanes1(v, [lane, lane, lane, lane]);
  /** Bytes per `chacha4` call: four 64-byte blocks. */
  const batch = 256;
  const fn = '$chacha4';
  const body = [
    `(local.set $half (i32.shr_u ${get('rounds')} ${i32(1)}))`,
    set('a', `(v128.const i32x4 ${SIGMA.map(hex).join(' ')})`),
    set('b', load(0, get('key'))),
    set('c', load(16, get('key'))),
    set('d', load(0, get('nonce'))),
    `(local.set $n ${get('half')})`,
    '(loop $h',
    ...rowRound(),
    `(br_if $h (local.tee $n (i32.sub ${get('n')} ${i32(1)})))`,
    ')',
    // The subkey: words 0–3 and 12–15 of the HChaCha state, without feed-forward; each word splatted.
    ...[0, 1, 2, 3].map((i) => store(rows(i), i32(0), `(v128.const i32x4 ${Array(4).fill(hex(SIGMA[i])).join(' ')})`)),
    ...[0, 1, 2, 3].map((i) => store(rows(4 + i), i32(0), splat(get('a'), i))),
    ...[0, 1, 2, 3].map((i) => store(rows(8 + i), i32(0), splat(get('d'), i))),
    // nonce[16..24) is lanes 2–3 of the 16 bytes at nonce + 8.
    set('d', load(8, get('nonce'))),
    store(rows(14), i32(0), splat(get('d'), 2)),
    store(rows(15), i32(0), splat(get('d'), 3)),
    `(local.set $ctr (i64.or (i64.extend_i32_u ${get('block')}) (i64.shl (i64.extend_i32_u ${get('blockHi')}) ${i64(32)})))`,
    '(block $done',
    '(loop $batch',
    // Counter rows: lanes j = low and high words of block + j (64-bit, djb's layout).
    set('a', '(i64x2.splat (local.get $ctr))'),
    set('b', `(i64x2.add ${get('a')} (v128.const i64x2 0 1))`),
    set('c', `(i64x2.add ${get('a')} (v128.const i64x2 2 3))`),
    store(rows(12), i32(0), lanes2(get('b'), get('c'), [0, 2, 4, 6])),
    store(rows(13), i32(0), lanes2(get('b'), get('c'), [1, 3, 5, 7])),
    `(br_if $done (i32.lt_u ${get('len')} ${i32(batch)}))`,
    `(call ${fn} ${get('ptr')} ${get('half')})`,
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(batch)}))`,
    `(local.set $len (i32.sub ${get('len')} ${i32(batch)}))`,
    `(local.set $ctr (i64.add (local.get $ctr) ${i64(batch / 64)}))`,
    '(br $batch)',
    ')',
    ')',
    // A partial batch: keystream into the zeroed TAIL, XORed over the data 16 bytes, then 1 byte, at a time.
    `(if (local.get $len) (then`,
    ...Array.from({ length: batch / 16 }, (_, i) => store(PRIV.TAIL + 16 * i, i32(0), '(v128.const i64x2 0 0)')),
    `(call ${fn} ${i32(PRIV.TAIL)} ${get('half')})`,
    `(local.set $k ${i32(PRIV.TAIL)})`,
    '(block $b16 (loop $l16',
    `(br_if $b16 (i32.lt_u ${get('len')} ${i32(16)}))`,
    store(0, get('ptr'), xor(load(0, get('ptr')), load(0, get('k')))),
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(16)}))`,
    `(local.set $k (i32.add ${get('k')} ${i32(16)}))`,
    `(local.set $len (i32.sub ${get('len')} ${i32(16)}))`,
    '(br $l16)))',
    '(block $b1 (loop $l1',
    `(br_if $b1 (i32.eqz ${get('len')}))`,
    `(v128.store8_lane 0 ${get('ptr')} ${xor('(v128.load8_splat (local.get $ptr))', '(v128.load8_splat (local.get $k))')})`,
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(1)}))`,
    `(local.set $k (i32.add ${get('k')} ${i32(1)}))`,
    `(local.set $len (i32.sub ${get('len')} ${i32(1)}))`,
    '(br $l1)))',
    ...Array.from({ length: batch / 16 }, (_, i) => store(PRIV.TAIL + 16 * i, i32(0), '(v128.const i64x2 0 0)')),
    '))',
  ];
  return [
    '(func $stream (export "stream") (param $nonce i32) (param $ptr i32) (param $len i32) (param $block i32) (param $blockHi i32) (param $rounds i32)',
    `(local $key i32) (local $half i32) (local $n i32) (local $k i32) (local $ctr i64) (local $a v128) (local $b v128) (local $c v128) (local $d v128)`,
    `(local.set $key ${i32(KEY)})`,
    ...body,
    ')',
  ].join('\n');
}

/** 26-bit limbs of Poly1305 (poly1305-donna's radix 2^26), emitted as i64 expressions. */
const M26_ = M26;
const mul64 = (a: string, b: string) => `(i64.mul ${a} ${b})`;
const sum64 = (...t: string[]) => t.reduce((acc, x) => `(i64.add ${acc} ${x})`);
const and64 = (a: string, m: number) => `(i64.and ${a} ${i64(m)})`;
const shr64 = (a: string, n: number) => `(i64.shr_u ${a} ${i64(n)})`;
const shl64 = (a: string, n: number) => `(i64.shl ${a} ${i64(n)})`;

/**
 * The five column sums of x·y mod 2^130 − 5 (schoolbook on 26-bit limbs, the products that pass 2^130
 * taken times 5 through y's limbs premultiplied by 5): column k = Σ_{i+j=k} x_i·y_j + Σ_{i+j=k+5} x_i·5y_j.
 */
function columns(x: (i: number) => string, y: (i: number) => string, y5: (i: number) => string): string[][] {
  return [0, 1, 2, 3, 4].map((k) =>
    [0, 1, 2, 3, 4].map((i) => (i <= k ? mul64(x(i), y(k - i)) : mul64(x(i), y5(k - i + 5)))),
  );
}

/** The 16-byte little-endian block at ptr as 26-bit limbs into m0..m4, `hibit` (2^128) added to limb 4. */
function limbsOf(ptr: string, m: string, hibit: string): string[] {
  const lo = `(i64.load ${ptr})`;
  const hi = `(i64.load offset=8 ${ptr})`;
  return [
    set('lo', lo),
    set('hi', hi),
    set(`${m}0`, and64(get('lo'), M26_)),
    set(`${m}1`, and64(shr64(get('lo'), 26), M26_)),
    set(`${m}2`, and64(`(i64.or ${shr64(get('lo'), 52)} ${shl64(get('hi'), 12)})`, M26_)),
    set(`${m}3`, and64(shr64(get('hi'), 14), M26_)),
    set(`${m}4`, `(i64.or ${shr64(get('hi'), 40)} ${hibit})`),
  ];
}

/**
 * Column sums d0..d4 carried into limbs h0..h4 (26 bits each but h1, which may exceed it by a few bits),
 * the carry out of limb 4 folded back times 5 (2^130 ≡ 5 mod p).
 */
function carry(): string[] {
  return [
    set('d1', `(i64.add ${get('d1')} ${shr64(get('d0'), 26)})`),
    set('d2', `(i64.add ${get('d2')} ${shr64(get('d1'), 26)})`),
    set('d3', `(i64.add ${get('d3')} ${shr64(get('d2'), 26)})`),
    set('d4', `(i64.add ${get('d4')} ${shr64(get('d3'), 26)})`),
    set('h0', `(i64.add ${and64(get('d0'), M26_)} ${mul64(shr64(get('d4'), 26), i64(5))})`),
    set('h1', `(i64.add ${and64(get('d1'), M26_)} ${shr64(get('h0'), 26)})`),
    set('h0', and64(get('h0'), M26_)),
    set('h2', and64(get('d2'), M26_)),
    set('h3', and64(get('d3'), M26_)),
    set('h4', and64(get('d4'), M26_)),
  ];
}

/**
 * `poly(ptr, blocks, key, h, hibit)`: Poly1305's polynomial (Adiantum §6.3; RFC 8439 §2.5.1 without s) over
 * `blocks` 16-byte blocks at ptr, with the key at `key` and accumulator at `h`; `hibit` is 2^24 (the 2^128
 * of a full block, in limb 4) or 0 for a padded last block that carries its own 1 byte. Two blocks at a
 * time as h = (h + c1)·r² + c2·r, so that the two products' multiplications are independent; then one
 * block as h = (h + c)·r. Limbs stay below 2^27, r, r² and their multiples by 5 below 2^29, so a column
 * sum of ten products stays below 2^59.
 */
function polyFunc(): string {
  const k32 = (off: number) => `(i64.load32_u offset=${off} ${get('key')})`;
  const body = [
    ...[0, 1, 2, 3, 4].flatMap((i) => [
      set(`r${i}`, k32(4 * i)),
      set(`s${i}`, k32(20 + 4 * i)),
      set(`q${i}`, k32(40 + 4 * i)),
      set(`t${i}`, k32(60 + 4 * i)),
    ]),
    ...[0, 1, 2, 3, 4].map((i) => set(`h${i}`, `(i64.load offset=${8 * i} ${get('h')})`)),
    '(block $pairsDone (loop $pairs',
    `(br_if $pairsDone (i32.lt_u ${get('blocks')} ${i32(2)}))`,
    ...limbsOf(get('ptr'), 'm', get('hibit')),
    ...[0, 1, 2, 3, 4].map((i) => set(`h${i}`, `(i64.add ${get(`h${i}`)} ${get(`m${i}`)})`)),
    ...limbsOf(`(i32.add ${get('ptr')} ${i32(16)})`, 'm', get('hibit')),
    ...(() => {
      const a = columns(
        (i) => get(`h${i}`),
        (i) => get(`q${i}`),
        (i) => get(`t${i}`),
      );
      const b = columns(
        (i) => get(`m${i}`),
        (i) => get(`r${i}`),
        (i) => get(`s${i}`),
      );
      return a.map((c, k) => set(`d${k}`, sum64(...c, ...b[k])));
    })(),
    ...carry(),
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(32)}))`,
    `(local.set $blocks (i32.sub ${get('blocks')} ${i32(2)}))`,
    '(br $pairs)))',
    `(if (local.get $blocks) (then`,
    ...limbsOf(get('ptr'), 'm', get('hibit')),
    ...[0, 1, 2, 3, 4].map((i) => set(`h${i}`, `(i64.add ${get(`h${i}`)} ${get(`m${i}`)})`)),
    ...columns(
      (i) => get(`h${i}`),
      (i) => get(`r${i}`),
      (i) => get(`s${i}`),
    ).map((c, k) => set(`d${k}`, sum64(...c))),
    ...carry(),
    '))',
    ...[0, 1, 2, 3, 4].map((i) => `(i64.store offset=${8 * i} ${get('h')} ${get(`h${i}`)})`),
  ];
  const locals = ['r', 's', 'q', 't', 'h', 'd', 'm']
    .flatMap((p) => [0, 1, 2, 3, 4].map((i) => `${p}${i}`))
    .concat(['lo', 'hi'])
    .map((n) => `(local $${n} i64)`)
    .join(' ');
  return [
    `(func $poly (param $ptr i32) (param $blocks i32) (param $key i32) (param $h i32) (param $hibit i64) ${locals}`,
    ...body,
    ')',
  ].join('\n');
}

/**
 * `pad(ptr, len)`: the `len` (< 16) bytes at ptr into PAD, zero-padded, with the byte 01 after them when
 * `one` is 1 (Poly1305's short final block, RFC 8439 §2.5.1) — a byte at a time through a v128.
 */
function padFunc(): string {
  return [
    '(func $pad (param $ptr i32) (param $len i32) (param $one i32) (local $i i32)',
    store(PRIV.PAD, i32(0), '(v128.const i64x2 0 0)'),
    '(block $done (loop $bytes',
    `(br_if $done (i32.ge_u ${get('i')} ${get('len')}))`,
    `(v128.store8_lane offset=${PRIV.PAD} 0 ${get('i')} (v128.load8_splat (i32.add ${get('ptr')} ${get('i')})))`,
    `(local.set $i (i32.add ${get('i')} ${i32(1)}))`,
    '(br $bytes)))',
    // PAD[len] = one: the 01 byte, or a 0 that changes nothing.
    `(v128.store8_lane offset=${PRIV.PAD} 0 ${get('len')} (i8x16.splat ${get('one')}))`,
    ')',
  ].join('\n');
}

/**
 * `nh(ptr, units, key)`: adds NH's four passes (Adiantum §6.2: 4 passes, stride 2) over `units` 16-byte
 * units at ptr, with key from `key`, to the pass sums at ACC. For unit u and pass i, x = m_u + k_{u+i}
 * (i32x4.add) and the pass sum gains x0·x2 + x1·x3: `i64x2.extmul_low_i32x4_u(x, x[2, 3, ·, ·])`, the two
 * lanes kept apart until {@link nhEnd}.
 */
function nhFunc(o: WatOptions): string {
  const u = o.nhUnroll;
  const body: string[] = [
    ...[0, 1, 2, 3].map((i) => set(`s${i}`, load(PRIV.ACC + 16 * i))),
    '(block $tail (loop $units',
    `(br_if $tail (i32.lt_u ${get('units')} ${i32(u)}))`,
  ];
  const step = (k: number): string[] => {
    const out: string[] = [set(`m${k}`, load(16 * k, get('ptr')))];
    if (o.nhHigh === 'load') out.push(set(`n${k}`, load(16 * k + 8, get('ptr'))));
    for (let i = 0; i < 4; i++) {
      out.push(set(`x${k}`, add(get(`m${k}`), load(16 * (k + i), get('key')))));
      const high =
        o.nhHigh === 'load'
          ? add(get(`n${k}`), load(16 * (k + i) + 8, get('key')))
          : lanes1(get(`x${k}`), [2, 3, 2, 3]);
      out.push(set(`s${i}`, `(i64x2.add ${get(`s${i}`)} (i64x2.extmul_low_i32x4_u ${get(`x${k}`)} ${high}))`));
    }
    return out;
  };
  for (let k = 0; k < u; k++) body.push(...step(k));
  body.push(
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(16 * u)}))`,
    `(local.set $key (i32.add ${get('key')} ${i32(16 * u)}))`,
    `(local.set $units (i32.sub ${get('units')} ${i32(u)}))`,
    '(br $units)))',
  );
  if (u > 1) {
    body.push('(block $done (loop $one', `(br_if $done (i32.eqz ${get('units')}))`, ...step(0));
    body.push(
      `(local.set $ptr (i32.add ${get('ptr')} ${i32(16)}))`,
      `(local.set $key (i32.add ${get('key')} ${i32(16)}))`,
      `(local.set $units (i32.sub ${get('units')} ${i32(1)}))`,
      '(br $one)))',
    );
  }
  body.push(...[0, 1, 2, 3].map((i) => store(PRIV.ACC + 16 * i, i32(0), get(`s${i}`))));
  const locals = [
    ...[0, 1, 2, 3].map((i) => `(local $s${i} v128)`),
    ...Array.from({ length: u }, (_, k) => `(local $m${k} v128) (local $n${k} v128) (local $x${k} v128)`),
  ].join(' ');
  return [`(func $nh (param $ptr i32) (param $units i32) (param $key i32) ${locals}`, ...body, ')'].join('\n');
}

/**
 * `nhEnd(state)`: NH's output (the four pass sums, 8 bytes little-endian each, lanes added) into NHOUT,
 * absorbed into B with K_M as two full blocks; the pass sums at ACC zeroed for the next chunk.
 */
function nhEndFunc(): string {
  const s = (i: number) => load(PRIV.ACC + 16 * i);
  // [s0.lo, s1.lo] + [s0.hi, s1.hi] = passes 0 and 1; the same for 2 and 3.
  const pair = (a: number, b: number) =>
    `(i64x2.add ${lanes2(s(a), s(b), [0, 1, 4, 5])} ${lanes2(s(a), s(b), [2, 3, 6, 7])})`;
  return [
    '(func $nhEnd (param $state i32)',
    store(PRIV.NHOUT, i32(0), pair(0, 1)),
    store(PRIV.NHOUT + 16, i32(0), pair(2, 3)),
    ...[0, 1, 2, 3].map((i) => store(PRIV.ACC + 16 * i, i32(0), '(v128.const i64x2 0 0)')),
    `(call $poly ${i32(PRIV.NHOUT)} ${i32(2)} ${i32(PRIV.KEY_M)} (i32.add ${get('state')} ${i32(B_OFFSET)}) ${i64(1 << 24)})`,
    ')',
  ].join('\n');
}

/**
 * `clamp(src, dst)`: r = the 16 bytes at src clamped (RFC 8439 §2.5), as 26-bit limbs, into the key format
 * of {@link polyFunc}: 32-bit words r0..r4, 5·r0..5·r4, then r² mod 2^130 − 5 (partly reduced: its limbs
 * below 2^26 but the second, a few bits over) and 5·r².
 */
function clampFunc(): string {
  const limbs = [
    ['(local.get $lo)', 0x3ffffff],
    ['(i64.shr_u (local.get $lo) (i64.const 26))', 0x3ffff03],
    ['(i64.or (i64.shr_u (local.get $lo) (i64.const 52)) (i64.shl (local.get $hi) (i64.const 12)))', 0x3ffc0ff],
    ['(i64.shr_u (local.get $hi) (i64.const 14))', 0x3f03fff],
    ['(i64.shr_u (local.get $hi) (i64.const 40))', 0x00fffff],
  ] as const;
  const put = (off: number, v: string) => `(i64.store32 offset=${off} ${get('dst')} ${v})`;
  return [
    '(func $clamp (param $src i32) (param $dst i32) (local $lo i64) (local $hi i64)',
    ['r', 's', 'h', 'd'].flatMap((p) => [0, 1, 2, 3, 4].map((i) => `(local $${p}${i} i64)`)).join(' '),
    set('lo', `(i64.load ${get('src')})`),
    set('hi', `(i64.load offset=8 ${get('src')})`),
    ...limbs.flatMap(([e, m], i) => [
      set(`r${i}`, `(i64.and ${e} ${i64(m)})`),
      set(`s${i}`, mul64(get(`r${i}`), i64(5))),
      put(4 * i, get(`r${i}`)),
      put(20 + 4 * i, get(`s${i}`)),
    ]),
    ...columns(
      (i) => get(`r${i}`),
      (i) => get(`r${i}`),
      (i) => get(`s${i}`),
    ).map((c, k) => set(`d${k}`, sum64(...c))),
    ...carry(),
    ...[0, 1, 2, 3, 4].flatMap((i) => [put(40 + 4 * i, get(`h${i}`)), put(60 + 4 * i, mul64(get(`h${i}`), i64(5)))]),
    ')',
  ].join('\n');
}

/**
 * `setup(rounds, bytes)`: the `bytes` bytes at DERIVED = XChaCha_rounds(K, 01 ‖ 0^23) over zeros
 * (Adiantum §6.1's key derivation); K_T or K_H (DERIVED+32) clamped into KEY_A, K_M (DERIVED+48) into
 * KEY_M (unused by HPolyC). Only `bytes` bytes are zeroed and overwritten: with `bytes` 0 the keys already
 * at DERIVED are clamped as they are, which is how test/core.test.ts runs the Poly1305 and NHPoly1305
 * vectors under their own keys.
 */
function setupFunc(): string {
  return [
    '(func (export "setup") (param $rounds i32) (param $bytes i32) (local $i i32)',
    '(block $done (loop $zero',
    `(br_if $done (i32.ge_u ${get('i')} ${get('bytes')}))`,
    store(DERIVED, get('i'), '(v128.const i64x2 0 0)'),
    `(local.set $i (i32.add ${get('i')} ${i32(16)}))`,
    '(br $zero)))',
    store(PRIV.NONCE0, i32(0), '(v128.const i64x2 1 0)'),
    store(PRIV.NONCE0 + 16, i32(0), '(v128.const i64x2 0 0)'),
    `(call $stream ${i32(PRIV.NONCE0)} ${i32(DERIVED)} ${get('bytes')} ${i32(0)} ${i32(0)} ${get('rounds')})`,
    store(PRIV.NONCE0, i32(0), '(v128.const i64x2 0 0)'),
    `(call $clamp ${i32(DERIVED + 32)} ${i32(PRIV.KEY_A)})`,
    `(call $clamp ${i32(DERIVED + 48)} ${i32(PRIV.KEY_M)})`,
    ')',
  ].join('\n');
}

/** `header(ptr, len, state, more)`: Poly1305 of the header bytes into A with KEY_A (core.ts `header`). */
function headerFunc(): string {
  return [
    '(func (export "header") (param $ptr i32) (param $len i32) (param $state i32) (param $more i32)',
    '(if (i32.eqz (local.get $more)) (then',
    ...[0, 1, 2, 3, 4, 5].map((i) => store(16 * i, get('state'), '(v128.const i64x2 0 0)')),
    '))',
    `(call $poly ${get('ptr')} (i32.shr_u ${get('len')} ${i32(4)}) ${i32(PRIV.KEY_A)} ${get('state')} ${i64(1 << 24)})`,
    `(if (i32.and ${get('len')} ${i32(15)}) (then`,
    `(call $pad (i32.add ${get('ptr')} (i32.and ${get('len')} ${i32(-16)})) (i32.and ${get('len')} ${i32(15)}) ${i32(1)})`,
    `(call $poly ${i32(PRIV.PAD)} ${i32(1)} ${i32(PRIV.KEY_A)} ${get('state')} ${i64(0)})`,
    '))',
    ')',
  ].join('\n');
}

/** `absorb(ptr, len, state, hpolyc)`: whole NH chunks into B (Adiantum) or blocks into A (HPolyC). */
function absorbFunc(): string {
  return [
    '(func (export "absorb") (param $ptr i32) (param $len i32) (param $state i32) (param $hpolyc i32)',
    '(if (local.get $hpolyc) (then',
    `(call $poly ${get('ptr')} (i32.shr_u ${get('len')} ${i32(4)}) ${i32(PRIV.KEY_A)} ${get('state')} ${i64(1 << 24)})`,
    '(return)))',
    '(block $done (loop $chunks',
    `(br_if $done (i32.lt_u ${get('len')} ${i32(NH_CHUNK)}))`,
    `(call $nh ${get('ptr')} ${i32(NH_CHUNK / 16)} ${i32(NH_KEY)})`,
    `(call $nhEnd ${get('state')})`,
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(NH_CHUNK)}))`,
    `(local.set $len (i32.sub ${get('len')} ${i32(NH_CHUNK)}))`,
    '(br $chunks)))',
    ')',
  ].join('\n');
}

/**
 * `fullReduce(h)`: the accumulator at h fully reduced mod 2^130 − 5 (carries, then h + 5 − 2^130 kept when
 * it does not borrow, chosen by a mask from its sign bit, never a branch), as four 32-bit words (i64 each)
 * added to the words at HSUM with carries: a running 128-bit sum mod 2^128.
 */
function reduceFunc(): string {
  const h = (i: number) => get(`h${i}`);
  const g = (i: number) => get(`g${i}`);
  const shr = (a: string, n: number) => `(i64.shr_u ${a} (i64.const ${n}))`;
  const shl = (a: string, n: number) => `(i64.shl ${a} (i64.const ${n}))`;
  const and = (a: string, m: number) => `(i64.and ${a} (i64.const ${m}))`;
  const carry = (x: string, y: string): string[] => [
    set(y, `(i64.add ${get(y)} ${shr(get(x), 26)})`),
    set(x, and(get(x), M26)),
  ];
  const words = [
    `(i64.or ${h(0)} ${shl(h(1), 26)})`,
    `(i64.or ${shr(h(1), 6)} ${shl(h(2), 20)})`,
    `(i64.or ${shr(h(2), 12)} ${shl(h(3), 14)})`,
    `(i64.or ${shr(h(3), 18)} ${shl(h(4), 8)})`,
  ];
  const sum: string[] = [set('c', i64(0))];
  for (let i = 0; i < 4; i++) {
    sum.push(
      set(
        'c',
        `(i64.add (i64.add ${get('c')} ${and(words[i], 0xffffffff)}) (i64.load32_u offset=${8 * i} ${get('acc')}))`,
      ),
      `(i64.store32 offset=${8 * i} ${get('acc')} ${get('c')})`,
      set('c', shr(get('c'), 32)),
    );
  }
  // One carry pass over the limbs, the carry out of h4 folded into h0 times 5 (2^130 ≡ 5).
  const carryPass = () => [
    ...carry('h0', 'h1'),
    ...carry('h1', 'h2'),
    ...carry('h2', 'h3'),
    ...carry('h3', 'h4'),
    set('h0', `(i64.add ${h(0)} (i64.mul ${shr(h(4), 26)} (i64.const 5)))`),
    set('h4', and(h(4), M26)),
  ];
  return [
    '(func $fullReduce (param $h i32) (param $acc i32)',
    ['h0', 'h1', 'h2', 'h3', 'h4', 'g0', 'g1', 'g2', 'g3', 'g4', 'c', 'mask'].map((n) => `(local $${n} i64)`).join(' '),
    ...[0, 1, 2, 3, 4].map((i) => set(`h${i}`, `(i64.load offset=${8 * i} ${get('h')})`)),
    ...carryPass(),
    ...carryPass(),
    ...carry('h0', 'h1'),
    // Now h < 2^130 + small; g = h + 5 − 2^130 (limbs, with borrow in bit 63 of g4).
    set('g0', `(i64.add ${h(0)} (i64.const 5))`),
    set('g1', `(i64.add ${h(1)} ${shr(g(0), 26)})`),
    set('g0', and(g(0), M26)),
    set('g2', `(i64.add ${h(2)} ${shr(g(1), 26)})`),
    set('g1', and(g(1), M26)),
    set('g3', `(i64.add ${h(3)} ${shr(g(2), 26)})`),
    set('g2', and(g(2), M26)),
    set('g4', `(i64.sub (i64.add ${h(4)} ${shr(g(3), 26)}) (i64.const ${1 << 26}))`),
    set('g3', and(g(3), M26)),
    // mask = all ones when g4 did not borrow (h ≥ p: take g), else 0 (keep h).
    set('mask', `(i64.sub ${shr(g(4), 63)} (i64.const 1))`),
    ...[0, 1, 2, 3, 4].map((i) =>
      set(
        `h${i}`,
        `(i64.or (i64.and ${g(i)} ${get('mask')}) (i64.and ${h(i)} (i64.xor ${get('mask')} (i64.const -1))))`,
      ),
    ),
    ...carry('h0', 'h1'),
    ...carry('h1', 'h2'),
    ...carry('h2', 'h3'),
    ...carry('h3', 'h4'),
    ...sum,
    ')',
  ].join('\n');
}

/**
 * `finish(ptr, len, state, out, base, sign, hpolyc)` (core.ts `finish`): the last part into a copy of the
 * state (NH per chunk, a partial unit zero-padded, into B; or Poly1305 blocks, a short last one padded
 * with 01, into A), then out = base ± (reduce(A) + reduce(B)) mod 2^128, the sign applied as
 * H ⊕ mask + (sign) with mask = −sign (two's complement), never a branch.
 */
function finishFunc(): string {
  const W = PRIV.WORK;
  const HSUM = PRIV.NHOUT; // free after the last NH chunk: the running 128-bit sum, 4 words of 8 bytes.
  return [
    '(func (export "finish") (param $ptr i32) (param $len i32) (param $state i32) (param $out i32) (param $base i32) (param $sign i32) (param $hpolyc i32)',
    '(local $c i64) (local $m i64) (local $units i32)',
    ...[0, 1, 2, 3, 4].map((i) => store(W + 16 * i, i32(0), load(16 * i, get('state')))),
    '(if (local.get $hpolyc) (then',
    `(call $poly ${get('ptr')} (i32.shr_u ${get('len')} ${i32(4)}) ${i32(PRIV.KEY_A)} ${i32(W)} ${i64(1 << 24)})`,
    `(if (i32.and ${get('len')} ${i32(15)}) (then`,
    `(call $pad (i32.add ${get('ptr')} (i32.and ${get('len')} ${i32(-16)})) (i32.and ${get('len')} ${i32(15)}) ${i32(1)})`,
    `(call $poly ${i32(PRIV.PAD)} ${i32(1)} ${i32(PRIV.KEY_A)} ${i32(W)} ${i64(0)})`,
    '))',
    ') (else',
    '(block $done (loop $chunks',
    `(br_if $done (i32.lt_u ${get('len')} ${i32(NH_CHUNK)}))`,
    `(call $nh ${get('ptr')} ${i32(NH_CHUNK / 16)} ${i32(NH_KEY)})`,
    `(call $nhEnd ${i32(W)})`,
    `(local.set $ptr (i32.add ${get('ptr')} ${i32(NH_CHUNK)}))`,
    `(local.set $len (i32.sub ${get('len')} ${i32(NH_CHUNK)}))`,
    '(br $chunks)))',
    '(if (local.get $len) (then',
    `(local.set $units (i32.shr_u ${get('len')} ${i32(4)}))`,
    `(call $nh ${get('ptr')} ${get('units')} ${i32(NH_KEY)})`,
    `(if (i32.and ${get('len')} ${i32(15)}) (then`,
    `(call $pad (i32.add ${get('ptr')} (i32.shl ${get('units')} ${i32(4)})) (i32.and ${get('len')} ${i32(15)}) ${i32(0)})`,
    `(call $nh ${i32(PRIV.PAD)} ${i32(1)} (i32.add ${i32(NH_KEY)} (i32.shl ${get('units')} ${i32(4)})))`,
    '))',
    `(call $nhEnd ${i32(W)})`,
    '))',
    '))',
    store(HSUM, i32(0), '(v128.const i64x2 0 0)'),
    store(HSUM + 16, i32(0), '(v128.const i64x2 0 0)'),
    `(call $fullReduce ${i32(W)} ${i32(HSUM)})`,
    `(call $fullReduce ${i32(W + B_OFFSET)} ${i32(HSUM)})`,
    `(local.set $m (i64.sub (i64.const 0) (i64.extend_i32_u ${get('sign')})))`,
    `(local.set $c (i64.extend_i32_u ${get('sign')}))`,
    // Loads of base happen before the stores to out: out may equal base, word by word in order is safe.
    ...[0, 1, 2, 3].flatMap((i) => [
      set(
        'c',
        `(i64.add (i64.add ${get('c')} (i64.load32_u offset=${4 * i} ${get('base')})) (i64.and (i64.xor (i64.load32_u offset=${HSUM + 8 * i} (i32.const 0)) ${get('m')}) (i64.const 0xffffffff)))`,
      ),
      `(i64.store32 offset=${4 * i} ${get('out')} ${get('c')})`,
      set('c', `(i64.shr_u ${get('c')} (i64.const 32))`),
    ]),
    // Wipe the working copy and the sum.
    ...[0, 1, 2, 3, 4].map((i) => store(W + 16 * i, i32(0), '(v128.const i64x2 0 0)')),
    store(HSUM, i32(0), '(v128.const i64x2 0 0)'),
    store(HSUM + 16, i32(0), '(v128.const i64x2 0 0)'),
    ')',
  ].join('\n');
}

/**
 * The whole module: one memory of MEMORY_BYTES (min = max, so it cannot grow), exported, and the five
 * functions of the contract (`setup`, `header`, `absorb`, `finish`, `stream`).
 *
 * @example
 * ```ts
 * const wat = moduleText(DEFAULT_OPTIONS);
 * wat.startsWith('(module'); // true
 * ```
 */
export function moduleText(o: WatOptions = DEFAULT_OPTIONS): string {
  const pages = MEMORY_BYTES / 65536;
  if (!Number.isInteger(pages) || DATA + DATA_BYTES !== MEMORY_BYTES) throw new Error('layout: memory not whole pages');
  if (PRIV.TAIL + 256 > DERIVED) throw new Error('layout: PRIVATE areas overflow');
  return [
    '(module',
    `(memory (export "memory") ${pages} ${pages})`,
    chacha4(o),
    streamFunc(o),
    polyFunc(),
    padFunc(),
    nhFunc(o),
    nhEndFunc(),
    clampFunc(),
    setupFunc(),
    headerFunc(),
    absorbFunc(),
    reduceFunc(),
    finishFunc(),
    ')',
    '',
  ].join('\n');
}
