/**
 * Generates src/elephant.generated.ts: BitLocker's Elephant diffusers (N. Ferguson, "AES-CBC + Elephant
 * diffuser", Microsoft 2006; as Linux dm-crypt's crypt_iv_elephant runs them) in WebAssembly SIMD128,
 * for `kernel.loadElephant()` (src/elephant.ts). The algorithm is @x/dm-crypt's (src/elephant.ts there):
 * a sector is n = sectorSize / 4 little-endian words d[0 … n), indices mod n, and
 *
 *   A, decryption, 5 cycles of  for i = 0 … n−1:  d[i] += d[i−2] ⊕ (d[i−5] <<< Ra[i mod 4]),  Ra = 9, 0, 13, 0
 *   B, decryption, 3 cycles of  for i = 0 … n−1:  d[i] += d[i+2] ⊕ (d[i+5] <<< Rb[i mod 4]),  Rb = 0, 10, 0, 25
 *
 * the encryption direction undoing each step from i = n−1 down to 0 by subtraction; decryption is B, A,
 * then ⊕ the 32-byte sector key, encryption ⊕ the key, A, B.
 *
 * Four sectors side by side, one per 32-bit lane: a group of four sectors is transposed into the work
 * area (word j of the four sectors is the v128 at ELEPHANT_WORK + 16j: 4×4 word blocks, eight
 * `i8x16.shuffle` by constant lane patterns, the sector key XORed in on the way in for encryption and on
 * the way out for decryption), both diffusers run there on whole v128s (`i32x4.add`/`i32x4.sub`,
 * `v128.xor`, rotations by constants as `i32x4.shl`, `i32x4.shr_u` and `v128.or`), and the group is
 * transposed back over the sectors. A last group of 1–3 sectors fills its free lanes with its last sector
 * again (lane l reads and writes sector min(l, count − 1) with that sector's key: the repeated lanes store
 * the same bytes to the same place; the lane addresses are picked with `select` on public counts).
 *
 * Each cycle is a loop over blocks of 4 or 8 ({@link UNROLL}) steps (the indices that do not wrap around the
 * sector) and the 8 steps whose indices wrap, unrolled with their addresses taken from the start or the
 * end of the work area. Within a block every word is loaded once and kept in a local; the words the next
 * block reads that this one has (the serial dependency d[i−2], d[i−1] of A's decryption, and the loaded
 * d[i−5] …) are carried to it in locals. Constant time by construction: every address, branch and loop
 * bound comes from the sector size and the count, which are public; the data and keys are only ever
 * v128 operands of the instructions above (test/elephant-build.test.ts checks the instruction set).
 *
 *   npm run generate                      (runs this after scripts/build.ts) write src/elephant.generated.ts
 *   CI=true npm run generate              write nothing; exit 1 when the file differs from a fresh build
 *                                         (so does `npx tsx scripts/elephant.ts --check`)
 *   npx tsx scripts/elephant.ts --wat     print the WebAssembly text
 */
import { fileURLToPath } from 'node:url';
import { generatedHeader, generatorInputs, writeOrCheck } from '@x/circuits';
import { assembler, embed, WABT } from '@x/circuits/wasm';
import { ELEPHANT_WORK } from '../src/elephant-layout.js';

/** Where the generated module goes. */
export const ELEPHANT_GENERATED = new URL('../src/elephant.generated.ts', import.meta.url);

/**
 * Steps per loop iteration of a cycle, by direction (4 or 8: a multiple of 4, so that i mod 4 is fixed at
 * each position, that divides the 120 steps of the smallest sector that do not wrap). Measured, raw
 * exports side by side on 1 MiB calls: decryption 3–4 % faster with 4, encryption up to 3 % with 8.
 */
export const UNROLL: Readonly<Record<'dec' | 'enc', number>> = { dec: 4, enc: 8 };

/** One diffuser: its cycle count, the offsets of the XORed and the rotated word, the rotations by i mod 4. */
interface Diffuser {
  readonly name: 'a' | 'b';
  readonly cycles: number;
  readonly xorAt: number;
  readonly rotAt: number;
  readonly rot: readonly number[];
}

const A: Diffuser = { name: 'a', cycles: 5, xorAt: -2, rotAt: -5, rot: [9, 0, 13, 0] };
const B: Diffuser = { name: 'b', cycles: 3, xorAt: 2, rotAt: 5, rot: [0, 10, 0, 25] };

/** Decryption runs each step upward, adding; encryption downward, subtracting. */
type Direction = 'dec' | 'enc';

