// The page: pick an image, see its header, give the secret, save the plaintext. All the work on the
// image is done by the worker (worker.ts); this file only moves the person through the steps and the
// plaintext chunks from the worker into the sink (sink.ts).
//
// An image no format recognizes may still be TrueCrypt/VeraCrypt, whose header is random bytes: the worker
// offers it (`undetected`), the person chooses it, gives the password and the format's options
// (named-form.ts), and the header is shown once the volume is unlocked, as only then can it be read; while
// the key derivations are tried, the status line says which one runs.
//
// Cancel works in every step. Reading the header and deriving the key cannot be interrupted from inside
// (a derivation is one call that runs to its end), so Cancel ends the worker there (Worker.terminate()),
// as picking another image does; the next step starts a new worker for the same image, which reads the
// header again before it unlocks. Decrypting stops after the chunk in hand, and the worker wipes the key.
// (A PBKDF2 that WebCrypto has started runs on in the browser's own thread to its end, which the shared
// KDF limit bounds: no page can abort it. See the README.)
//
// The worker is made from a blob: URL (Vite's `?worker&inline`): a worker loaded from its own URL runs
// under the CSP of its own HTTP response, which a static host does not send, while a blob: worker
// inherits this page's policy, so connect-src 'none' holds in the worker too.
import './style.css';
import { forgetKeyfiles, keyfileCount, namedChoice, resetNamedFields, showNamedFields } from './named-form.ts';
import type { FromWorker, NamedChoice, NamedOffer, SecretChoice, SecretMessage, ToWorker } from './protocol.ts';
import { canPickFile, downloadSink, pickFileSink, type Sink } from './sink.ts';
import DiskWorker from './worker.ts?worker&inline';

/** Plaintext chunk size: about 4 MiB, small enough for a smooth progress bar, big enough for the kernel. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Chunks in flight: one decrypting while the page writes the one before. */
const DEPTH = 3;

const $ = <T extends HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`no #${id}`);
  return e as T;
};
const drop = $<HTMLDivElement>('drop');
const image = $<HTMLInputElement>('image');
const picked = $<HTMLParagraphElement>('picked');
const namedBox = $<HTMLDivElement>('named');
const namedText = $<HTMLParagraphElement>('named-text');
const namedButtons = $<HTMLParagraphElement>('named-buttons');
const header = $<HTMLElement>('header');
const formatName = $<HTMLSpanElement>('format');
const dump = $<HTMLPreElement>('dump');
const form = $<HTMLFormElement>('unlock');
const kindRow = $<HTMLParagraphElement>('kind-row');
const kind = $<HTMLSelectElement>('kind');
const secretRow = $<HTMLParagraphElement>('secret-row');
const secretLabel = $<HTMLLabelElement>('secret-label');
const secret = $<HTMLInputElement>('secret');
const bekRow = $<HTMLParagraphElement>('bek-row');
const bek = $<HTMLInputElement>('bek');
const fields = $<HTMLFieldSetElement>('unlock-fields');
const unlockButton = $<HTMLButtonElement>('unlock-button');
const runSection = $<HTMLElement>('run');
const summary = $<HTMLParagraphElement>('summary');
const save = $<HTMLButtonElement>('save');
const cancel = $<HTMLButtonElement>('cancel');
const progress = $<HTMLProgressElement>('progress');
const stats = $<HTMLParagraphElement>('stats');
const statusLine = $<HTMLParagraphElement>('status');
const errorLine = $<HTMLParagraphElement>('error');

const CHOICE_LABELS: Record<SecretChoice, string> = {
  passphrase: 'Passphrase',
  recoveryPassword: 'Recovery password',
  startupKey: 'Startup key (.BEK file)',
  none: 'No secret (clear key)',
};
const WRONG: Record<SecretChoice, string> = {
  passphrase: 'Wrong passphrase',
  recoveryPassword: 'Wrong recovery password',
  startupKey: 'Wrong startup key',
  none: 'The volume has no clear key',
};

