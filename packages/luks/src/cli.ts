// The x-luks command: `dump` shows a header, `decrypt` writes a volume's plaintext. Node only.
//
//   x-luks dump IMAGE [--json]
//   x-luks decrypt IMAGE OUT (--passphrase-file F | --key-file F) [--keyslot N] [--force]
//
// Exit status: 0 done, 2 wrong passphrase or volume key, 1 anything else. `decrypt` streams the payload
// through a ring of preallocated chunk buffers (./pump.ts: while a thread of its own writes one chunk,
// the next is decrypted and the one after it read), into a temporary file next to OUT that is renamed to
// OUT only when every byte is written; on any failure (and on SIGINT/SIGTERM) the temporary file is
// removed, so no partial OUT is ever left.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeHeader, headerToJson } from './describe.js';
import { LuksError, WrongPassphraseError, WrongVolumeKeyError } from './errors.js';
import { openFileSource } from './file.js';
import { readHeaderFrom } from './header.js';
import { pumpVolume, startWriter, type ChunkSink, type Writer } from './pump.js';
import { openLuks, type LuksVolume } from './volume.js';

/**
 * Where the command reads and writes; the process's streams by default (tests pass their own).
 *
 * @example
 * ```ts
 * await main(['dump', 'disk.img'], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
 * ```
 */
export interface CliIo {
  readonly stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  readonly stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** Payload bytes per chunk: large enough that per-call costs vanish, small enough for any machine. */
export const CHUNK_BYTES = 4 << 20;
/** Chunk buffers in the ring: one being written, one being decrypted, one being read (./pump.ts). */
const DEPTH = 3;
/** Bytes per write(2) into a file or device: cat's buffer size (coreutils io_blksize). See ./pump.ts. */
const WRITE_PIECE_BYTES = 128 << 10;

const USAGE = `usage:
  x-luks dump IMAGE [--json]
  x-luks decrypt IMAGE OUT (--passphrase-file FILE | --key-file FILE) [--keyslot N] [--force]

  dump      print the LUKS1/LUKS2 header: keyslots, segments, digests (--json: as JSON)
  decrypt   write the payload's plaintext to OUT (- for stdout); OUT must not exist unless --force
  --passphrase-file FILE   the passphrase: every byte of FILE, as cryptsetup --key-file reads it
                           (- reads stdin; from a terminal, one line typed without echo)
  --key-file FILE          the raw volume key (binary), as luksDump --dump-volume-key shows it
  --keyslot N              try only keyslot N

exit status: 0 done, 2 wrong passphrase or volume key, 1 other errors`;

class UsageError extends Error {}

const MiB = 1024 * 1024;
const fmtMiB = (n: number) => (n < MiB ? `${(n / 1024).toFixed(0)} KiB` : `${(n / MiB).toFixed(1)} MiB`);
const fmtRate = (bytes: number, ms: number) => `${ms > 0 ? (bytes / 1e6 / (ms / 1000)).toFixed(1) : '∞'} MB/s`;

async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as AsyncIterable<Uint8Array | string>)
    parts.push(typeof part === 'string' ? Buffer.from(part) : part);
  const out = new Uint8Array(Buffer.concat(parts));
  for (const p of parts) p.fill(0);
  return out;
}

/** One line from a terminal, not echoed (Enter ends it; Ctrl-C aborts). */
function readHidden(io: CliIo, prompt: string): Promise<Uint8Array> {
  const tty = io.stdin as NodeJS.ReadStream;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    const bytes: number[] = [];
    tty.setRawMode(true);
    tty.resume();
    const done = (err?: Error) => {
      tty.setRawMode(false);
      tty.pause();
      tty.off('data', onData);
      io.stderr.write('\n');
      if (err) reject(err);
      else resolve(Uint8Array.from(bytes));
      bytes.fill(0);
    };
    const onData = (chunk: Buffer) => {
      for (const b of chunk) {
        if (b === 0x0d || b === 0x0a) return done();
        if (b === 0x03) return done(new LuksError('@x/luks: interrupted'));
        if (b === 0x7f || b === 0x08) bytes.pop();
        else bytes.push(b);
      }
      chunk.fill(0);
    };
    tty.on('data', onData);
  });
}

async function readSecret(io: CliIo, file: string, what: string): Promise<Uint8Array> {
  if (file !== '-') return new Uint8Array(await readFile(file));
  if ((io.stdin as NodeJS.ReadStream).isTTY) return readHidden(io, `Enter ${what}: `);
  return readAll(io.stdin);
}

/** A progress bar on a terminal, nothing otherwise. */
function progress(io: CliIo, total: number) {
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
        `\r[${'#'.repeat(full)}${' '.repeat(width - full)}] ${(100 * f).toFixed(0).padStart(3)}%  ${fmtMiB(done)} / ${fmtMiB(total)}  ${fmtRate(done, now - start)} `,
      );
    },
    finish(done: number) {
      const ms = performance.now() - start;
      if (tty) io.stderr.write('\r\x1b[K');
      io.stderr.write(`x-luks: decrypted ${fmtMiB(done)} in ${(ms / 1000).toFixed(2)} s, ${fmtRate(done, ms)}\n`);
    },
  };
}

