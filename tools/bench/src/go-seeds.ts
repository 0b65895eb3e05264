// The Go table (issue 27): @x/adiantum and @x/hctr2 against the Go packages their designs come from,
// lukechampine.com/adiantum and github.com/ericlagergren/hctr2, each running its own benchmark. The Go
// side is the packages' own test binaries (`go test -c`, built once into a temporary directory before
// any timing, so that compiling is never timed), run as a child process in every round with
// `-test.run ^$ -test.bench <its sub-benchmark>`; its MB/s line is parsed. Each round runs every
// contender of a row once, in a rotating order, the Go binary among them; the table reports medians.
//
// The rows use the Go benchmarks' own work: Adiantum-XChaCha12 and HPolyC-XChaCha12 encrypt one 4096-byte
// message in place under a 12-byte tweak (`BenchmarkAdiantum/XChaCha12_Encrypt`, `BenchmarkHPolyC/…` of
// hpolyc); HCTR2 encrypts one 8192-byte message in place under a 16-byte tweak whose first 8 bytes are the
// iteration number (`BenchmarkEncrypt/assembly/AES-128/8192` and `…/AES-256/8192`). Ours does the same
// with `encrypt(buf, buf, tweak)` on the default kernel and core (native-x64 with its own core when the
// addon is present). The Adiantum rows add `encryptSectors` of 16 × 4 KiB (32-byte tweaks, the sector
// calls' only size) as a second figure of ours; the goals are on the one-message column. Goals: ours ÷ Go
// ≥ 1.2× for Adiantum and HPolyC, ≥ 1.5× for HCTR2.
//
// Where the Go sources come from: the variable X_BENCH_GOPATH names a GOPATH (GOPATH mode, GO111MODULE=off:
// no module proxy is needed) holding each package at its repository's commit and, in a vendor/ directory
// of each, the dependencies at the commits its go.mod pins. The two packages pin different golang.org/x/sys
// commits, so each has its own vendor/ rather than one shared src/golang.org/x/sys. HOW_TO below is the
// layout (printed when the variable is unset); the sources are not part of this repository.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import * as adiantum from '@x/adiantum';
import nativeX64 from '@x/aes-native-x64';
import * as hctr2 from '@x/hctr2';
import { interleaved, markdownTable, type Measurement, mbps, measure, ratio2, type Run } from './stats.js';

const ROUNDS = 7;
const MAX_TIME = 0.3;
const GO_BENCHTIME = '0.5s';
const SECTORS = 16;
const ENV = 'X_BENCH_GOPATH';

const HOW_TO = `The Go table needs ${ENV}: a GOPATH holding the two Go packages, each with the dependencies its
go.mod pins in a vendor/ directory of its own (GOPATH mode, GO111MODULE=off, so no module proxy is needed;
the two pin different golang.org/x/sys). Each path below holds that repository's files at that commit:

  src/lukechampine.com/adiantum             github.com/lukechampine/adiantum  bed1d6616be8
    vendor/github.com/aead/chacha20         github.com/aead/chacha20          8b13a72661da
    vendor/golang.org/x/crypto              github.com/golang/crypto          20be4c3c3ed5
    vendor/golang.org/x/sys                 github.com/golang/sys             4c4f7f33c9ed
  src/github.com/ericlagergren/hctr2        github.com/ericlagergren/hctr2    9bd35110e87b
    vendor/github.com/ericlagergren/polyval github.com/ericlagergren/polyval  e25bc10ba391
    vendor/github.com/ericlagergren/subtle  github.com/ericlagergren/subtle   890d697da010
    vendor/golang.org/x/exp                 github.com/golang/exp             39d4317da171
    vendor/golang.org/x/sys                 github.com/golang/sys             a24fb2fb8a0f

(each vendor/ inside the package's directory above it). Then, with Go on PATH (Debian's 1.19 works):

  X_BENCH_GOPATH=/that/gopath npm run bench -- --go`;

/** The environment of every go command: GOPATH mode on the given tree, nothing from the network. */
const goEnv = (gopath: string) => ({ ...process.env, GOPATH: gopath, GO111MODULE: 'off', GOFLAGS: '', GOPROXY: 'off' });

/** A Go package's test binary and one of its sub-benchmarks (`-test.bench` syntax: one regex per level). */
interface GoBench {
  pkg: string;
  bench: string;
}

/** One row: ours doing the Go benchmark's work once per call, and the Go benchmark that does it. */
interface Row {
  label: string;
  bytes: number;
  goal: number;
  go: GoBench;
  /** Ours on the row's message; `sectors` (Adiantum, HPolyC) is the same cipher's 16-sector call. */
  make(): { one: Run; sectors?: Run; sectorBytes?: number; who: string; dispose(): void };
}

