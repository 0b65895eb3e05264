// What both commands share about talking to the user: the streams, usage errors, the exit status and the
// one line an error becomes on stderr.
import { WrongSecretError } from '@x/disk-format';

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

/**
 * The exit status of each outcome, as `--help` and the README say: 0 done, 1 anything else (usage, I/O, a
 * damaged or unsupported image), 2 a wrong secret.
 */
export const EXIT = { done: 0, failed: 1, wrongSecret: 2 } as const;

/**
 * Reports `e` on stderr as one line, `command: message` (without a leading `@x/<package>: `), and returns
 * the exit status: 2 for a wrong passphrase, recovery password, startup key or volume key (a
 * WrongSecretError of any format), 1 for everything else; usage errors add the usage text after the line.
 */
export function report(io: CliIo, command: string, usage: string, e: unknown): number {
  const message = inCommandTerms(e, (e instanceof Error ? e.message : String(e)).replace(/^@x\/[a-z0-9-]+: /, ''));
  io.stderr.write(`${command}: ${message}\n${e instanceof UsageError ? `${usage}\n` : ''}`);
  return e instanceof WrongSecretError ? EXIT.wrongSecret : EXIT.failed;
}

/** The command's option for each KDF bound of `@x/disk-format` (./disk-options.ts). */
const LIMIT_OPTIONS: Readonly<Record<string, string>> = {
  maxIterations: '--max-iterations',
  maxMemory: '--max-memory',
  maxTimeCost: '--max-time-cost',
};

/**
 * A KDF bound's message as the command's user reads it: the error's `kdfLimit` field says which bound and
 * what the header asks, and the API's hint, `(raise options.maxIterations to try it)`, becomes the option
 * that raises it, `(--max-iterations 4294967295 tries it)`.
 */
function inCommandTerms(e: unknown, message: string): string {
  // the field, else the words of the message (a refusal made without the field, e.g. a LUKS digest's)
  const words = / (\d+)(?: KiB)? is above (max\w+), /.exec(message);
  const limit =
    (e as { kdfLimit?: { option: string; asked: number } } | undefined)?.kdfLimit ??
    (words ? { option: words[2], asked: Number(words[1]) } : undefined);
  const option = limit && LIMIT_OPTIONS[limit.option];
  if (!option) return message;
  const hint = `(${option} ${limit.asked} tries it)`;
  const api = `(raise options.${limit.option} to try it)`;
  return message.includes(api) ? message.replace(api, hint) : `${message} ${hint}`;
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

/** A file that cannot be opened, in one line (`disk.img: no such file`); other errors as they are. */
export function fileError(e: unknown, path: string): unknown {
  const text = FILE_ERRORS[(e as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return text === undefined ? e : new Error(`${path}: ${text}`, { cause: e });
}

/**
 * The argument each decrypt thread (./decrypt-threads.ts) is started with, after its `workerData` tag: a
 * command's `main` that finds it in `process.argv` may be such a thread running the bundled command, and
 * only then loads the thread code to ask (./program.ts), so that its start-up does not pay for
 * `node:worker_threads`.
 */
export const DECRYPT_THREAD_ARG = '--x-aes-decrypt-thread';

/** A throughput in MB/s (10^6 bytes per second). */
export const fmtRate = (bytes: number, ms: number): string =>
  `${ms > 0 ? (bytes / 1e6 / (ms / 1000)).toFixed(1) : '∞'} MB/s`;

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
