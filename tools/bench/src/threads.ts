import { readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { makeLuks2Container } from '@x/containers';
import { timed } from './job.js';
import { markdownTable, median } from './stats.js';
import { openWorkdir } from './workdir.js';

const MiB = 1 << 20;
const KERNEL = 'wasm-simd128';

/** A busy loop of a fixed amount of work, as a worker's source: what two cores give against one, now. */
const SPIN = `let x = 0; for (let i = 0; i < 2e8; i++) x = (x + i) % 7; require('node:worker_threads').parentPort.postMessage(x);`;

/**
 * Milliseconds for `n` threads to run {@link SPIN} each, at once: 2 threads ÷ 1 is the most two decrypt
 * threads can gain while this machine runs whatever else it runs (2.0 on two idle cores).
 */
async function spin(n: number): Promise<number> {
  const t = performance.now();
  await Promise.all(
    Array.from(
      { length: n },
      () => new Promise((resolve) => new Worker(SPIN, { eval: true }).once('message', resolve)),
    ),
  );
  return performance.now() - t;
}

/** What {@link runThreads} takes. */
export interface ThreadsOptions {
  /** Payload in MiB, at least 256. */
  readonly mib?: number;
  /** Rounds, each running both thread counts once; at least 3. */
  readonly rounds?: number;
  /** The thread counts compared, the first being the baseline. */
  readonly threads?: readonly number[];
}

/** One thread count's medians. */
export interface ThreadsRow {
  readonly threads: number;
  /** Median milliseconds from spawn to exit. */
  readonly ms: number;
  /** Payload MB/s (10^6 bytes/s) from spawn to exit. */
  readonly mbps: number;
  /** Payload MB/s by the command's own timing of the volume (its summary line to its last byte). */
  readonly volumeMbps: number;
  /** Each rate ÷ the baseline's (the first thread count). */
  readonly ratio: number;
  readonly volumeRatio: number;
}

/** What {@link runThreads} measured: the rows, and the table to print. */
export interface ThreadsResult {
  readonly rows: readonly ThreadsRow[];
  /** The rate of 2 threads ÷ 1 thread from spawn to exit (the goal: ≥ 1.6). */
  readonly ratio: number;
  /** What two busy threads got done ÷ one, measured in the same rounds: the ceiling of `ratio` then. */
  readonly cpuScaling: number;
  readonly table: string;
}

/** What one `x-luks decrypt --threads N` of the volume needs. */
interface DecryptRun {
  readonly bin: string;
  readonly image: string;
  /** The volume's plaintext, to check the output against. */
  readonly original: Uint8Array;
  readonly keyFile: string;
  readonly out: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * `x-luks decrypt --threads n` into a new file (removed after): ms from spawn to exit and its own volume
 * time; checks the kernel and the thread count it reports and, when `check`, the bytes it wrote.
 */
async function decryptOnce(run: DecryptRun, n: number, check: boolean): Promise<{ ms: number; volumeMs?: number }> {
  const { out } = run;
  await rm(out, { force: true });
  const args = [run.bin, 'decrypt', run.image, out, '--volume-key-file', run.keyFile, '--threads', String(n)];
  const res = await timed(process.execPath, args, run.env);
  const kernel = /kernel (\S+)/.exec(res.stderr)?.[1];
  if (kernel !== KERNEL) throw new Error(`bench: threads: x-luks used kernel ${kernel}, not ${KERNEL}`);
  const on = /\((\d+) threads\)/.exec(res.stderr)?.[1];
  if (Number(on ?? 1) !== n) throw new Error(`bench: threads: --threads ${n} ran on ${on ?? 1}: ${res.stderr}`);
  const v = /decrypted .* in ([\d.]+) s/.exec(res.stderr);
  if (check && !(await readFile(out)).equals(run.original))
    throw new Error(`bench: threads: --threads ${n} wrote other bytes than the volume holds`);
  await rm(out, { force: true });
  return { ms: res.ms, volumeMs: v ? Number(v[1]) * 1000 : undefined };
}

/** The table and the verdict under it. */
function threadsTable(
  rows: readonly ThreadsRow[],
  two: ThreadsRow,
  cpuScaling: number,
  mib: number,
  rounds: number,
): string {
  return (
    `## x-luks decrypt --threads N, kernel ${KERNEL}, ${availableParallelism()} cores\n\n` +
    `LUKS2 aes-xts-plain64 (512-bit key, 4096-byte sectors), ${mib} MiB, --volume-key-file, to a new file in ${tmpdir()}; ` +
    `median of ${rounds} interleaved rounds; MB/s = 10^6 bytes/s of volume; load average before: ${loadavg()[0].toFixed(2)}.\n\n` +
    markdownTable(
      ['--threads', 's, spawn to exit', 'MB/s', '÷ 1 thread', 'MB/s, volume alone', '÷ 1 thread'],
      rows.map((row) => [
        String(row.threads),
        (row.ms / 1000).toFixed(2),
        row.mbps.toFixed(0),
        `${row.ratio.toFixed(2)}×`,
        row.volumeMbps.toFixed(0),
        `${row.volumeRatio.toFixed(2)}×`,
      ]),
      1,
    ) +
    `\n\n2 threads ÷ 1: ${two.ratio.toFixed(2)}× spawn to exit, ${two.volumeRatio.toFixed(2)}× for the volume alone (goal ≥ 1.6×: ${two.ratio >= 1.6 ? 'met' : 'not met'}). ` +
    `Two busy threads got ${cpuScaling.toFixed(2)}× the work of one done in the same rounds (2.00× on two idle cores): the ceiling on this run.\n`
  );
}

/**
 * Times `x-luks decrypt --threads N` for each N, interleaved (see the top of this file). Undefined, with a
 * line saying why, where cryptsetup or the built command is missing.
 *
 * @example
 * ```ts
 * const t = await runThreads({ rounds: 5 });
 * if (t) console.log(t.table);
 * ```
 */
export async function runThreads(options: ThreadsOptions = {}): Promise<ThreadsResult | undefined> {
  const mib = options.mib ?? 256;
  const rounds = options.rounds ?? 5;
  const counts = options.threads ?? [1, 2];
  if (!Number.isInteger(mib) || mib < 256) throw new RangeError('bench: threads: mib must be a whole number ≥ 256');
  if (!Number.isInteger(rounds) || rounds < 3) throw new RangeError('bench: threads: at least 3 rounds');
  const w = await openWorkdir('threads', ['x-luks.cjs']);
  if (!w) return undefined;
  const { cs, dir } = w;
  const bin = join(w.cli, 'x-luks.cjs');
  try {
    process.stderr.write(`threads: making a LUKS2 volume of ${mib} MiB with cryptsetup ${cs.version} in ${dir} …\n`);
    const volume = await makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 512,
      sectorSize: 4096,
      dataSize: mib * MiB,
      passphrases: ['x-aes bench'],
      pbkdf: { type: 'pbkdf2', iterations: 1000 },
      dir,
      name: 'threads',
    });
    const keyFile = join(dir, 'volume.key');
    await writeFile(keyFile, volume.volumeKey, { mode: 0o600 });
    const env: NodeJS.ProcessEnv = { ...process.env, X_AES_KERNEL: KERNEL };
    delete env.X_AES_NATIVE_X64;
    const run: DecryptRun = { bin, image: volume.path, original: volume.original, keyFile, out: join(dir, 'out'), env };
    const bytes = mib * MiB;
    const times: number[][] = counts.map(() => []);
    const volumeTimes: number[][] = counts.map(() => []);
    const spins: number[][] = [[], []];
    for (let r = 0; r < rounds; r++) {
      spins[0].push(await spin(1));
      spins[1].push(await spin(2));
      for (let k = 0; k < counts.length; k++) {
        const i = (k + r) % counts.length;
        const res = await decryptOnce(run, counts[i], r < counts.length);
        times[i].push(res.ms);
        if (res.volumeMs !== undefined) volumeTimes[i].push(res.volumeMs);
      }
    }
    const med = times.map(median);
    const medVolume = volumeTimes.map(median);
    const rate = (ms: number) => bytes / 1e6 / (ms / 1000);
    const rows: ThreadsRow[] = counts.map((threads, i) => ({
      threads,
      ms: med[i],
      mbps: rate(med[i]),
      volumeMbps: rate(medVolume[i]),
      ratio: rate(med[i]) / rate(med[0]),
      volumeRatio: rate(medVolume[i]) / rate(medVolume[0]),
    }));
    const two = rows.find((row) => row.threads === 2) ?? rows[rows.length - 1];
    const cpuScaling = (2 * median(spins[0])) / median(spins[1]);
    const table = threadsTable(rows, two, cpuScaling, mib, rounds);
    return { rows, ratio: two.ratio, cpuScaling, table };
  } finally {
    await w.close();
  }
}
