// The derivations WebCrypto lacks run in key derivation threads (worker threads here): the first header
// that decrypts ends every other thread, the signal ends them all, a thread that cannot be made leaves the
// work to the calling thread, and the keys are the same bytes either way. No timing: what ran where is
// counted (derivations sent to a thread and answered, threads alive, threads ended while deriving).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveHeaderKey, kdfCandidates } from '../src/kdf.js';
import { Worker as NodeWorker } from 'node:worker_threads';
import { KdfThreads, type KdfWorkerLike, kdfThreadState, setKdfWorkerFactory } from '../src/kdf-threads.js';
import { openTcrypt, type TcryptOpenOptions, unlockTcrypt } from '../src/index.js';
import { bytesSource } from '@x/byte-source';
import { casesOf, extractImages, PASSWORD } from './images.js';
import { counters, useSourceThreads } from './threads.js';

const { dir, remove } = extractImages();
afterAll(remove);
const image = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

beforeEach(() => {
  useSourceThreads();
  kdfThreadState.width = 2; // two threads whatever the machine has, so that one can be ended by another's find
});
afterEach(() => {
  kdfThreadState.width = undefined;
  kdfThreadState.enabled = true;
});

const threaded = (prf: string) => !['sha1', 'sha256', 'sha512'].includes(prf);

describe('key derivation threads', () => {
  it('the first header that decrypts ends the others: a VeraCrypt Whirlpool volume stops the Streebog thread', async () => {
    const before = counters();
    const seen: string[] = [];
    const v = await openTcrypt(image('vc_1-whirlpool-xts-aes'), {
      passphrase: PASSWORD,
      onProgress: (k) => seen.push(`${k.prf}:${k.iterations}`),
    });
    v.close();
    const after = counters();
    expect(v.header?.kdf.prf).toBe('whirlpool');
    expect(v.header?.kdf.iterations).toBe(500_000);
    // with two threads, one takes the costliest (Streebog, 28 s here) while the other finds Whirlpool
    expect(seen).toContain('stribog512:500000');
    expect(seen).toContain('whirlpool:500000');
    expect(seen).not.toContain('blake2s-256:500000'); // after Whirlpool in the cheap end: never started
    // every derivation WebCrypto lacks was sent to a thread, and the Streebog one never answered
    expect(after.jobsSent - before.jobsSent).toBe(seen.filter((s) => threaded(s.split(':')[0])).length);
    expect(after.jobsDone - before.jobsDone).toBe(after.jobsSent - before.jobsSent - 1);
    expect(after.endedBusy - before.endedBusy).toBe(1);
    expect(after.started - before.started).toBe(2);
    expect(after.live).toBe(0);
  });

  it('a VeraCrypt SHA-512 volume (the default) opens before any thread starts: its derivation runs alone', async () => {
    const before = counters();
    const seen: string[] = [];
    const v = await openTcrypt(image('vc_1-sha512-xts-aes'), {
      passphrase: PASSWORD,
      onProgress: (k) => seen.push(`${k.prf}:${k.iterations}`),
    });
    v.close();
    expect(v.header?.kdf.prf).toBe('sha512');
    expect(seen).toContain('sha512:500000');
    expect(seen.filter((s) => threaded(s.split(':')[0]))).toEqual([]);
    expect(counters().started).toBe(before.started);
  });

  it('the signal ends every thread, the running derivations with them', async () => {
    const before = counters();
    const ac = new AbortController();
    const p = openTcrypt(image('vc_1-sha512-xts-camellia'), {
      passphrase: PASSWORD,
      signal: ac.signal,
      onProgress: (k) => {
        // Streebog has just been sent to the first thread when Argon2id starts in the second
        if (k.prf === 'argon2id') ac.abort(new Error('cancelled by the test'));
      },
    });
    await expect(p).rejects.toThrow('cancelled by the test');
    const after = counters();
    expect(after.endedBusy - before.endedBusy).toBe(1);
    expect(after.jobsDone - before.jobsDone).toBe(after.jobsSent - before.jobsSent - 1);
    expect(after.live).toBe(0);
  });

  it('a thread that cannot load leaves the derivations to the calling thread, which still finds the key', async () => {
    kdfThreadState.nodeBoot = { code: 'throw new Error("no key derivation thread here")' };
    const before = counters();
    const v = await openTcrypt(image('tc_4-ripemd160-xts-aes'), { passphrase: PASSWORD });
    v.close();
    const after = counters();
    expect(v.header?.kdf.prf).toBe('ripemd160');
    expect(after.unavailable).toBe(true);
    expect(after.jobsDone).toBe(before.jobsDone);
    expect(after.live).toBe(0);
  });
});

