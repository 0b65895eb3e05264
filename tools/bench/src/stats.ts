// What every table of the bench shares: one timed run, medians, MB/s (10^6 bytes per second) and ratios as
// the tables print them, and a Markdown table.
import Benchmark from 'benchmark';

/** One contender doing a row's work once. */
export type Run = () => void;

/**
 * Bytes per second of one short benchmark.js run of `fn` (at least `maxTime` seconds of samples). A full
 * collection first (the scripts run node with --expose-gc), so that no contender pays for the garbage
 * another one left behind.
 */
export function measure(fn: Run, bytes: number, maxTime: number): number {
  (globalThis as { gc?: () => void }).gc?.();
  const bench = new Benchmark({ fn, maxTime, minSamples: 3, initCount: 1 });
  bench.run();
  return bench.hz * bytes;
}

/** The median (the upper one of an even count, as the tables have always used). */
export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** A named measurement: one sample (bytes per second) per call. */
export interface Measurement {
  name: string;
  run: () => number;
}

/**
 * Every measurement once per round, `rounds` rounds, in an order that rotates each round (so that a slow
 * phase of the machine hits every contender alike); the median sample of each, by name.
 */
export function interleaved(runs: readonly Measurement[], rounds: number): Record<string, number> {
  const samples = new Map<string, number[]>(runs.map((x) => [x.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < runs.length; i++) {
      const x = runs[(i + r) % runs.length];
      samples.get(x.name)?.push(x.run());
    }
  }
  return Object.fromEntries([...samples].map(([name, xs]) => [name, median(xs)]));
}

/** Bytes per second as MB/s: whole numbers from 100 MB/s up, one decimal below; `—` when missing. */
export const mbps = (x: number | undefined) => (x === undefined ? '—' : (x / 1e6).toFixed(x >= 1e8 ? 0 : 1));

/** a ÷ b as `1.2×` (whole numbers from 10× up), `—` when either is missing. */
export const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? '—' : `${(a / b).toFixed(a / b >= 10 ? 0 : 1)}×`;

/**
 * a ÷ b as `1.23×`, for the columns compared with goals such as 0.95×: two decimals, rounded down, so that
 * a ratio shown as meeting a goal does meet it (0.947 shows as 0.94×, not 0.95×).
 */
export const ratio2 = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? '—' : `${(Math.floor((100 * a) / b) / 100).toFixed(2)}×`;

/** A Markdown table: `left` is how many leading columns are left-aligned (the rest are numbers). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], left: number): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i < left ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
