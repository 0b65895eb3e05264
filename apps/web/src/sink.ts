// Where the plaintext goes, chunk by chunk, in payload order.
//
// With the File System Access API (Chromium-based browsers), a file the person picks, written as a
// stream: the browser writes into a temporary file beside it and puts it in place on close(); abort()
// discards it, so a cancelled or failed run leaves nothing.
//
// Elsewhere, a download. There is no way to stream a download from a page without a Service Worker (and
// a Service Worker would be a second program, one that outlives the page and sits between it and the
// network), so each chunk becomes a Blob of its own as soon as it arrives, and the download is one Blob
// made of those parts. The page never holds the plaintext as one buffer: the parts live in the
// browser's blob storage, which moves large blobs out to disk (Chromium does; Firefox and Safari keep
// more of it in memory). The object URL is revoked a minute later, when the download holds the blob.

/** A destination for the plaintext. */
export interface Sink {
  /** Where it goes, for the status line: `sample.plain (download)`. */
  readonly where: string;
  /** Appends `chunk`; the caller may reuse `chunk` once the promise resolves. */
  write(chunk: Uint8Array<ArrayBuffer>): Promise<void>;
  /** Finishes the file (or starts the download). */
  close(): Promise<void>;
  /** Discards everything written. */
  abort(): Promise<void>;
}

/** The part of the File System Access API this page uses (not in TypeScript's DOM library). */
interface SaveFilePicker {
  showSaveFilePicker(options?: { suggestedName?: string }): Promise<FileSystemFileHandle>;
}

/** Whether this browser can save as a stream (`showSaveFilePicker`). */
export const canPickFile = (): boolean => typeof (window as Partial<SaveFilePicker>).showSaveFilePicker === 'function';

/**
 * Asks where to save (must run from a click: the picker needs a user gesture); undefined if the person
 * closes the picker.
 */
export async function pickFileSink(suggestedName: string): Promise<Sink | undefined> {
  let handle: FileSystemFileHandle;
  try {
    handle = await (window as unknown as SaveFilePicker).showSaveFilePicker({ suggestedName });
  } catch (e) {
    if ((e as Error).name === 'AbortError') return undefined;
    throw e;
  }
  const stream = await handle.createWritable();
  return {
    where: handle.name,
    write: (chunk) => stream.write(chunk),
    close: () => stream.close(),
    abort: () => stream.abort(),
  };
}

/** A download of `name`, built from one Blob per chunk. */
export function downloadSink(name: string): Sink {
  let parts: Blob[] = [];
  return {
    where: `${name} (download)`,
    async write(chunk) {
      parts.push(new Blob([chunk])); // copies the bytes out of the chunk, which then goes back to the worker
    },
    async close() {
      const url = URL.createObjectURL(new Blob(parts, { type: 'application/octet-stream' }));
      parts = [];
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.hidden = true;
      document.body.append(a);
      a.click();
      a.remove();
      // The download has its own reference to the blob once it has started.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
    async abort() {
      parts = [];
    },
  };
}
