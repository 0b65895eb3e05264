/**
 * The SIMD128 core's kernels on one 4 KiB sector's worth (4080 bytes: what Adiantum streams and hashes
 * per 4096-byte sector), side by side in one process, rounds interleaved: `stream` (XChaCha12 and
 * XChaCha20), `finish` (Adiantum: NH + Poly1305; HPolyC: Poly1305 alone), the portable core, and
 * @noble/ciphers' xchacha20 on the same 4080 bytes for reference. Cycles per byte at the clock given by
 * `--ghz` (default 3.66, this machine's EPYC).
 *
 *   npx tsx bench/core.ts                 the committed module
 *   npx tsx bench/core.ts --variants      also the generator's other options (scripts/wat.ts), rebuilt here
 */
import { xchacha20 } from '@noble/ciphers/chacha.js';
import { build } from '../scripts/build.js';
import { DEFAULT_OPTIONS, type WatOptions } from '../scripts/wat.js';
import { portableCore } from '../src/core-portable.js';
import { wasmCore } from '../src/core-wasm.js';
import { DATA, KEY, NONCE, STATES, XS, YS } from '../src/layout.js';

const LEN = 4080;
const argv = process.argv.slice(2);
const ghz = Number(argv[argv.indexOf('--ghz') + 1]) || 3.66;

type Exports = {
  memory: WebAssembly.Memory;
  setup(rounds: number, bytes: number): void;
  header(ptr: number, len: number, state: number, more: number): void;
  finish(ptr: number, len: number, state: number, out: number, base: number, sign: number, hpolyc: number): void;
  stream(nonce: number, ptr: number, len: number, block: number, blockHi: number, rounds: number): void;
};

/** name → one call on LEN bytes. */
const cases = new Map<string, () => void>();

const core = wasmCore();
if (!core) throw new Error('no SIMD128 here');
core.memory.fill(1, KEY, KEY + 32);
core.setup(12, 0);
core.header(XS, 48, STATES, 0);
cases.set('wasm stream XChaCha12', () => core.stream(NONCE, DATA, LEN, 0));
cases.set('wasm finish Adiantum (NH+Poly1305)', () => core.finish(DATA, LEN, STATES, YS, XS, 0));
const core20 = wasmCore();
if (!core20) throw new Error('no SIMD128 here');
core20.setup(20, 0);
cases.set('wasm stream XChaCha20', () => core20.stream(NONCE, DATA, LEN, 0));
const hp = wasmCore();
if (!hp) throw new Error('no SIMD128 here');
hp.setup(12, 1);
hp.header(XS, 48, STATES, 0);
cases.set('wasm finish HPolyC (Poly1305)', () => hp.finish(DATA, LEN, STATES, YS, XS, 0));

const portable = portableCore();
portable.setup(12, 0);
portable.header(XS, 48, STATES, 0);
cases.set('portable stream XChaCha12', () => portable.stream(NONCE, DATA, LEN, 0));
cases.set('portable finish Adiantum', () => portable.finish(DATA, LEN, STATES, YS, XS, 0));

const nKey = new Uint8Array(32).fill(1);
const nNonce = new Uint8Array(24);
const nData = new Uint8Array(LEN);
const nOut = new Uint8Array(LEN);
cases.set('@noble/ciphers xchacha20', () => xchacha20(nKey, nNonce, nData, nOut));

if (argv.includes('--variants')) {
  const variants: [string, WatOptions][] = [
    ['rotations by shuffle', { ...DEFAULT_OPTIONS, rot16: 'shuffle', rot8: 'shuffle' }],
    ['rotations by shifts', { ...DEFAULT_OPTIONS, rot16: 'shift', rot8: 'shift' }],
    ['quarter rounds 2 at a time', { ...DEFAULT_OPTIONS, interleave: 2 }],
    ['NH 4 units an iteration', { ...DEFAULT_OPTIONS, nhUnroll: 4 }],
    ['NH high half by loads', { ...DEFAULT_OPTIONS, nhHigh: 'load' }],
  ];
  for (const [name, o] of variants) {
    const { wasm } = await build(o);
    const e = new WebAssembly.Instance(new WebAssembly.Module(wasm), {}).exports as unknown as Exports;
    e.setup(12, 1136);
    e.header(XS, 48, STATES, 0);
    cases.set(`${name}: stream XChaCha12`, () => e.stream(NONCE, DATA, LEN, 0, 0, 12));
    cases.set(`${name}: finish Adiantum`, () => e.finish(DATA, LEN, STATES, YS, XS, 0, 0));
  }
}

/** Best time per call (ns) over `rounds` interleaved rounds of about 10 ms each. */
const best = new Map<string, number>();
for (const [name, f] of cases) {
  for (let i = 0; i < 200; i++) f();
  best.set(name, Number.POSITIVE_INFINITY);
}
const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 30;
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of cases) {
    let n = 0;
    const t0 = process.hrtime.bigint();
    let t1 = t0;
    while (t1 - t0 < 10_000_000n) {
      for (let i = 0; i < 16; i++) f();
      n += 16;
      t1 = process.hrtime.bigint();
    }
    best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, Number(t1 - t0) / n));
  }
}

const noble = best.get('@noble/ciphers xchacha20') ?? Number.NaN;
console.log(`| ${LEN} bytes, Node ${process.versions.node}, ${ghz} GHz | ns/call | MB/s | cycles/byte | vs noble |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, ns] of best) {
  const mbs = (LEN / ns) * 1000;
  console.log(
    `| ${name} | ${ns.toFixed(0)} | ${mbs.toFixed(0)} | ${((ns * ghz) / LEN).toFixed(2)} | ${(noble / ns).toFixed(2)}× |`,
  );
}
