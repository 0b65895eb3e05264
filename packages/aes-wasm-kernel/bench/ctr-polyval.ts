/**
 * The kernel's CTR and POLYVAL against their goals (issue 12), side by side in one process with
 * interleaved rounds, CPU time (the machine is shared), 16 KiB messages:
 *
 * - CTR (each counter kind) against this kernel's own ECB rate (`encryptBlocks` on 16 KiB): goal ≥ 0.9×.
 * - POLYVAL and GHASH (`reversed`) against @noble/ciphers' `polyval` and `ghash` (table-based).
 * - The two halves of a GCM seal on this kernel (`ctr` be32, then GHASH over the ciphertext) against
 *   @noble/ciphers' `gcm(key, nonce).encrypt`: goal ≥ 5×. node:crypto's AES-GCM (OpenSSL, AES-NI and
 *   PCLMULQDQ) is printed beside it for scale.
 *
 *   npx tsx bench/ctr-polyval.ts            full run (about half a minute)
 *   npx tsx bench/ctr-polyval.ts --short    fewer, shorter rounds
 */
import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import { gcm } from '@noble/ciphers/aes.js';
import { ghash, polyval } from '@noble/ciphers/_polyval.js';
import { expandKey } from '@x/aes-keyschedule';
import { kernel } from '../src/index.js';
import { relaxedSupported } from '../src/module.js';

const short = process.argv.includes('--short');
const ROUNDS = short ? 3 : 9;
const BATCH_MS = short ? 40 : 100;
const BYTES = 16384;

interface Row {
  name: string;
  run: () => void;
  baseline: string;
  goal?: number;
}

function rows(keySize: 16 | 32): { rows: Row[]; others: Map<string, () => void> } {
  const key = new Uint8Array(keySize).map((_, i) => i * 7 + 1);
  const nonce = new Uint8Array(12).map((_, i) => 100 + i);
  const iv = new Uint8Array(16).map((_, i) => 255 - i);
  const h = new Uint8Array(16).map((_, i) => 3 * i + 11);
  const src = new Uint8Array(BYTES).map((_, i) => i * 31);
  const out = new Uint8Array(BYTES);
  const acc = new Uint8Array(16);
  const schedule = expandKey(key);
  const k = kernel.load(schedule);
  schedule.wipe();
  const p = kernel.loadPolyval(h);
  const others = new Map<string, () => void>([
    ['wasm-simd128 ECB', () => k.encryptBlocks(out, src)],
    ['@noble/ciphers polyval', () => polyval(src, h)],
    ['@noble/ciphers ghash', () => ghash(src, h)],
    ['@noble/ciphers gcm', () => gcm(key, nonce).encrypt(src)],
    [
      'node:crypto gcm',
      () => {
        const c = createCipheriv(`aes-${keySize * 8}-gcm` as CipherGCMTypes, key, nonce);
        c.update(src);
        c.final();
        c.getAuthTag();
      },
    ],
  ]);
  return {
    others,
    rows: [
      { name: 'ctr be128', run: () => k.ctr(out, src, iv, 'be128'), baseline: 'wasm-simd128 ECB', goal: 0.9 },
      { name: 'ctr be32', run: () => k.ctr(out, src, iv, 'be32'), baseline: 'wasm-simd128 ECB', goal: 0.9 },
      { name: 'ctr xctr', run: () => k.ctr(out, src, iv, 'xctr'), baseline: 'wasm-simd128 ECB', goal: 0.9 },
      { name: 'POLYVAL update', run: () => p.update(acc, src, false), baseline: '@noble/ciphers polyval' },
      { name: 'GHASH (reversed) update', run: () => p.update(acc, src, true), baseline: '@noble/ciphers ghash' },
      {
        name: 'GCM seal parts: ctr be32 + GHASH',
        run: () => {
          k.ctr(out, src, iv, 'be32');
          p.update(acc, out, true);
        },
        baseline: '@noble/ciphers gcm',
        goal: 5,
      },
    ],
  };
}

/** Process CPU time in µs (user + system). */
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Runs `run` for about BATCH_MS of CPU time; returns MB/s (10^6 bytes per CPU second). */
function batch(run: () => void): number {
  let n = 0;
  const t0 = cpu();
  let t = t0;
  while (t - t0 < BATCH_MS * 1000) {
    run();
    n++;
    if ((n & 3) === 0) t = cpu();
  }
  return (n * BYTES) / (cpu() - t0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const build = relaxedSupported() ? 'i8x16.relaxed_swizzle build' : 'i8x16.swizzle build';
console.log(
  `# wasm-simd128 CTR and POLYVAL, 16 KiB (Node ${process.version}, ${build}, ${ROUNDS} interleaved rounds of ${BATCH_MS} ms)\n`,
);
console.log('| key | operation | wasm-simd128 MB/s | baseline | baseline MB/s | ratio | goal |');
console.log('|---|---|---|---|---|---|---|');
for (const keySize of [16, 32] as const) {
  const { rows: list, others } = rows(keySize);
  const all = new Map<string, () => void>([...list.map((r) => [r.name, r.run] as const), ...others]);
  for (const run of all.values()) batch(run); // warm up (and tier up)
  const results = new Map<string, number[]>([...all.keys()].map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) for (const [name, run] of all) results.get(name)?.push(batch(run));
  const m = new Map([...results].map(([name, xs]) => [name, median(xs)]));
  const rate = (name: string) => m.get(name) ?? Number.NaN;
  for (const row of list) {
    const ratio = rate(row.name) / rate(row.baseline);
    const goal = row.goal === undefined ? '' : keySize === 16 ? `≥ ${row.goal}×` : '(AES-256: no goal)';
    console.log(
      `| AES-${keySize * 8} | ${row.name} | ${rate(row.name).toFixed(0)} | ${row.baseline} | ${rate(row.baseline).toFixed(0)} | ${ratio.toFixed(2)}× | ${goal} |`,
    );
  }
  console.log(
    `| AES-${keySize * 8} | (for scale) node:crypto gcm seal | | | ${rate('node:crypto gcm').toFixed(0)} | | |`,
  );
}
