// Finding and running the cryptsetup binary (Debian package cryptsetup-bin), and the rule for tests that
// need it: skipped with a notice on a developer machine that lacks it, a failure under CI=true.
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What {@link cryptsetupStatus} found. */
export interface CryptsetupStatus {
  /** True when a working cryptsetup binary was found. */
  readonly available: boolean;
  /** Absolute path of the binary, when found. */
  readonly path?: string;
  /** Version string, e.g. `"2.6.1"`, when found. */
  readonly version?: string;
  /** Why it is not available, when it is not. */
  readonly reason?: string;
}

let cached: CryptsetupStatus | undefined;

// root's PATH has the sbin directories, an ordinary user's often does not; Debian installs cryptsetup there.
function candidates(): string[] {
  const fromEnv = process.env.CRYPTSETUP;
  if (fromEnv) return [fromEnv];
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const d of ['/usr/sbin', '/sbin', '/usr/local/sbin']) if (!dirs.includes(d)) dirs.push(d);
  return dirs.map((d) => join(d, 'cryptsetup'));
}

/**
 * Looks for cryptsetup (the `CRYPTSETUP` environment variable, then `PATH`, then the sbin directories) and
 * asks it for its version. The answer is cached for the process.
 *
 * @example
 * ```ts
 * const cs = cryptsetupStatus();
 * if (cs.available) console.log(`cryptsetup ${cs.version} at ${cs.path}`);
 * ```
 */
export function cryptsetupStatus(): CryptsetupStatus {
  if (cached) return cached;
  const tried: string[] = [];
  for (const path of candidates()) {
    try {
      accessSync(path, constants.X_OK);
    } catch {
      tried.push(path);
      continue;
    }
    try {
      const out = execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const version = /cryptsetup\s+(\d+\.\d+(?:\.\d+)?)/.exec(out)?.[1];
      if (!version) {
        cached = { available: false, path, reason: `${path} --version printed no version: ${out.trim()}` };
      } else {
        cached = { available: true, path, version };
      }
    } catch (err) {
      cached = { available: false, path, reason: `${path} --version failed: ${(err as Error).message}` };
    }
    return cached;
  }
  cached = { available: false, reason: `cryptsetup not found (looked at ${tried.join(', ')}); install cryptsetup-bin` };
  return cached;
}

/**
 * True when cryptsetup can be run here ({@link cryptsetupStatus}`().available`).
 *
 * @example
 * ```ts
 * if (!hasCryptsetup()) console.warn('no real-container tests on this machine');
 * ```
 */
export function hasCryptsetup(): boolean {
  return cryptsetupStatus().available;
}

/** The decision {@link cryptsetupRequirement} takes for a test file that needs cryptsetup. */
export interface CryptsetupRequirement {
  /** Run the tests that need cryptsetup. */
  readonly run: boolean;
  /** Set when cryptsetup is missing under CI: a test must fail with this message. */
  readonly failure?: string;
  /** Set when cryptsetup is missing on a developer machine: the tests are skipped, say this. */
  readonly skipNotice?: string;
}

/**
 * The house rule for tests on real containers: with cryptsetup they run; without it they are skipped with a
 * notice, except under `CI=true` (or `CI=1`), where the missing tool is a failure — a silently skipped
 * conformance test is a bug.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * const req = cryptsetupRequirement();
 * if (req.failure) it('cryptsetup is installed (required under CI)', () => { throw new Error(req.failure); });
 * if (req.skipNotice) it.skip(req.skipNotice, () => {});
 * describe.runIf(req.run)('real LUKS containers', () => {  ...  });
 * ```
 */
export function cryptsetupRequirement(env: Record<string, string | undefined> = process.env): CryptsetupRequirement {
  const status = cryptsetupStatus();
  if (status.available) return { run: true };
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';
  if (ci) return { run: false, failure: `cryptsetup is required under CI: ${status.reason}` };
  return { run: false, skipNotice: `skipped: ${status.reason}` };
}

/** Output of one cryptsetup run. */
export interface CryptsetupOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs cryptsetup with `args` (asynchronously, so several can run at once). Rejects with an error that shows
 * the whole command line, the exit code and cryptsetup's stderr.
 *
 * @example
 * ```ts
 * const { stdout } = await runCryptsetup(['luksDump', '/tmp/volume.img']);
 * ```
 */
export function runCryptsetup(args: readonly string[]): Promise<CryptsetupOutput> {
  const status = cryptsetupStatus();
  if (!status.available || !status.path) {
    return Promise.reject(new Error(`@x/containers: ${status.reason}`));
  }
  const bin = status.path;
  return new Promise((resolve, reject) => {
    execFile(bin, args, { encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException & { code?: number | string }).code;
        reject(
          new Error(`@x/containers: cryptsetup ${args.join(' ')} failed (exit ${String(code)}): ${stderr.trim()}`, {
            cause: err,
          }),
        );
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}
