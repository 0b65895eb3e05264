// The cost of a call (issue 27): where each nanosecond of a 4 KiB CBC decryption through @x/cbc goes, on
// native-x64, next to `openssl speed` for the same work. Every figure is ns per call, the median of
// ROUNDS interleaved rounds (each round measures every contender once, in an order that rotates):
//
// (1) `newCipher(key).decrypt(dst, src, iv)`: the whole call, @x/cbc's argument checks included;
// (2) the keyed native method it ends in, `cbcDecryptSectors(dst, src, 4096, iv)`, called directly;
// (3) the same method on 16 bytes: one AES block, so nearly all of it is the fixed cost of the call;
// (4) the addon's trivial entries: `calls()` (nativeCallCount: Node-API's entry and return around one
//     napi_create_double) and `encryptBlocks` of 0 bytes (the same plus what every kernel method does first:
//     napi_get_cb_info, napi_get_value_external of the key's state, and its two arrays'
//     napi_get_typedarray_info);
// (5) the kernel alone: src/call-cost.c calls the same C entry points in a loop, compiled with the
//     kernel's own flags and sources (so it is the addon's machine code, with no Node-API around it);
// (6) `openssl speed -evp aes-N-cbc -decrypt -bytes 4096`, as ns per 4 KiB.
//
// A difference (checks, the call's fixed cost) is the median of each round's own difference, so that a slow
// phase of the machine, which hits both of its sides alike, cancels out.
//
// The breakdown: checks = (1) − (2); the call's fixed cost = (3) − (5 at 16 B), or (2) − (5); kernel = (5).
// A second table does the same for the issue's two other 4 KiB rows, ECB encryption and serial CBC
// encryption. With --baseline DIR, (1) is also measured on DIR's built @x/cbc, interleaved: before and
// after a change of the JS layer, in one process.
//
//   npm run bench -- --call-cost [--baseline DIR]    (about a minute)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import nativeX64 from '@x/aes-native-x64';
import { expandKey } from '@x/aes-keyschedule';
import * as cbc from '@x/cbc';
import { opensslSpeed, opensslVersion } from './openssl.js';
import { markdownTable, median } from './stats.js';

const KIB4 = 4096;
const ROUNDS = 9;
/** Each JS sample runs the contender's loop for about this long. */
const SAMPLE_NS = 25e6;

type Keyed = ReturnType<typeof nativeX64.kernel.load>;
/** n calls of one contender on (dst, src, iv). */
type Loop<T> = (x: T, dst: Uint8Array, src: Uint8Array, iv: Uint8Array, n: number) => void;

/**
 * The three 4 KiB operations of the issue's goal, and n calls of each by each contender. Every loop is its
 * own function literal, so that its call site has type feedback of its own (a loop shared by two
 * contenders would see two callees, and V8 would optimize it for neither).
 */
interface Op {
  readonly id: 'cbc-decrypt' | 'ecb-encrypt' | 'cbc-encrypt';
  readonly label: string;
  openssl(keyBits: number): string[];
  readonly api: Loop<cbc.Cipher>;
  readonly before: Loop<cbc.Cipher>;
  readonly kernel: Loop<Keyed>;
}

const OPS: readonly Op[] = [
  {
    id: 'cbc-decrypt',
    label: 'CBC decrypt one 4 KiB chain',
    openssl: (b) => [`aes-${b}-cbc`, '-decrypt', '-bytes', String(KIB4)],
    api: (c, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) c.decrypt(dst, src, iv);
    },
    before: (c, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) c.decrypt(dst, src, iv);
    },
    kernel: (k, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) k.cbcDecryptSectors?.(dst, src, KIB4, iv);
    },
  },
  {
    id: 'ecb-encrypt',
    label: 'ECB encrypt 4 KiB',
    openssl: (b) => [`aes-${b}-ecb`, '-bytes', String(KIB4)],
    api: (c, dst, src, _iv, n) => {
      for (let i = 0; i < n; i++) c.encryptECB(dst, src);
    },
    before: (c, dst, src, _iv, n) => {
      for (let i = 0; i < n; i++) c.encryptECB(dst, src);
    },
    kernel: (k, dst, src, _iv, n) => {
      for (let i = 0; i < n; i++) k.encryptBlocks(dst, src);
    },
  },
  {
    id: 'cbc-encrypt',
    label: 'CBC encrypt one 4 KiB chain (serial)',
    openssl: (b) => [`aes-${b}-cbc`, '-bytes', String(KIB4)],
    api: (c, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) c.encrypt(dst, src, iv);
    },
    before: (c, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) c.encrypt(dst, src, iv);
    },
    kernel: (k, dst, src, iv, n) => {
      for (let i = 0; i < n; i++) k.cbcEncrypt?.(dst, src, iv);
    },
  },
];

