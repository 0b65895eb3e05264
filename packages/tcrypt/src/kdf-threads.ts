// The threads that derive the header keys WebCrypto cannot (RIPEMD-160, Whirlpool, BLAKE2s-256,
// Streebog-512, Argon2id), so that several run side by side and none on the calling thread: a browser's
// (or Deno's, Bun's) module Worker where the global `Worker` exists, written as
// `new Worker(new URL('./kdf-worker.js', import.meta.url), { type: 'module' })` so that a page's bundler
// (Vite, rolldown) emits ./kdf-worker.ts as a file of its own; else a Node worker thread on the same file
// next to this module (node:worker_threads, found at run time so that nothing here imports `node:`).
// A page that bundles its workers inline gives a factory instead ({@link setKdfWorkerFactory}).
// Where no thread can be made — no Worker at all, a bundle that left the file behind, a page whose policy
// refuses it, a blob: worker that cannot resolve the URL — the first thread that fails to load (before it
// says `ready`) turns the threads off for this module, and the derivations run on the calling thread as
// before (./kdf.ts's deriveHeaderKey, which gives the event loop a turn every few thousand iterations).
//
// Each derivation sends a copy of the password (its buffer transferred, so no copy stays here) and the
// salt; the thread wipes the password once the key is made and transfers the key back, which the caller
// wipes. A search that ends (a header decrypted, the signal aborted, every candidate tried) ends every
// thread at once (terminate): a thread is never asked to stop, it is stopped.
import { deriveHeaderKey, type KdfCandidate, type KdfJob, type KdfReply } from './kdf.js';

/** How a Node worker thread is started instead of on ./kdf-worker.js (the tests: the TypeScript sources through tsx). */
export interface NodeBoot {
  /** Code run by the thread (`eval: true`), which must load ./kdf-worker's code. */
  readonly code: string;
  readonly execArgv?: readonly string[];
}

/** Counters and switches for the tests and the benchmark; not part of the package's API. */
export const kdfThreadState = {
  /** Threads started and not yet ended. */
  live: 0,
  /** Threads ever started. */
  started: 0,
  /** Derivations sent to a thread, and those whose key (or error) came back. */
  jobsSent: 0,
  jobsDone: 0,
  /** Threads ended while a derivation was running in them. */
  endedBusy: 0,
  /** false: every derivation on the calling thread (as where no thread can be made). */
  enabled: true,
  /** Set once a thread failed to load: the calling thread from then on. */
  unavailable: false,
  /** Threads at once instead of {@link kdfWidth}'s count. */
  width: undefined as number | undefined,
  /** A Node thread's start instead of ./kdf-worker.js. */
  nodeBoot: undefined as NodeBoot | undefined,
};

/** A thread's messages and its end, the same for a Node worker thread and a Worker. */
interface Handle {
  post(job: KdfJob, transfer: ArrayBuffer[]): void;
  end(): Promise<void>;
}

interface Events {
  reply(r: KdfReply): void;
  fail(e: unknown): void;
}

type Builtin = (id: string) => unknown;
type NodeWorker = {
  on(e: 'message' | 'error' | 'exit', f: (v: never) => void): void;
  postMessage(m: unknown, transfer: ArrayBuffer[]): void;
  terminate(): Promise<number>;
};
type NodeWorkerClass = new (url: URL | string, options?: object) => NodeWorker;

/** The worker file's name next to this module: ./kdf-worker.ts when run from the sources (tsx, Deno, Bun). */
const WORKER_FILE = import.meta.url.endsWith('.ts') ? './kdf-worker.ts' : './kdf-worker.js';

