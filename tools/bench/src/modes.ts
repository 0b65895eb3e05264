// The modes table (CTR, GCM, HCTR2): every @x kernel usable here through @x/ctr, @x/gcm and @x/hctr2,
// side by side with node:crypto, @noble/ciphers and `openssl speed` (a child process) in one process.
// Each round runs every contender of a row once, in a rotating order; the table reports medians.
//
// Rows and goals:
// - CTR 16 KiB: native-x64 ≥ 1.5× OpenSSL `aes-*-ctr -bytes 16384`; wasm-simd128 ≥ 0.9× its own ECB
//   rate on the same 16 KiB (encryptECB through @x/cbc, measured in the same rounds);
// - GCM seal 16 KiB: native-x64 ≥ 1.0× OpenSSL `aes-*-gcm -bytes 16384` (≥ 1.5× where it runs its `avx512`
//   path, issue 27); wasm-simd128 ≥ 5× @noble/ciphers
//   `gcm`; portable reported;
// - HCTR2 encrypt 8 KiB: cycles per byte on each kernel, beside the Go package's 0.7–1.4 c/b (assembly,
//   8 KiB messages); goal for native-x64 ≤ 1.0 c/b. The clock is measured, not assumed: src/clock.c (a
//   chain of dependent one-cycle additions, compiled with the system's cc and run as a child process
//   between rows) gives the core's clock under load, turbo included.
//
// With a baseline checkout (`--baseline DIR`, built), {@link runModesBaseline}: the same rows on every @x
// kernel of this tree against the same kernel through DIR's @x/ctr, @x/gcm and @x/hctr2, interleaved in
// the same rounds, as the library table does; the other libraries, OpenSSL and the clock left out.
import { execFileSync } from 'node:child_process';
import { type CipherGCMTypes, createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ctr as nobleCtr, gcm as nobleGcm } from '@noble/ciphers/aes.js';
import nativeX64 from '@x/aes-native-x64';
import * as cbc from '@x/cbc';
import * as ctr from '@x/ctr';
import * as gcm from '@x/gcm';
import * as hctr2 from '@x/hctr2';
import { opensslSpeed, opensslVersion } from './openssl.js';
import { interleaved, markdownTable, type Measurement, mbps, measure, median, ratio2, type Run } from './stats.js';

const ROUNDS = 5;
/** GCM seal's goal against OpenSSL: 1.5× on native-x64's `avx512` path (issue 27), 1.0× elsewhere. */
const GCM_GOAL = nativeX64.kernel.path === 'avx512' ? '1.5' : '1.0';
const MAX_TIME = 0.15;
const KERNELS = ctr.kernels();
const OPENSSL = 'OpenSSL speed';
const ECB = 'wasm-simd128 ECB';

/** The mode APIs a row calls: this tree's, or (with a baseline) those built in another checkout. */
interface Modes {
  readonly newCtr: typeof ctr.newCtr;
  readonly newGcm: typeof gcm.newGcm;
  readonly newHctr2: typeof hctr2.newHctr2;
}
const here: Modes = { newCtr: ctr.newCtr, newGcm: gcm.newGcm, newHctr2: hctr2.newHctr2 };
/** The baseline's APIs, while {@link runModesBaseline} runs. */
let before: Modes | undefined;
const BEFORE = ' (before)';

/** For an @x contender (a kernel of this tree, or `<kernel> (before)` of the baseline): its APIs and kernel. */
function ours(who: string): { api: Modes; kernel: string } | undefined {
  if (KERNELS.includes(who)) return { api: here, kernel: who };
  if (before && who.endsWith(BEFORE)) return { api: before, kernel: who.slice(0, -BEFORE.length) };
  return undefined;
}

interface Row {
  label: string;
  keyBits: number;
  bytes: number;
  /** The `openssl speed -evp` arguments, where OpenSSL has the mode. */
  openssl?: string[];
  /** The row's work once, per contender (undefined where it has no such mode); `dispose` frees keys. */
  make(who: string): { run: Run; dispose(): void } | undefined;
}

const none = () => {};

