/**
 * Side-by-side benchmark of the wasm-simd128 kernel against @noble/ciphers and node:crypto, in one
 * process, with interleaved rounds (each round runs every contender once per operation, so that machine
 * noise hits all of them alike). Time is the process's CPU time, not wall time: the machine is shared.
 * Prints the median MB/s (10^6 bytes per CPU second) and ratios as a Markdown table for the README.
 *
 *   npx tsx bench/main.ts            full run (about a minute)
 *   npx tsx bench/main.ts --short    fewer, shorter rounds
 *   node --experimental-wasm-relaxed-simd --import tsx bench/main.ts   the relaxed-simd build on Node 20
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { cbc, ecb } from '@noble/ciphers/aes.js';
import { expandKey } from '@x/aes-keyschedule';
import { kernel } from '../src/index.js';
import { relaxedSupported } from '../src/module.js';

const short = process.argv.includes('--short');
const ROUNDS = short ? 3 : 7;
const BATCH_MS = short ? 40 : 100;

type Contender = { name: string; run: () => void };
type Operation = { name: string; bytes: number; baseline: string; goal: number; contenders: Contender[] };

function operations(keySize: 16 | 32): Operation[] {
  const key = new Uint8Array(keySize).map((_, i) => i * 7 + 1);
  const iv = new Uint8Array(16).map((_, i) => 255 - i);
  const bits = keySize * 8;
  const schedule = expandKey(key);
  const k = kernel.load(schedule);
  schedule.wipe();
  const page = new Uint8Array(4096).map((_, i) => i * 31);
  const out = new Uint8Array(4096);
  const SECTORS = 2048;
  const SECTOR = 512;
  const disk = new Uint8Array(SECTORS * SECTOR).map((_, i) => i * 13);
  const diskOut = new Uint8Array(disk.length);
  const ivs = new Uint8Array(16 * SECTORS).map((_, i) => i * 3);
  const nodeCbcDec = (src: Uint8Array, v: Uint8Array) =>
    createDecipheriv(`aes-${bits}-cbc`, key, v).setAutoPadding(false).update(src);
  return [
    {
      name: 'CBC decrypt, 4 KiB',
      bytes: 4096,
      baseline: '@noble/ciphers',
      goal: 10,
      contenders: [
        { name: 'wasm-simd128', run: () => k.cbcDecryptSectors(out, page, page.length, iv) },
        { name: '@noble/ciphers', run: () => cbc(key, iv, { disablePadding: true }).decrypt(page) },
        { name: 'node:crypto', run: () => nodeCbcDec(page, iv) },
      ],
    },
    {
      name: 'cbcDecryptSectors, 2048 × 512 B',
      bytes: disk.length,
      baseline: 'node:crypto',
      goal: 10,
      contenders: [
        { name: 'wasm-simd128', run: () => k.cbcDecryptSectors(diskOut, disk, SECTOR, ivs) },
        {
          name: '@noble/ciphers',
          run: () => {
            for (let s = 0; s < SECTORS; s++) {
              const o = s * SECTOR;
              diskOut.set(
                cbc(key, ivs.subarray(16 * s, 16 * s + 16), { disablePadding: true }).decrypt(
                  disk.subarray(o, o + SECTOR),
                ),
                o,
              );
            }
          },
        },
        {
          name: 'node:crypto',
          run: () => {
            for (let s = 0; s < SECTORS; s++) {
              const o = s * SECTOR;
              diskOut.set(nodeCbcDec(disk.subarray(o, o + SECTOR), ivs.subarray(16 * s, 16 * s + 16)), o);
            }
          },
        },
      ],
    },
    {
      name: 'encryptBlocks, 4 KiB',
      bytes: 4096,
      baseline: '@noble/ciphers',
      goal: 8,
      contenders: [
        { name: 'wasm-simd128', run: () => k.encryptBlocks(out, page) },
        { name: '@noble/ciphers', run: () => ecb(key, { disablePadding: true }).encrypt(page) },
        {
          name: 'node:crypto',
          run: () => createCipheriv(`aes-${bits}-ecb`, key, null).setAutoPadding(false).update(page),
        },
      ],
    },
    {
      name: 'CBC encrypt, 4 KiB',
      bytes: 4096,
      baseline: '@noble/ciphers',
      goal: 3,
      contenders: [
        { name: 'wasm-simd128', run: () => k.cbcEncrypt(out, page, iv) },
        { name: '@noble/ciphers', run: () => cbc(key, iv, { disablePadding: true }).encrypt(page) },
        {
          name: 'node:crypto',
          run: () => createCipheriv(`aes-${bits}-cbc`, key, iv).setAutoPadding(false).update(page),
        },
      ],
    },
  ];
}

/** Process CPU time in µs (user + system): the machine is shared, and wall time counts other jobs. */
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Runs `run` for about BATCH_MS of CPU time; returns MB/s (bytes per CPU µs). */
function batch(run: () => void, bytes: number): number {
  let n = 0;
  const t0 = cpu();
  let t = t0;
  while (t - t0 < BATCH_MS * 1000) {
    run();
    n++;
    if ((n & 3) === 0 || bytes > 65536) t = cpu();
  }
  return (n * bytes) / (cpu() - t0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const build = relaxedSupported() ? 'i8x16.relaxed_swizzle build' : 'i8x16.swizzle build';
console.log(
  `# wasm-simd128 benchmark (Node ${process.version}, ${build}, ${ROUNDS} interleaved rounds of ${BATCH_MS} ms)\n`,
);
console.log('| key | operation | wasm-simd128 MB/s | @noble/ciphers MB/s | node:crypto MB/s | ratio | goal |');
console.log('|---|---|---|---|---|---|---|');
for (const keySize of [16, 32] as const) {
  for (const op of operations(keySize)) {
    for (const c of op.contenders) batch(c.run, op.bytes); // warm up (and tier up)
    const results = new Map<string, number[]>(op.contenders.map((c) => [c.name, []]));
    for (let r = 0; r < ROUNDS; r++) for (const c of op.contenders) results.get(c.name)!.push(batch(c.run, op.bytes));
    const m = new Map([...results].map(([name, xs]) => [name, median(xs)]));
    const ratio = m.get('wasm-simd128')! / m.get(op.baseline)!;
    const goal = keySize === 16 ? `≥ ${op.goal}× ${op.baseline}` : '(AES-256: no goal)';
    console.log(
      `| AES-${keySize * 8} | ${op.name} | ${m.get('wasm-simd128')!.toFixed(0)} | ${m.get('@noble/ciphers')!.toFixed(0)} | ` +
        `${m.get('node:crypto')!.toFixed(0)} | ${ratio.toFixed(2)}× ${op.baseline} | ${goal} |`,
    );
  }
}
