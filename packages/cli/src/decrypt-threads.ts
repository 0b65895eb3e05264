// Decrypting a volume on several threads, for `decrypt --threads N` (Node only).
//
// The main thread unlocks the volume once and hands its volume key to N worker threads (a structured
// clone per thread, wiped there as soon as the volume is open; the caller wipes its own). Each thread
// opens the image and the volume by itself, from the key: no passphrase, no key derivation. The pool is
// then a {@link SectorReader} for ./pump.ts: `read(dst, firstSector)` sends the chunk to the least busy
// thread, which reads its ciphertext into `dst` and decrypts it there, in place. The chunks live on a
// SharedArrayBuffer, so nothing is copied; the pump keeps the order and writes from the main thread (or
// its writer thread), so the output is the same bytes whatever N is.
//
// The threads run this very module: `new Worker(import.meta.url)` with a tag in `workerData`. Built
// with tsc, that is dist/decrypt-threads.js; bundled into one file (esbuild), it is the whole command,
// whose `main` waits on {@link decryptThread} instead of parsing a command line (see ./x-luks-main.ts).
// Run from source with tsx, the thread inherits the tsx loader through `execArgv`.
import { openFileSource } from '@x/byte-source/file';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { SectorReader } from './pump.js';

/** `workerData` of a decrypt thread: the tag that tells this module's copy in a thread to serve. */
const TAG = '@x/cli decrypt thread';

/** The formats a decrypt thread opens from a volume key (x-disk's BitLocker and FileVault 2 are not threaded). */
export type ThreadFormat = 'luks';

/** What each thread needs to open the volume by itself. */
export interface ThreadVolume {
  readonly format: ThreadFormat;
  /** The image's path: each thread opens it for reading. */
  readonly image: string;
  /** The volume key; cloned into each thread, the caller wipes its own copy once {@link DecryptThreads.open} returns. */
  readonly volumeKey: Uint8Array;
  /** The AES kernel the main thread chose: every thread uses the same. */
  readonly kernel: string;
  /** The geometry the main thread saw: a thread that opens anything else fails (the image changed). */
  readonly sectorSize: number;
  readonly payloadSize: number;
}

type ToThread =
  | { readonly op: 'open'; readonly volume: ThreadVolume }
  | { readonly op: 'read'; readonly id: number; readonly buf: Uint8Array; readonly firstSector: number }
  | { readonly op: 'close' };
type FromThread =
  | { readonly op: 'ready' }
  | { readonly op: 'done'; readonly id: number }
  | { readonly op: 'failed'; readonly id?: number; readonly name: string; readonly message: string }
  | { readonly op: 'closed' };

/** A volume as a thread holds it: the part of `LuksVolume` it uses. */
interface OpenVolume {
  readonly sectorSize: number;
  readonly payloadSize: number;
  read(dst: Uint8Array, firstSector: number): Promise<void>;
  close(): void;
}

type Source = Awaited<ReturnType<typeof openFileSource>>;
type Opener = (v: ThreadVolume, source: Source) => Promise<OpenVolume>;

/**
 * Per format, loads its package (only in a thread that needs it, as x-disk loads only the format it
 * opens) and gives the function that opens a volume from its key.
 */
const OPENERS: Record<ThreadFormat, () => Promise<Opener>> = {
  luks: async () => {
    const { openLuks } = await import('@x/luks');
    return (v, source) => openLuks(source, { volumeKey: v.volumeKey, kernel: v.kernel });
  },
};

/** How long {@link DecryptThreads.close} waits for a thread to wipe its keys before it terminates it anyway. */
const CLOSE_GRACE_MS = 2000;

const errorOf = (e: unknown) => ({
  name: e instanceof Error ? e.name : 'Error',
  message: e instanceof Error ? e.message : String(e),
});

/**
 * The thread's side: open on `open`, read and decrypt on `read`, wipe the keys and stop on `close`. The
 * format's package starts loading at once, while the main thread unlocks the volume.
 */
function serve(port: NonNullable<typeof parentPort>, format: ThreadFormat): Promise<void> {
  const opener = OPENERS[format]();
  opener.catch(() => {}); // reported by the open that awaits it
  let source: Source | undefined;
  let volume: OpenVolume | undefined;
  const post = (m: FromThread) => port.postMessage(m);
  return new Promise((resolve) => {
    port.on('message', async (m: ToThread) => {
      if (m.op === 'read') {
        try {
          if (!volume) throw new Error('@x/cli: the decrypt thread has no volume open');
          await volume.read(m.buf, m.firstSector);
          post({ op: 'done', id: m.id });
        } catch (e) {
          post({ op: 'failed', id: m.id, ...errorOf(e) });
        }
      } else if (m.op === 'open') {
        const v = m.volume;
        try {
          const open = await opener;
          source = await openFileSource(v.image);
          volume = await open(v, source);
          if (volume.sectorSize !== v.sectorSize || volume.payloadSize !== v.payloadSize)
            throw new Error(`@x/cli: ${v.image} changed while it was being opened`);
          post({ op: 'ready' });
        } catch (e) {
          post({ op: 'failed', ...errorOf(e) });
        } finally {
          v.volumeKey.fill(0); // this thread's clone: the volume keeps only its round keys
        }
      } else {
        volume?.close(); // wipes the round keys
        volume = undefined;
        await source?.close().catch(() => {});
        post({ op: 'closed' });
        port.close();
        resolve();
      }
    });
  });
}

