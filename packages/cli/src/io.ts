// What both commands share about talking to the user: the streams, usage errors, the exit status and the
// one line an error becomes on stderr.

/**
 * Where a command reads and writes; the process's streams by default (tests pass their own).
 *
 * @example
 * ```ts
 * import { main } from '@x/cli/x-luks';
 * await main(['dump', 'disk.img'], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
 * ```
 */
export interface CliIo {
  readonly stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  readonly stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** A mistake in the command line (or an OUT that must not be overwritten): exit 1, with the usage text. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The names of the errors that mean "wrong secret", in every format package: exit status 2. */
const WRONG_SECRET = new Set(['WrongPassphraseError', 'WrongVolumeKeyError']);

/**
 * Reports `e` on stderr as `command: message` (without a leading `@x/<package>: `) and returns the exit
 * status: 2 for a wrong passphrase, recovery password, startup key or volume key (by the error's name, so
 * that any format package's errors count), 1 for everything else; usage errors add the usage text.
 */
export function report(io: CliIo, command: string, usage: string, e: unknown): number {
  const message = (e instanceof Error ? e.message : String(e)).replace(/^@x\/[a-z0-9-]+: /, '');
  if (e instanceof Error && WRONG_SECRET.has(e.name)) {
    io.stderr.write(`${command}: ${message}\n`);
    return 2;
  }
  if (e instanceof UsageError || (e as { code?: string } | undefined)?.code?.startsWith('ERR_PARSE_ARGS')) {
    io.stderr.write(`${command}: ${message}\n${usage}\n`);
    return 1;
  }
  io.stderr.write(`${command}: ${message}\n`);
  return 1;
}

const MiB = 1024 * 1024;

/** `n` bytes as `12 KiB` below a MiB, else `3.4 MiB`. */
export const fmtMiB = (n: number): string => (n < MiB ? `${(n / 1024).toFixed(0)} KiB` : `${(n / MiB).toFixed(1)} MiB`);

/** A throughput in MB/s (10^6 bytes per second). */
export const fmtRate = (bytes: number, ms: number): string =>
  `${ms > 0 ? (bytes / 1e6 / (ms / 1000)).toFixed(1) : '∞'} MB/s`;

/** `a`, `a or b`, `a, b or c`. */
export const orList = (items: readonly string[]): string =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : (items[0] ?? '');

/**
 * Makes a closed pipe on standard output a normal end (`x-luks decrypt IMAGE - | head -c1`, `dump --json |
 * head`): the process exits quietly with the status it has so far (0) instead of dying of an unhandled
 * EPIPE with a stack trace. Any other error of the stream is left as it is.
 */
export function endOnClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

/** Whether `e` is the error of a write into a pipe whose reader has gone. */
export const isClosedPipe = (e: unknown): boolean => (e as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