const mod4 = (i: number) => ((i % 4) + 4) % 4;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const get = (n: string) => `(local.get $${n})`;
const set = (n: string, e: string) => `(local.set $${n} ${e})`;
const i32 = (v: number) => `(i32.const ${v})`;
const add32 = (a: string, b: string) => `(i32.add ${a} ${b})`;
const load = (ptr: string, off: number) => `(v128.load offset=${off} ${ptr})`;
const store = (ptr: string, off: number, v: string) => `(v128.store offset=${off} ${ptr} ${v})`;
const rotl = (x: string, r: number) =>
  r === 0 ? x : `(v128.or (i32x4.shl ${x} ${i32(r)}) (i32x4.shr_u ${x} ${i32(32 - r)}))`;

/** The v128 locals of one function, declared once it is emitted. */
class Locals {
  #count = 0;
  fresh(): string {
    return `v${this.#count++}`;
  }
  declare(): string[] {
    return this.#count === 0
      ? []
      : [
          range(0, this.#count)
            .map((k) => `(local $v${k} v128)`)
            .join(' '),
        ];
  }
}

/**
 * A run of steps on words addressed by `at(index)` (a pointer expression and a constant offset): each word
 * is loaded once and kept in a local, each step's result replaces it, and {@link flush} stores the words
 * written.
 */
class Steps {
  readonly lines: string[] = [];
  readonly known = new Map<number, string>();
  readonly #written = new Set<number>();
  constructor(
    readonly locals: Locals,
    readonly at: (index: number) => [string, number],
  ) {}

  word(index: number): string {
    let l = this.known.get(index);
    if (l === undefined) {
      l = this.locals.fresh();
      this.lines.push(set(l, load(...this.at(index))));
      this.known.set(index, l);
    }
    return get(l);
  }

  step(d: Diffuser, dir: Direction, i: number): void {
    const target = this.word(i);
    const mixed = `(v128.xor ${this.word(i + d.xorAt)} ${rotl(this.word(i + d.rotAt), d.rot[mod4(i)])})`;
    const l = this.locals.fresh();
    this.lines.push(set(l, `(${dir === 'dec' ? 'i32x4.add' : 'i32x4.sub'} ${target} ${mixed})`));
    this.known.set(i, l);
    this.#written.add(i);
  }

