// The main thread's side of the decrypt threads (src/decrypt-threads.ts), in process, with stand-in threads
// that speak the same messages: chunks come back in place and in order through the pump, whatever thread
// answers first; a thread that fails, throws or exits fails every read in flight with one clear error; and
// every thread is stopped, asked to wipe its keys first. close waits a grace period (2 s) for a thread's
// answer: the tests that check what a thread did on close run it on fake timers, so that the grace runs out
// when the test says (or never), not when a busy machine is slow to schedule the thread.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { payloadLayout } from '@x/disk-format';
import { DecryptThreads, UntilThreadsOpen } from '../src/decrypt-threads.js';
import { pumpVolume } from '../src/pump.js';

/**
 * A stand-in decrypt thread (CommonJS source). `behaviour` picks what it does with a read: `fill` writes
 * the byte (sector + i) & 0xff at offset i of each sector, after a random delay of up to 3 ms; `fail`
 * answers with an error; `throw` throws from its message handler; `exit` exits with status 3. `openFails`
 * refuses the open. On close it sets closed[0] = 1 (a SharedArrayBuffer the test reads) and answers.
 */
const STAND_IN = `
const { parentPort, workerData } = require('node:worker_threads');
const { behaviour, openFails, closed, silentClose } = workerData;
let sectorSize = 0;
parentPort.on('message', (m) => {
  if (m.op === 'open') {
    m.volume.volumeKey.fill(0);
    sectorSize = m.volume.layout.sectorSize;
    if (openFails) parentPort.postMessage({ op: 'failed', name: 'WrongVolumeKeyError', message: '@x/luks: the volume key does not match the header digest' });
    else parentPort.postMessage({ op: 'ready' });
  } else if (m.op === 'read') {
    if (behaviour === 'throw') throw new Error('boom');
    if (behaviour === 'exit') process.exit(3);
    if (behaviour === 'fail') return parentPort.postMessage({ op: 'failed', id: m.id, name: 'ImageError', message: '@x/byte-source: img ended at 4096 while reading (truncated?)' });
    setTimeout(() => {
      for (let i = 0; i < m.buf.length; i++) m.buf[i] = (m.firstSector + Math.floor(i / sectorSize) + (i % sectorSize)) & 0xff;
      parentPort.postMessage({ op: 'done', id: m.id });
    }, Math.random() * 3);
  } else {
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    if (!silentClose) { parentPort.postMessage({ op: 'closed' }); parentPort.close(); }
  }
});
`;

type Behaviour = 'fill' | 'fail' | 'throw' | 'exit';

const SECTOR = 512;
const volume = (payloadSize: number) => ({
  image: '/nonexistent',
  imageSize: payloadSize + 4096,
  layout: payloadLayout('aes-xts-plain64', SECTOR, 4096, payloadSize),
  volumeKey: new Uint8Array(64).fill(7),
  kernel: 'stand-in',
});

let started: { worker: Worker; closed: Int32Array }[] = [];
/** Threads with the given behaviour per thread (the last repeats). */
function threads(count: number, behaviours: Behaviour[], opts: { openFails?: boolean; silentClose?: boolean } = {}) {
  return new DecryptThreads(count, () => {
    const closed = new Int32Array(new SharedArrayBuffer(4));
    const behaviour = behaviours[Math.min(started.length, behaviours.length - 1)];
    const worker = new Worker(STAND_IN, { eval: true, workerData: { behaviour, closed, ...opts } });
    started.push({ worker, closed });
    return worker;
  });
}

/** Atomics.waitAsync (Node ≥ 16; this package's TypeScript lib, ES2022, does not declare it). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: Int32Array, index: number, value: number): { value: Promise<string> | string };
  }
).waitAsync;

/** `t.close()` with its grace timer fake: it ends only once every thread has answered (or is gone). */
async function closeWithoutGrace(t: DecryptThreads): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    await t.close();
  } finally {
    vi.useRealTimers();
  }
}

const expected = (payloadSize: number) => {
  const b = new Uint8Array(payloadSize);
  for (let i = 0; i < payloadSize; i++) b[i] = (Math.floor(i / SECTOR) + (i % SECTOR)) & 0xff;
  return b;
};

afterEach(async () => {
  // every thread a test started is stopped by DecryptThreads.close: threadId is -1 once a worker has exited
  for (const s of started) expect(s.worker.threadId).toBe(-1);
  started = [];
});