function nodeThread(events: Events): Handle | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: Builtin } }).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as { Worker?: NodeWorkerClass } | undefined;
  if (typeof wt?.Worker !== 'function') return undefined;
  const boot = kdfThreadState.nodeBoot;
  const w = boot
    ? new wt.Worker(boot.code, { eval: true, execArgv: boot.execArgv ? [...boot.execArgv] : undefined })
    : new wt.Worker(new URL(WORKER_FILE, import.meta.url));
  let ended = false;
  const exit = () => {
    if (!ended) kdfThreadState.live--;
    ended = true;
  };
  w.on('message', (m: KdfReply) => events.reply(m));
  w.on('error', (e: unknown) => events.fail(e));
  w.on('exit', () => {
    const was = ended;
    exit();
    if (!was) events.fail(new Error('@x/tcrypt: a key derivation thread ended by itself'));
  });
  return {
    post: (job, transfer) => w.postMessage(job, transfer),
    end: async () => {
      if (ended) return;
      await w.terminate();
      exit();
    },
  };
}

/** What {@link setKdfWorkerFactory} gives: the part of a Worker used here. */
export interface KdfWorkerLike {
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onerror: ((ev: ErrorEvent) => unknown) | null;
  onmessageerror: ((ev: MessageEvent) => unknown) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
  terminate(): void;
}

let factory: (() => KdfWorkerLike) | undefined;

/**
 * Makes the key derivation threads with `make` (a Worker running the module `@x/tcrypt/kdf-worker`)
 * instead of `new Worker(new URL('./kdf-worker.js', import.meta.url), { type: 'module' })`: for a page whose
 * bundler inlines its workers, where that URL cannot be resolved (this package running in a blob: worker),
 * e.g. with Vite `import KdfWorker from '@x/tcrypt/kdf-worker?worker&inline'` and
 * `setKdfWorkerFactory(() => new KdfWorker())`. Undefined restores the default. Either way the threads are
 * tried again, and a factory that throws, or a worker that fails to load, leaves the derivations to the
 * calling thread.
 */
export function setKdfWorkerFactory(make: (() => KdfWorkerLike) | undefined): void {
  if (make !== undefined && typeof make !== 'function')
    throw new TypeError('@x/tcrypt: the key derivation worker factory must be a function');
  factory = make;
  kdfThreadState.unavailable = false;
}

function webThread(events: Events): Handle | undefined {
  if (!factory && typeof Worker !== 'function') return undefined;
  const w: KdfWorkerLike = factory
    ? factory()
    : new Worker(new URL('./kdf-worker.js', import.meta.url), { type: 'module' });
  let ended = false;
  w.onmessage = (ev: MessageEvent<KdfReply>) => events.reply(ev.data);
  w.onerror = (ev: ErrorEvent) => {
    ev.preventDefault();
    events.fail(new Error(`@x/tcrypt: a key derivation worker failed: ${ev.message || 'it did not load'}`));
  };
  w.onmessageerror = () => events.fail(new Error('@x/tcrypt: a key derivation worker sent what cannot be read'));
  return {
    post: (job, transfer) => w.postMessage(job, transfer),
    end: async () => {
      if (ended) return;
      ended = true;
      w.terminate();
      kdfThreadState.live--;
    },
  };
}

/** Thrown by a thread that could not load: the derivation goes to the calling thread. */
const NO_THREAD = Symbol('no thread');

/** One thread, one derivation at a time. */
class KdfThread {
  #handle: Handle | undefined;
  #ready = false;
  #pending: { resolve(key: Uint8Array | undefined): void; reject(e: unknown): void } | undefined;
  #waiting: (() => void) | undefined;
  #ended = false;
  #gone: Promise<void> = Promise.resolve();

  constructor() {
    const events: Events = { reply: (r) => this.#reply(r), fail: (e) => this.#fail(e) };
    // a global Worker where there is one (browsers, Deno, Bun); node:worker_threads in Node
    const handle = factory || typeof Worker === 'function' ? webThread(events) : nodeThread(events);
    if (!handle) throw NO_THREAD;
    this.#handle = handle;
    kdfThreadState.live++;
    kdfThreadState.started++;
  }

  #reply(r: KdfReply): void {
    if (r.type === 'ready') {
      this.#ready = true;
      this.#waiting?.();
      return;
    }
    const p = this.#pending;
    this.#pending = undefined;
    kdfThreadState.jobsDone++;
    if (r.type === 'key') {
      if (p) p.resolve(r.key);
      else r.key.fill(0);
    } else p?.reject(r.error);
  }