/** Writes all of `buf` at the file's current position (FIFOs and character devices such as /dev/null). */
async function writeFully(fh: import('node:fs/promises').FileHandle, buf: Uint8Array): Promise<void> {
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

const pump = (volume: LuksVolume, sink: ChunkSink, onProgress: (done: number) => void, shared = false) =>
  pumpVolume(volume, sink, onProgress, { chunkBytes: CHUNK_BYTES, depth: DEPTH, shared });

async function dump(io: CliIo, image: string, json: boolean): Promise<void> {
  const src = await openFileSource(image);
  try {
    const h = await readHeaderFrom(src);
    io.stdout.write(json ? `${JSON.stringify(headerToJson(h), null, 2)}\n` : `${describeHeader(h)}\n`);
  } finally {
    await src.close();
  }
}

async function exists(path: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function decrypt(
  io: CliIo,
  image: string,
  out: string,
  secret: { passphrase?: Uint8Array; volumeKey?: Uint8Array },
  keyslot: string | undefined,
  force: boolean,
): Promise<void> {
  const existing = out === '-' ? undefined : await exists(out);
  if (existing && !force) throw new UsageError(`${out} exists; pass --force to overwrite it`);
  const src = await openFileSource(image);
  // Files and block devices are written by a thread of their own, started now so that unlocking hides
  // its start; FIFOs, character devices and stdout are written from this thread, in order.
  const positional = out !== '-' && (!existing || existing.isFile() || existing.isBlockDevice());
  let writer: Writer | undefined;
  let volume: LuksVolume | undefined;
  try {
    if (positional) writer = startWriter(WRITE_PIECE_BYTES);
    volume = await openLuks(src, { ...secret, keyslot });
    io.stderr.write(
      `x-luks: LUKS${volume.version} ${volume.cipher}, ${volume.sectorSize}-byte sectors, ${fmtMiB(volume.payloadSize)} of payload at ${volume.payloadOffset}` +
        `${volume.keyslot === undefined ? ', volume key given' : `, keyslot ${volume.keyslot}`}, kernel ${volume.kernel}\n`,
    );
    const bar = progress(io, volume.payloadSize);
    if (out === '-') {
      const total = await pump(volume, { write: (buf) => writeStream(io.stdout, buf) }, bar.update);
      bar.finish(total);
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
        bar.finish(await pump(volume, sink, bar.update, writer !== undefined));
      } finally {
        await fh.close();
      }
      return;
    }
    const tmp = join(dirname(out), `.${basename(out)}.x-luks-${process.pid}-${randomBytes(4).toString('hex')}.part`);
    const fh = await open(tmp, 'wx', 0o600);
    const cleanup = () => {
      try {
        rmSync(tmp, { force: true }); // synchronous: a signal handler cannot wait
      } catch {
        /* already gone */
      }
    };
    const onSignal = (sig: NodeJS.Signals) => {
      cleanup();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const total = await pump(volume, writer!.sink(fh.fd), bar.update, true);
      await fh.close();
      if (!force && (await exists(out)))
        throw new UsageError(`${out} appeared while decrypting; pass --force to overwrite it`);
      await rename(tmp, out);
      bar.finish(total);
    } catch (e) {
      await fh.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw e;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } finally {
    volume?.close();
    await Promise.all([src.close(), writer?.close()]);
  }
}

/**
 * Runs `x-luks` with `argv` (the arguments after the command name) and returns the exit status:
 * 0 done, 2 wrong passphrase or volume key, 1 anything else (usage, I/O, header errors).
 *
 * @example
 * ```ts
 * import { main } from '@x/luks/cli';
 * process.exitCode = await main(['dump', 'disk.img', '--json']);
 * ```
 */
export async function main(argv: readonly string[], io: CliIo = process): Promise<number> {
  let secretBytes: Uint8Array | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        force: { type: 'boolean' },
        'passphrase-file': { type: 'string' },
        'key-file': { type: 'string' },
        keyslot: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [command, ...rest] = positionals;
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (command === 'dump') {
      if (rest.length !== 1) throw new UsageError('dump takes one IMAGE');
      await dump(io, rest[0], values.json === true);
      return 0;
    }
    if (command === 'decrypt') {
      if (rest.length !== 2) throw new UsageError('decrypt takes IMAGE and OUT');
      const pf = values['passphrase-file'],
        kf = values['key-file'];
      if ((pf === undefined) === (kf === undefined))
        throw new UsageError('decrypt needs exactly one of --passphrase-file and --key-file');
      if (values.keyslot !== undefined && !/^\d+$/.test(values.keyslot))
        throw new UsageError('--keyslot takes a keyslot number');
      secretBytes = await readSecret(io, (pf ?? kf)!, pf !== undefined ? 'passphrase' : 'volume key');
      const secret = pf !== undefined ? { passphrase: secretBytes } : { volumeKey: secretBytes };
      await decrypt(io, rest[0], rest[1], secret, values.keyslot, values.force === true);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command "${command}"`);
  } catch (e) {
    if (e instanceof WrongPassphraseError || e instanceof WrongVolumeKeyError) {
      io.stderr.write(`x-luks: ${e.message.replace(/^@x\/luks: /, '')}\n`);
      return 2;
    }
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`x-luks: ${(e as Error).message}\n${USAGE}\n`);
      return 1;
    }
    io.stderr.write(`x-luks: ${(e as Error).message.replace(/^@x\/luks: /, '')}\n`);
    return 1;
  } finally {
    secretBytes?.fill(0);
  }
}
