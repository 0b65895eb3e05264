// The commands' start-up: `x-disk --version`, `--help`, `x-luks --help` and `x-disk dump` of a LUKS2, a
// BitLocker and a FileVault 2 image, against `node -e 0` (the floor of any node command) and, when it is
// installed, `cryptsetup luksDump` of the same LUKS2 image, in one run with interleaved rounds (the
// issue's goal: `--help`, `--version` and `dump` within 1.5× of `node -e 0`).
//
// The commands are the built ones as a user runs them: node running packages/cli/bin/x-disk.cjs (the file
// npm links as `x-disk`, which loads the bundle dist/bin/x-disk.cjs; a baseline from before the bundle
// has bin/x-disk.js, which imports dist/x-disk.js). The LUKS2 image is @x/luks's committed sample
// (test/fixtures/sample-luks2.img, made by cryptsetup: argon2id, 4096-byte sectors); the BitLocker and
// FileVault 2 images are cryptsetup's test images (tools/testkit/fixtures: bitlk-aes-xts-128.img, made by
// Windows 10, and fvault2-images/small), unpacked into a temporary directory (sparse) that is removed
// after. Each command is timed from spawn to exit (its output read and dropped); each round runs every
// row once, in an order that rotates each round, and the table gives each row's median. With a baseline
// (`--baseline DIR`, another built checkout), each x-aes row is followed by the same command of DIR,
// interleaved with the others in every round.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cryptsetupStatus } from '@x/containers';
import { markdownTable, median } from './stats.js';

/** The start-up goal: each x-aes command within this many times `node -e 0`. */
const GOAL = 1.5;

/** One row: a command line, run from spawn to exit. */
interface Row {
  readonly name: string;
  /** What it does, for the table. */
  readonly work: string;
  readonly cmd: string;
  readonly args: readonly string[];
  /** Held to {@link GOAL}: the x-aes commands. */
  readonly goal: boolean;
}

/** The images the dumps read: @x/luks's sample, and cryptsetup's BitLocker and FileVault 2 test images. */
interface Images {
  readonly luks2: string;
  readonly bitlk: string;
  readonly fvault2: string;
}

/** `packages/cli` of this tree: the commands' package (its bin/ and dist/). */
function cliDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@x/cli/package.json'));
}

/** Unpacks the BitLocker and FileVault 2 test images into `dir`; the LUKS2 sample is used where it is. */
function unpackImages(dir: string): Images {
  const require = createRequire(import.meta.url);
  const fixtures = join(dirname(require.resolve('@x/testkit/package.json')), 'fixtures');
  for (const archive of ['bitlk-images.tar.xz', 'fvault2-images.tar.xz'])
    execFileSync('tar', ['xJSf', join(fixtures, archive), '-C', dir, '--no-same-owner']);
  // @x/luks through @x/cli, which depends on it: the sample LUKS2 volume of its tests
  const luks = dirname(createRequire(join(cliDir(), 'package.json')).resolve('@x/luks/package.json'));
  return {
    luks2: join(luks, 'test', 'fixtures', 'sample-luks2.img'),
    bitlk: join(dir, 'bitlk-images', 'bitlk-aes-xts-128.img'),
    fvault2: join(dir, 'fvault2-images', 'small'),
  };
}

/** The file npm links as `command` in the packages/cli folder `dir`: bin/<command>.cjs, or .js before the bundle. */
function binOf(dir: string, command: string): string {
  const cjs = join(dir, 'bin', `${command}.cjs`);
  return existsSync(cjs) ? cjs : join(dir, 'bin', `${command}.js`);
}

/**
 * The x-aes rows over the commands of packages/cli (`cli`); with `baseline` (another checkout's
 * packages/cli), each followed by the same command of the baseline, which is not held to the goal.
 */
function commandRows(cli: string, images: Images, baseline: string | undefined): Row[] {
  const row = (name: string, work: string, command: string, ...args: string[]): Row[] => {
    const at = (dir: string, tag: string, goal: boolean): Row => ({
      name: `${name}${tag}`,
      work,
      cmd: process.execPath,
      args: [binOf(dir, command), ...args],
      goal,
    });
    return baseline ? [at(cli, '', true), at(baseline, ' (baseline)', false)] : [at(cli, '', true)];
  };
  return [
    row('x-disk --version', 'the version', 'x-disk', '--version'),
    row('x-disk --help', 'the help', 'x-disk', '--help'),
    row('x-luks --help', 'the help', 'x-luks', '--help'),
    row('x-disk dump', 'LUKS2 header (sample, argon2id)', 'x-disk', 'dump', images.luks2),
    row('x-disk dump', 'BitLocker header (XTS-AES-128, Windows 10)', 'x-disk', 'dump', images.bitlk),
    row('x-disk dump', 'FileVault 2 header (Core Storage, 512 MiB)', 'x-disk', 'dump', images.fvault2),
  ].flat();
}

