// Shared by the tests: running x-luks and x-disk as child processes, built from the TypeScript sources under
// test (src/x-luks.ts, src/x-disk.ts and every @x package through the "source" export condition), so no
// `npm run build` is needed. They are bundled once per test file into a temporary directory by the
// function that makes the published commands (scripts/bundle.mjs: CommonJS chunks), so the tests run the
// commands as they are made for users; a child then starts in about a tenth of a second, where
// `node --import tsx` took a second to compile the sources each time.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { bundleCommands } from '../scripts/bundle.mjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = {
  'x-luks': '../src/x-luks.ts',
  'x-disk': '../src/x-disk.ts',
  // x-disk with the made-up TOY format after @x/disk's (new-format.test.ts)
  'x-disk-toy': './x-disk-toy.ts',
} as const;
type Command = keyof typeof SOURCES;

/** A fixture of `@x/luks` (its committed sample volume): `packages/luks/test/fixtures/<name>`. */
export const luksFixture = (name: string): string =>
  join(dirname(createRequire(import.meta.url).resolve('@x/luks/package.json')), 'test', 'fixtures', name);

let built: Promise<{ dir: string; bins: Record<Command, string> }> | undefined;

function buildCommands(): Promise<{ dir: string; bins: Record<Command, string> }> {
  built ??= (async () => {
    // inside this package's node_modules, so that the bundles' require() of the optional native kernel
    // packages (@x/aes-kernels loads them at run time, they are not bundled) finds them as installed
    const cache = join(PACKAGE, 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    const dir = await mkdtemp(join(cache, 'x-cli-bin-'));
    const entries = Object.fromEntries(
      Object.entries(SOURCES).map(([name, path]) => [name, fileURLToPath(new URL(path, import.meta.url))]),
    ) as Record<Command, string>;
    const bins = await bundleCommands(entries, dir, { conditions: ['source'] });
    return { dir, bins };
  })();
  return built;
}

// registered when a test file imports this module, so it runs after that file's tests
afterAll(async () => {
  if (built) await rm((await built).dir, { recursive: true, force: true });
});

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export interface RunOptions {
  /** Written to the command's standard input. */
  stdin?: Uint8Array | string;
  /** Gets the child's pid (to signal it). */
  onSpawn?: (pid: number) => void;
  /** Environment variables to add (e.g. X_AES_KERNEL to force a kernel). */
  env?: Record<string, string>;
  /** Close the reading end of the command's stdout at once, as `| head -c0` would: its writes then fail with EPIPE. */
  closeStdout?: boolean;
}

/** Runs `command args…` as a child process. */
export async function run(command: Command, args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const { bins } = await buildCommands();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bins[command], ...args], {
      cwd: PACKAGE,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '', ...opts.env },
    });
    const out: Buffer[] = [];
    let err = '';
    if (opts.closeStdout) child.stdout.destroy();
    else child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: err }));
    if (opts.onSpawn && child.pid !== undefined) opts.onSpawn(child.pid);
    child.stdin.on('error', () => {}); // a child stopped at once (signal tests) closes its stdin first
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Runs `x-luks args…`; `stdin` is written to its standard input. `onSpawn` gets the child (to signal it). */
export const runCli = (args: string[], opts: RunOptions = {}): Promise<CliResult> => run('x-luks', args, opts);

/** Runs `x-disk args…`, as {@link runCli}. */
export const runDisk = (args: string[], opts: RunOptions = {}): Promise<CliResult> => run('x-disk', args, opts);

export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
