// What the page's worker does with one image, over a list of disk formats (`@x/disk`'s FORMATS, or a list
// with a format of the caller's own): detect the format and dump its header (the same DiskFormat as x-disk,
// so the page and the command cannot disagree about an image), unlock it, decrypt it in chunks. Kept apart
// from worker.ts (which only wires it to the page's messages) so that it runs in a test too.
//
// Memory: the image is read through a Blob source (slices of the File, never the whole of it), and the
// plaintext goes out in `depth` chunk buffers that travel to the page and back (transferred, not copied),
// so the session holds at most `depth` chunks whatever the image's size. The buffers and the secret are
// zeroed after use; `volume.close()` wipes the key as soon as the last chunk is decrypted or the run is
// cancelled.
import { blobSource, type ByteSource } from '@x/byte-source';
import {
  detectFormat,
  type DiskFormat,
  type DiskHeader,
  type DiskVolume,
  type Opened,
  orList,
  type Secret,
  undetectedReason,
  WrongSecretError,
} from '@x/disk-format';
import type { FromWorker, NamedChoice, NamedOffer, SecretChoice, SecretMessage } from './protocol.ts';

/** How the session answers: a message to the page, with what it transfers. */
export type Post = (m: FromWorker, transfer?: Transferable[]) => void;

/**
 * A format the page opens by name, with options of its own (TrueCrypt/VeraCrypt: ./tcrypt.ts): its header
 * is read with the secret, so it comes with the opened volume.
 */
export interface NamedFormat extends NamedOffer {
  /**
   * Opens `source` with the passphrase bytes (possibly empty) and the options; `onProgress` is told each key
   * derivation as it starts.
   */
  open(
    source: ByteSource,
    passphrase: Uint8Array,
    choice: NamedChoice,
    onProgress: (what: string) => void,
  ): Promise<{ opened: Opened; header: DiskHeader }>;
}

/** One image at a time, as the worker's messages drive it (see protocol.ts). */
export class Session {
  #source: ByteSource | undefined;
  #format: DiskFormat | undefined;
  #volume: DiskVolume | undefined;
  /** Chunk buffers back from the page, ready for the next chunk. */
  readonly #free: ArrayBuffer[] = [];
  /** Wakes the decryption loop when a buffer comes back or the run is cancelled. */
  #wake: (() => void) | undefined;
  #running = false;
  #cancelled = false;
  /** The steps, one after the other, in the order they were asked for (see {@link run}). */
  #queue: Promise<void> = Promise.resolve();

  constructor(
    readonly formats: readonly DiskFormat[],
    readonly post: Post,
    /** Made ready before a volume is opened (the page's: the WebAssembly kernel's init). */
    readonly prepare: () => Promise<void> = async () => {},
    /** Formats offered by name when no format of `formats` recognizes the image. */
    readonly named: readonly NamedFormat[] = [],
  ) {}

