// The temporary files a command has made and not yet renamed (./output.ts: `.OUT.x-disk-PID-….part`), the
// one list that ./signals.ts empties when a signal stops the command and that every other way out of the
// process empties too. A name is added before the file is created and removed once the file is renamed
// or removed, all synchronously: there is no moment when the file exists and a signal would not find it.
// No side effect on import: the tests that call `main` in their own process load this, not ./signals.ts.
import { rmSync } from 'node:fs';

const pending = new Set<string>();
let committed = false;

/** Adds `path` to the list, before it is created; `forget` drops it (renamed, or never created). */
export function willCreate(path: string): { forget(): void } {
  pending.add(path);
  return {
    forget() {
      pending.delete(path);
    },
  };
}

/** Whether a temporary file is on the list now. */
export const hasTemporaries = (): boolean => pending.size > 0;

/** Removes every temporary file on the list, synchronously (a signal handler cannot wait), and empties it. */
export function removeTemporaries(): void {
  for (const path of pending) {
    try {
      rmSync(path, { force: true });
    } catch {
      // a directory gone or unwritable: nothing more can be done from here
    }
  }
  pending.clear();
}

/** Marks the command's output as in place (renamed to OUT): its work is done, only closing is left. */
export function markCommitted(): void {
  committed = true;
}

/** Whether the output is in place (see {@link markCommitted}). */
export const isCommitted = (): boolean => committed;
