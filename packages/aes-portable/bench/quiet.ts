/**
 * The acceptance case measured as undisturbed as a shared machine allows: AES CBC decryption of 4 KiB,
 * @x/aes-portable (loaded kernel) against @noble/ciphers' `cbc(key, iv, { disablePadding: true })
 * .decrypt(ct)`, both warmed up for 2 s, then the fastest of 100 samples of 4 calls each (interleaved).
 * Run: `npx tsx bench/quiet.ts` (about 10 s).
 */
import { cbc } from '@noble/ciphers/aes.js';
import { expandKey } from '@x/aes-keyschedule';
import { kernel } from '../src/index.js';

const iv = new Uint8Array(16).fill(1);
const ct = new Uint8Array(4096).fill(5);
const dst = new Uint8Array(4096);
const k16 = new Uint8Array(16).fill(9);
const k32 = new Uint8Array(32).fill(9);
const a = kernel.load(expandKey(k16));
const b = kernel.load(expandKey(k32));
const fns: Record<string, () => void> = {
  'portable AES-128': () => a.cbcDecryptSectors(dst, ct, ct.length, iv),
  'noble AES-128': () => cbc(k16, iv, { disablePadding: true }).decrypt(ct),
  'portable AES-256': () => b.cbcDecryptSectors(dst, ct, ct.length, iv),
  'noble AES-256': () => cbc(k32, iv, { disablePadding: true }).decrypt(ct),
};
const t0 = performance.now();
while (performance.now() - t0 < 2000) for (const f of Object.values(fns)) f();
const best: Record<string, number> = {};
for (let rep = 0; rep < 100; rep++) {
  for (const [n, f] of Object.entries(fns)) {
    const t = performance.now();
    for (let i = 0; i < 4; i++) f();
    best[n] = Math.max(best[n] ?? 0, (4 * 4096) / ((performance.now() - t) * 1000));
  }
}
console.log(`Node ${process.version}, CBC decrypt 4 KiB, fastest of 100 samples, MB/s`);
for (const [n, v] of Object.entries(best)) console.log(`${n.padEnd(18)} ${v.toFixed(1)}`);
console.log(
  `ratio AES-128 ${(best['portable AES-128'] / best['noble AES-128']).toFixed(2)}, AES-256 ${(best['portable AES-256'] / best['noble AES-256']).toFixed(2)}`,
);
