/**
 * XTS against CBC sectors at the kernel level: the exports of one or more builds of the module, called in
 * alternation on one 32 KiB chunk of 512-byte units (40 interleaved rounds of 8 calls, best of each, MB/s).
 *
 *   npx tsx bench/raw-xts.ts                      the committed src/wasm.generated.ts
 *   npx tsx bench/raw-xts.ts old.ts new.ts        files written by scripts/build.ts from other sources
 *   RELAXED=1 node --experimental-wasm-relaxed-simd --import tsx bench/raw-xts.ts ...   the relaxed build
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHUNK, DATA, IVS } from '../src/layout.js';
import { decompress } from '../src/lz.js';

type Exports = Record<string, (...a: number[]) => void>;
const files = process.argv.slice(2);
const sources = files.length ? files.map((f) => pathToFileURL(resolve(f)).href) : ['../src/wasm.generated.js'];
const mods: Exports[] = [];
for (const url of sources) {
  const gen = (await import(url)) as { MODULES_BASE64: string; MODULE_ENDS: readonly [number, number] };
  const both = decompress(Buffer.from(gen.MODULES_BASE64, 'base64'), gen.MODULE_ENDS[1]);
  const bytes = process.env.RELAXED ? both.slice(gen.MODULE_ENDS[0]) : both.slice(0, gen.MODULE_ENDS[0]);
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  const mem = new Uint8Array((inst.exports.memory as WebAssembly.Memory).buffer);
  for (let i = 2048; i < DATA + CHUNK; i++) mem[i] = (i * 2654435761) >>> 24; // keys, tweaks, data: any bytes
  mods.push(inst.exports as Exports);
}
for (const r of [10, 14]) {
  const f: Record<string, () => void> = { cbcSectors: () => mods[0][`sec_dec_${r}`](DATA, CHUNK, 512) };
  mods.forEach((e, i) => {
    f[`xtsDec#${i}`] = () => e[`xts_dec_${r}`](DATA, CHUNK, 512, IVS);
    f[`xtsEnc#${i}`] = () => e[`xts_enc_${r}`](DATA, CHUNK, 512, IVS);
  });
  const best: Record<string, number> = {};
  for (let k = 0; k < 40; k++) {
    for (const [n, fn] of Object.entries(f)) {
      const t = performance.now();
      for (let j = 0; j < 8; j++) fn();
      best[n] = Math.max(best[n] ?? 0, (8 * CHUNK) / ((performance.now() - t) * 1000));
    }
  }
  console.log(
    `AES-${r === 10 ? 128 : 256}`,
    Object.entries(best)
      .map(([n, v]) => `${n} ${v.toFixed(0)}`)
      .join('  '),
  );
}