/**
 * In a decrypt thread started by {@link DecryptThreads}: the promise of its work, which settles once the
 * thread is closed. Undefined on every other thread. A command's `main` that finds it set (the thread
 * runs the whole bundled command) waits for it and does nothing else.
 */
export const decryptThread: Promise<void> | undefined = (() => {
  const data = workerData as { [TAG]?: ThreadFormat } | null;
  const format = isMainThread ? undefined : data?.[TAG];
  return parentPort !== null && format !== undefined && Object.hasOwn(OPENERS, format)
    ? serve(parentPort, format)
    : undefined;
})();

/** Starts one decrypt thread for `format`: this module, in a worker, tagged to serve. */
const spawnThread = (format: ThreadFormat): Worker =>
  new Worker(new URL(import.meta.url), { workerData: { [TAG]: format } });

interface Thread {
  readonly worker: Worker;
  /** Reads sent and not answered, by id. */
  readonly pending: Map<number, { resolve(): void; reject(e: Error): void }>;
  /** Waiting for `ready` (open) or `closed` (close). */
  waiter?: { resolve(): void; reject(e: Error): void };
  /** The volume is open in it: it takes reads. */
  ready: boolean;
  /** The thread has exited, or has been terminated. */
  gone: boolean;
}

/**
 * N decrypt threads over one volume (see the top of this file), a {@link SectorReader} once
 * {@link DecryptThreads.open} has resolved. Start them early: a thread takes some tens of milliseconds to
 * start and load the command's code, time that the main thread's unlock hides.
 *
 * @example
 * ```ts
 * const threads = new DecryptThreads(2);
 * const volume = await openLuks(source, { volumeKey });
 * try {
 *   await threads.open({ format: 'luks', image, volumeKey, kernel: volume.kernel, sectorSize: volume.sectorSize, payloadSize: volume.payloadSize });
 * } finally {
 *   volume.close();
 *   volumeKey.fill(0);
 * }
 * await pumpVolume(threads, sink, onProgress, { chunkBytes, depth: threads.count + 2, shared: true });
 * await threads.close();
 * ```
 */
export class DecryptThreads implements SectorReader {
  readonly count: number;
  sectorSize = 0;
  payloadSize = 0;
  readonly #threads: Thread[];
  #nextId = 0;
  #failed: Error | undefined;
  #closing: Promise<void> | undefined;

  /**
   * Starts `count` threads, which load `format`'s package at once; `spawn` starts one (tests give their
   * own).
   */
  constructor(count: number, format: ThreadFormat, spawn: (format: ThreadFormat) => Worker = spawnThread) {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('@x/cli: count must be a whole number ≥ 1');
    if (!Object.hasOwn(OPENERS, format)) throw new RangeError(`@x/cli: no decrypt threads for the format "${format}"`);
    this.count = count;
    this.#threads = [];
    for (let i = 0; i < count; i++) this.#threads.push(this.#watch(spawn(format)));
  }

  /** Whether a thread has the volume open, and so takes reads (see {@link DecryptThreads.open}). */
  get ready(): boolean {
    return this.#threads.some((t) => t.ready);
  }