/**
 * ns per call of `loop(n)` (which makes n calls), with n fixed once so that a sample takes about
 * SAMPLE_NS: each loop is its own function, so that each contender's call site has its own type feedback.
 */
function timer(loop: (n: number) => void): () => number {
  let n = 256;
  for (;;) {
    const t0 = process.hrtime.bigint();
    loop(n);
    if (Number(process.hrtime.bigint() - t0) >= SAMPLE_NS / 4) break;
    n *= 2;
  }
  n *= 4;
  return () => {
    const t0 = process.hrtime.bigint();
    loop(n);
    return Number(process.hrtime.bigint() - t0) / n;
  };
}

/** The kernel-alone driver (src/call-cost.c), built with native-x64's compiler flags and sources. */
async function buildDriver(dir: string): Promise<string | undefined> {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('@x/aes-native-x64/package.json'));
  const addon = path.dirname(createRequire(path.join(pkg, 'package.json')).resolve('@x/aes-native-addon/package.json'));
  const build = await import(pathToFileURL(path.join(pkg, 'scripts', 'build-x64.mjs')).href);
  if (build.cannotBuild() !== undefined) return undefined;
  const exe = path.join(dir, 'call-cost');
  const source = fileURLToPath(new URL('./call-cost.c', import.meta.url));
  const sources = (build.SOURCES as string[]).map((f) => path.join(pkg, f));
  execFileSync(build.CC, [...build.CFLAGS, `-I${path.join(addon, 'native')}`, '-o', exe, source, ...sources], {
    stdio: 'inherit',
  });
  return exe;
}

/** One run of the driver: ns per call by `op bytes` (e.g. `cbc-decrypt 4096`). */
function runDriver(exe: string, kernelPath: string, rounds: number): Map<string, number> {
  const out = execFileSync(exe, [kernelPath, String(rounds)], { encoding: 'utf8' });
  return new Map(
    out
      .trim()
      .split('\n')
      .map((line) => {
        const [op, bytes, ns] = line.split(' ');
        return [`${op} ${bytes}`, Number(ns)] as const;
      }),
  );
}

/**
 * One key size's samples, ns per call, one per round, by contender; and what the tables make of them. A
 * difference is the median of each round's own difference, so that a slow phase of the machine, which
 * hits both sides of it alike, cancels out.
 */
class Rounds {
  constructor(readonly samples: Record<string, number[]>) {}

  /** The median of `name`. */
  m(name: string): number | undefined {
    const xs = this.samples[name];
    return xs?.length ? median(xs) : undefined;
  }

  /** The median over rounds of `name` minus each of `minus`, in the same round. */
  d(name: string, ...minus: string[]): number | undefined {
    const xs = this.samples[name];
    const ys = minus.map((n) => this.samples[n]);
    if (!xs?.length || ys.some((y) => y?.length !== xs.length)) return undefined;
    return median(xs.map((x, r) => ys.reduce((left, y) => left - (y as number[])[r], x)));
  }

  /** Every median, by name (the --json output). */
  medians(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.samples).map(([name, xs]) => [name, median(xs)]));
  }
}

