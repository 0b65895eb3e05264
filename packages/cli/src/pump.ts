// Streaming a volume's payload out chunk by chunk, for `x-luks decrypt` and `x-disk decrypt` (Node only).
//
// A ring of `depth` chunk buffers, allocated once. Every buffer but the one being written has a read in
// flight (on libuv's thread pool), and `volume.read` decrypts a chunk on this thread as soon as its bytes
// have arrived: so while chunk i is written, chunk i+1 is decrypted and chunk i+2 is read. With the
// writer thread ({@link startWriter}) the three stages run on three threads; with a stream (stdout, a
// FIFO), reads and decryption still overlap the writes.
import { Worker } from 'node:worker_threads';

/** Payload bytes per chunk of `decrypt` (./output.ts): large enough that per-call costs vanish, small enough for any machine. */
export const CHUNK_BYTES = 4 << 20;

/**
 * What {@link pumpVolume} reads from: a payload of `payloadSize` bytes in sectors of `sectorSize`, read
 * and decrypted by `read` (a LUKS, BitLocker or FileVault 2 volume).
 */
export interface SectorReader {
  readonly sectorSize: number;
  readonly payloadSize: number;
  /** Decrypts payload sectors `firstSector …` into `dst` (a whole number of sectors). */
  read(dst: Uint8Array, firstSector: number): Promise<void>;
}

/**
 * Where the decrypted chunks go, in payload order. `write` may return a promise, and may be called for
 * the next chunk before that promise resolves: the sink keeps the order. A buffer is reused only once
 * `write` has returned (or its promise has resolved).
 */
export interface ChunkSink {
  write(buf: Uint8Array, position: number): void | Promise<void>;
}

/** How {@link pumpVolume} cuts the payload. */
export interface PumpOptions {
  /** Bytes per chunk, rounded down to whole sectors (at least one sector). */
  readonly chunkBytes: number;
  /** Chunk buffers: `depth − 1` chunks are read and decrypted while one is written. At least 1. */
  readonly depth: number;
  /** Chunk buffers on one SharedArrayBuffer, so that a worker thread writes them without a copy. */
  readonly shared?: boolean;
}

/**
 * The chunk length actually used for a payload: `chunkBytes` rounded down to whole sectors, at least one
 * sector, at most the payload.
 */
export function chunkLength(payloadSize: number, sectorSize: number, chunkBytes: number): number {
  const whole = Math.max(sectorSize, chunkBytes - (chunkBytes % sectorSize));
  return Math.min(whole, Math.max(sectorSize, payloadSize));
}

/**
 * Decrypts the whole payload of `volume` into `sink`, chunk by chunk (see the top of this file), calling
 * `onProgress` with the bytes written so far after each chunk. Returns the payload size. The buffers are
 * zeroed before it returns or throws; a failed read or write stops it once the reads and writes in flight
 * have settled.
 */
