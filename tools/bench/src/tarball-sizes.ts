/**
 * What each public package weighs as npm publishes it: `npm pack --dry-run --json` for every workspace
 * under packages/ that is not private, run one at a time with its prepack and postpack scripts (those
 * of the native packages compile their binary first, as a publish would). Prints a Markdown table for
 * docs/benchmarks.md: files, packed (the .tgz) and unpacked sizes.
 *
 *   npm run size:tarballs --workspace @x/bench              print the table (after `npm run build`)
 *   npm run size:tarballs --workspace @x/bench -- --write   also put it in docs/benchmarks.md, between
 *                                                           the lines <!-- tarball-sizes --> and
 *                                                           <!-- /tarball-sizes -->
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root (this file is tools/bench/src/tarball-sizes.ts). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const START = '<!-- tarball-sizes -->';
export const END = '<!-- /tarball-sizes -->';
/** The page that holds the table, relative to the root. */
export const TARGET = 'docs/benchmarks.md';

/** One row of the table. */
export interface Tarball {
  name: string;
  files: number;
  /** Bytes of the .tgz. */
  packed: number;
  /** Bytes of its files. */
  unpacked: number;
}

/** The names of the public packages under packages/, in name order. */
export function publicPackages(root = ROOT): string[] {
  const dir = path.join(root, 'packages');
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'package.json')))
    .map(
      (e) =>
        JSON.parse(readFileSync(path.join(dir, e.name, 'package.json'), 'utf8')) as { name: string; private?: boolean },
    )
    .filter((pkg) => !pkg.private)
    .map((pkg) => pkg.name)
    .sort();
}

/**
 * The report of `npm pack --dry-run --json` out of its standard output, where the package's prepack and
 * postpack scripts may have printed lines before it.
 *
 * @example
 * ```ts
 * parsePack('built prebuilds/x.node\n[{"name":"@x/a","entryCount":3,"size":10,"unpackedSize":30}]\n');
 * // { name: '@x/a', files: 3, packed: 10, unpacked: 30 }
 * ```
 */
export function parsePack(stdout: string): Tarball {
  const start = stdout.search(/^\[/m);
  if (start < 0) throw new Error(`no JSON in npm pack's output:\n${stdout}`);
  const [report] = JSON.parse(stdout.slice(start)) as {
    name: string;
    entryCount: number;
    size: number;
    unpackedSize: number;
  }[];
  return { name: report.name, files: report.entryCount, packed: report.size, unpacked: report.unpackedSize };
}

/** Packs `name` (dry run: no file written) and measures it. */
export async function measure(name: string, root = ROOT): Promise<Tarball> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--workspace', name], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return parsePack(stdout);
}

const kib = (n: number): string => (n / 1024).toFixed(1);

/** The Markdown table, with a total row and a line that says how it was made. */
export function table(rows: readonly Tarball[], npmVersion: string): string {
  const total = rows.reduce(
    (t, r) => ({ files: t.files + r.files, packed: t.packed + r.packed, unpacked: t.unpacked + r.unpacked }),
    {
      files: 0,
      packed: 0,
      unpacked: 0,
    },
  );
  return [
    '| package | files | packed KiB | unpacked KiB |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map((r) => `| \`${r.name}\` | ${r.files} | ${kib(r.packed)} | ${kib(r.unpacked)} |`),
    `| all ${rows.length} | ${total.files} | ${kib(total.packed)} | ${kib(total.unpacked)} |`,
    '',
    `Made by \`npm run size:tarballs --workspace @x/bench\` (\`npm pack --dry-run\`, npm ${npmVersion}, after \`npm run build\`); KiB = 1024 bytes.`,
  ].join('\n');
}

/**
 * `readme` with the text between the START and END marker lines replaced by `block`; throws when the
 * markers are missing or out of order.
 *
 * @example
 * ```ts
 * replaceBetweenMarkers('a\n<!-- tarball-sizes -->\nold\n<!-- /tarball-sizes -->\nb\n', 'new');
 * // 'a\n<!-- tarball-sizes -->\nnew\n<!-- /tarball-sizes -->\nb\n'
 * ```
 */
export function replaceBetweenMarkers(readme: string, block: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < 0 || end < start || readme.indexOf(START, start + 1) >= 0) {
    throw new Error(`${TARGET} needs one ${START} line, then one ${END} line`);
  }
  return `${readme.slice(0, start + START.length)}\n${block}\n${readme.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const write = process.argv.includes('--write');
  const readmePath = path.join(ROOT, TARGET);
  // Fail before a minute of packing when the markers are missing.
  if (write) replaceBetweenMarkers(readFileSync(readmePath, 'utf8'), '');
  const rows: Tarball[] = [];
  for (const name of publicPackages()) {
    process.stderr.write(`packing ${name}…\n`);
    rows.push(await measure(name));
  }
  const npmVersion = (await run('npm', ['--version'], { cwd: ROOT })).stdout.trim();
  const block = table(rows, npmVersion);
  console.log(block);
  if (write) {
    writeFileSync(readmePath, replaceBetweenMarkers(readFileSync(readmePath, 'utf8'), block));
    console.error(`${TARGET}: table written between ${START} and ${END}`);
  }
}