/** Measures one key size: every contender of every operation, ROUNDS interleaved rounds. */
function measureKeySize(
  keyBits: number,
  kernelPath: string,
  exe: string | undefined,
  openssl: boolean,
  baseline: typeof cbc.newCipher | undefined,
): Rounds {
  const key = randomBytes(keyBits / 8);
  const src = randomBytes(KIB4);
  const dst = new Uint8Array(KIB4);
  const iv = randomBytes(16);
  const src16 = src.subarray(0, 16);
  const dst16 = dst.subarray(0, 16);
  const cipher = cbc.newCipher(key, { kernel: 'native-x64' });
  const before = baseline?.(key, { kernel: 'native-x64' });
  const schedule = expandKey(key);
  const keyed = nativeX64.kernelOn(kernelPath as 'avx512' | 'vaes' | 'aesni').load(schedule);
  schedule.wipe();
  let sink = 0;
  const samples = new Map<string, number[]>();
  const push = (name: string, x: number | undefined) => {
    if (x === undefined) return;
    const xs = samples.get(name);
    if (xs) xs.push(x);
    else samples.set(name, [x]);
  };
  const runs: { name: string; run: () => void }[] = [];
  for (const op of OPS) {
    const api = timer((n) => op.api(cipher, dst, src, iv, n));
    const kernel = timer((n) => op.kernel(keyed, dst, src, iv, n));
    runs.push({ name: `${op.id} api`, run: () => push(`${op.id} api`, api()) });
    runs.push({ name: `${op.id} kernel`, run: () => push(`${op.id} kernel`, kernel()) });
    if (before) {
      const old = timer((n) => op.before(before, dst, src, iv, n));
      runs.push({ name: `${op.id} before`, run: () => push(`${op.id} before`, old()) });
    }
    if (openssl) {
      runs.push({
        name: `${op.id} openssl`,
        run: () => push(`${op.id} openssl`, 1e9 / (opensslSpeed(op.openssl(keyBits)) / KIB4)),
      });
    }
  }
  const k16 = timer((n) => {
    for (let i = 0; i < n; i++) keyed.cbcDecryptSectors?.(dst16, src16, 16, iv);
  });
  const calls = timer((n) => {
    for (let i = 0; i < n; i++) sink += nativeX64.nativeCallCount();
  });
  const empty = new Uint8Array(0);
  const enter = timer((n) => {
    for (let i = 0; i < n; i++) keyed.encryptBlocks(empty, empty);
  });
  runs.push({ name: 'kernel 16', run: () => push('kernel 16', k16()) });
  runs.push({ name: 'calls', run: () => push('calls', calls()) });
  runs.push({ name: 'enter', run: () => push('enter', enter()) });
  if (exe) {
    runs.push({
      name: 'C',
      run: () => {
        for (const [k, ns] of runDriver(exe, kernelPath, keyBits / 32 + 6)) push(`C ${k}`, ns);
      },
    });
  }
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < runs.length; i++) runs[(i + r) % runs.length].run();
    }
  } finally {
    cipher.dispose();
    before?.dispose();
    keyed.dispose();
  }
  if (sink === 0.5) console.log(sink); // keeps the calls() loop from being optimized away
  return new Rounds(Object.fromEntries(samples));
}

const ns = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(0));
/** OpenSSL's time ÷ ours: a speed ratio, ≥ 1.0× when we are at least as fast. */
const speed = (ours: number | undefined, theirs: number | undefined) =>
  ours === undefined || theirs === undefined ? '—' : `${(Math.floor((100 * theirs) / ours) / 100).toFixed(2)}×`;

/** The breakdown of a 4 KiB CBC decryption, one column per key size. */
function breakdown(m: Record<number, Rounds>, baseline: boolean): string {
  const row = (label: string, how: string, f: (x: Rounds) => number | undefined) => [
    label,
    how,
    ...[128, 256].map((b) => ns(f(m[b]))),
  ];
  const rows = [
    row('whole call: `cipher.decrypt(dst, src, iv)`', '(1)', (x) => x.m('cbc-decrypt api')),
    ...(baseline ? [row('whole call, before (--baseline)', '(1) of DIR', (x) => x.m('cbc-decrypt before'))] : []),
    row('@x/cbc: checks and dispatch', '(1) − (2)', (x) => x.d('cbc-decrypt api', 'cbc-decrypt kernel')),
    ...(baseline
      ? [
          row('@x/cbc: checks and dispatch, before', '(1 of DIR) − (2)', (x) =>
            x.d('cbc-decrypt before', 'cbc-decrypt kernel'),
          ),
        ]
      : []),
    row('keyed native method called directly', '(2)', (x) => x.m('cbc-decrypt kernel')),
    row('Node-API call and glue, from 4 KiB', '(2) − (5)', (x) => x.d('cbc-decrypt kernel', 'C cbc-decrypt 4096')),
    row('the same method on 16 bytes', '(3)', (x) => x.m('kernel 16')),
    row('Node-API call and glue, from 16 B', '(3) − (5 at 16 B)', (x) => x.d('kernel 16', 'C cbc-decrypt 16')),
    row('· entry and return: `calls()`', '(4a)', (x) => x.m('calls')),
    row('· + napi_get_cb_info, the state, 2 arrays: `encryptBlocks` of 0 B', '(4b) − (4a)', (x) =>
      x.d('enter', 'calls'),
    ),
    row('· + 1 array, 1 number, the checks, the kernel call', '(3) − (5 at 16 B) − (4b)', (x) =>
      x.d('kernel 16', 'C cbc-decrypt 16', 'enter'),
    ),
    row('kernel alone, 16 B (C loop)', '(5 at 16 B)', (x) => x.m('C cbc-decrypt 16')),
    row('kernel alone, 4 KiB (C loop)', '(5)', (x) => x.m('C cbc-decrypt 4096')),
    row('OpenSSL `speed -evp aes-N-cbc -decrypt -bytes 4096`', '(6)', (x) => x.m('cbc-decrypt openssl')),
  ];
  const ratios = [128, 256].map((b) => m[b]);
  rows.push([
    'OpenSSL ÷ whole call',
    '(6) ÷ (1)',
    ...ratios.map((x) => speed(x.m('cbc-decrypt api'), x.m('cbc-decrypt openssl'))),
  ]);
  rows.push([
    'OpenSSL ÷ kernel alone',
    '(6) ÷ (5)',
    ...ratios.map((x) => speed(x.m('C cbc-decrypt 4096'), x.m('cbc-decrypt openssl'))),
  ]);
  return markdownTable(['where the time goes (4 KiB CBC decrypt)', 'measured as', 'AES-128 ns', 'AES-256 ns'], rows, 2);
}