  #watch(worker: Worker): Thread {
    const t: Thread = { worker, pending: new Map(), gone: false, ready: false };
    worker.on('message', (m: FromThread) => {
      if (m.op === 'done') {
        const p = t.pending.get(m.id);
        t.pending.delete(m.id);
        p?.resolve();
      } else if (m.op === 'failed') {
        const e = Object.assign(new Error(m.message), { name: m.name });
        if (m.id === undefined) {
          const w = t.waiter;
          t.waiter = undefined;
          w?.reject(e);
        } else {
          const p = t.pending.get(m.id);
          t.pending.delete(m.id);
          p?.reject(e);
        }
      } else {
        if (m.op === 'ready') t.ready = !this.#failed;
        const w = t.waiter; // `ready` or `closed`
        t.waiter = undefined;
        w?.resolve();
      }
    });
    // A thread that dies (an uncaught exception, running out of memory, exiting) takes everything in
    // flight with it, on every thread: the pump stops, and the command says why in one line.
    worker.on('error', (e: Error) => this.#fail(new Error(`@x/cli: a decrypt thread failed: ${e.message}`)));
    worker.on('messageerror', (e: Error) => this.#fail(new Error(`@x/cli: a decrypt thread failed: ${e.message}`)));
    worker.on('exit', (code) => {
      t.gone = true;
      if (!this.#closing) this.#fail(new Error(`@x/cli: a decrypt thread stopped (exit code ${code})`));
      const w = t.waiter;
      t.waiter = undefined;
      w?.resolve(); // closing: gone is as good as closed
    });
    return t;
  }

  #fail(e: Error): void {
    this.#failed ??= e;
    for (const t of this.#threads) {
      t.ready = false;
      for (const p of t.pending.values()) p.reject(this.#failed);
      t.pending.clear();
      const w = t.waiter;
      t.waiter = undefined;
      w?.reject(this.#failed);
    }
  }

  /**
   * Has every thread open `volume` from its key, and resolves once all are ready; each takes reads as soon
   * as it is ready itself. `volume.volumeKey` is cloned into each thread when this is called: the caller
   * may wipe it as soon as this returns its promise (or throws).
   *
   * @throws the first thread's error (the key does not open the image, the image changed, a thread died).
   */
  async open(volume: ThreadVolume): Promise<void> {
    if (this.#failed) throw this.#failed;
    this.sectorSize = volume.sectorSize;
    this.payloadSize = volume.payloadSize;
    const ready = this.#threads.map(
      (t) =>
        new Promise<void>((resolve, reject) => {
          t.waiter = { resolve, reject };
          t.worker.postMessage({ op: 'open', volume } satisfies ToThread);
        }),
    );
    // every thread's answer, then the first failure: no promise is left rejected and unhandled
    const settled = await Promise.allSettled(ready);
    const bad = settled.find((s) => s.status === 'rejected');
    if (bad) throw (bad as PromiseRejectedResult).reason;
  }

  /**
   * Decrypts payload sectors `firstSector …` into `dst` on the least busy thread that is
   * {@link DecryptThreads.ready}. `dst` must be on a SharedArrayBuffer.
   */
  read(dst: Uint8Array, firstSector: number): Promise<void> {
    if (!(dst.buffer instanceof SharedArrayBuffer))
      return Promise.reject(new TypeError('@x/cli: decrypt threads take chunks on a SharedArrayBuffer'));
    if (this.#failed) return Promise.reject(this.#failed);
    let t: Thread | undefined;
    for (const u of this.#threads) if (u.ready && (!t || u.pending.size < t.pending.size)) t = u;
    if (!t) return Promise.reject(new Error('@x/cli: no decrypt thread has the volume open yet'));
    const thread = t;
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ op: 'read', id, buf: dst, firstSector } satisfies ToThread);
    });
  }

  /**
   * Stops every thread: asks each to wipe its keys and close (waiting at most {@link CLOSE_GRACE_MS}),
   * then terminates it whatever it answered. Never rejects; later reads reject.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#fail(new Error('@x/cli: the decrypt threads are closed'));
      await Promise.all(
        this.#threads.map(async (t) => {
          if (!t.gone) {
            let timer: NodeJS.Timeout | undefined;
            await Promise.race([
              new Promise<void>((resolve) => {
                t.waiter = { resolve, reject: () => resolve() };
                t.worker.postMessage({ op: 'close' } satisfies ToThread);
              }),
              new Promise<void>((resolve) => {
                timer = setTimeout(resolve, CLOSE_GRACE_MS);
              }),
            ]);
            clearTimeout(timer);
          }
          await t.worker.terminate();
        }),
      );
    })();
    return this.#closing;
  }
}

/**
 * The reader `decrypt` pumps while the threads open: `volume` (on this thread) until a thread is
 * {@link DecryptThreads.ready}, the threads from then on, so that their start costs no time. `opening` is
 * {@link DecryptThreads.open}'s promise: if it fails, every later read fails with its error. `volume` is
 * closed (its keys wiped) as soon as the threads have taken over and its last read is done.
 */
export class UntilThreadsOpen implements SectorReader {
  readonly sectorSize: number;
  readonly payloadSize: number;
  #onVolume = 0;
  #failed: unknown;
  #volumeClosed = false;

  constructor(
    readonly volume: SectorReader & { close(): void },
    readonly threads: DecryptThreads,
    opening: Promise<void>,
  ) {
    this.sectorSize = volume.sectorSize;
    this.payloadSize = volume.payloadSize;
    opening.then(
      () => this.#closeVolume(),
      (e: unknown) => {
        this.#failed ??= e;
      },
    );
  }

  #closeVolume(): void {
    if (this.#onVolume > 0 || this.#volumeClosed) return;
    this.#volumeClosed = true;
    this.volume.close();
  }

  read(dst: Uint8Array, firstSector: number): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.threads.ready) return this.threads.read(dst, firstSector);
    this.#onVolume++;
    return this.volume.read(dst, firstSector).finally(() => {
      this.#onVolume--;
      if (this.threads.ready) this.#closeVolume();
    });
  }
}
