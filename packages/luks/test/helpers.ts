// Shared by the tests: comparing bytes, and running x-luks as a child process for the two suites that
// still check the command on their volumes (containers.test.ts, adiantum.test.ts). x-luks lives in @x/cli
// now (packages/cli, whose own tests cover the command); @x/cli depends on @x/luks, so this package cannot
// depend on it back. esbuild bundles the command from its TypeScript sources, found by path, once per test
// file (every @x package through the "source" export condition, this one's included): no build is needed.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { bundleNodeCommands } from '@x/testkit';

const SOURCE = fileURLToPath(new URL('../../cli/src/x-luks.ts', import.meta.url));

let built: Promise<{ dir: string; bin: string }> | undefined;

function buildCli(): Promise<{ dir: string; bin: string }> {
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-cli-bin-'));
    const { 'x-luks': bin } = await bundleNodeCommands({ 'x-luks': SOURCE }, dir);
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
  stdout: Buffer;
  stderr: string;
}

/** Runs `x-luks args…` (of @x/cli) as a child process. */
export async function runCli(args: string[]): Promise<CliResult> {
  const { bin } = await buildCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
  });
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