function ctrRow(keyBits: number, bytes: number): Row {
  const key = randomBytes(keyBits / 8),
    iv = randomBytes(16),
    src = randomBytes(bytes),
    dst = new Uint8Array(bytes);
  return {
    label: `CTR ${bytes / 1024} KiB`,
    keyBits,
    bytes,
    openssl: [`aes-${keyBits}-ctr`, '-bytes', String(bytes)],
    make(who) {
      const x = ours(who);
      if (x) {
        const c = x.api.newCtr(key, { kernel: x.kernel });
        return { run: () => c.xorKeyStream(dst, src, iv), dispose: () => c.dispose() };
      }
      if (who === ECB) {
        if (!cbc.kernels().includes('wasm-simd128')) return undefined;
        const c = cbc.newCipher(key, { kernel: 'wasm-simd128' });
        return { run: () => c.encryptECB(dst, src), dispose: () => c.dispose() };
      }
      if (who === 'node:crypto') {
        return { run: () => createCipheriv(`aes-${keyBits}-ctr`, key, iv).update(src), dispose: none };
      }
      if (who === '@noble/ciphers') {
        return { run: () => nobleCtr(key, iv).encrypt(src, dst), dispose: none };
      }
      return undefined;
    },
  };
}

function gcmRow(keyBits: number, bytes: number): Row {
  const key = randomBytes(keyBits / 8),
    nonce = randomBytes(12),
    src = randomBytes(bytes),
    dst = new Uint8Array(bytes + 16);
  return {
    label: `GCM seal ${bytes / 1024} KiB`,
    keyBits,
    bytes,
    openssl: [`aes-${keyBits}-gcm`, '-bytes', String(bytes)],
    make(who) {
      const x = ours(who);
      if (x) {
        const g = x.api.newGcm(key, { kernel: x.kernel });
        return { run: () => g.seal(dst, nonce, src), dispose: () => g.dispose() };
      }
      if (who === 'node:crypto') {
        return {
          run: () => {
            const c = createCipheriv(`aes-${keyBits}-gcm` as CipherGCMTypes, key, nonce);
            c.update(src);
            c.final();
            c.getAuthTag();
          },
          dispose: none,
        };
      }
      if (who === '@noble/ciphers') return { run: () => nobleGcm(key, nonce).encrypt(src), dispose: none };
      return undefined;
    },
  };
}

function hctr2Row(keyBits: number, bytes: number): Row {
  const key = randomBytes(keyBits / 8),
    tweak = randomBytes(32),
    src = randomBytes(bytes),
    dst = new Uint8Array(bytes);
  return {
    label: `HCTR2 encrypt ${bytes / 1024} KiB`,
    keyBits,
    bytes,
    make(who) {
      const x = ours(who);
      if (!x) return undefined;
      const h = x.api.newHctr2(key, { kernel: x.kernel });
      return { run: () => h.encrypt(dst, src, tweak), dispose: () => h.dispose() };
    },
  };
}