type Step = 'idle' | 'inspecting' | 'undetected' | 'ready' | 'unlocking' | 'unlocked' | 'decrypting' | 'cancelling';
let step: Step = 'idle';
let worker: Worker | undefined;
let file: File | undefined;
/** The format the person chose for an undetected image (TrueCrypt/VeraCrypt); undefined: the one detected. */
let named: NamedOffer | undefined;
/** What the image's format calls its passphrase (from the worker). */
let passphraseName = 'passphrase';
let kernel = '';
let payloadSize = 0;
let sink: Sink | undefined;
/** The sink's writes, one after the other, in payload order. */
let writing: Promise<void> = Promise.resolve();
let written = 0;
let started = 0;
let cancelTimer: ReturnType<typeof setTimeout> | undefined;

const MiB = 1024 * 1024;
const fmtSize = (n: number) => (n < MiB ? `${(n / 1024).toFixed(0)} KiB` : `${(n / MiB).toFixed(1)} MiB`);

function say(status: string, error = ''): void {
  statusLine.textContent = status;
  errorLine.textContent = error;
}

function send(m: ToWorker, transfer: Transferable[] = []): void {
  worker?.postMessage(m, transfer);
}

/**
 * A new worker for `f`, which reads its header first (`inspect`); what is sent after that waits for it.
 * Only the current worker is listened to.
 */
function startWorker(f: File): void {
  const mine = new DiskWorker({ name: 'disk' });
  worker = mine;
  mine.onmessage = (e: MessageEvent<FromWorker>) => {
    if (worker === mine) onMessage(e.data);
  };
  mine.onerror = (e) => {
    if (worker === mine) fail(`The worker stopped: ${e.message}`);
  };
  send({ type: 'inspect', file: f });
}

/** Ends the worker at once, whatever it is doing; its source, its secret and any key go with it. */
function endWorker(): void {
  worker?.terminate();
  worker = undefined;
}

/** Shows Cancel, enabled; `focus`: moves the focus to it (where the focus was is disabled). */
function showCancel(focus: boolean): void {
  cancel.hidden = false;
  cancel.disabled = false;
  if (focus) cancel.focus();
}

/** Starts over with `f`: the old worker ended, a new one reading `f`'s header. */
function open(f: File): void {
  endWorker();
  void sink?.abort().catch(() => {});
  sink = undefined;
  clearTimeout(cancelTimer);
  file = f;
  named = undefined;
  picked.textContent = `${f.name}, ${fmtSize(f.size)}`;
  picked.hidden = false;
  namedBox.hidden = true;
  resetNamedFields();
  header.hidden = true;
  form.hidden = true;
  runSection.hidden = true;
  secret.value = '';
  bek.value = '';
  step = 'inspecting';
  showCancel(false);
  say(`Reading the header of ${f.name}…`);
  startWorker(f);
}

/** No image: what the page shows before the first one is picked. */
function idle(status: string, error = ''): void {
  endWorker();
  file = undefined;
  step = 'idle';
  named = undefined;
  picked.hidden = true;
  namedBox.hidden = true;
  header.hidden = true;
  form.hidden = true;
  runSection.hidden = true;
  cancel.hidden = true;
  say(status, error);
}

function onMessage(m: FromWorker): void {
  switch (m.type) {
    case 'inspected':
      inspected(m.format, m.dump, m.secrets, m.passphraseName);
      break;
    case 'undetected':
      undetected(m.message, m.named);
      break;
    case 'trying':
      trying(m.what, m.count);
      break;
    case 'unlocked':
      unlocked(m.summary, m.kernel, m.payloadSize, m.header);
      break;
    case 'chunk':
      chunk(m.buf, m.length);
      break;
    case 'done':
      done();
      break;
    case 'cancelled':
      cancelled();
      break;
    case 'error':
      failed(m.message, m.wrongSecret);
      break;
  }
}