/** Every row: `node -e 0`, this tree's commands (and the baseline's), cryptsetup luksDump when installed. */
function startupRows(images: Images, baselineDir: string | undefined): Row[] {
  const rows: Row[] = [
    { name: 'node -e 0', work: 'nothing: the floor', cmd: process.execPath, args: ['-e', '0'], goal: false },
    ...commandRows(cliDir(), images, baselineDir && join(baselineDir, 'packages', 'cli')),
  ];
  const cs = cryptsetupStatus();
  if (cs.available && cs.path) {
    rows.push({
      name: 'cryptsetup luksDump',
      work: `LUKS2 header (sample), cryptsetup ${cs.version ?? '?'}`,
      cmd: cs.path,
      args: ['luksDump', images.luks2],
      goal: false,
    });
  }
  return rows;
}

/** Milliseconds from spawn to exit of `row` (its output read and dropped); throws if it fails. */
function timeRow(row: Row): number {
  const t = performance.now();
  const res = spawnSync(row.cmd, row.args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });
  const ms = performance.now() - t;
  if (res.status !== 0)
    throw new Error(`bench: ${row.cmd} ${row.args.join(' ')} exited ${res.status}: ${res.stderr.toString().trim()}`);
  return ms;
}

/** Each row's median over `rounds` rounds, each round every row once in an order that rotates. */
function measureRows(rows: readonly Row[], rounds: number): number[] {
  const times: number[][] = rows.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < rows.length; k++) {
      const i = (k + r) % rows.length;
      times[i].push(timeRow(rows[i]));
    }
  }
  return times.map(median);
}

/** The table's lines, and whether every x-aes row met the goal. */
function tableOf(rows: readonly Row[], med: readonly number[]): { lines: string[][]; met: boolean } {
  const floor = med[0];
  let met = true;
  const lines = rows.map((row, i) => {
    const x = med[i] / floor;
    if (row.goal && x > GOAL) met = false;
    return [
      `\`${row.name}\``,
      row.work,
      med[i].toFixed(0),
      `${x.toFixed(2)}×`,
      row.goal ? (x <= GOAL ? 'met' : 'not met') : '',
    ];
  });
  return { lines, met };
}

/**
 * The start-up table (see the top of this file): each row's median milliseconds, by name and work; or
 * undefined (a line saying why) when the commands are not built.
 */
export async function runStartup(
  options: { rounds?: number; baselineDir?: string } = {},
): Promise<Record<string, number> | undefined> {
  const rounds = options.rounds ?? 21;
  const built = join(cliDir(), 'dist', 'bin', 'x-disk.cjs');
  if (!existsSync(built)) {
    console.log(`startup: skipped: ${built} is not built (npm run build)\n`);
    return undefined;
  }
  if (options.baselineDir && !existsSync(join(options.baselineDir, 'packages', 'cli', 'dist'))) {
    console.log(`startup: skipped: ${options.baselineDir} has no built packages/cli (npm run build there)\n`);
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'x-aes-bench-startup-'));
  try {
    const rows = startupRows(unpackImages(dir), options.baselineDir);
    const med = measureRows(rows, rounds);
    const { lines, met } = tableOf(rows, med);
    console.log(
      `## Start-up: the commands against node -e 0\n\n` +
        `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, load average ${loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')}. Median of ${rounds} interleaved rounds, each command timed from spawn to exit ` +
        '(node running the built packages/cli/bin/*.cjs, as `x-disk` runs); goal: at most 1.5× `node -e 0`.\n',
    );
    console.log(markdownTable(['command', 'work', 'ms (median)', '× node -e 0', `goal ≤ ${GOAL}×`], lines, 2));
    console.log(`\nEvery x-aes command within ${GOAL}× node -e 0: ${met ? 'met' : 'not met'}.\n`);
    return Object.fromEntries(rows.map((row, i) => [`${row.name}: ${row.work}`, med[i]]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