/** The core clock in Hz from src/clock.c, or undefined where there is no C compiler. */
export function measuredClock(): number | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'x-bench-clock-'));
  try {
    const exe = path.join(dir, 'clock');
    const source = fileURLToPath(new URL('./clock.c', import.meta.url));
    execFileSync('cc', ['-O2', '-o', exe, source], { stdio: 'ignore' });
    return Number(execFileSync(exe, { encoding: 'utf8' }).split(' ')[0]);
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures every contender of `row` in interleaved rounds; medians in bytes per second. */
function measureRow(row: Row, contenders: readonly string[], openssl: boolean): Record<string, number | undefined> {
  const made = contenders.map((c) => row.make(c));
  const runs: Measurement[] = contenders.flatMap((name, i) => {
    const m = made[i];
    return m ? [{ name, run: () => measure(m.run, row.bytes, MAX_TIME) }] : [];
  });
  const args = row.openssl;
  if (openssl && args) runs.push({ name: OPENSSL, run: () => opensslSpeed(args) });
  try {
    return interleaved(runs, ROUNDS);
  } finally {
    for (const m of made) m?.dispose();
  }
}

/** Measures and prints the modes table; returns the medians (bytes per second) and the clock. */
export function runModes(): Record<string, unknown> {
  const started = Date.now();
  const version = opensslVersion();
  const others = ['node:crypto', '@noble/ciphers'];
  const results: Record<string, Record<string, number | undefined>> = {};
  const clocks: number[] = [];
  const lines: string[][] = [];
  const hctr2Lines: string[][] = [];
  for (const keyBits of [128, 256]) {
    for (const row of [ctrRow(keyBits, 16384), gcmRow(keyBits, 16384)]) {
      const isCtr = row.label.startsWith('CTR');
      const r = measureRow(row, [...KERNELS, ...others, ...(isCtr ? [ECB] : [])], version !== undefined);
      results[`${row.label} AES-${keyBits}`] = r;
      process.stderr.write(`. ${row.label} AES-${keyBits}\n`);
      const native = r['native-x64'],
        wasm = r['wasm-simd128'];
      const goals = isCtr
        ? `native-x64 ÷ OpenSSL ${ratio2(native, r[OPENSSL])} (≥ 1.5×); wasm-simd128 ÷ its ECB ${ratio2(wasm, r[ECB])} (≥ 0.9×, ECB ${mbps(r[ECB])})`
        : `native-x64 ÷ OpenSSL ${ratio2(native, r[OPENSSL])} (≥ ${GCM_GOAL}×); wasm-simd128 ÷ noble ${ratio2(wasm, r['@noble/ciphers'])} (≥ 5×)`;
      lines.push([
        row.label,
        String(keyBits),
        ...KERNELS.map((k) => mbps(r[k])),
        ...others.map((o) => mbps(r[o])),
        mbps(r[OPENSSL]),
        goals,
      ]);
    }
    const clock = measuredClock();
    if (clock) clocks.push(clock);
    const row = hctr2Row(keyBits, 8192);
    const r = measureRow(row, KERNELS, false);
    results[`${row.label} AES-${keyBits}`] = r;
    process.stderr.write(`. ${row.label} AES-${keyBits}\n`);
    const cpb = (k: string) => (clock && r[k] ? (clock / r[k]!).toFixed(2) : '—');
    hctr2Lines.push([
      row.label,
      String(keyBits),
      ...KERNELS.map((k) => `${mbps(r[k])} MB/s, ${cpb(k)} c/b`),
      '0.7–1.4 c/b',
      `native-x64 ${cpb('native-x64')} c/b (≤ 1.0)`,
    ]);
  }
  const clock = clocks.length ? median(clocks) : undefined;
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${version ?? 'no openssl'}. ` +
      `MB/s (10^6 bytes/s), median of ${ROUNDS} interleaved rounds; higher is better. ` +
      `Clock measured by src/clock.c: ${clock ? `${(clock / 1e9).toFixed(2)} GHz` : 'no C compiler, so no c/b'}.\n`,
  );
  console.log(markdownTable(['operation', 'AES', ...KERNELS, ...others, OPENSSL, 'ratios (goal)'], lines, 2));
  console.log('');
  console.log(
    markdownTable(['operation', 'AES', ...KERNELS, 'Go hctr2 (assembly, its README)', 'goal'], hctr2Lines, 2),
  );
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return { results, clock };
}

/**
 * The modes table before and after: every row (CTR and GCM seal 16 KiB, HCTR2 encrypt 8 KiB, AES-128 and
 * AES-256) on each @x kernel that this tree and the built checkout `baselineDir` both have, this tree's
 * @x/ctr, @x/gcm and @x/hctr2 against DIR's, interleaved in the same rounds; medians in bytes per second.
 */
export async function runModesBaseline(baselineDir: string): Promise<Record<string, unknown>> {
  const started = Date.now();
  const load = (pkg: string) => import(pathToFileURL(path.join(baselineDir, 'packages', pkg, 'dist', 'index.js')).href);
  const [c, g, h] = await Promise.all([load('ctr'), load('gcm'), load('hctr2')]);
  before = { newCtr: c.newCtr, newGcm: g.newGcm, newHctr2: h.newHctr2 };
  // a kernel new in this tree has no "before"
  const theirs: string[] = c.kernels();
  const compared = KERNELS.filter((k) => theirs.includes(k));
  const contenders = compared.flatMap((k) => [`${k}${BEFORE}`, k]);
  const results: Record<string, Record<string, number | undefined>> = {};
  const lines: string[][] = [];
  console.log(`before: ${baselineDir}; after: this tree\n`);
  try {
    for (const keyBits of [128, 256]) {
      for (const row of [ctrRow(keyBits, 16384), gcmRow(keyBits, 16384), hctr2Row(keyBits, 8192)]) {
        const r = measureRow(row, contenders, false);
        results[`${row.label} AES-${keyBits}`] = r;
        process.stderr.write(`. ${row.label} AES-${keyBits}\n`);
        const change = compared.map((k) => ratio2(r[k], r[`${k}${BEFORE}`]));
        lines.push([row.label, String(keyBits), ...contenders.map((x) => mbps(r[x])), ...change]);
      }
    }
  } finally {
    before = undefined;
  }
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}. ` +
      `MB/s (10^6 bytes/s), median of ${ROUNDS} interleaved rounds; higher is better.\n`,
  );
  const header = ['operation', 'AES', ...contenders, ...compared.map((k) => `${k} after ÷ before`)];
  console.log(markdownTable(header, lines, 2));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return { results };
}