function inspected(name: string, text: string, secrets: readonly SecretChoice[], passphrase: string): void {
  // A worker started again after a cancelled unlock reads the header again: the page shows it already.
  if (step !== 'inspecting') return;
  passphraseName = passphrase;
  formatName.textContent = name;
  dump.textContent = text;
  header.hidden = false;
  kind.replaceChildren(...secrets.map((s) => new Option(choiceLabel(s), s)));
  kindRow.hidden = secrets.length < 2;
  showChoice();
  ready(`${name} image. ${kindRow.hidden ? 'Type the passphrase' : 'Choose how to unlock it'}, then Unlock.`);
}

/**
 * No format recognized the image: the formats it may still be are offered, one button each; nothing is
 * guessed. (A worker started again after a cancelled unlock says this again: the page is past it.)
 */
function undetected(message: string, offers: readonly NamedOffer[]): void {
  if (step !== 'inspecting') return;
  step = 'undetected';
  cancel.hidden = true;
  const names = offers.map((o) => o.name).join(', ');
  namedText.textContent = `A ${names} volume has no signature to detect (its header cannot be told from random bytes): if the image is one, say so.`;
  namedButtons.replaceChildren(
    ...offers.map((o) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `Open as ${o.name}`;
      b.addEventListener('click', () => chooseNamed(o));
      return b;
    }),
  );
  namedBox.hidden = false;
  say(`${message}.`);
  namedButtons.querySelector('button')?.focus();
}

/** Opens the undetected image as `offer`: its password and options; its header comes once it is unlocked. */
function chooseNamed(offer: NamedOffer): void {
  if (step !== 'undetected') return;
  named = offer;
  passphraseName = 'password';
  formatName.textContent = offer.name;
  kind.replaceChildren(new Option('Password', 'passphrase'));
  kindRow.hidden = true;
  showChoice();
  showNamedFields(offer);
  namedBox.hidden = true;
  ready(
    `Opening as ${offer.name}: type the password (empty with keyfiles), choose any keyfiles and options, then Unlock. The header is shown once unlocked.`,
  );
}

/** A named format's unlock has started another key derivation. */
function trying(what: string, count: number): void {
  if (step !== 'unlocking') return;
  say(`Unlocking as ${named?.name}… trying ${what} (derivation ${count}; Cancel stops the search)`);
}

/** The label of a choice; the passphrase as the format calls it (BitLocker: a password). */
const choiceLabel = (s: SecretChoice) =>
  s === 'passphrase' ? passphraseName.charAt(0).toUpperCase() + passphraseName.slice(1) : CHOICE_LABELS[s];

function showChoice(): void {
  const k = kind.value as SecretChoice;
  secretRow.hidden = k === 'startupKey' || k === 'none';
  bekRow.hidden = k !== 'startupKey';
  secretLabel.textContent = choiceLabel(k);
  secret.type = k === 'recoveryPassword' ? 'text' : 'password';
  secret.inputMode = k === 'recoveryPassword' ? 'numeric' : '';
}