  flush(): void {
    for (const i of [...this.#written].sort((x, y) => x - y)) {
      this.lines.push(store(...this.at(i), get(this.known.get(i) as string)));
    }
    this.#written.clear();
  }
}

/**
 * The 8 steps whose indices wrap around the sector: A's i = 0 … 7, B's i = n−8 … n−1. Index k ≥ 0 is word
 * k (at ELEPHANT_WORK), k < 0 is word n + k (before `$end`, the end of the work area, addressed from
 * `$t8` = `$end` − 128).
 */
function wrapped(locals: Locals, d: Diffuser, dir: Direction): string[] {
  const s = new Steps(locals, (k) => (k >= 0 ? [i32(0), ELEPHANT_WORK + 16 * k] : [get('t8'), 16 * (k + 8)]));
  const targets = d.name === 'a' ? range(0, 8) : range(-8, 0);
  for (const i of dir === 'dec' ? targets : targets.reverse()) s.step(d, dir, i);
  s.flush();
  return s.lines;
}

/**
 * The loop over the blocks of UNROLL steps whose indices do not wrap: A's 8 … n−1, B's 0 … n−9, upward for
 * decryption, downward for encryption. `$p` points at the word of the block's lowest index read.
 */
function blocks(locals: Locals, d: Diffuser, dir: Direction, unroll: number): string[] {
  const targets = dir === 'dec' ? range(0, unroll) : range(0, unroll).reverse();
  const read = new Set(targets.flatMap((t) => [t, t + d.xorAt, t + d.rotAt]));
  const low = Math.min(...read);
  const shift = dir === 'dec' ? unroll : -unroll;
  // The words the next block reads that this one has, by their index in the next block.
  const carried = [...read].filter((r) => read.has(r + shift)).sort((x, y) => x - y);
  const carry = new Map(carried.map((r) => [r, locals.fresh()]));
  const s = new Steps(locals, (k) => [get('p'), 16 * (k - low)]);
  for (const [r, l] of carry) s.known.set(r, l);
  for (const t of targets) s.step(d, dir, t);
  s.flush();
  // A carry may pass on one that this block only read (r + shift carried in): set them in the order that
  // reads each carry before it is overwritten (upward: r increasing, as r + shift > r; downward: decreasing).
  const out = (shift > 0 ? carried : [...carried].reverse()).map((r) =>
    set(carry.get(r) as string, get(s.known.get(r + shift) as string)),
  );
  // The first and one-past-the-last block's lowest index: a constant, or n minus a constant (from $end).
  const pointer = (index: number | [number]) =>
    typeof index === 'number' ? i32(ELEPHANT_WORK + 16 * (index + low)) : add32(get('end'), i32(16 * (index[0] + low)));
  const [first, stop]: [number | [number], number | [number]] =
    d.name === 'a'
      ? dir === 'dec'
        ? [8, [0]]
        : [[-unroll], 8 - unroll]
      : dir === 'dec'
        ? [0, [-8]]
        : [[-8 - unroll], -unroll];
  return [
    set('p', pointer(first)),
    set('stop', pointer(stop)),
    ...carried.map((r) => set(carry.get(r) as string, load(get('p'), 16 * (r - low)))),
    `(loop $blocks`,
    ...s.lines,
    ...out,
    set('p', add32(get('p'), i32(16 * shift))),
    `(br_if $blocks (i32.ne ${get('p')} ${get('stop')})))`,
  ];
}

/** One diffuser in one direction on the four transposed sectors ending at `$end`. */
function diffuser(d: Diffuser, dir: Direction, unroll: number): string[] {
  const locals = new Locals();
  const loop = blocks(locals, d, dir, unroll);
  const wrap = wrapped(locals, d, dir);
  // A: the wrapping steps come first upward, last downward; B the other way round.
  const body = (d.name === 'a') === (dir === 'dec') ? [...wrap, ...loop] : [...loop, ...wrap];
  return [
    `(func $${d.name}_${dir} (param $end i32) (local $p i32) (local $stop i32) (local $t8 i32) (local $cycle i32)`,
    ...locals.declare(),
    set('t8', add32(get('end'), i32(-128))),
    set('cycle', i32(d.cycles)),
    '(loop $cycles',
    ...body,
    `(br_if $cycles (local.tee $cycle (i32.sub ${get('cycle')} ${i32(1)}))))`,
    ')',
  ];
}

/** Byte indices of a two-operand shuffle of 32-bit lanes (0–3 from the first operand, 4–7 from the second). */
const shuffle = (lanes: number[], a: string, b: string) =>
  `(i8x16.shuffle ${lanes.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]).join(' ')} ${a} ${b})`;

/** The 4×4 transpose of 32-bit words: lane j of row l becomes lane l of column j (it is its own inverse). */
function transpose(locals: Locals, rows: string[]): { lines: string[]; cols: string[] } {
  const t = range(0, 4).map(() => locals.fresh());
  const cols = range(0, 4).map(() => locals.fresh());
  const lines = [
    set(t[0], shuffle([0, 4, 1, 5], rows[0], rows[1])),
    set(t[1], shuffle([2, 6, 3, 7], rows[0], rows[1])),
    set(t[2], shuffle([0, 4, 1, 5], rows[2], rows[3])),
    set(t[3], shuffle([2, 6, 3, 7], rows[2], rows[3])),
    set(cols[0], shuffle([0, 1, 4, 5], get(t[0]), get(t[2]))),
    set(cols[1], shuffle([2, 3, 6, 7], get(t[0]), get(t[2]))),
    set(cols[2], shuffle([0, 1, 4, 5], get(t[1]), get(t[3]))),
    set(cols[3], shuffle([2, 3, 6, 7], get(t[1]), get(t[3]))),
  ];
  return { lines, cols };
}

/**
 * The transpose of a group between the sectors at `$a0 … $a3` and the work area, 32 bytes of each sector
 * per iteration: `'in'` from the sectors to the work area, `'out'` back; `keyed` XORs the sectors' keys
 * (at `$k0 … $k3`) on the sector side.
 */
function transposer(way: 'in' | 'out', keyed: boolean): string[] {
  const locals = new Locals();
  const lanes = range(0, 4);
  const keys = lanes.map(() => [locals.fresh(), locals.fresh()]);
  const sector = (l: number) => add32(get(`a${l}`), get('q'));
  const body: string[] = [];
  for (const h of [0, 1]) {
    const rows =
      way === 'in'
        ? lanes.map((l) => {
            const v = load(sector(l), 16 * h);
            return keyed ? `(v128.xor ${v} ${get(keys[l][h])})` : v;
          })
        : lanes.map((j) => load(get('w'), 64 * h + 16 * j));
    const { lines, cols } = transpose(locals, rows);
    body.push(...lines);
    for (const j of lanes) {
      if (way === 'in') body.push(store(get('w'), 64 * h + 16 * j, get(cols[j])));
      else {
        const v = keyed ? `(v128.xor ${get(cols[j])} ${get(keys[j][h])})` : get(cols[j]);
        body.push(store(sector(j), 16 * h, v));
      }
    }
  }
  const params = [...lanes.map((l) => `(param $a${l} i32)`), ...lanes.map((l) => `(param $k${l} i32)`)].join(' ');
  return [
    `(func $${way}${keyed ? '_keyed' : ''} ${params} (param $size i32) (local $q i32) (local $w i32)`,
    ...locals.declare(),
    ...(keyed ? lanes.flatMap((l) => [0, 1].map((h) => set(keys[l][h], load(get(`k${l}`), 16 * h)))) : []),
    set('q', i32(0)),
    set('w', i32(ELEPHANT_WORK)),
    '(loop $rows',
    ...body,
    set('q', add32(get('q'), i32(32))),
    set('w', add32(get('w'), i32(128))),
    `(br_if $rows (i32.ne ${get('q')} ${get('size')})))`,
    ')',
  ];
}

/**
 * An export: `count` ≥ 1 sectors of `size` bytes (512, 1024, 2048 or 4096) at `data`, their 32-byte keys
 * at `keys`, in groups of four. Lane l of a group is sector min(l, rest − 1) of it, rest the sectors left.
 */
function entry(dir: Direction): string[] {
  const [first, second] = dir === 'dec' ? ['b', 'a'] : ['a', 'b'];
  const lane = (l: number, base: string, step: string) =>
    set(
      `${base}${l}`,
      `(select ${add32(get(`${base}${l - 1}`), step)} ${get(`${base}${l - 1}`)} (i32.gt_u ${get('rest')} ${i32(l)}))`,
    );
  const args = [0, 1, 2, 3].map((l) => get(`a${l}`)).join(' ');
  const keys = [0, 1, 2, 3].map((l) => get(`k${l}`)).join(' ');
  return [
    `(func (export "elephant_${dir === 'dec' ? 'decrypt' : 'encrypt'}") (param $data i32) (param $keys i32) (param $count i32) (param $size i32)`,
    '(local $rest i32) (local $end i32) (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32)',
    '(local $k0 i32) (local $k1 i32) (local $k2 i32) (local $k3 i32)',
    set('end', add32(i32(ELEPHANT_WORK), `(i32.shl ${get('size')} ${i32(2)})`)),
    set('a0', get('data')),
    set('k0', get('keys')),
    set('rest', get('count')),
    '(loop $groups',
    ...[1, 2, 3].flatMap((l) => [lane(l, 'a', get('size')), lane(l, 'k', i32(32))]),
    `(call ${dir === 'dec' ? '$in' : '$in_keyed'} ${args} ${keys} ${get('size')})`,
    `(call $${first}_${dir} ${get('end')})`,
    `(call $${second}_${dir} ${get('end')})`,
    `(call ${dir === 'dec' ? '$out_keyed' : '$out'} ${args} ${keys} ${get('size')})`,
    set('a0', add32(get('a0'), `(i32.shl ${get('size')} ${i32(2)})`)),
    set('k0', add32(get('k0'), i32(128))),
    `(br_if $groups (i32.gt_s (local.tee $rest (i32.sub ${get('rest')} ${i32(4)})) ${i32(0)})))`,
    ')',
  ];
}

/**
 * The module's text: its own memory of one page (src/elephant.ts grows it to fit a call), both exports,
 * the four diffuser functions and the four transposes; `unroll` steps per loop iteration by direction.
 *
 * @example
 * ```ts
 * moduleText().includes('(export "elephant_decrypt")'); // true
 * ```
 */
export function moduleText(unroll: Readonly<Record<Direction, number>> = UNROLL): string {
  if (Object.values(unroll).some((u) => u !== 4 && u !== 8)) throw new RangeError('elephant: unroll by 4 or 8');
  const funcs = [
    ...(['dec', 'enc'] as const).flatMap((dir) => [A, B].flatMap((d) => diffuser(d, dir, unroll[dir]))),
    ...transposer('in', false),
    ...transposer('in', true),
    ...transposer('out', false),
    ...transposer('out', true),
    ...entry('dec'),
    ...entry('enc'),
  ];
  return ['(module', '(memory (export "memory") 1)', ...funcs, ')', ''].join('\n');
}

/**
 * Assembles the module and returns its text, its bytes and the TypeScript source that embeds them (the
 * content of src/elephant.generated.ts).
 *
 * @example
 * ```ts
 * const { source } = await build();
 * readFileSync(ELEPHANT_GENERATED, 'utf8') === source; // the committed module is up to date
 * ```
 */
export async function build(): Promise<{ wat: string; wasm: Uint8Array<ArrayBuffer>; source: string }> {
  const wat = moduleText();
  const wasm = (await assembler('elephant.wat'))(wat);
  const source = [
    generatedHeader('scripts/elephant.ts', [...generatorInputs(new URL(import.meta.url)), WABT]),
    '// Regenerate with `npm run generate` in packages/aes-wasm-kernel; under CI=true that command checks this',
    '// file instead, and fails when it differs from a fresh build.',
    '',
    ...embed('ELEPHANT_BASE64', 'The Elephant diffuser module (SIMD128)', wasm),
    '',
  ].join('\n');
  return { wat, wasm, source };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--wat')) process.stdout.write(moduleText());
  else {
    const { wasm, source } = await build();
    if (writeOrCheck(ELEPHANT_GENERATED, source)) console.log(`Elephant module of ${wasm.length} bytes`);
  }
}
