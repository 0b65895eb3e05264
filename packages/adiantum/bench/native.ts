/**
 * `npm run bench`: Adiantum and HPolyC on the native core (the addon's C: AVX2 on x86-64) against the
 * WebAssembly SIMD128 core, both with the same native AES kernel, side by side in one process: one 4 KiB
 * message per `encrypt` call (a 32-byte tweak, as Linux's IV), and 16 sectors of 4 KiB per
 * `encryptSectors` call. Also the native core on the addon's portable C primitives (what runs on a CPU
 * without AVX2, and on arm64). Rounds interleaved (every contender once per round, in a rotating order),
 * medians of the rounds' MB/s; the CPU, Node and the load average printed with the table.
 *
 *   npm run bench                      7 rounds of about 100 ms per contender
 *   npm run bench -- --rounds 11
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { type Adiantum, type HbshCoreName, kernels, newAdiantum, newHpolyc } from '@x/adiantum';
import { type AesKernel, registry } from '@x/aes-kernels/hazmat';
import { newHbshOn } from '../src/hbsh.js';
import { nativeOnly, portableCoreOf } from '../test/native-c.js';

const argv = process.argv.slice(2);
const ROUNDS = Number(argv[argv.indexOf('--rounds') + 1]) || 7;
const SLICE_NS = 100_000_000n;
const SECTOR = 4096;
const SECTORS = 16;

const kernel = kernels().find((k) => k.startsWith('native-'));
if (kernel === undefined) {
  console.log('@x/adiantum bench: no native kernel here (native-x64, native-arm64): nothing to compare');
  process.exit(0);
}

interface Row {
  label: string;
  variant: 'adiantum' | 'hpolyc';
  rounds: 12 | 20;
  sectors: boolean;
}
const ROWS: Row[] = [
  { label: 'Adiantum-XChaCha12, 4 KiB encrypt', variant: 'adiantum', rounds: 12, sectors: false },
  { label: 'HPolyC-XChaCha12, 4 KiB encrypt', variant: 'hpolyc', rounds: 12, sectors: false },
  { label: 'Adiantum-XChaCha20, 4 KiB encrypt', variant: 'adiantum', rounds: 20, sectors: false },
  { label: 'Adiantum-XChaCha12, 16 × 4 KiB encryptSectors', variant: 'adiantum', rounds: 12, sectors: true },
  { label: 'HPolyC-XChaCha12, 16 × 4 KiB encryptSectors', variant: 'hpolyc', rounds: 12, sectors: true },
];
type Column = HbshCoreName | 'native, portable C';
const COLUMNS: Column[] = ['native', 'wasm-simd128', 'native, portable C'];

function cipher(row: Row, column: Column): Adiantum {
  const key = randomBytes(32);
  const options = { rounds: row.rounds, kernel };
  if (column === 'native, portable C') {
    const k = portableCoreOf(registry.chooseKernel('@x/adiantum', kernel) as AesKernel);
    return newHbshOn(k, key, options, nativeOnly(row.variant));
  }
  return (row.variant === 'adiantum' ? newAdiantum : newHpolyc)(key, { ...options, core: column });
}

/** One contender's work once, and the bytes it does. */
function work(row: Row, column: Column): { run: () => void; bytes: number } {
  const c = cipher(row, column);
  if (row.sectors) {
    const src = randomBytes(SECTOR * SECTORS);
    const dst = new Uint8Array(src.length);
    const tweaks = randomBytes(32 * SECTORS);
    return { run: () => c.encryptSectors(dst, src, SECTOR, tweaks), bytes: src.length };
  }
  const src = randomBytes(SECTOR);
  const dst = new Uint8Array(SECTOR);
  const tweak = randomBytes(32);
  return { run: () => c.encrypt(dst, src, tweak), bytes: SECTOR };
}

/** MB/s of `run` over about SLICE_NS. */
function slice(run: () => void, bytes: number): number {
  let n = 0;
  const t0 = process.hrtime.bigint();
  let t1 = t0;
  while (t1 - t0 < SLICE_NS) {
    for (let i = 0; i < 8; i++) run();
    n += 8;
    t1 = process.hrtime.bigint();
  }
  return (n * bytes * 1000) / Number(t1 - t0);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const load0 = loadavg()[0];
const lines: string[] = [];
for (const row of ROWS) {
  const contenders = COLUMNS.map((column) => ({ column, ...work(row, column), mbs: [] as number[] }));
  for (const c of contenders) for (let i = 0; i < 200; i++) c.run();
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < contenders.length; j++) {
      const c = contenders[(r + j) % contenders.length];
      c.mbs.push(slice(c.run, c.bytes));
    }
  }
  const [native, wasm, c] = contenders.map((x) => median(x.mbs));
  lines.push(
    `| ${row.label} | ${native.toFixed(0)} | ${wasm.toFixed(0)} | ${c.toFixed(0)} | ${(native / wasm).toFixed(2)}× |`,
  );
}
console.log(
  `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} CPUs, Node ${process.versions.node}, kernel ${kernel}, ` +
    `load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}, ${new Date().toISOString().slice(11, 16)} UTC; ` +
    `medians of ${ROUNDS} interleaved rounds, MB/s:\n`,
);
console.log('| workload | native core | wasm-simd128 core | native core, portable C | native ÷ wasm |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const l of lines) console.log(l);