describe('DecryptThreads', () => {
  it.each([1, 2, 3])('decrypts in place and in order through the pump (%i threads)', async (n) => {
    const size = 37 * SECTOR * 7 + 3 * SECTOR; // chunks of 7 sectors, the last one short
    const t = threads(n, ['fill']);
    const key = new Uint8Array(64).fill(7);
    await t.open({ ...volume(size), volumeKey: key });
    const out = new Uint8Array(size);
    const progress: number[] = [];
    const total = await pumpVolume(t, { write: (buf, position) => out.set(buf, position) }, (d) => progress.push(d), {
      chunkBytes: 7 * SECTOR,
      depth: n + 2,
      shared: true,
    });
    await closeWithoutGrace(t);
    expect(total).toBe(size);
    expect(Buffer.from(out).equals(Buffer.from(expected(size)))).toBe(true);
    expect(progress[progress.length - 1]).toBe(size);
    expect(started.every((s) => s.closed[0] === 1)).toBe(true); // each was asked to wipe its keys, and did
  });

  it('takes only chunks on a SharedArrayBuffer', async () => {
    const t = threads(1, ['fill']);
    await t.open(volume(SECTOR));
    await expect(t.read(new Uint8Array(SECTOR), 0)).rejects.toThrow(
      '@x/cli: decrypt threads take chunks on a SharedArrayBuffer',
    );
    await t.close();
  });

  it('a read error in a thread is that error, with its name', async () => {
    const t = threads(2, ['fill', 'fail']);
    await t.open(volume(8 * SECTOR));
    const buf = new Uint8Array(new SharedArrayBuffer(2 * SECTOR));
    const reads = [t.read(buf.subarray(0, SECTOR), 0), t.read(buf.subarray(SECTOR), 1)];
    await expect(reads[1]).rejects.toMatchObject({
      name: 'ImageError',
      message: '@x/byte-source: img ended at 4096 while reading (truncated?)',
    });
    await reads[0];
    await t.close();
  });

  it.each([
    ['throws', 'throw', /^@x\/cli: a decrypt thread failed: boom$/],
    ['exits', 'exit', /^@x\/cli: a decrypt thread stopped \(exit code 3\)$/],
  ] as const)('a thread that %s fails every read in flight and every later one', async (_what, behaviour, message) => {
    const t = threads(3, ['fill', behaviour, 'fill']);
    await t.open(volume(64 * SECTOR));
    const buf = new Uint8Array(new SharedArrayBuffer(6 * SECTOR));
    const reads = Array.from({ length: 6 }, (_, i) => t.read(buf.subarray(i * SECTOR, (i + 1) * SECTOR), i));
    const settled = await Promise.allSettled(reads);
    const errors = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e.message).toMatch(message);
    await expect(t.read(buf.subarray(0, SECTOR), 0)).rejects.toThrow(message);
    await t.close();
  });

  it('an open that fails in a thread rejects with its error; the key clone is wiped there', async () => {
    const t = threads(2, ['fill'], { openFails: true });
    await expect(t.open(volume(8 * SECTOR))).rejects.toMatchObject({
      name: 'WrongVolumeKeyError',
      message: '@x/luks: the volume key does not match the header digest',
    });
    await t.close();
  });

  it('close terminates a thread that does not answer', async () => {
    const t = threads(1, ['fill'], { silentClose: true });
    await t.open(volume(SECTOR));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const closing = t.close();
      // the thread takes the request (it wipes its keys) and stays silent; then the grace runs out
      await waitAsync(started[0].closed, 0, 0).value;
      vi.runOnlyPendingTimers();
      await closing;
    } finally {
      vi.useRealTimers();
    }
    expect(started[0].closed[0]).toBe(1);
  });

  it('UntilThreadsOpen reads on this thread until a thread is open, then on the threads, and closes the volume', async () => {
    const size = 24 * SECTOR;
    const onVolume: number[] = [];
    let closed = 0;
    const local = {
      sectorSize: SECTOR,
      payloadSize: size,
      async read(dst: Uint8Array, firstSector: number) {
        onVolume.push(firstSector);
        while (!t.ready) await new Promise((r) => setTimeout(r, 2)); // done only once a thread is open
        for (let i = 0; i < dst.length; i++) dst[i] = (firstSector + Math.floor(i / SECTOR) + (i % SECTOR)) & 0xff;
      },
      close: () => closed++,
    };
    const t: DecryptThreads = threads(2, ['fill']);
    const reader = new UntilThreadsOpen(local, t, t.open(volume(size)));
    expect(t.ready).toBe(false);
    const out = new Uint8Array(size);
    await pumpVolume(reader, { write: (buf, position) => out.set(buf, position) }, () => {}, {
      chunkBytes: 2 * SECTOR,
      depth: 4,
      shared: true,
    });
    expect(Buffer.from(out).equals(Buffer.from(expected(size)))).toBe(true);
    // the first chunks (one per buffer of the ring) went to the volume, before the threads were open; the
    // threads took the rest
    expect(onVolume).toEqual([0, 2, 4, 6]);
    expect(closed).toBe(1);
    await t.close();
  });

  it('UntilThreadsOpen fails every read once the threads fail to open', async () => {
    const local = { sectorSize: SECTOR, payloadSize: 8 * SECTOR, read: async () => {}, close: () => {} };
    const t = threads(1, ['fill'], { openFails: true });
    const opening = t.open(volume(8 * SECTOR));
    const reader = new UntilThreadsOpen(local, t, opening);
    await opening.catch(() => {});
    const buf = new Uint8Array(new SharedArrayBuffer(SECTOR));
    await expect(reader.read(buf, 0)).rejects.toThrow('@x/luks: the volume key does not match the header digest');
    await t.close();
  });

  it('refuses a count below 1', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => new DecryptThreads(n)).toThrow(RangeError);
  });
});
