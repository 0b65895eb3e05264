// Run: npx tsx bench/raw-xts.ts [path-to-generated.ts]: the exports on one chunk, interleaved, best of N.
import { CHUNK, DATA, IVS } from '../src/layout.js';
const gen = await import(process.argv[2] ?? '../src/wasm.generated.js');
const inst = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(gen.WASM_BASE64, 'base64')));
const e = inst.exports as Record<string, (...a: number[]) => void>;
const mem = new Uint8Array((inst.exports.memory as WebAssembly.Memory).buffer);
for (let i = 2048; i < DATA + CHUNK; i++) mem[i] = (i * 2654435761) >>> 24;
for (const r of [10, 14]) {
  const f: Record<string, () => void> = {
    secDec: () => e[`sec_dec_${r}`](DATA, CHUNK, 512),
    xtsDec: () => e[`xts_dec_${r}`](DATA, CHUNK, 512, IVS),
    xtsEnc: () => e[`xts_enc_${r}`](DATA, CHUNK, 512, IVS),
    ecbDec: () => e[`ecb_dec_${r}`](DATA, CHUNK),
    ecbEnc: () => e[`ecb_enc_${r}`](DATA, CHUNK),
  };
  const best: Record<string, number> = {};
  for (let k = 0; k < 40; k++) for (const [n, fn] of Object.entries(f)) {
    const t = performance.now(); for (let j = 0; j < 8; j++) fn();
    best[n] = Math.max(best[n] ?? 0, 8 * CHUNK / ((performance.now() - t) * 1000));
  }
  console.log(r, Object.entries(best).map(([n, v]) => `${n} ${v.toFixed(0)}`).join('  '), 'xtsDec/secDec', (best.xtsDec / best.secDec).toFixed(3));
}
