// Finding the derivation and mode that decrypt a header. The derivations run side by side: WebCrypto's
// (PBKDF2 with SHA-1/256/512) as many at once as leave a core free (cores − 1, at least 1), on Node's thread
// pool or the browser's crypto threads, SHA-512 (VeraCrypt's default) first, while the
// others (RIPEMD-160, Whirlpool, BLAKE2s, Argon2id) run one after another on this thread: the cheap
// TrueCrypt counts at once, the costly VeraCrypt ones once WebCrypto's are done (so that the most common
// volumes, SHA-512, do not share the cores with them), each giving the event loop a turn every few
// thousand iterations. The first
// key under which a mode of the table decrypts the header ends the search: the derivations not yet
// started never start, the running PBKDF2 loops stop at their next turn, and keys that arrive after it are
// wiped unused (a WebCrypto derivation cannot be cancelled once started).
import { type KdfCandidate, deriveHeaderKey, runsNatively, type TcryptPrf } from './kdf.js';
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

/** Order of the derivations run on this thread after the cheap ones: the faster first. */
const RANK: readonly TcryptPrf[] = ['ripemd160', 'whirlpool', 'blake2s-256', 'argon2id', 'stribog512'];
const rank = (c: KdfCandidate) => (c.iterations <= 2000 && c.prf !== 'argon2id' ? -1 : RANK.indexOf(c.prf));

const nativeRank = (c: KdfCandidate) => (c.iterations <= 2000 ? 0 : c.prf === 'sha512' ? 1 : 2);

/** The cores of this machine (navigator.hardwareConcurrency, else node:os), 2 if neither tells. */
function cores(): number {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  if (typeof nav === 'number' && nav > 0) return nav;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const os = proc?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number } | undefined;
    const n = os?.availableParallelism?.();
    if (typeof n === 'number' && n > 0) return n;
  } catch {
    // no node:os: the default
  }
  return 2;
}

/** Runs `run` over `items`, at most `width` at a time, in order. */
async function pool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
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
  let found: Decrypted | undefined;
  let failure: unknown;
  const stop = () => found !== undefined || ctx.signal?.aborted === true;

  const attempt = async (c: KdfCandidate): Promise<void> => {
    if (stop()) return;
    ctx.onProgress?.({ prf: c.prf, iterations: c.iterations, memory: c.memory });
    let key: Uint8Array | undefined;
    try {
      key = await deriveHeaderKey(c, password, salt, keyBytes, stop);
      if (key === undefined || stop()) return;
      const r = tryModes(key, enc, ctx);
      if (r) found = { ...r, kdf: c };
    } catch (e) {
      failure ??= e;
    } finally {
      key?.fill(0);
    }
  };

  const natives = candidates.filter(runsNatively);
  const others = candidates.filter((c) => !runsNatively(c)).sort((a, b) => rank(a) - rank(b));
  let settle: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const watch = (p: Promise<void>) => p.then(() => (found ? settle() : undefined));
  // as many at once as leaves a core to this thread; the cheap counts first, then SHA-512 (VeraCrypt's default)
  natives.sort((a, b) => nativeRank(a) - nativeRank(b));
  const all = pool(natives, Math.max(1, cores() - 1), (c) => watch(attempt(c)));
  const natural = (async () => {
    for (const c of others) {
      // the costly ones wait for WebCrypto's: on a 2-core machine a third busy thread would slow them all
      if (rank(c) >= 0) await all;
      if (stop()) break;
      await watch(attempt(c));
    }
    await all;
  })();
  await Promise.race([first, natural]);
  aborted(ctx.signal);
  if (found === undefined && failure !== undefined) throw failure;
  return found;
}
