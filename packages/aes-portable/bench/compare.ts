/**
 * Side-by-side benchmark: @x/aes-portable against @noble/ciphers (T-tables, not constant time), in one
 * process, interleaved rounds. Run: `npx tsx bench/compare.ts` (about a minute). Set BENCH_ROUNDS /
 * BENCH_MS to trade time for precision. Prints the median of the rounds and the fastest sample (4 calls):
 * on a busy machine the median mostly measures the neighbours (and @noble/ciphers, which allocates on every
 * call, suffers more from them); the fastest sample is closer to what each implementation can do.
 *
 * "portable" is a loaded kernel (key set up once, as the mode packages use it); "portable+key" also runs
 * expandKey + load on every call, as @noble/ciphers' `cbc(key, iv).decrypt(ct)` expands its key per call.
 */
import { cbc, ecb } from '@noble/ciphers/aes.js';
import { expandKey } from '@x/aes-keyschedule';
import { kernel } from '../src/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const MS = Number(process.env.BENCH_MS ?? 80);

function fill(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed * 7 + 11) & 0xff;
  return b;
}

/**
 * Runs `f` (processing `bytes` per call) for about MS milliseconds in samples of 4 calls; returns the MB/s
 * of the whole run and of its fastest sample.
 */
function rate(f: () => void, bytes: number): { avg: number; best: number } {
  let calls = 0;
  let best = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < MS) {
    for (let i = 0; i < 4; i++) f();
    calls += 4;
    const t1 = performance.now();
    best = Math.max(best, (4 * bytes) / ((t1 - t) * 1000));
    t = t1;
  }
  return { avg: (calls * bytes) / ((t - t0) * 1000), best };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

type Op = 'CBC decrypt' | 'ECB encrypt' | 'CBC encrypt';
const rows: string[] = [];
for (const keyLen of [16, 32]) {
  for (const op of ['CBC decrypt', 'ECB encrypt', 'CBC encrypt'] as Op[]) {
    for (const size of [512, 4096]) {
      const key = fill(keyLen, 1);
      const iv = fill(16, 2);
      const data = fill(size, 3);
      const out = new Uint8Array(size);
      const k = kernel.load(expandKey(key));
      const ours = {
        'CBC decrypt': () => k.cbcDecryptSectors(out, data, data.length, iv),
        'ECB encrypt': () => k.encryptBlocks(out, data),
        'CBC encrypt': () => k.cbcEncrypt(out, data, iv),
      }[op];
      const oursKeyed = () => {
        const s = expandKey(key);
        const kk = kernel.load(s);
        s.wipe();
        if (op === 'CBC decrypt') kk.cbcDecryptSectors(out, data, data.length, iv);
        else if (op === 'ECB encrypt') kk.encryptBlocks(out, data);
        else kk.cbcEncrypt(out, data, iv);
        kk.dispose();
      };
      const noble = {
        'CBC decrypt': () => cbc(key, iv, { disablePadding: true }).decrypt(data),
        'ECB encrypt': () => ecb(key, { disablePadding: true }).encrypt(data),
        'CBC encrypt': () => cbc(key, iv, { disablePadding: true }).encrypt(data),
      }[op];
      const r = { ours: [] as number[], keyed: [] as number[], noble: [] as number[] };
      let ob = 0;
      let nb = 0;
      // warm-up (lets TurboFan optimize the round functions), then interleaved rounds
      for (let i = 0; i < 3; i++) {
        rate(ours, size);
        rate(oursKeyed, size);
        rate(noble, size);
      }
      for (let i = 0; i < ROUNDS; i++) {
        const a = rate(ours, size);
        const b = rate(noble, size);
        r.ours.push(a.avg);
        r.noble.push(b.avg);
        r.keyed.push(rate(oursKeyed, size).avg);
        ob = Math.max(ob, a.best);
        nb = Math.max(nb, b.best);
      }
      k.dispose();
      const o = median(r.ours);
      const kd = median(r.keyed);
      const n = median(r.noble);
      const f = (x: number) => x.toFixed(1);
      const row = `| AES-${8 * keyLen} | ${op} | ${size} B | ${f(o)} / ${f(ob)} | ${f(kd)} | ${f(n)} / ${f(nb)} | ${(o / n).toFixed(2)} / ${(ob / nb).toFixed(2)} |`;
      rows.push(row);
      console.error(row);
    }
  }
}
console.log(
  `\nNode ${process.version}, ${ROUNDS} interleaved rounds of ~${MS} ms; MB/s as median of rounds / fastest sample of 4 calls\n`,
);
console.log('| key | operation | size | portable | portable+key (median) | @noble/ciphers | ratio |');
console.log('|---|---|---|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