const KIB4 = 4096;
const KIB8 = 8192;

/** Adiantum or HPolyC as lukechampine.com/adiantum benchmarks it: 4096 bytes in place, a 12-byte tweak. */
function hbshRow(label: string, variant: 'adiantum' | 'hpolyc', go: GoBench): Row {
  return {
    label,
    bytes: KIB4,
    goal: 1.2,
    go,
    make() {
      const create = variant === 'adiantum' ? adiantum.newAdiantum : adiantum.newHpolyc;
      const c = create(new Uint8Array(32).fill(7), { rounds: 12 });
      const buf = new Uint8Array(KIB4);
      const tweak = new Uint8Array(12);
      const src = new Uint8Array(KIB4 * SECTORS).fill(1);
      const dst = new Uint8Array(src.length);
      const tweaks = new Uint8Array(32 * SECTORS);
      return {
        one: () => c.encrypt(buf, buf, tweak),
        sectors: () => c.encryptSectors(dst, src, KIB4, tweaks),
        sectorBytes: src.length,
        who: `@x/adiantum on kernel ${c.kernel}, core ${c.core}`,
        dispose: () => c.dispose(),
      };
    },
  };
}

/** HCTR2 as github.com/ericlagergren/hctr2 benchmarks it: 8192 bytes in place, a 16-byte tweak counting. */
function hctr2Row(keyBits: 128 | 256): Row {
  return {
    label: `HCTR2 AES-${keyBits}, 8 KiB`,
    bytes: KIB8,
    goal: 1.5,
    go: { pkg: 'github.com/ericlagergren/hctr2', bench: `^BenchmarkEncrypt$/^assembly$/^AES-${keyBits}$/^${KIB8}$` },
    make() {
      const c = hctr2.newHctr2(new Uint8Array(keyBits / 8).fill(7));
      const buf = new Uint8Array(KIB8);
      const tweak = new Uint8Array(16);
      const view = new DataView(tweak.buffer);
      let i = 0;
      return {
        one: () => {
          view.setUint32(0, i++, true); // the Go benchmark's binary.LittleEndian.PutUint64(tweak[0:8], i)
          c.encrypt(buf, buf, tweak);
        },
        who: `@x/hctr2 on kernel ${c.kernel}`,
        dispose: () => c.dispose(),
      };
    },
  };
}

const ROWS: Row[] = [
  hbshRow('Adiantum-XChaCha12, 4 KiB', 'adiantum', {
    pkg: 'lukechampine.com/adiantum',
    bench: '^BenchmarkAdiantum$/^XChaCha12_Encrypt$',
  }),
  hbshRow('HPolyC-XChaCha12, 4 KiB', 'hpolyc', {
    pkg: 'lukechampine.com/adiantum/hpolyc',
    bench: '^BenchmarkHPolyC$/^XChaCha12_Encrypt$',
  }),
  hctr2Row(128),
  hctr2Row(256),
];

/** `go version`, or undefined when there is no go to run. */
function goVersion(): string | undefined {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Bytes per second from a Go benchmark's output: the `MB/s` field of its result line (Go's MB/s are
 * 10^6 bytes per second, as ours).
 */
export function parseGoBench(out: string): number {
  const m = /^Benchmark\S+\s+\d+\s+[\d.]+ ns\/op\s+([\d.]+) MB\/s/m.exec(out);
  if (!m) throw new Error(`bench: no MB/s in go test output:\n${out}`);
  return Number(m[1]) * 1e6;
}

/** The CPU as /proc/cpuinfo names it, and which of the flags that matter here it has. */
function cpuLine(): string {
  let model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  let flags = '';
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    model = /^model name\s*:\s*(.*)$/m.exec(info)?.[1]?.trim() ?? model;
    const have = new Set(/^flags\s*:\s*(.*)$/m.exec(info)?.[1]?.split(/\s+/) ?? []);
    flags = ['aes', 'pclmulqdq', 'avx2', 'avx512f', 'vaes', 'vpclmulqdq']
      .map((f) => `${f} ${have.has(f) ? 'yes' : 'no'}`)
      .join(', ');
  } catch {
    flags = 'no /proc/cpuinfo';
  }
  return `${model} (${cpus().length} cores; ${flags})`;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/**
 * Measures and prints the Go table; returns the medians (bytes per second) by row, or undefined when
 * X_BENCH_GOPATH is unset or go is missing (after saying what is needed; `quiet` makes that one line, for
 * the full run).
 */