export async function pumpVolume(
  volume: SectorReader,
  sink: ChunkSink,
  onProgress: (done: number) => void,
  options: PumpOptions,
): Promise<number> {
  const total = volume.payloadSize;
  const sector = volume.sectorSize;
  const chunk = chunkLength(total, sector, options.chunkBytes);
  const count = Math.ceil(total / chunk);
  const slots = Math.max(1, Math.min(options.depth, count));
  const memory = options.shared ? new SharedArrayBuffer(slots * chunk) : new ArrayBuffer(slots * chunk);
  const buffers = Array.from({ length: slots }, (_, i) => new Uint8Array(memory, i * chunk, chunk));
  // Per buffer: the read of the chunk it holds, then that chunk's write, which starts the next read into it.
  const reads: (Promise<void> | undefined)[] = new Array(slots);
  const writes: (Promise<void> | undefined)[] = new Array(slots);
  const view = (i: number) => {
    const n = Math.min(chunk, total - i * chunk);
    const b = buffers[i % slots];
    return n === chunk ? b : b.subarray(0, n);
  };
  // Each promise is awaited in turn; the empty catch only keeps a failure from being reported as unhandled
  // meanwhile.
  const start = (i: number) => {
    const read = volume.read(view(i), (i * chunk) / sector);
    read.catch(() => {});
    reads[i % slots] = read;
  };
  let done = 0;
  try {
    for (let i = 0; i < slots && i < count; i++) start(i);
    for (let i = 0; i < count; i++) {
      const s = i % slots;
      await writes[s]; // chunk i − slots is written, and chunk i's read started
      await reads[s]; // chunk i is read and decrypted
      const buf = view(i);
      const next = i + slots;
      const write = Promise.resolve(sink.write(buf, i * chunk)).then(() => {
        done += buf.length;
        onProgress(done);
        if (next < count) start(next); // the buffer is free again
      });
      write.catch(() => {});
      writes[s] = write; // not awaited here: the next chunk is written (queued) as soon as it is decrypted
    }
    await Promise.all(writes);
    return done;
  } finally {
    await Promise.allSettled([...reads, ...writes].filter((p) => p !== undefined));
    for (const b of buffers) b.fill(0);
  }
}

// The writer thread, as CommonJS source, so that it needs no file of its own next to this module (the
// commands also run bundled into one file). It writes a chunk in synchronous write(2) calls of at most
// pieceBytes: in pieces, because one write(2) of many MiB makes Linux (6.x, ext4 with large folios) fill the page
// cache with large folios, which cost several times the system time of cat's 128 KiB writes on the
// machine measured (a VM that returns free memory to its host: tools/bench, `npm run bench -- --job`).
const WRITER = `
const { parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
parentPort.on('message', ({ fd, buf, position, pieceBytes }) => {
  try {
    for (let o = 0; o < buf.length; ) {
      o += writeSync(fd, buf, o, Math.min(pieceBytes, buf.length - o), position + o);
    }
    parentPort.postMessage(null);
  } catch (e) {
    parentPort.postMessage({ message: String(e && e.message), code: e && e.code });
  }
});
`;

/** A writer thread: {@link Writer.sink} gives a {@link ChunkSink} for a file on it; `close` ends it. */
export interface Writer {
  sink(fd: number): ChunkSink;
  close(): Promise<void>;
}

/**
 * Starts a worker thread that writes chunks at their positions in a file (a regular file or a block
 * device), in pieces of at most `pieceBytes` and in the order given, so that this thread decrypts the next
 * chunk meanwhile. The chunks must live on a SharedArrayBuffer ({@link PumpOptions.shared}): the thread
 * writes them where they are. Start it early: a thread takes a few tens of milliseconds to start, time
 * that a keyslot unlock can hide.
 */
export function startWriter(pieceBytes: number): Writer {
  const worker = new Worker(WRITER, { eval: true });
  // The thread answers its messages in order: one answer per chunk, for the oldest chunk waiting.
  const waiting: { resolve(): void; reject(e: Error): void }[] = [];
  let failed: Error | undefined;
  const fail = (e: Error) => {
    failed ??= e;
    for (const w of waiting.splice(0)) w.reject(failed);
  };
  worker.on('message', (m: { message: string; code?: string } | null) => {
    if (m !== null) fail(Object.assign(new Error(m.message), { code: m.code }));
    else waiting.shift()?.resolve();
  });
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('@x/cli: the writer thread stopped')));
  return {
    sink: (fd) => ({
      write(buf, position) {
        if (!(buf.buffer instanceof SharedArrayBuffer))
          return Promise.reject(new TypeError('@x/cli: the writer thread takes chunks on a SharedArrayBuffer'));
        if (failed) return Promise.reject(failed);
        return new Promise<void>((resolve, reject) => {
          waiting.push({ resolve, reject });
          worker.postMessage({ fd, buf, position, pieceBytes });
        });
      },
    }),
    async close() {
      failed ??= new Error('@x/cli: the writer thread is closed');
      await worker.terminate();
    },
  };
}
