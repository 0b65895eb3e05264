// cbcEncryptSectors (8 chains interleaved through the bitsliced core) against the same kernel's serial
// cbcEncrypt called once per sector (and once on the whole 1 MiB, without the per-call cost), and
// against cbcDecryptSectors, on 2048 sectors of 512 bytes.
// Interleaved rounds, process CPU time, best and median MB/s.
//   npx tsx bench/encrypt-sectors.ts
//   node --experimental-wasm-relaxed-simd --import tsx bench/encrypt-sectors.ts   (relaxed build)
import { expandKey } from '@x/aes-keyschedule';
import { kernel } from '../src/index.js';
import { relaxedSupported } from '../src/module.js';

const SECTORS = 2048;
const SECTOR = 512;
const B = SECTORS * SECTOR;
const src = new Uint8Array(B).map((_, i) => i * 13);
const dst = new Uint8Array(B);
const ivs = new Uint8Array(16 * SECTORS).map((_, i) => i * 3);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (const bits of [128, 256]) {
  const s = expandKey(new Uint8Array(bits / 8).map((_, i) => i * 7 + 1));
  const k = kernel.load(s);
  s.wipe();
  const f: Record<string, () => void> = {
    cbcEncryptSectors: () => k.cbcEncryptSectors(dst, src, SECTOR, ivs),
    'cbcEncrypt per sector': () => {
      for (let i = 0; i < SECTORS; i++)
        k.cbcEncrypt(
          dst.subarray(i * SECTOR, (i + 1) * SECTOR),
          src.subarray(i * SECTOR, (i + 1) * SECTOR),
          ivs.subarray(16 * i, 16 * i + 16),
        );
    },
    'cbcEncrypt, one 1 MiB chain': () => k.cbcEncrypt(dst, src, ivs.subarray(0, 16)),
    cbcDecryptSectors: () => k.cbcDecryptSectors(dst, src, SECTOR, ivs),
  };
  const runs: Record<string, number[]> = {};
  for (let r = 0; r < 21; r++) {
    for (const [n, fn] of Object.entries(f)) {
      const t = cpu();
      fn();
      fn();
      runs[n] ??= [];
      runs[n].push((2 * B) / ((cpu() - t) * 1000));
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const row = Object.fromEntries(
    Object.entries(runs).map(([n, a]) => [n, `best ${Math.max(...a).toFixed(0)}, median ${med(a).toFixed(0)}`]),
  );
  console.log(`AES-${bits} (relaxed build: ${relaxedSupported()}), MB/s:`, row);
  console.log(
    `  cbcEncryptSectors / cbcEncrypt per sector (medians): ${(med(runs.cbcEncryptSectors) / med(runs['cbcEncrypt per sector'])).toFixed(2)}×`,
  );
  k.dispose();
}