/** Back to asking for the secret (after the header, a wrong secret, the end of a run). */
function ready(status: string, error = ''): void {
  step = 'ready';
  form.hidden = false;
  fields.disabled = false;
  save.hidden = true;
  cancel.hidden = true;
  say(status, error);
  (secretRow.hidden ? (bekRow.hidden ? unlockButton : bek) : secret).focus();
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  if (step !== 'ready') return;
  const k = kind.value as SecretChoice;
  const choice: NamedChoice | undefined = named ? namedChoice(named.type) : undefined;
  if (Number.isNaN(choice?.pim)) return say('', 'The PIM is a whole number (empty: none).');
  let message: SecretMessage;
  const transfer: Transferable[] = [];
  if (k === 'startupKey') {
    const f = bek.files?.[0];
    if (!f) return say('', 'Choose the startup key (.BEK file) first.');
    message = { kind: k, file: f };
  } else if (k === 'none') {
    message = { kind: k };
  } else {
    if (secret.value === '' && !(named && keyfileCount() > 0))
      return say('', `Type the ${choiceLabel(k).toLowerCase()} first${named ? ' (or choose keyfiles)' : ''}.`);
    const bytes = new TextEncoder().encode(secret.value).buffer;
    // The bytes move to the worker (no copy here); the field is cleared once unlocked (a JS string
    // itself cannot be wiped).
    transfer.push(bytes);
    message = { kind: k, bytes };
  }
  // After a cancelled unlock there is no worker: a new one reads the header again, then unlocks.
  if (!worker && file) startWorker(file);
  step = 'unlocking';
  fields.disabled = true;
  showCancel(true);
  say(
    named
      ? `Unlocking as ${named.name}… (each PRF is tried unless one is chosen: a wrong password takes a minute or two; Cancel stops it)`
      : 'Unlocking… (deriving the key from the secret can take a few seconds; Cancel stops it)',
  );
  send({ type: 'unlock', secret: message, ...(choice ? { named: choice } : {}) }, transfer);
});

function unlocked(line: string, k: string, size: number, read?: { format: string; dump: string }): void {
  step = 'unlocked';
  kernel = k;
  payloadSize = size;
  secret.value = '';
  bek.value = '';
  forgetKeyfiles();
  if (read) {
    // A named format's header, read with the secret.
    formatName.textContent = read.format;
    dump.textContent = read.dump;
    header.hidden = false;
  }
  summary.textContent = line;
  runSection.hidden = false;
  progress.max = Math.max(1, size);
  progress.value = 0;
  stats.textContent = `${fmtSize(size)} to decrypt · kernel ${k}`;
  save.hidden = false;
  save.disabled = false;
  cancel.hidden = true;
  say(`Unlocked. ${canPickFile() ? 'Choose where to save the plaintext.' : 'The plaintext will be downloaded.'}`);
  save.focus();
}

save.addEventListener('click', async () => {
  if (step !== 'unlocked' || !file) return;
  const name = `${file.name.replace(/\.[^.]*$/, '')}.plain`;
  save.disabled = true;
  let s: Sink | undefined;
  try {
    // The picker must open straight from the click (it needs the user's gesture).
    s = canPickFile() ? await pickFileSink(name) : downloadSink(name);
  } catch (e) {
    save.disabled = false;
    return say('', `Cannot save there: ${(e as Error).message}`);
  }
  if (!s) {
    save.disabled = false;
    return say('Not saved: no file was chosen.');
  }
  sink = s;
  writing = Promise.resolve();
  written = 0;
  started = performance.now();
  step = 'decrypting';
  save.hidden = true;
  showCancel(true);
  say(`Decrypting into ${s.where}…`);
  send({ type: 'decrypt', chunkBytes: CHUNK_BYTES, depth: DEPTH });
});

function chunk(buf: ArrayBuffer, length: number): void {
  const s = sink;
  const w = worker;
  writing = writing
    .then(async () => {
      if (!s || sink !== s) return; // cancelled or failed meanwhile: the chunk is dropped
      await s.write(new Uint8Array(buf, 0, length));
      written += length;
      progress.value = written;
      const ms = performance.now() - started;
      const rate = ms > 0 ? `${(written / 1e6 / (ms / 1000)).toFixed(1)} MB/s` : '';
      stats.textContent = `${fmtSize(written)} of ${fmtSize(payloadSize)} · ${rate} · kernel ${kernel}`;
    })
    .then(
      () => w?.postMessage({ type: 'buffer', buf } satisfies ToWorker, [buf]),
      (e) => {
        new Uint8Array(buf).fill(0);
        if (s && sink === s) stop(`Could not write the plaintext: ${(e as Error).message}. Nothing was saved.`);
      },
    );
}

