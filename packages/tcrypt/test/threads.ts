// The key derivation threads in the tests: vitest runs the TypeScript sources, which a Node worker thread
// cannot load by itself, so each thread starts through tsx's loader on src/kdf-worker.ts with the "source"
// export condition (as vitest resolves the workspace packages). What runs in the thread is the package's
// own worker module, the one the build emits as dist/kdf-worker.js.
import { kdfThreadState } from '../src/kdf-threads.js';

const WORKER = new URL('../src/kdf-worker.ts', import.meta.url).href;

/** Starts the threads from the sources; the counters as they are now, to compare with after. */
export function useSourceThreads(): void {
  kdfThreadState.enabled = true;
  kdfThreadState.unavailable = false;
  kdfThreadState.nodeBoot = {
    code: `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER)}); })`,
    execArgv: ['--conditions=source'],
  };
}

/** The counters now. */
export const counters = () => ({ ...kdfThreadState });