export function runGoSeeds({ quiet = false } = {}): Record<string, Record<string, number | undefined>> | undefined {
  const gopath = process.env[ENV];
  if (!gopath) {
    console.log(
      quiet
        ? `go: ${ENV} is unset, so the Go table is skipped (npm run bench -- --go says how to lay it out).\n`
        : `${HOW_TO}\n`,
    );
    return undefined;
  }
  const version = goVersion();
  if (!version) {
    console.log(`go: not found on PATH, so the Go table is skipped (${ENV}=${gopath}).\n`);
    return undefined;
  }
  const started = Date.now();
  const loadBefore = load();
  const bin = mkdtempSync(path.join(tmpdir(), 'x-bench-go-'));
  try {
    const root = path.resolve(gopath);
    const env = goEnv(root);
    const binaries = new Map<string, string>();
    for (const pkg of new Set(ROWS.map((r) => r.go.pkg))) {
      const out = path.join(bin, `${pkg.replace(/[^\w.-]+/g, '_')}.test`);
      // A test binary per package, built before any timing; run from the temporary directory so that the
      // go command sees no go.mod of ours.
      try {
        execFileSync('go', ['test', '-c', '-o', out, pkg], { cwd: bin, env, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (e) {
        // A GOPATH laid out wrong is the likely cause: say what go said and how it should look, and let
        // the other tables of a full run go on.
        const said = String((e as { stderr?: Buffer }).stderr ?? e).trim();
        console.log(
          `go: \`go test -c ${pkg}\` failed in ${ENV}=${gopath}, so the Go table is skipped:\n${said}\n\n${HOW_TO}\n`,
        );
        return undefined;
      }
      binaries.set(pkg, out);
    }
    const runGo = ({ pkg, bench }: GoBench) =>
      parseGoBench(
        execFileSync(
          binaries.get(pkg) as string,
          ['-test.run', '^$', '-test.bench', bench, '-test.benchtime', GO_BENCHTIME],
          // The test binary reads its testdata relative to the package; benchmarks need none, but run it
          // from the package directory as `go test` would.
          { cwd: path.join(root, 'src', pkg), env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      );

    const results: Record<string, Record<string, number | undefined>> = {};
    const lines: string[][] = [];
    const whos = new Set<string>();
    for (const row of ROWS) {
      const ours = row.make();
      whos.add(ours.who);
      const runs: Measurement[] = [
        { name: 'ours', run: () => measure(ours.one, row.bytes, MAX_TIME) },
        { name: 'Go', run: () => runGo(row.go) },
      ];
      const { sectors, sectorBytes } = ours;
      if (sectors && sectorBytes) runs.push({ name: 'sectors', run: () => measure(sectors, sectorBytes, MAX_TIME) });
      let r: Record<string, number>;
      try {
        r = interleaved(runs, ROUNDS);
      } finally {
        ours.dispose();
      }
      results[row.label] = r;
      process.stderr.write(`. ${row.label}\n`);
      const met = r.ours / r.Go >= row.goal ? 'met' : 'not met';
      lines.push([
        row.label,
        mbps(r.ours),
        mbps(r.sectors),
        mbps(r.Go),
        ratio2(r.ours, r.Go),
        r.sectors === undefined ? '—' : ratio2(r.sectors, r.Go),
        `≥ ${row.goal}×`,
        met,
      ]);
    }

    const header = [
      'encrypt',
      'ours, 1 message per call',
      `ours, encryptSectors ${SECTORS} × 4 KiB`,
      'Go (its benchmark)',
      'ours ÷ Go',
      'sectors ÷ Go',
      'goal',
      'met',
    ];
    const native = nativeX64.kernel.isAvailable() ? `native-x64 path ${nativeX64.kernel.path}` : 'no native-x64';
    console.log(
      `${cpuLine()}, Node ${process.version}, ${version}; ours: ${[...whos].join('; ')} (${native}). ` +
        `Go: test binaries of lukechampine.com/adiantum and github.com/ericlagergren/hctr2 from ${ENV}=${gopath}, ` +
        `-test.benchtime ${GO_BENCHTIME}. Both encrypt in place under the Go benchmarks' tweaks: 12 bytes ` +
        `(Adiantum, HPolyC), 16 bytes counting (HCTR2); the sector calls take 32 bytes per sector. ` +
        `MB/s (10^6 bytes/s), median of ${ROUNDS} interleaved rounds; higher is better. ` +
        `Load average ${loadBefore} before, ${load()} after.\n`,
    );
    console.log(markdownTable(header, lines, 1));
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    return results;
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}
