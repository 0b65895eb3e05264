// Shared by the tests: running x-luks as a child process, built from the TypeScript sources under test
// (src/bin.ts and every @x package through the "source" export condition), so no `npm run build` is
// needed. esbuild bundles it once per test file into a temporary directory: a child then starts in
// about a tenth of a second, where `node --import tsx` took a second to compile the sources each time.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

let built: Promise<{ dir: string; bin: string }> | undefined;

function buildCli(): Promise<{ dir: string; bin: string }> {
  built ??= (async () => {
    const esbuild = await import('esbuild');
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-cli-bin-'));
    const bin = join(dir, 'x-luks.mjs');
    await esbuild.build({
      entryPoints: [SOURCE],
      outfile: bin,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'error',
      // hash-wasm's UMD build and Node's createRequire need a require() inside an ES module
      banner: {
        js: "import { createRequire as __xLuksCreateRequire } from 'node:module'; const require = __xLuksCreateRequire(import.meta.url);",
      },
    });
    return { dir, bin };
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

/** Runs `x-luks args…`; `stdin` is written to its standard input. `onSpawn` gets the child (to signal it). */
export async function runCli(
  args: string[],
  opts: { stdin?: Uint8Array | string; onSpawn?: (pid: number) => void } = {},
): Promise<CliResult> {
  const { bin } = await buildCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: PACKAGE,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: err }));
    if (opts.onSpawn && child.pid !== undefined) opts.onSpawn(child.pid);
    child.stdin.end(opts.stdin ?? '');
  });
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