/** The issue's three 4 KiB rows: ns per call at each layer, and OpenSSL's time ÷ ours. */
function goals(m: Record<number, Rounds>, baseline: boolean): string {
  const rows = OPS.flatMap((op) =>
    [128, 256].map((b) => {
      const x = m[b];
      const o = x.m(`${op.id} openssl`);
      return [
        op.label,
        String(b),
        ...(baseline ? [ns(x.m(`${op.id} before`))] : []),
        ns(x.m(`${op.id} api`)),
        ns(x.m(`${op.id} kernel`)),
        ns(x.m(`C ${op.id} ${KIB4}`)),
        ns(o),
        ...(baseline ? [speed(x.m(`${op.id} before`), o)] : []),
        speed(x.m(`${op.id} api`), o),
        speed(x.m(`${op.id} kernel`), o),
        speed(x.m(`C ${op.id} ${KIB4}`), o),
      ];
    }),
  );
  const header = [
    'operation',
    'AES',
    ...(baseline ? ['@x/cbc before, ns'] : []),
    '@x/cbc, ns',
    'keyed method, ns',
    'kernel alone, ns',
    'OpenSSL, ns',
    ...(baseline ? ['OpenSSL ÷ before'] : []),
    'OpenSSL ÷ @x/cbc',
    'OpenSSL ÷ keyed method',
    'OpenSSL ÷ kernel alone',
  ];
  return markdownTable(header, rows, 2);
}

/** Measures and prints both tables; returns the medians (ns per call) by key size. */
export async function runCallCost(
  options: { baselineDir?: string } = {},
): Promise<Record<number, Record<string, number>> | undefined> {
  const kernelPath = nativeX64.kernel.path;
  if (!kernelPath || !cbc.kernels().includes('native-x64')) {
    console.log('call-cost: skipped: the native-x64 kernel does not run here\n');
    return undefined;
  }
  const started = Date.now();
  const version = opensslVersion();
  const baseline = options.baselineDir
    ? (
        (await import(
          pathToFileURL(path.join(options.baselineDir, 'packages', 'cbc', 'dist', 'index.js')).href
        )) as typeof cbc
      ).newCipher
    : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'x-bench-call-cost-'));
  const results: Record<number, Rounds> = {};
  try {
    const exe = await buildDriver(dir);
    if (!exe) console.log('call-cost: no C compiler, so no kernel-alone column (5)\n');
    for (const keyBits of [128, 256]) {
      results[keyBits] = measureKeySize(keyBits, kernelPath, exe, version !== undefined, baseline);
      process.stderr.write(`. AES-${keyBits}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${version ?? 'no openssl'}; ` +
      `native-x64 path ${kernelPath}; load average ${load}. ns per call, median of ${ROUNDS} interleaved rounds; ` +
      `lower is better, ratios above 1.00× are faster than OpenSSL.${options.baselineDir ? ` Before: ${options.baselineDir}.` : ''}\n`,
  );
  console.log(breakdown(results, baseline !== undefined));
  console.log('');
  console.log(goals(results, baseline !== undefined));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return Object.fromEntries(Object.entries(results).map(([bits, r]) => [bits, r.medians()]));
}
