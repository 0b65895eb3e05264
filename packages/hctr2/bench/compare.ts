/**
 * HCTR2 speed on every kernel this runtime has, side by side in one process: 8 KiB messages (the size the
 * HCTR2 authors report cycles per byte for) with a 32-byte tweak, both directions, and 512-byte sectors,
 * 16 per call. Rounds are interleaved (every kernel once per round, in a rotating order); each cell is
 * the median over the rounds / the fastest round, in MB/s, and cycles per byte at the clock given with
 * `--ghz` (default: none, no c/b column).
 *
 *   npx tsx --conditions=source bench/compare.ts [--rounds 15] [--ghz 2.6]
 */
import { kernels, newHctr2 } from '../src/index.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 15);
const ghz = arg('ghz', 0);

const key = crypto.getRandomValues(new Uint8Array(32));
const msg = crypto.getRandomValues(new Uint8Array(8192));
const out = new Uint8Array(8192);
const tweak = crypto.getRandomValues(new Uint8Array(32));
const tweaks = crypto.getRandomValues(new Uint8Array(32 * 16));

type Case = { name: string; bytes: number; run: (h: ReturnType<typeof newHctr2>) => void };
const CASES: Case[] = [
  { name: 'encrypt 8 KiB', bytes: 8192, run: (h) => h.encrypt(out, msg, tweak) },
  { name: 'decrypt 8 KiB', bytes: 8192, run: (h) => h.decrypt(out, msg, tweak) },
  { name: 'encryptSectors 16 × 512 B', bytes: 8192, run: (h) => h.encryptSectors(out, msg, 512, tweaks) },
  { name: 'decryptSectors 16 × 512 B', bytes: 8192, run: (h) => h.decryptSectors(out, msg, 512, tweaks) },
];

const names = kernels();
const ciphers = names.map((kernel) => newHctr2(key, { kernel }));
/** Seconds for `calls` calls, after the rest of the round's budget decided how many. */
function time(c: Case, h: ReturnType<typeof newHctr2>, budgetMs: number): number {
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < budgetMs) {
    for (let i = 0; i < 8; i++) c.run(h);
    calls += 8;
    t = performance.now();
  }
  return (calls * c.bytes) / ((t - t0) / 1000) / 1e6;
}

const rows: string[] = [];
for (const c of CASES) {
  const samples = names.map(() => [] as number[]);
  for (const h of ciphers) time(c, h, 100); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < names.length; j++) {
      const i = (j + r) % names.length;
      samples[i].push(time(c, ciphers[i], 60));
    }
  }
  for (const [i, name] of names.entries()) {
    const s = samples[i].sort((a, b) => a - b);
    const median = s[s.length >> 1];
    const best = s[s.length - 1];
    const cpb = ghz > 0 ? ` | ${((ghz * 1000) / best).toFixed(1)}` : '';
    rows.push(`| ${c.name} | ${name} | ${median.toFixed(1)} / ${best.toFixed(1)}${cpb} |`);
  }
}
console.log(
  `Node ${process.version}, ${rounds} interleaved rounds; MB/s median / best${ghz > 0 ? `; c/b at ${ghz} GHz (best)` : ''}\n`,
);
console.log(`| operation | kernel | MB/s${ghz > 0 ? ' | c/b' : ''} |`);
console.log(`| --- | --- | ---:${ghz > 0 ? ' | ---:' : ''} |`);
for (const r of rows) console.log(r);
for (const h of ciphers) h.dispose();
