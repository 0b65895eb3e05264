// Reading a secret the way both commands take one: the bytes of a file, standard input (`-`), or, when
// standard input is a terminal, one line typed without echo. Bounded as cryptsetup bounds them (`cryptsetup
// --help`: "Maximum keyfile size: 8192kB, Maximum interactive passphrase length 512 (characters)"): no more
// than the bound and one byte is read from a file, so `-d /dev/zero` is refused at once.
import { open } from 'node:fs/promises';
import type { CliIo } from './io.js';

/** The most bytes a key or passphrase file (or stdin) may hold: cryptsetup's DEFAULT_KEYFILE_SIZE_MAXKB, 8 MiB. */
export const KEY_FILE_MAX = 8192 * 1024;
/** The most characters a passphrase typed at a terminal may have: cryptsetup's, 512. */
export const TYPED_MAX = 512;
/**
 * The most bytes of a raw volume key (`--volume-key-file`): 512, cryptsetup's largest key (4096 bits); the
 * formats then want their key's exact length (64 for AES-XTS-256).
 */
export const VOLUME_KEY_MAX = 512;

/** What a secret over its bound says: `pass.bin: more than 8 MiB (8388608 bytes), …`. */
function tooLarge(name: string, max: number): Error {
  const size = max >= 1 << 20 ? `${max / (1 << 20)} MiB (${max} bytes)` : `${max} bytes`;
  return new Error(
    `${name}: more than ${size}, the most a ${max === VOLUME_KEY_MAX ? 'volume key' : 'key'} file may hold`,
  );
}

/** Concatenates `parts` into one array and wipes them. */
function joined(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
    p.fill(0);
  }
  return out;
}

/** Every byte of the file `path`, reading at most `max` + 1 of them (more is refused). */
async function readFileBounded(path: string, max: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const part = new Uint8Array(Math.min(64 << 10, max + 1 - total));
      const { bytesRead } = await fh.read(part, 0, part.length, null);
      if (bytesRead === 0) break;
      parts.push(part.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) throw tooLarge(path, max);
    }
    return joined(parts, total);
  } catch (e) {
    for (const p of parts) p.fill(0);
    throw e;
  } finally {
    await fh.close();
  }
}

/** All of `stream` (standard input), refused as soon as it has given more than `max` bytes. */
async function readAll(stream: NodeJS.ReadableStream, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of stream as AsyncIterable<Uint8Array | string>) {
    parts.push(typeof part === 'string' ? Buffer.from(part) : part);
    total += parts[parts.length - 1].length;
    if (total > max) {
      for (const p of parts) p.fill(0);
      (stream as NodeJS.ReadStream).destroy?.();
      throw tooLarge('standard input', max);
    }
  }
  return joined(parts, total);
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
        if (b === 0x03) return done(new Error('@x/cli: interrupted'));
        if (b === 0x7f || b === 0x08) bytes.pop();
        else if (bytes.length >= TYPED_MAX * 4)
          // UTF-8: 512 characters are at most 2048 bytes
          return done(
            new Error(`@x/cli: the ${prompt.replace(/^Enter |: $/g, '')} typed is longer than ${TYPED_MAX} characters`),
          );
        else bytes.push(b);
      }
      chunk.fill(0);
    };
    tty.on('data', onData);
  });
}

/**
 * The secret named on the command line: every byte of `file` (nothing stripped, as cryptsetup reads a
 * key file); for `-`, all of standard input, or from a terminal one line typed without echo after the
 * prompt `Enter <what>: `. At most `max` bytes (default {@link KEY_FILE_MAX}; a typed line: {@link TYPED_MAX}
 * characters): more is an error. The caller zeroes the bytes when done.
 */
export async function readSecret(io: CliIo, file: string, what: string, max = KEY_FILE_MAX): Promise<Uint8Array> {
  if (file !== '-') return readFileBounded(file, max);
  if ((io.stdin as NodeJS.ReadStream).isTTY) return readHidden(io, `Enter ${what}: `);
  return readAll(io.stdin, max);
}
