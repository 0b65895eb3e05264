// The page's Web Worker: everything that touches the image, the secret or the key happens here, off the
// page's thread. The format table is x-disk's own (`@x/cli/formats`: the same detection, header dump,
// secrets and summary line as the command), so the page and the command cannot disagree about an image.
//
// Memory: the image is read through a Blob source (slices of the File, never the whole of it), and the
// plaintext goes out in `depth` chunk buffers that travel to the page and back (transferred, not copied),
// so the worker holds at most `depth` chunks whatever the image's size. The buffers and the secret are
// zeroed after use; `volume.close()` wipes the key as soon as the last chunk is decrypted or the run is
// cancelled.
import { init } from '@x/aes-kernels';
import { blobSource, type ByteSource } from '@x/byte-source';
import { FORMATS, type Format, type FormatModule, firstBytes, type OpenedVolume, type Secret } from '@x/cli/formats';
import type { FromWorker, SecretChoice, SecretMessage, ToWorker } from './protocol.ts';

/** The names of the errors that mean "wrong secret" in every format package (x-disk's exit status 2). */
const WRONG_SECRET = new Set(['WrongPassphraseError', 'WrongVolumeKeyError']);

let source: ByteSource | undefined;
let format: FormatModule | undefined;
let volume: OpenedVolume | undefined;
/** Chunk buffers back from the page, ready for the next chunk. */
const free: ArrayBuffer[] = [];
/** Wakes the decryption loop when a buffer comes back or the run is cancelled. */
let wake: (() => void) | undefined;
let running = false;
let cancelled = false;

const post = (m: FromWorker, transfer: Transferable[] = []) => self.postMessage(m, { transfer });

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  switch (m.type) {
    // These two arrive while `decrypt` runs: handled at once, never awaited.
    case 'buffer':
      if (running && !cancelled) free.push(m.buf);
      else new Uint8Array(m.buf).fill(0);
      wake?.();
      return;
    case 'cancel':
      cancelled = true;
      wake?.();
      return;
    case 'inspect':
      void run(() => inspect(m.file));
      return;
    case 'unlock':
      void run(() => unlock(m.secret));
      return;
    case 'decrypt':
      void run(() => decrypt(m.chunkBytes, m.depth));
      return;
  }
};

/** Runs one step, turning a failure into an `error` message (x-disk's text: no package prefix). */
async function run(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    post({
      type: 'error',
      name: error.name,
      message: error.message.replace(/^@x\/[a-z0-9-]+: /, ''),
      wrongSecret: WRONG_SECRET.has(error.name),
    });
  }
}

async function inspect(file: File): Promise<void> {
  source = blobSource(file);
  const first = await firstBytes(source);
  let found: Format | undefined;
  for (const f of FORMATS) {
    if (await f.detect(first, source)) {
      found = f;
      break;
    }
  }
  if (!found) {
    const why = first.length < 512 ? `only ${first.length} bytes` : 'no known signature';
    throw new Error(`${file.name} is not a LUKS, BitLocker or FileVault 2 volume (${why})`);
  }
  format = await found.load();
  const dump = await format.dump(source, false);
  let name = found.name;
  if (found.type === 'luks') name = `LUKS${(await (await import('@x/luks')).readHeader(source)).version}`;
  const secrets: SecretChoice[] = format.secrets.filter((s): s is Exclude<SecretChoice, 'none'> => s !== 'volumeKey');
  if (format.clearKey) secrets.push('none');
  post({ type: 'inspected', format: name, dump, secrets });
}

async function unlock(message: SecretMessage): Promise<void> {
  if (!source || !format) throw new Error('no image is open');
  let secret: Secret | undefined;
  if (message.kind === 'startupKey')
    secret = { kind: 'startupKey', bytes: new Uint8Array(await message.file.arrayBuffer()) };
  else if (message.kind !== 'none') secret = { kind: message.kind, bytes: new Uint8Array(message.bytes) };
  try {
    // Prepares the WebAssembly kernel (compiled asynchronously); without it (no SIMD, a CSP without
    // 'wasm-unsafe-eval') the portable kernel runs, and the summary says so.
    await init();
    volume = await format.open(source, secret, {});
  } finally {
    secret?.bytes.fill(0);
  }
  post({ type: 'unlocked', summary: volume.summary, kernel: volume.kernel, payloadSize: volume.payloadSize });
}

async function decrypt(chunkBytes: number, depth: number): Promise<void> {
  const v = volume;
  if (!v) throw new Error('the volume is not unlocked');
  const total = v.payloadSize;
  const sector = v.sectorSize;
  // Whole sectors, at least one, at most the payload.
  const chunk = Math.min(Math.max(sector, chunkBytes - (chunkBytes % sector)), Math.max(sector, total));
  running = true;
  cancelled = false;
  for (let i = 0; i < depth; i++) free.push(new ArrayBuffer(chunk));
  try {
    for (let position = 0; position < total && !cancelled; ) {
      while (free.length === 0 && !cancelled) await new Promise<void>((resolve) => (wake = resolve));
      if (cancelled) break;
      const buf = free.pop()!;
      const length = Math.min(chunk, total - position);
      const view = new Uint8Array(buf, 0, length);
      await v.read(view, position / sector);
      if (cancelled) {
        view.fill(0);
        free.push(buf);
        break;
      }
      post({ type: 'chunk', buf, length, position }, [buf]);
      position += length;
    }
  } finally {
    running = false;
    wake = undefined;
    v.close();
    volume = undefined;
    for (const b of free) new Uint8Array(b).fill(0);
    free.length = 0;
  }
  post(cancelled ? { type: 'cancelled' } : { type: 'done' });
}