/** What ended the run early: '' for Cancel, else the error to show. */
let stopReason = '';
/** The sink's abort, started when the run was stopped. */
let aborting: Promise<void> = Promise.resolve();

/**
 * Stops a run: discards what the sink has (at once, not after the writes queued before it: a write may be
 * what hangs) and asks the worker to stop and close the volume. The worker answers `cancelled`; if it does
 * not within 5 s, it is ended (the next unlock starts a new one).
 */
function stop(reason: string): void {
  if (step !== 'decrypting') return;
  step = 'cancelling';
  stopReason = reason;
  cancel.disabled = true;
  const s = sink;
  sink = undefined;
  aborting = s ? s.abort().catch(() => {}) : Promise.resolve();
  say(reason ? '' : 'Cancelling…', reason);
  send({ type: 'cancel' });
  cancelTimer = setTimeout(() => {
    if (step !== 'cancelling') return;
    endWorker();
    void aborting.then(() => ready(reason ? '' : 'Cancelled: nothing was saved.', reason));
  }, 5000);
}

cancel.addEventListener('click', () => {
  switch (step) {
    case 'inspecting':
      return idle('Cancelled: no image is open.');
    case 'unlocking':
      // The derivation cannot be stopped from inside the worker: the worker goes, the secret stays typed.
      endWorker();
      ready('Cancelled: the volume was not unlocked.');
      if (!secretRow.hidden) secret.select();
      return;
    case 'decrypting':
      return stop('');
  }
});

function done(): void {
  const s = sink;
  writing = writing.then(async () => {
    if (step !== 'decrypting' || !s || sink !== s) return;
    sink = undefined;
    try {
      await s.close();
    } catch (e) {
      await s.abort().catch(() => {});
      return ready('', `Could not save the plaintext: ${(e as Error).message}. Nothing was saved.`);
    }
    const seconds = (performance.now() - started) / 1000;
    progress.value = progress.max;
    ready(
      `Done: ${fmtSize(written)} of plaintext written to ${s.where} in ${seconds < 0.1 ? 'under 0.1' : seconds.toFixed(1)} s. ` +
        'The key is wiped from memory; unlock again to decrypt again.',
    );
  });
}

function cancelled(): void {
  clearTimeout(cancelTimer);
  const reason = stopReason;
  void aborting.then(() =>
    reason ? ready('', reason) : ready('Cancelled: nothing was saved. The key is wiped from memory.'),
  );
}

function failed(message: string, wrongSecret: boolean): void {
  if (step === 'inspecting') {
    idle('', `${file?.name}: ${message}`);
    return;
  }
  if (step === 'unlocking') {
    const k = kind.value as SecretChoice;
    // A named format's message says both what may be wrong with the secret and what may be unsupported.
    const wrong = named ? 'Not unlocked' : WRONG[k];
    ready('', wrongSecret ? `${wrong}: ${message}. Nothing was written.` : message);
    if (!secretRow.hidden) secret.select();
    return;
  }
  // Decrypting: reading the image failed; the worker has closed the volume. Nothing is kept.
  clearTimeout(cancelTimer);
  const s = sink;
  sink = undefined;
  const discard = s ? s.abort().catch(() => {}) : aborting;
  void discard.then(() => ready('', `${message}. Nothing was saved.`));
}

function fail(message: string): void {
  void sink?.abort().catch(() => {});
  sink = undefined;
  idle('', message);
}

kind.addEventListener('change', showChoice);
image.addEventListener('change', () => {
  const f = image.files?.[0];
  // Emptied at once, so that picking the same file again (after dropping another, or to start over) is a
  // change too; the page shows the name instead (#picked).
  image.value = '';
  if (f) open(f);
});
// Dropping a file anywhere on the page opens it (and never navigates away to it).
document.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
document.addEventListener('dragleave', (e) => {
  if (e.relatedTarget === null) drop.classList.remove('over');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer?.files[0];
  if (f) open(f);
});
