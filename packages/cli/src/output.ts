// Writing a volume's plaintext to OUT, for every format: the one copy of `decrypt`'s output rules.
//
// OUT is a new file, `-` (standard output), or with --force an existing file, device or FIFO. The payload
// streams through a ring of preallocated chunk buffers (./pump.ts: while a thread of its own writes one
// chunk, the next is decrypted and the one after it read) into a temporary file next to OUT that is
// renamed to OUT only when every byte is written; on any failure (and on a signal, ./signals.ts) the temporary
// file is removed, so no partial OUT is ever left. Devices and FIFOs (e.g. /dev/null) are written in place.
// With `threads` (`--threads N`, N > 1), N threads decrypt the chunks (./decrypt-threads.ts) and this
// thread only keeps them in order: the same output, byte for byte, by the same rules.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type DiskVolume, type Opened, sizeText } from '@x/disk-format';
import { type CliIo, fmtRate, isClosedPipe, UsageError } from './io.js';
import type { DecryptThreads } from './decrypt-threads.js';
import { markCommitted, willCreate } from './temporaries.js';
import {
  CHUNK_BYTES,
  type ChunkSink,
  chunkLength,
  pumpVolume,
  type SectorReader,
  startWriter,
  type Writer,
} from './pump.js';

/** Chunk buffers in the ring: one being written, one being decrypted, one being read (./pump.ts). */
const DEPTH = 3;
/** With N decrypt threads: one chunk per thread, one being written, one decrypted and waiting for it. */
const threadedDepth = (threads: number) => threads + 2;
/** Bytes per write(2) into a file or device: cat's buffer size (coreutils io_blksize). See ./pump.ts. */
const WRITE_PIECE_BYTES = 128 << 10;

/** One `decrypt`: where to, and how to open the volume once OUT has been checked. */
export interface DecryptJob {
  /** The command's name: the prefix of its stderr lines and part of the temporary file's name. */
  readonly command: string;
  /** The output path, or `-` for standard output. */
  readonly out: string;
  /** The image's path: OUT may not be the same file (device and inode), not even with --force. */
  readonly image: string;
  /** Overwrite an existing OUT. */
  readonly force: boolean;
  /**
   * Unlocks the volume (called once OUT is known to be writable, while the writer thread starts); with
   * `threads` above 1, opened to share (`{ share: true }`). Its summary line is printed after `command: `.
   */
  open(): Promise<Opened>;
  /** Decrypt threads (1: on this thread only). */
  readonly threads: number;
  /** The image's size, for the threads to check that it has not changed. */
  readonly imageSize: number;
}

/**
 * A progress bar on a terminal, nothing otherwise; one line with the throughput at the end
 * (`x-luks: decrypted 1.0 GiB in 0.97 s, …`, `verb` saying what was done).
 */
export function progress(io: CliIo, command: string, total: number, verb = 'decrypted') {
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
  const start = performance.now();
  let last = 0;
  return {
    update(done: number) {
      if (!tty) return;
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const f = total === 0 ? 1 : done / total;
      const width = 30;
      const full = Math.round(f * width);
      io.stderr.write(
        `\r[${'#'.repeat(full)}${' '.repeat(width - full)}] ${(100 * f).toFixed(0).padStart(3)}%  ${sizeText(done)} / ${sizeText(total)}  ${fmtRate(done, now - start)} `,
      );
    },
    finish(done: number) {
      const ms = performance.now() - start;
      if (tty) io.stderr.write('\r\x1b[K');
      io.stderr.write(`${command}: ${verb} ${sizeText(done)} in ${(ms / 1000).toFixed(2)} s, ${fmtRate(done, ms)}\n`);
    },
  };
}

/** Writes all of `buf` at the file's current position (FIFOs and character devices such as /dev/null). */
async function writeFully(fh: FileHandle, buf: Uint8Array): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, null);
    done += bytesWritten;
  }
}

function writeStream(stream: NodeJS.WritableStream, buf: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(buf, (err) => (err ? reject(err) : resolve()));
  });
}

/** What `decrypt` pumps: a volume, or decrypt threads (`threads` of them) once they are open. */
interface Reader {
  readonly reader: SectorReader;
  readonly threads?: number;
}

/** Pumps `from` into `sink`: with decrypt threads, always through chunks on a SharedArrayBuffer. */
const pump = (from: Reader, sink: ChunkSink, onProgress: (done: number) => void, shared = false) =>
  pumpVolume(
    from.reader,
    sink,
    onProgress,
    from.threads !== undefined
      ? { chunkBytes: CHUNK_BYTES, depth: threadedDepth(from.threads), shared: true }
      : { chunkBytes: CHUNK_BYTES, depth: DEPTH, shared },
  );

/**
 * Has `threads` open what `volume.share()` gives, and returns the reader to pump: `volume` until a thread
 * is ready, the threads from then on ({@link UntilThreadsOpen}); or, when the volume has nothing to share or
 * its payload is one chunk (which one thread decrypts as fast), `volume` alone, the threads being closed. The
 * key is wiped here, whatever happens: the threads have their clones once `open` has been called.
 */
async function threadedReader(job: DecryptJob, volume: DiskVolume, threads: DecryptThreads): Promise<Reader> {
  const shared = volume.share?.();
  let opening: Promise<void>;
  try {
    const chunk = chunkLength(volume.payloadSize, volume.sectorSize, CHUNK_BYTES);
    if (shared === undefined || volume.payloadSize <= chunk) {
      await threads.close();
      return { reader: volume };
    }
    opening = threads.open({ ...shared, image: job.image, imageSize: job.imageSize });
  } finally {
    shared?.volumeKey.fill(0);
  }
  const { UntilThreadsOpen } = await import('./decrypt-threads.js'); // loaded already: threads were started
  return { reader: new UntilThreadsOpen(volume, threads, opening), threads: threads.count };
}

