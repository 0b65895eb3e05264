// Finding the derivation and mode that decrypt a header. The derivations run side by side, none on this
// thread: WebCrypto's (PBKDF2 with SHA-1/256/512) on Node's thread pool or the browser's crypto threads,
// the others (RIPEMD-160, Whirlpool, BLAKE2s, Streebog, Argon2id) in key derivation threads
// (./kdf-threads.ts: worker threads in Node, module Workers in a page; on this thread where none can be
// made). Each kind runs as many at once as leave a core free (cores − 1, at least 1). WebCrypto's cheap
// TrueCrypt counts come first, then SHA-512 with VeraCrypt's count (its default), alone: the threads start
// once it is done, so that the most common volumes do not share the cores (on a busy 2-core machine, the
// threads' start and the cheap counts beside it made it take 1.6 times as long). Then the cheap TrueCrypt
// counts of the threads, beside WebCrypto's others; the costly threaded ones wait for WebCrypto's to end,
// then the cheapest first, except that with two threads or more one of them takes the
// costliest first (Streebog's 500 000 iterations take longer than all the others together), so that a
// wrong secret costs about the longest derivation rather than their sum. The first key under which a mode
// of the table decrypts the header ends the search: the derivations not yet started never start, every
// thread is ended at once (terminate) with the derivation it was running, and keys that arrive after it
// are wiped unused (a WebCrypto derivation cannot be cancelled once started). The signal does the same.
import { deriveHeaderKey, type KdfCandidate, kdfCost, runsNatively, type TcryptPrf } from './kdf.js';
import { KdfThreads, kdfWidth } from './kdf-threads.js';
import { ENCRYPTED_HEADER_BYTES, type HeaderMode, MODES } from './modes.js';
import { isDecrypted, SALT_BYTES } from './header.js';

/** A header decrypted: its 448 bytes in clear (the caller wipes them), the mode and the derivation. */
export interface Decrypted {
  readonly dec: Uint8Array;
  readonly mode: HeaderMode;
  readonly kdf: KdfCandidate;
}

/** What {@link decryptHeader} is told. */
export interface UnlockContext {
  readonly veracrypt: boolean;
  readonly kernel: string | undefined;
  readonly signal?: AbortSignal;
  /** Called as each derivation starts. */
  readonly onProgress?: (kdf: {
    readonly prf: TcryptPrf;
    readonly iterations: number;
    readonly memory: number;
  }) => void;
}

/** The cheap TrueCrypt counts (milliseconds each), which run beside WebCrypto's. */
const cheap = (c: KdfCandidate) => c.iterations <= 2000 && c.prf !== 'argon2id';

const nativeRank = (c: KdfCandidate) => (c.iterations <= 2000 ? 0 : c.prf === 'sha512' ? 1 : 2);

/** Runs `run` over `items`, at most `width` at a time, in order. */
async function pool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

/**
 * Runs `run` over `items` (sorted cheapest first), at most `width` at a time: with two lanes or more, the
 * first lane takes them from the costliest end, the others from the cheapest.
 */
async function lanes<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let lo = 0;
  let hi = items.length;
  const lane = async (fromTop: boolean) => {
    while (lo < hi) await run(fromTop ? items[--hi] : items[lo++]);
  };
  const n = Math.min(width, items.length);
  await Promise.all(Array.from({ length: n }, (_, i) => lane(n >= 2 && i === 0)));
}

/** The mode under which `key` decrypts `enc`, and the bytes, or undefined. */
function tryModes(
  key: Uint8Array,
  enc: Uint8Array,
  ctx: UnlockContext,
): { dec: Uint8Array; mode: HeaderMode } | undefined {
  for (const mode of MODES) {
    const dec = Uint8Array.from(enc);
    mode.decryptHeader(key, dec, ctx.kernel);
    if (isDecrypted(dec, ctx.veracrypt)) return { dec, mode };
    dec.fill(0);
  }
  return undefined;
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('the unlock was cancelled', 'AbortError');
}

/**
 * Decrypts the 512-byte header `raw` with `password` under each derivation of `candidates` and each mode
 * of the table; undefined when none does.
 *
 * @throws the signal's reason once it is aborted.
 */
export async function decryptHeader(
  raw: Uint8Array,
  password: Uint8Array,
  candidates: readonly KdfCandidate[],
  ctx: UnlockContext,
): Promise<Decrypted | undefined> {
  const salt = raw.subarray(0, SALT_BYTES);
  const enc = raw.subarray(SALT_BYTES, SALT_BYTES + ENCRYPTED_HEADER_BYTES);
  const keyBytes = Math.max(...MODES.map((m) => m.headerKeyBytes));
  const threads = new KdfThreads();
  let found: Decrypted | undefined;
  let failure: unknown;
  let settle: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const stop = () => found !== undefined || ctx.signal?.aborted === true;
  const end = () => {
    settle();
    void threads.close();
  };

  const attempt = async (c: KdfCandidate, threaded: boolean): Promise<void> => {
    if (stop()) return;
    ctx.onProgress?.({ prf: c.prf, iterations: c.iterations, memory: c.memory });
    let key: Uint8Array | undefined;
    try {
      key = threaded
        ? await threads.derive(c, password, salt, keyBytes, stop)
        : await deriveHeaderKey(c, password, salt, keyBytes, stop);
      if (key === undefined || stop()) return;
      const r = tryModes(key, enc, ctx);
      if (r) {
        found = { ...r, kdf: c };
        end();
      }
    } catch (e) {
      failure ??= e;
    } finally {
      key?.fill(0);
    }
  };

  const width = kdfWidth();
  // the cheap counts first, then SHA-512 (VeraCrypt's default)
  const natives = candidates.filter(runsNatively).sort((a, b) => nativeRank(a) - nativeRank(b));
  const others = candidates.filter((c) => !runsNatively(c)).sort((a, b) => kdfCost(a, keyBytes) - kdfCost(b, keyBytes));
  ctx.signal?.addEventListener('abort', end);
  try {
    // VeraCrypt's default (SHA-512, 500 000 iterations) runs alone: the threads start once it is done
    const lead = natives.find((c) => c.prf === 'sha512' && !cheap(c));
    let leadDone: () => void = () => {};
    const led = new Promise<void>((resolve) => {
      leadDone = resolve;
    });
    if (!lead) leadDone();
    const webCrypto = pool(natives, width, (c) => attempt(c, false).finally(() => c === lead && leadDone()));
    const threaded = (async () => {
      await led;
      await pool(others.filter(cheap), width, (c) => attempt(c, true));
      // the costly ones wait for WebCrypto's (on a 2-core machine a third busy thread would slow them all),
      // then take every core: nothing else runs by then
      await webCrypto;
      await lanes(
        others.filter((c) => !cheap(c)),
        kdfWidth(true),
        (c) => attempt(c, true),
      );
    })();
    await Promise.race([first, Promise.all([webCrypto, threaded])]);
  } finally {
    ctx.signal?.removeEventListener('abort', end);
    await threads.close();
  }
  aborted(ctx.signal);
  if (found === undefined && failure !== undefined) throw failure;
  return found;
}
