// XTS against CBC on the wasm-simd128 kernel, through @x/xts and @x/cbc: decryptSectors of 2048 sectors of
// 512 bytes (CBC with one IV per sector, XTS with one tweak per sector), and XTS's encryptSectors, at
// AES-128 and AES-256. The XTS figures include @x/xts encrypting the 2048 tweaks with its second key. Each
// figure is the best of 15 interleaved rounds of two calls each (wall time): the measurement behind
// @x/aes-wasm-kernel's README section on the XTS tweaks (its goal: XTS decryption within 15 % of CBC's).
// Moved here from packages/aes-wasm-kernel/bench: a kernel's package does not import the modes above it.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { newCipher } from '@x/cbc';
import { newXts } from '@x/xts';
import { markdownTable } from './stats.js';

const SECTOR = 512;
const SECTORS = 2048;
const ROUNDS = 15;
const KERNEL = 'wasm-simd128';

/** MB/s (10^6 bytes/s) of each contender at one key size: the best of {@link ROUNDS} interleaved rounds. */
function bestRates(bits: 128 | 256): Record<'cbc' | 'xtsDec' | 'xtsEnc', number> {
  const bytes = SECTOR * SECTORS;
  const src = randomBytes(bytes);
  const dst = new Uint8Array(bytes);
  const ivs = randomBytes(16 * SECTORS);
  const cbc = newCipher(randomBytes(bits / 8), { kernel: KERNEL });
  const xts = newXts(randomBytes(bits / 4), { kernel: KERNEL });
  const runs = {
    cbc: () => cbc.decryptSectors(dst, src, SECTOR, ivs),
    xtsDec: () => xts.decryptSectors(dst, src, SECTOR, ivs),
    xtsEnc: () => xts.encryptSectors(dst, src, SECTOR, ivs),
  };
  const best = { cbc: 0, xtsDec: 0, xtsEnc: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(runs) as [keyof typeof runs, () => void][]) {
      const t = performance.now();
      run();
      run();
      best[name] = Math.max(best[name], (2 * bytes) / ((performance.now() - t) * 1000));
    }
  }
  cbc.dispose();
  xts.dispose();
  return best;
}

/** The XTS-against-CBC table (see the top of this file); MB/s by key size and contender. */
export function runXtsVsCbc(): Record<string, Record<string, number>> {
  const results: Record<string, Record<string, number>> = {};
  const lines: string[][] = [];
  for (const bits of [128, 256] as const) {
    const r = bestRates(bits);
    results[`AES-${bits}`] = r;
    lines.push([
      `AES-${bits}`,
      r.cbc.toFixed(0),
      r.xtsDec.toFixed(0),
      r.xtsEnc.toFixed(0),
      `${(r.xtsDec / r.cbc).toFixed(2)}×`,
    ]);
  }
  console.log(
    `## XTS against CBC, ${KERNEL} (@x/xts, @x/cbc)\n\n` +
      `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}. ` +
      `${SECTORS} sectors of ${SECTOR} bytes per call, best of ${ROUNDS} interleaved rounds of two calls, MB/s ` +
      `(10^6 bytes/s); XTS includes encrypting the tweaks. Goal: XTS decryption ≥ 0.85× CBC's.\n`,
  );
  console.log(
    markdownTable(['key', 'CBC decryptSectors', 'XTS decryptSectors', 'XTS encryptSectors', 'XTS dec ÷ CBC'], lines, 1),
  );
  console.log('');
  return results;
}