/** A Worker as a page's bundler would make it, here around a Node worker thread on the same module. */
function workerLike(made: { count: number }): KdfWorkerLike {
  const boot = kdfThreadState.nodeBoot;
  if (!boot) throw new Error('useSourceThreads() first');
  const w = new NodeWorker(boot.code, { eval: true, execArgv: [...(boot.execArgv ?? [])] });
  const like: KdfWorkerLike = {
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage: (m, transfer) => w.postMessage(m, transfer as ArrayBuffer[]),
    terminate: () => void w.terminate(),
  };
  w.on('message', (data) => like.onmessage?.({ data } as MessageEvent));
  w.on('error', (e) => like.onerror?.({ message: e.message, preventDefault() {} } as unknown as ErrorEvent));
  made.count++;
  return like;
}

describe('a worker factory (a page whose bundler inlines its workers)', () => {
  afterEach(() => setKdfWorkerFactory(undefined));
  it('makes the threads, with the same key as the calling thread', async () => {
    const made = { count: 0 };
    setKdfWorkerFactory(() => workerLike(made));
    const there = await unlocked('tc_4-ripemd160-xts-aes', { passphrase: PASSWORD, prf: 'ripemd160' }, true);
    // RIPEMD-160's TrueCrypt counts (1000 and 2000 iterations), one to each of the two threads; the second
    // is not sent if the first decrypts before its thread is ready
    expect(made.count).toBe(2);
    expect(there.sent).toBeGreaterThan(0);
    const here = await unlocked('tc_4-ripemd160-xts-aes', { passphrase: PASSWORD, prf: 'ripemd160' }, false);
    expect(there.key).toBe(here.key);
    expect(kdfThreadState.live).toBe(0);
  });
  it('one that throws leaves the derivations to the calling thread', async () => {
    setKdfWorkerFactory(() => {
      throw new TypeError('no worker here');
    });
    const r = await unlocked('tc_4-ripemd160-xts-aes', { passphrase: PASSWORD, prf: 'ripemd160' }, true);
    expect(r.sent).toBe(0);
    expect(kdfThreadState.unavailable).toBe(true);
    expect(() => setKdfWorkerFactory('no' as never)).toThrow(TypeError);
  });
});

/** The header (as JSON) and volume key an image opens to, with the threads on or off. */
async function unlocked(name: string, options: TcryptOpenOptions, threads: boolean) {
  kdfThreadState.enabled = threads;
  const before = counters();
  const { header, volumeKey } = await unlockTcrypt(bytesSource(image(name)), options);
  const sent = counters().jobsSent - before.jobsSent;
  const out = { header: JSON.stringify(header), key: Buffer.from(volumeKey).toString('hex'), sent };
  volumeKey.fill(0);
  return out;
}

describe('the same bytes in a thread and on the calling thread', () => {
  // one XTS image of each PRF the AES images use (SHA-1's are CBC; SHA-1 runs on WebCrypto anyway); the
  // hint makes each derivation run once
  const images = [
    'tc_4-ripemd160-xts-aes',
    'vc_1-whirlpool-xts-aes',
    'vc_1-blake2s-xts-aes',
    'vcpim_1_8-argon2id-xts-aes',
    'vc_1-sha512-xts-aes',
    'vc_1-sha256-xts-aes',
  ];
  it.each(images)('%s', async (name) => {
    const c = casesOf(name)[0];
    const options = { ...c.options(dir), prf: c.prf };
    const there = await unlocked(name, options, true);
    const here = await unlocked(name, options, false);
    expect(there.header).toBe(here.header);
    expect(there.key).toBe(here.key);
    expect(there.key).toMatch(/[^0]/);
    expect(here.sent).toBe(0);
    expect(there.sent > 0).toBe(threaded(JSON.parse(there.header).kdf.prf));
    expect(kdfThreadState.live).toBe(0);
  });
  it('Streebog-512 (its only image is Camellia: the derived key itself, at PIM 1’s 16 000 iterations)', async () => {
    const salt = image('vc_1-stribog512-xts-camellia').subarray(0, 64);
    const [c] = kdfCandidates({ prf: 'stribog512', pim: 1 });
    const password = new TextEncoder().encode(PASSWORD);
    const threads = new KdfThreads();
    try {
      const there = await threads.derive(c, password, salt, 64, () => false);
      const here = await deriveHeaderKey(c, password, salt, 64);
      expect(c.iterations).toBe(16_000);
      expect(there).toEqual(here);
      expect(Array.from(password)).toEqual(Array.from(new TextEncoder().encode(PASSWORD))); // the caller's copy is its own
    } finally {
      await threads.close();
    }
    expect(kdfThreadState.live).toBe(0);
  });
});