  /**
   * Runs one step after the steps asked for before it (so `inspect` then `unlock`, sent back to back by a new
   * worker, unlock the image just inspected), turning a failure into an `error` message (x-disk's text: no
   * package prefix).
   */
  run(step: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(() => this.#runNow(step));
    this.#queue = next;
    return next;
  }

  async #runNow(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.post({
        type: 'error',
        name: error.name,
        message: error.message.replace(/^@x\/[a-z0-9-]+: /, ''),
        wrongSecret: error instanceof WrongSecretError,
      });
    }
  }

  /**
   * Detects the format of `file`, and sends its header's dump and the secrets it takes; when no format
   * recognizes it, the formats it may still be, chosen by name (`undetected`), or an error if there are none.
   */
  async inspect(file: Blob & { readonly name: string }): Promise<void> {
    const source = blobSource(file);
    this.#source = source;
    this.#format = undefined;
    const format = await detectFormat(source, this.formats);
    if (!format) {
      // Only the formats detection can recognize: the others (no `detect`) are never ruled out by it.
      const detectable = this.formats.filter((f) => f.detect !== undefined).map((f) => f.name);
      const message = `${file.name} is not a ${orList(detectable)} volume (${undetectedReason(source)})`;
      if (this.named.length === 0) throw new Error(message);
      const named = this.named.map(({ type, name, prfs }) => ({ type, name, prfs }));
      this.post({ type: 'undetected', message, named });
      return;
    }
    this.#format = format;
    const header = await format.readHeader(source);
    const secrets: SecretChoice[] = [...format.secrets];
    if (format.clearKey) secrets.push('none');
    this.post({
      type: 'inspected',
      format: header.title,
      dump: `${header.describe()}\n`, // as x-disk dump prints it
      secrets,
      passphraseName: format.passphraseName ?? 'passphrase',
    });
  }

  /** Opens the inspected image with the secret; `named`: as that format, with its options. */
  async unlock(message: SecretMessage, named?: NamedChoice): Promise<void> {
    if (named) return this.#unlockNamed(message, named);
    const source = this.#source,
      format = this.#format;
    if (!source || !format) throw new Error('no image is open');
    let secret: Secret | undefined;
    if (message.kind === 'startupKey')
      secret = { kind: 'startupKey', bytes: new Uint8Array(await message.file.arrayBuffer()) };
    else if (message.kind !== 'none') secret = { kind: message.kind, bytes: new Uint8Array(message.bytes) };
    try {
      // Prepares the WebAssembly kernel (compiled asynchronously); without it (no SIMD, a CSP without
      // 'wasm-unsafe-eval') the portable kernel runs, and the summary says so.
      await this.prepare();
      const { volume, summary } = await format.open(source, secret);
      this.#volume = volume;
      this.post({ type: 'unlocked', summary, kernel: volume.kernel, payloadSize: volume.payloadSize });
    } finally {
      secret?.bytes.fill(0);
    }
  }

  /** Opens the inspected image as the format `choice` names, telling the page each key derivation tried. */
  async #unlockNamed(message: SecretMessage, choice: NamedChoice): Promise<void> {
    const source = this.#source;
    if (!source) throw new Error('no image is open');
    const format = this.named.find((f) => f.type === choice.type);
    if (!format) throw new Error(`no format of type "${choice.type}" (${orList(this.named.map((f) => f.type))})`);
    if (message.kind !== 'passphrase') throw new TypeError(`a ${format.name} volume opens with a passphrase`);
    const passphrase = new Uint8Array(message.bytes);
    try {
      await this.prepare();
      let count = 0;
      const { opened, header } = await format.open(source, passphrase, choice, (what) =>
        this.post({ type: 'trying', what, count: ++count }),
      );
      const { volume, summary } = opened;
      this.#volume = volume;
      this.post({
        type: 'unlocked',
        header: { format: header.title, dump: `${header.describe()}\n` }, // as x-disk dump prints it
        summary,
        kernel: volume.kernel,
        payloadSize: volume.payloadSize,
      });
    } finally {
      passphrase.fill(0);
    }
  }

  /** A chunk buffer given back by the page (zeroed if no run needs it). */
  giveBack(buf: ArrayBuffer): void {
    if (this.#running && !this.#cancelled) this.#free.push(buf);
    else new Uint8Array(buf).fill(0);
    this.#wake?.();
  }

  /** Stops the run after the chunk being decrypted. */
  cancel(): void {
    this.#cancelled = true;
    this.#wake?.();
  }

  /** Decrypts the whole payload in chunks of about `chunkBytes`, `depth` in flight, and closes the volume. */
  async decrypt(chunkBytes: number, depth: number): Promise<void> {
    const v = this.#volume;
    if (!v) throw new Error('the volume is not unlocked');
    const total = v.payloadSize;
    const sector = v.sectorSize;
    // Whole sectors, at least one, at most the payload.
    const chunk = Math.min(Math.max(sector, chunkBytes - (chunkBytes % sector)), Math.max(sector, total));
    this.#running = true;
    this.#cancelled = false;
    for (let i = 0; i < depth; i++) this.#free.push(new ArrayBuffer(chunk));
    try {
      for (let position = 0; position < total && !this.#cancelled; ) {
        while (this.#free.length === 0 && !this.#cancelled)
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
        if (this.#cancelled) break;
        const buf = this.#free.pop()!;
        const length = Math.min(chunk, total - position);
        const view = new Uint8Array(buf, 0, length);
        await v.read(view, position / sector);
        if (this.#cancelled) {
          view.fill(0);
          this.#free.push(buf);
          break;
        }
        this.post({ type: 'chunk', buf, length, position }, [buf]);
        position += length;
      }
    } finally {
      this.#running = false;
      this.#wake = undefined;
      v.close();
      this.#volume = undefined;
      for (const b of this.#free) new Uint8Array(b).fill(0);
      this.#free.length = 0;
    }
    this.post(this.#cancelled ? { type: 'cancelled' } : { type: 'done' });
  }
}
