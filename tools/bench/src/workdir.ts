// What the command benches (job, disk, encrypt, threads) each need before they measure anything:
// cryptsetup, the built commands of @x/cli, and a scratch folder that is removed when the bench ends or is
// interrupted (SIGINT). A bench without one of them is skipped with a line that says why.
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm, statfs } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cryptsetupStatus } from '@x/containers';

/** A bench's scratch folder, with cryptsetup and the built commands found. */
export interface Workdir {
  /** cryptsetup's path and version. */
  readonly cs: { readonly path: string; readonly version: string };
  /** `packages/cli/dist/bin`: the bundled commands x-luks.cjs and x-disk.cjs, which npm's x-luks and x-disk load. */
  readonly cli: string;
  /** The scratch folder. */
  readonly dir: string;
  /** Whether the scratch folder's file system has `bytes` free; says so (a skip) when it has not. */
  hasRoom(bytes: number): Promise<boolean>;
  /** Removes the scratch folder. */
  close(): Promise<void>;
}

/**
 * Finds cryptsetup and the built files `needs` of @x/cli's dist/bin (e.g. `['x-luks.cjs']`), and makes the
 * scratch folder; undefined (after printing `<job>: skipped: <why>`) when something is missing.
 *
 * @example
 * ```ts
 * const w = await openWorkdir('job', ['x-luks.cjs']);
 * if (!w) return undefined;
 * try { … } finally { await w.close(); }
 * ```
 */
export async function openWorkdir(job: string, needs: string[]): Promise<Workdir | undefined> {
  const cs = cryptsetupStatus();
  if (!cs.available || !cs.path) {
    console.log(`${job}: skipped: ${cs.reason}\n`);
    return undefined;
  }
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('@x/cli/package.json')), 'dist', 'bin');
  const missing = needs.map((f) => join(cli, f)).find((f) => !existsSync(f));
  if (missing) {
    console.log(`${job}: skipped: ${missing} is not built (npm run build)\n`);
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), `x-aes-bench-${job}-`));
  const onSignal = () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  return {
    cs: { path: cs.path, version: cs.version ?? '?' },
    cli,
    dir,
    async hasRoom(bytes) {
      const fs = await statfs(dir);
      const free = fs.bavail * fs.bsize;
      if (free >= bytes) return true;
      console.log(
        `${job}: skipped: ${dir} has ${(free / 2 ** 30).toFixed(1)} GiB free, it needs ${(bytes / 2 ** 30).toFixed(1)}\n`,
      );
      return false;
    },
    async close() {
      process.off('SIGINT', onSignal);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
