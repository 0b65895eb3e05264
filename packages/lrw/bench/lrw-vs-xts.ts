/**
 * LRW beside XTS on every kernel this runtime has, side by side in one process: 512-byte sectors, 16 per
 * call (8 KiB), both directions. LRW runs this package's generic path over the kernel's block primitives
 * (T by one XOR per block from K2's table); XTS runs the kernel's xtsEncrypt/xtsDecrypt fast path where it
 * has one. Rounds are interleaved (every cipher once per round, in a rotating order); each cell is the
 * median over the rounds / the fastest round, in MB/s.
 *
 *   npm run bench -w @x/lrw [-- --rounds 15]
 */
import { newIvGenerator } from '@x/disk-iv';
import { newXts } from '@x/xts';
import { kernels, newLrw } from '../src/index.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 15);

const SECTORS = 16;
const data = crypto.getRandomValues(new Uint8Array(512 * SECTORS));
const out = new Uint8Array(data.length);
const lrwKey = crypto.getRandomValues(new Uint8Array(48)); // AES-256 ‖ K2
const xtsKey = crypto.getRandomValues(new Uint8Array(64)); // AES-256 ‖ AES-256
const benbi = new Uint8Array(16 * SECTORS);
newIvGenerator('benbi', lrwKey).generate(benbi, 1000, SECTORS); // aes-lrw-benbi
const plain64 = new Uint8Array(16 * SECTORS);
newIvGenerator('plain64', xtsKey).generate(plain64, 1000, SECTORS); // aes-xts-plain64

interface Sectors {
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void;
  dispose(): void;
}
type Row = { mode: string; kernel: string; cipher: Sectors; ivs: Uint8Array };
const rows: Row[] = kernels().flatMap((kernel) => [
  { mode: 'LRW-AES-256 (aes-lrw-benbi)', kernel, cipher: newLrw(lrwKey, { kernel }), ivs: benbi },
  { mode: 'XTS-AES-256 (aes-xts-plain64)', kernel, cipher: newXts(xtsKey, { kernel }), ivs: plain64 },
]);

function time(row: Row, decrypt: boolean, budgetMs: number): number {
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < budgetMs) {
    for (let i = 0; i < 8; i++) {
      if (decrypt) row.cipher.decryptSectors(out, data, 512, row.ivs);
      else row.cipher.encryptSectors(out, data, 512, row.ivs);
    }
    calls += 8;
    t = performance.now();
  }
  return (calls * data.length) / ((t - t0) / 1000) / 1e6;
}

const lines: string[] = [];
for (const decrypt of [false, true]) {
  const samples = rows.map(() => [] as number[]);
  for (const row of rows) time(row, decrypt, 100); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < rows.length; j++) {
      const i = (j + r) % rows.length;
      samples[i].push(time(rows[i], decrypt, 60));
    }
  }
  for (const [i, row] of rows.entries()) {
    const s = samples[i].sort((a, b) => a - b);
    const op = decrypt ? 'decryptSectors' : 'encryptSectors';
    lines.push(
      `| ${op} ${SECTORS} × 512 B | ${row.mode} | ${row.kernel} | ${s[s.length >> 1].toFixed(1)} / ${s[s.length - 1].toFixed(1)} |`,
    );
  }
}
console.log(`Node ${process.version}, ${rounds} interleaved rounds; MB/s median / best\n`);
console.log('| operation | mode | kernel | MB/s |');
console.log('| --- | --- | --- | ---: |');
for (const l of lines) console.log(l);
for (const row of rows) row.cipher.dispose();