  #fail(e: unknown): void {
    if (this.#ended) return;
    if (!this.#ready) kdfThreadState.unavailable = true;
    const p = this.#pending;
    this.#pending = undefined;
    this.#waiting?.();
    void this.end();
    p?.reject(this.#ready ? e : NO_THREAD);
  }

  /** The key of `job`, or undefined when the thread was ended first. */
  async run(job: KdfJob): Promise<Uint8Array | undefined> {
    if (!this.#ready && !this.#ended) await new Promise<void>((resolve) => (this.#waiting = resolve));
    this.#waiting = undefined;
    if (this.#ended) {
      job.password.fill(0);
      if (kdfThreadState.unavailable) throw NO_THREAD;
      return undefined;
    }
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      this.#pending = { resolve, reject };
      kdfThreadState.jobsSent++;
      try {
        this.#handle?.post(job, [job.password.buffer as ArrayBuffer]);
      } catch (e) {
        this.#pending = undefined;
        reject(e);
      } finally {
        // empty (detached) once transferred; a copy that could not be sent is wiped
        if (job.password.byteLength > 0) job.password.fill(0);
      }
    });
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Ends the thread (a running derivation gives undefined); resolves once it is gone. */
  end(): Promise<void> {
    if (!this.#ended) {
      this.#ended = true;
      if (this.#pending) kdfThreadState.endedBusy++;
      this.#pending?.resolve(undefined);
      this.#pending = undefined;
      this.#waiting?.();
      this.#gone = this.#handle?.end() ?? Promise.resolve();
    }
    return this.#gone;
  }
}

/** The cores of this machine (navigator.hardwareConcurrency, else node:os), 2 if neither tells. */
export function cores(): number {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  if (typeof nav === 'number' && nav > 0) return nav;
  const proc = (globalThis as { process?: { getBuiltinModule?: Builtin } }).process;
  try {
    const os = proc?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number } | undefined;
    const n = os?.availableParallelism?.();
    if (typeof n === 'number' && n > 0) return n;
  } catch {
    // no node:os: the default
  }
  return 2;
}

/**
 * How many derivations run at once: beside WebCrypto's, as many as leave a core free (at least one);
 * `alone` (nothing else runs): one a core.
 */
export const kdfWidth = (alone = false): number => kdfThreadState.width ?? Math.max(1, cores() - (alone ? 0 : 1));

/**
 * The threads of one search: at most `width` of them, each made when a derivation first needs it and
 * reused, all ended by {@link close}.
 */
export class KdfThreads {
  readonly #idle: KdfThread[] = [];
  readonly #all = new Set<KdfThread>();
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * The header key of `c` (a new array the caller wipes): in a thread when one can be made, else on this
   * thread. Undefined when the search stopped first (`stop()`, {@link close}).
   */
  async derive(
    c: KdfCandidate,
    password: Uint8Array,
    salt: Uint8Array,
    length: number,
    stop: () => boolean,
  ): Promise<Uint8Array | undefined> {
    if (stop() || this.#closed) return undefined;
    const s = kdfThreadState;
    const here = () => deriveHeaderKey(c, password, salt, length, stop);
    if (!s.enabled || s.unavailable) return here();
    let t = this.#idle.pop();
    if (!t) {
      try {
        t = new KdfThread();
      } catch {
        s.unavailable = true; // no Worker here, or one that refused the URL (a blob: page worker, a policy)
        return here();
      }
      this.#all.add(t);
    }
    const job: KdfJob = {
      prf: c.prf,
      iterations: c.iterations,
      memory: c.memory,
      parallelism: c.parallelism,
      password: Uint8Array.from(password),
      salt: Uint8Array.from(salt),
      length,
    };
    try {
      return await t.run(job);
    } catch (e) {
      if (e === NO_THREAD) return here();
      throw e;
    } finally {
      if (!this.#closed && !t.ended) this.#idle.push(t);
    }
  }

  /** Ends every thread (the running derivations give undefined); resolves once they are all gone. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#idle.length = 0;
      await Promise.all([...this.#all].map((t) => t.end()));
      this.#all.clear();
    })();
    return this.#closing;
  }
}
