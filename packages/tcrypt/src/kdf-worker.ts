// The key derivation thread (./kdf-threads.ts starts it): a Node worker thread or a browser's (or Deno's,
// Bun's) module Worker. It says `ready` once loaded, then derives one header key per message with
// ./kdf.ts's deriveHeaderKey (PBKDF2 over hash-wasm's hashers or this package's Streebog, Argon2id on
// @x/kdf) and sends it back, its buffer transferred. The password it is sent is wiped as soon as the key is
// made, and so is every copy of the key here; a thread is ended (terminate) rather than told to stop.
import { deriveJob, type KdfJob, type KdfReply } from './kdf.js';

interface Port {
  postMessage(m: KdfReply, transfer?: ArrayBuffer[]): void;
}

/** This thread's port: node:worker_threads' parentPort, else the worker's global scope. */
function port(): { port: Port; listen(f: (job: KdfJob) => void): void } {
  type Builtin = (id: string) => unknown;
  const proc = (globalThis as { process?: { getBuiltinModule?: Builtin } }).process;
  let parent: (Port & { on(e: 'message', f: (m: KdfJob) => void): void }) | null | undefined;
  try {
    parent = (proc?.getBuiltinModule?.('node:worker_threads') as { parentPort?: typeof parent } | undefined)
      ?.parentPort;
  } catch {
    parent = undefined;
  }
  if (parent) return { port: parent, listen: (f) => parent.on('message', f) };
  const scope = globalThis as unknown as Port & {
    addEventListener(e: 'message', f: (ev: { data: KdfJob }) => void): void;
  };
  return { port: scope, listen: (f) => scope.addEventListener('message', (ev) => f(ev.data)) };
}

const { port: out, listen } = port();
let queue = Promise.resolve();
listen((job) => {
  queue = queue.then(async () => {
    try {
      const key = await deriveJob(job);
      out.postMessage({ type: 'key', key }, [key.buffer as ArrayBuffer]);
    } catch (e) {
      out.postMessage({ type: 'error', error: e instanceof Error ? e : new Error(String(e)) });
    } finally {
      job.password.fill(0);
    }
  });
});
out.postMessage({ type: 'ready' });
