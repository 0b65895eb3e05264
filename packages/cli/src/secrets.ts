// Reading a secret the way both commands take one: the bytes of a file, standard input (`-`), or, when
// standard input is a terminal, one line typed without echo.
import { readFile } from 'node:fs/promises';
import type { CliIo } from './io.js';

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
        if (b === 0x03) return done(new Error('@x/cli: interrupted'));
        if (b === 0x7f || b === 0x08) bytes.pop();
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
 * prompt `Enter <what>: `. The caller zeroes the bytes when done.
 */
export async function readSecret(io: CliIo, file: string, what: string): Promise<Uint8Array> {
  if (file !== '-') return new Uint8Array(await readFile(file));
  if ((io.stdin as NodeJS.ReadStream).isTTY) return readHidden(io, `Enter ${what}: `);
  return readAll(io.stdin);
}
