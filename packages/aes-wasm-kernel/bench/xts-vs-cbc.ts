// Run: node --conditions=source --import tsx bench/xts-vs-cbc.ts
import { randomBytes } from 'node:crypto';
import { newCipher } from '@x/cbc';
import { newXts } from '@x/xts';
const B = 2048 * 512;
const src = randomBytes(B);
const dst = new Uint8Array(B);
const ivs = randomBytes(16 * 2048);
for (const bits of [128, 256]) {
  const c = newCipher(randomBytes(bits / 8), { kernel: 'wasm-simd128' });
  const x = newXts(randomBytes(bits / 4), { kernel: 'wasm-simd128' });
  const f = {
    cbc: () => c.decryptSectors(dst, src, 512, ivs),
    xtsDec: () => x.decryptSectors(dst, src, 512, ivs),
    xtsEnc: () => x.encryptSectors(dst, src, 512, ivs),
  };
  const best: Record<string, number> = {};
  for (let r = 0; r < 15; r++)
    for (const [n, fn] of Object.entries(f)) {
      const t = performance.now();
      fn();
      fn();
      best[n] = Math.max(best[n] ?? 0, (2 * B) / ((performance.now() - t) * 1000));
    }
  console.log(bits, best, (best.xtsDec / best.cbc).toFixed(2));
}
