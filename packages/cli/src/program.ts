// A command as a table of subcommands (cryptsetup's action_types[]): each with its usage line, what it does,
// the options it takes and the function that runs it. runProgram reads the command line once, answers
// `-V, --version` and `-h, --help` (the whole command's, or one subcommand's), refuses what a subcommand does
// not take, runs it, and turns any error into one line on stderr and the exit status.
//
// Start-up: a command loads this table and nothing more before it reads its command line; each `run`
// imports its subcommand's code (`await import(…)`) when it runs, so `--help`, `--version` and a usage error
// load no format, no AES kernel and no thread code (`npm run bench -- --startup` measures it).
import { createRequire } from 'node:module';
import { type CliIo, DECRYPT_THREAD_ARG, EXIT, report, UsageError } from './io.js';
import { type OptionDef, optionHelp, type OptionLists, type OptionValues, parseOptions } from './options.js';

/** One subcommand: `dump`, `decrypt`, … */
export interface Subcommand {
  /** Its usage after the command's name: `dump IMAGE [--json]`. */
  readonly usage: string;
  /** What it does, for the help (one line; more lines are indented under it). */
  readonly about: string;
  /** The options it takes (`--help` aside). */
  readonly options: readonly OptionDef[];
  /**
   * Runs it with the arguments after its name and the options given (`lists`: every value of each, for
   * the options that may be repeated); throws what goes wrong.
   */
  run(args: readonly string[], values: OptionValues, io: CliIo, lists: OptionLists): Promise<void>;
}

/** A command: `x-disk`, `x-luks`. */
export interface Program {
  readonly name: string;
  readonly commands: Readonly<Record<string, Subcommand>>;
  /** Lines of the help between the subcommands and the options (what IMAGE can be, defaults, …). */
  readonly notes?: string;
  /** The exit status line of the help: what 2 means for this command. */
  readonly wrongSecret: string;
}

const HELP: OptionDef = { name: 'help', short: 'h', help: 'this help (after a subcommand: its own)' };
const VERSION: OptionDef = { name: 'version', short: 'V', help: 'the version' };

/** Every option once, in the order the subcommands name them. */
function allOptions(p: Program): OptionDef[] {
  const seen = new Map<string, OptionDef>();
  for (const c of Object.values(p.commands)) for (const o of c.options) seen.set(o.name, o);
  return [...seen.values()];
}

const exitStatus = (p: Program) =>
  `exit status: ${EXIT.done} done, ${EXIT.wrongSecret} ${p.wrongSecret}, ${EXIT.failed} other errors`;

/** The usage lines of every subcommand: what a usage error prints after its line. */
function usage(p: Program): string {
  return `usage:\n${Object.values(p.commands)
    .map((c) => `  ${p.name} ${c.usage}`)
    .join('\n')}`;
}

/** `--help`: every subcommand, the notes, every option, the exit status. */
function help(p: Program): string {
  const names = Object.keys(p.commands);
  const width = Math.max(...names.map((n) => n.length)) + 2;
  const about = names.map(
    (n) => `  ${n.padEnd(width)}${p.commands[n].about.replaceAll('\n', `\n  ${' '.repeat(width)}`)}`,
  );
  return [
    usage(p),
    `  ${p.name} -V | --version`,
    `  ${p.name} [COMMAND] -h | --help`,
    '',
    ...about,
    ...(p.notes ? [p.notes] : []),
    '',
    'options:',
    optionHelp([...allOptions(p), HELP, VERSION]),
    '',
    exitStatus(p),
  ].join('\n');
}

/** `COMMAND --help`: its usage, what it does, its options, the exit status. */
function commandHelp(p: Program, name: string): string {
  const c = p.commands[name];
  return [
    `usage: ${p.name} ${c.usage}`,
    '',
    `${name}: ${c.about}`,
    '',
    'options:',
    optionHelp([...c.options, HELP]),
    '',
    exitStatus(p),
  ].join('\n');
}

/** The version of this package (`@x/cli`), read when `--version` asks for it. */
function version(): string {
  return (createRequire(import.meta.url)('@x/cli/package.json') as { version: string }).version;
}

/**
 * Whether this is a decrypt thread running the bundled command (see ./decrypt-threads.ts), once its work is
 * done: then the command's `main` returns at once, there is no command line. Only when the process's
 * arguments have {@link DECRYPT_THREAD_ARG} is ./decrypt-threads.ts loaded to ask (it checks the thread's
 * `workerData` tag), so that the command's start-up does not pay for it.
 */
export async function decryptThreadDone(): Promise<boolean> {
  if (!process.argv.includes(DECRYPT_THREAD_ARG)) return false;
  const { decryptThread } = await import('./decrypt-threads.js');
  if (!decryptThread) return false;
  await decryptThread;
  return true;
}

/**
 * Runs `program` with `argv` (the arguments after its name) and returns the exit status (see {@link EXIT}).
 *
 * @example
 * ```ts
 * process.exitCode = await runProgram(X_DISK, process.argv.slice(2), process);
 * ```
 */
export async function runProgram(p: Program, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, lists, spelled, positionals } = parseOptions(argv, [...allOptions(p), HELP, VERSION]);
    const [name, ...args] = positionals;
    const command = name === undefined ? undefined : Object.hasOwn(p.commands, name) ? p.commands[name] : undefined;
    if (values.version) {
      io.stdout.write(`${p.name} ${version()}\n`);
      return EXIT.done;
    }
    if (values.help) {
      io.stdout.write(`${command ? commandHelp(p, name!) : help(p)}\n`);
      return EXIT.done;
    }
    if (!command) throw new UsageError(name === undefined ? 'no command' : `unknown command "${name}"`);
    const wrong = Object.keys(values).find((o) => !command.options.some((d) => d.name === o));
    if (wrong !== undefined) throw new UsageError(`${name} does not take ${spelled[wrong]}`);
    await command.run(args, values, io, lists);
    return EXIT.done;
  } catch (e) {
    return report(io, p.name, usage(p), e);
  }
}
