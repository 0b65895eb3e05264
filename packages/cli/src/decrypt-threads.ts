// Decrypting a volume on several threads, for `decrypt --threads N` (Node only).
//
// The main thread unlocks the volume once and hands what `volume.share()` gives, its layout (plain data:
// the dm-crypt cipher, the runs of the image) and its volume key, to N worker threads (a structured clone
// per thread, the key wiped there as soon as the cipher is made; the caller wipes its own). Each thread
// opens the image and makes the same volume (@x/disk-format's SectorVolume) by itself: no format code, no
// passphrase, no key derivation, so every format is decrypted the same way. The pool is then a
// {@link SectorReader} for ./pump.ts: `read(dst, firstSector)` sends the chunk to the least busy
// thread, which reads its ciphertext into `dst` and decrypts it there, in place. The chunks live on a
// SharedArrayBuffer, so nothing is copied; the pump keeps the order and writes from the main thread (or
// its writer thread), so the output is the same bytes whatever N is.
//
// The threads run this very module: `new Worker(import.meta.url)` with a tag in `workerData` (and
// DECRYPT_THREAD_ARG of ./io.ts in `process.argv`, the cheap hint a command's `main` looks for). Built
// with tsc, that is dist/decrypt-threads.js; bundled into one file (esbuild), it is the whole command,
// whose `main`, off the main thread, imports this module and waits on {@link decryptThread} instead of
// parsing a command line (see `decryptThreadDone` in ./program.ts). Run from source with tsx, the thread
// inherits the tsx loader through `execArgv`. Nothing else imports this module but ./output.ts, and that
// only when a decrypt runs on more than one thread: the commands' start-up does not pay for it.
import { openFileSource } from '@x/byte-source/file';
import { SectorVolume, type SharedVolume } from '@x/disk-format';
import { newSectorCipher } from '@x/dm-crypt';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { DECRYPT_THREAD_ARG } from './io.js';
import type { SectorReader } from './pump.js';

/** `workerData` of a decrypt thread: the tag that tells this module's copy in a thread to serve. */
const TAG = '@x/cli decrypt thread';

/** What each thread needs to open the volume by itself: what `volume.share()` gave, and the image. */
export interface ThreadVolume extends SharedVolume {
  /** The image's path: each thread opens it for reading. */
  readonly image: string;
  /** The image's size when the main thread opened it: a thread that finds another fails (the image changed). */
  readonly imageSize: number;
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

type Source = Awaited<ReturnType<typeof openFileSource>>;

/** The volume `v` describes, on `source`: its cipher made from its key (which the caller wipes). */
function openShared(v: ThreadVolume, source: Source): SectorVolume {
  if (source.size !== v.imageSize) throw new Error(`@x/cli: ${v.image} changed while it was being opened`);
  const { layout } = v;
  const cipher = newSectorCipher(layout.cipher, v.volumeKey, {
    sectorSize: layout.sectorSize,
    ivOffset: layout.ivOffset,
    ivLargeSectors: layout.ivLargeSectors,
    kernel: v.kernel,
  });
  return new SectorVolume({ source, layout, cipher, prefix: '@x/cli', what: 'the volume', error: Error });
}

/** How long {@link DecryptThreads.close} waits for a thread to wipe its keys before it terminates it anyway. */
const CLOSE_GRACE_MS = 2000;

const errorOf = (e: unknown) => ({
  name: e instanceof Error ? e.name : 'Error',
  message: e instanceof Error ? e.message : String(e),
});

/** The thread's side: open on `open`, read and decrypt on `read`, wipe the keys and stop on `close`. */
function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  let source: Source | undefined;
  let volume: SectorVolume | undefined;
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
          source = await openFileSource(v.image);
          volume = openShared(v, source);
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
  const tagged = !isMainThread && (workerData as { [TAG]?: boolean } | null)?.[TAG] === true;
  return parentPort !== null && tagged ? serve(parentPort) : undefined;
})();

/** Starts one decrypt thread: this module, in a worker, tagged to serve. */
const spawnThread = (): Worker =>
  new Worker(new URL(import.meta.url), { workerData: { [TAG]: true }, argv: [DECRYPT_THREAD_ARG] });

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
 * const { volume } = await format.open(source, secret, { share: true });
 * const shared = volume.share!()!;
 * try {
 *   await threads.open({ ...shared, image, imageSize: source.size });
 * } finally {
 *   shared.volumeKey.fill(0);
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

  /** Starts `count` threads; `spawn` starts one (tests give their own). */
  constructor(count: number, spawn: () => Worker = spawnThread) {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('@x/cli: count must be a whole number ≥ 1');
    this.count = count;
    this.#threads = [];
    for (let i = 0; i < count; i++) this.#threads.push(this.#watch(spawn()));
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
    const { extents } = volume.layout;
    this.sectorSize = volume.layout.sectorSize;
    this.payloadSize = extents.length === 0 ? 0 : extents[extents.length - 1].end;
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
