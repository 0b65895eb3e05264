// The Adiantum table: @x/adiantum on every AES kernel usable here (the portable one runs the portable core,
// the others the WebAssembly SIMD128 core), side by side in one process with @noble/ciphers' xchacha20 and
// node:crypto's chacha20 on the same 4 KiB, and `openssl speed -evp chacha20 -bytes 4096` (a child
// process) as the native ceiling of the stream cipher alone. Each round runs every contender of a row once,
// in a rotating order; the table reports medians.
//
// Rows (the issue's): Adiantum-XChaCha12, Adiantum-XChaCha20 and HPolyC-XChaCha12, encrypting 4 KiB
// sectors, 16 per call (`encryptSectors`, as a disk driver calls it), and one 4 KiB message per call
// (`encrypt`) on wasm-simd128. The others get one 4 KiB message per call, which is all their APIs offer:
// noble's xchacha20 (the stream cipher alone, no hash, no block cipher), node:crypto's chacha20 with a
// cipher object per message (as a user encrypting sectors with a fresh IV each would have to).
// Goals: wasm-simd128 Adiantum-XChaCha12 ≥ 10× noble, ≥ 2× node:crypto. The Go column is the figure the Go
// package (lukechampine.com/adiantum) publishes, 2.34 GB/s for Adiantum-XChaCha12 on 4 KiB (amd64
// assembly, an Intel i5-7600K at 3.8 GHz), for reference; `--go` (./go-seeds.ts) measures that package
// here, its own benchmark beside ours in the same rounds, when X_BENCH_GOPATH names a GOPATH of its sources.
import { createCipheriv, randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { xchacha20 } from '@noble/ciphers/chacha.js';
import * as adiantum from '@x/adiantum';
import { opensslSpeed, opensslVersion } from './openssl.js';
import { interleaved, markdownTable, type Measurement, mbps, measure, ratio2, type Run } from './stats.js';

const ROUNDS = 5;
const MAX_TIME = 0.15;
const SECTOR = 4096;
const SECTORS = 16;
const KERNELS = adiantum.kernels();
const ONE = 'wasm-simd128, 1 sector per call';
const NOBLE = '@noble/ciphers xchacha20';
const NODE = 'node:crypto chacha20';
const OPENSSL = 'OpenSSL chacha20';
const GO = '2.34 GB/s';

interface Row {
  label: string;
  variant: 'adiantum' | 'hpolyc';
  rounds: 12 | 20;
}

const ROWS: Row[] = [
  { label: 'Adiantum-XChaCha12', variant: 'adiantum', rounds: 12 },
  { label: 'Adiantum-XChaCha20', variant: 'adiantum', rounds: 20 },
  { label: 'HPolyC-XChaCha12', variant: 'hpolyc', rounds: 12 },
];

/** One contender of a row: its work once, the bytes it does, and how to free its keys. */
function make(row: Row, who: string): { run: Run; bytes: number; dispose(): void } | undefined {
  const key = randomBytes(32);
  const create = row.variant === 'adiantum' ? adiantum.newAdiantum : adiantum.newHpolyc;
  if (KERNELS.includes(who)) {
    const c = create(key, { rounds: row.rounds, kernel: who });
    const src = randomBytes(SECTOR * SECTORS);
    const dst = new Uint8Array(src.length);
    const tweaks = randomBytes(32 * SECTORS);
    return { run: () => c.encryptSectors(dst, src, SECTOR, tweaks), bytes: src.length, dispose: () => c.dispose() };
  }
  if (who === ONE) {
    if (!KERNELS.includes('wasm-simd128')) return undefined;
    const c = create(key, { rounds: row.rounds, kernel: 'wasm-simd128' });
    const src = randomBytes(SECTOR);
    const dst = new Uint8Array(SECTOR);
    const tweak = randomBytes(32);
    return { run: () => c.encrypt(dst, src, tweak), bytes: SECTOR, dispose: () => c.dispose() };
  }
  const src = randomBytes(SECTOR);
  const dst = new Uint8Array(SECTOR);
  if (who === NOBLE) {
    const nonce = randomBytes(24);
    return { run: () => xchacha20(key, nonce, src, dst), bytes: SECTOR, dispose: () => {} };
  }
  if (who === NODE) {
    const iv = randomBytes(16);
    return {
      run: () => {
        const c = createCipheriv('chacha20', key, iv);
        c.update(src);
        c.final();
      },
      bytes: SECTOR,
      dispose: () => {},
    };
  }
  return undefined;
}

/** Measures every contender of `row` in interleaved rounds; medians in bytes per second. */
function measureRow(row: Row, contenders: readonly string[], openssl: boolean): Record<string, number | undefined> {
  const made = contenders.map((c) => make(row, c));
  const runs: Measurement[] = contenders.flatMap((name, i) => {
    const m = made[i];
    return m ? [{ name, run: () => measure(m.run, m.bytes, MAX_TIME) }] : [];
  });
  if (openssl) runs.push({ name: OPENSSL, run: () => opensslSpeed(['chacha20', '-bytes', String(SECTOR)]) });
  try {
    return interleaved(runs, ROUNDS);
  } finally {
    for (const m of made) m?.dispose();
  }
}

/** Measures and prints the Adiantum table; returns the medians (bytes per second). */
export function runAdiantum(): Record<string, unknown> {
  const started = Date.now();
  const version = opensslVersion();
  const contenders = [...KERNELS, ONE, NOBLE, NODE];
  const results: Record<string, Record<string, number | undefined>> = {};
  const lines: string[][] = [];
  for (const row of ROWS) {
    const r = measureRow(row, contenders, version !== undefined);
    results[row.label] = r;
    process.stderr.write(`. ${row.label}\n`);
    const wasm = r['wasm-simd128'];
    const goals =
      row.label === 'Adiantum-XChaCha12'
        ? `wasm-simd128 ÷ noble ${ratio2(wasm, r[NOBLE])} (≥ 10×), ÷ node:crypto ${ratio2(wasm, r[NODE])} (≥ 2×)`
        : `wasm-simd128 ÷ noble ${ratio2(wasm, r[NOBLE])}, ÷ node:crypto ${ratio2(wasm, r[NODE])}`;
    lines.push([
      row.label,
      ...KERNELS.map((k) => mbps(r[k])),
      mbps(r[ONE]),
      mbps(r[NOBLE]),
      mbps(r[NODE]),
      mbps(r[OPENSSL]),
      row.label === 'Adiantum-XChaCha12' ? GO : '—',
      goals,
    ]);
  }
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${version ?? 'no openssl'}. ` +
      `Encryption of 4 KiB sectors, MB/s (10^6 bytes/s), median of ${ROUNDS} interleaved rounds; higher is better. ` +
      `@x kernels: ${SECTORS} sectors per encryptSectors call; the others one 4 KiB message per call. ` +
      `${OPENSSL}: \`openssl speed -evp chacha20 -bytes 4096\`, the stream cipher alone, native (the ceiling). ` +
      `Go (lukechampine.com/adiantum, amd64 assembly): its published figure on an Intel i5-7600K at 3.8 GHz; ` +
      `\`npm run bench -- --go\` measures it on this machine.\n`,
  );
  console.log(
    markdownTable(
      ['cipher (4 KiB sectors)', ...KERNELS, ONE, NOBLE, NODE, OPENSSL, 'Go (published)', 'ratios (goal)'],
      lines,
      1,
    ),
  );
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return { results };
}