/** `lstat(path)`, or undefined when there is nothing there. */
export async function exists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The rules for an OUT before anything is written: never the input itself, whatever the name (device and
 * inode, not even with --force: `sameFile` is the refusal's text), and an existing one only with --force.
 * Returns what is there now (undefined: nothing).
 */
export async function checkOut(
  out: string,
  input: string,
  force: boolean,
  sameFile: string,
): Promise<Stats | undefined> {
  const existing = await exists(out);
  if (existing) {
    // the same file by another name (a link, a path with ..): its device and inode, not its name
    const [target, image] = await Promise.all([stat(out).catch(() => undefined), stat(input)]);
    if (target && target.dev === image.dev && target.ino === image.ino) throw new UsageError(`${out} ${sameFile}`);
    if (!force) throw new UsageError(`${out} exists; pass --force to overwrite it`);
  }
  return existing;
}

/**
 * Writes OUT through a temporary file next to it (mode 0600): `write(fh)` fills it; once it returns, the
 * file is renamed to OUT (refused, without --force, if OUT appeared meanwhile: `verb` says while doing
 * what). On any failure the temporary file is removed, and on a signal too (./signals.ts): its name is on
 * the list of ./temporaries.ts before it is created (synchronously, so that no signal is handled in
 * between) until it is renamed (synchronously too). No partial OUT, no temporary file is ever left.
 */
export async function intoNewFile<T>(
  out: string,
  command: string,
  force: boolean,
  verb: string,
  write: (fh: FileHandle) => Promise<T>,
): Promise<T> {
  const tmp = join(dirname(out), `.${basename(out)}.${command}-${process.pid}-${randomBytes(4).toString('hex')}.part`);
  const listed = willCreate(tmp);
  try {
    closeSync(openSync(tmp, 'wx', 0o600));
  } catch (e) {
    listed.forget(); // not ours: never remove it
    throw e;
  }
  let fh: FileHandle | undefined;
  try {
    // created above, opened again here without following a link someone could have put in its place
    fh = await open(tmp, constants.O_RDWR | constants.O_NOFOLLOW);
    const result = await write(fh);
    await fh.close();
    fh = undefined;
    if (!force && (await exists(out)))
      throw new UsageError(`${out} appeared while ${verb}; pass --force to overwrite it`);
    renameSync(tmp, out);
    listed.forget();
    markCommitted();
    return result;
  } catch (e) {
    await fh?.close().catch(() => {});
    rmSync(tmp, { force: true });
    listed.forget();
    throw e;
  }
}

/**
 * Writes the plaintext of the volume `job.open()` unlocks to `job.out` (see the top of this file), with a
 * summary line first and the throughput last on stderr. The volume is closed before it returns or throws.
 *
 * @throws UsageError when OUT exists (or appears meanwhile) and `force` is not set.
 */
export async function decryptTo(io: CliIo, job: DecryptJob): Promise<void> {
  const { command, out, force } = job;
  const existing =
    out === '-'
      ? undefined
      : await checkOut(
          out,
          job.image,
          force,
          'is the image itself: refusing to write its plaintext over it, even with --force',
        );
  // Files and block devices are written by a thread of their own, started now so that unlocking hides
  // its start; FIFOs, character devices and stdout are written from this thread, in order.
  const positional = out !== '-' && (!existing || existing.isFile() || existing.isBlockDevice());
  let writer: Writer | undefined;
  let threads: DecryptThreads | undefined;
  let volume: DiskVolume | undefined;
  try {
    if (positional) writer = startWriter(WRITE_PIECE_BYTES);
    // started before the unlock too, which hides their start (and their loading of this code); the thread
    // code is loaded only here, when there are threads
    if (job.threads > 1) threads = new (await import('./decrypt-threads.js')).DecryptThreads(job.threads);
    const opened = await job.open();
    volume = opened.volume;
    const reader: Reader = threads ? await threadedReader(job, volume, threads) : { reader: volume };
    const on = reader.threads !== undefined ? ` (${reader.threads} threads)` : '';
    io.stderr.write(`${command}: ${opened.summary}${on}\n`);
    const bar = progress(io, command, volume.payloadSize);
    if (out === '-') {
      let done = 0;
      try {
        const total = await pump(reader, { write: (buf) => writeStream(io.stdout, buf) }, (n) => {
          done = n;
          bar.update(n);
        });
        bar.finish(total);
      } catch (e) {
        if (!isClosedPipe(e)) throw e;
        // the reader has gone (`| head -c1`): a normal end, not an error
        io.stderr.write(`${command}: the output was closed after ${sizeText(done)}\n`);
      }
      return;
    }
    if (existing && !existing.isFile()) {
      // a device or a FIFO (e.g. /dev/null), with --force: written in place, there is nothing to rename
      const fh = await open(out, 'w');
      try {
        let last = Promise.resolve();
        const inOrder = (buf: Uint8Array) => {
          last = last.then(() => writeFully(fh, buf)); // one write at a time, in order
          return last;
        };
        const sink: ChunkSink = writer ? writer.sink(fh.fd) : { write: inOrder };
        bar.finish(await pump(reader, sink, bar.update, writer !== undefined));
      } finally {
        await fh.close();
      }
      return;
    }
    const total = await intoNewFile(out, command, force, 'decrypting', (fh) =>
      pump(reader, writer!.sink(fh.fd), bar.update, true),
    );
    bar.finish(total);
  } finally {
    volume?.close();
    await threads?.close(); // on every path: threads left running would keep the process alive
    await writer?.close();
  }
}
