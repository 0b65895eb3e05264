// What the commands do on a signal, installed by ./x-disk.ts and ./x-luks.ts before their `main` runs (no
// module makes a file when it is loaded), so before any temporary file can exist. SIGINT, SIGTERM, SIGHUP and
// SIGQUIT stop the command: the temporary output of ./temporaries.ts is removed synchronously, a line on
// stderr says so, and the exit status is 128 + the signal's number, as a shell reports a process a signal
// ended (130, 143, 129, 131). SIGPIPE does the same, without the line (stderr may be the pipe that closed),
// while a temporary file exists; otherwise it is ignored, as Node ignores it: a write into a closed pipe
// then fails with EPIPE, which `decrypt IMAGE -` and `dump` take as the reader's normal end (./io.ts).
// Once OUT is in place, a signal ends the command with the status it has (0): its work is done.
// Any other way out of the process (an uncaught error, process.exit) removes the temporary files too.
// Decrypt and writer threads are worker threads: signals reach only the main thread, and process.exit ends
// them with it.
import { writeSync } from 'node:fs';
import { constants } from 'node:os';
import { basename } from 'node:path';
import { hasTemporaries, isCommitted, removeTemporaries } from './temporaries.js';

/** The signals that stop a command. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGPIPE'] as const;

/** The command's name for the line on stderr: its file's, `x-disk` of `…/x-disk.js`. */
const commandName = () => basename(process.argv[1] ?? 'x-disk').replace(/\.[cm]?[jt]s$/, '');

/** A line on stderr, if stderr can still take it (a closed pipe or a gone terminal cannot). */
function say(line: string): void {
  try {
    writeSync(2, line);
  } catch {
    // nowhere to say it
  }
}

function onSignal(signal: (typeof STOP_SIGNALS)[number]): void {
  const had = hasTemporaries();
  if (signal === 'SIGPIPE' && !had) return;
  if (isCommitted() && !had) process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  removeTemporaries();
  if (signal !== 'SIGPIPE')
    say(`${commandName()}: stopped by ${signal}${had ? '; the partial output was removed' : ''}\n`);
  process.exit(128 + constants.signals[signal]);
}

/**
 * Installs the handlers: the first statement of ./x-disk.ts and ./x-luks.ts, before `main` can make any
 * file. (A call, not an import for its side effect: this package is `"sideEffects": false`, and a bundler
 * drops such an import.) Once only; not in a decrypt thread's copy of the command, where signals never come.
 */
export function stopOnSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  process.on('exit', removeTemporaries);
}
let installed = false;
