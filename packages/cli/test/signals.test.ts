// Issue 25, items 1–3: a signal at any moment of `decrypt`, from the very start (before the command's
// handlers could exist) to its end, leaves no temporary file and no plaintext in OUT's directory, and the
// exit status says what happened: 128 + the signal's number (or death by the signal itself, before the
// handlers exist), or 0 with OUT complete (the signal came after the work was done; SIGPIPE with no
// temporary file is ignored, as Node ignores it). Every moment is drawn from a fixed seed; the runs per
// command and signal are X_CLI_SIGNAL_RUNS (default 5; the acceptance is 50).
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './helpers.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGPIPE'] as const;
const COMMANDS = ['x-disk', 'x-luks'] as const;
const RUNS = Number(process.env.X_CLI_SIGNAL_RUNS ?? 5);
/** Children at a time: small batches, for a busy 2-core machine. */
const BATCH = 4;
/** The slow portable kernel, so that the decryption (the temporary file's life) is a large part of a run. */
const ENV = { X_AES_KERNEL: 'portable' };

let dir: string;
let image: string;
let pass: string;
let plainHash: string;
/** The steps a run's moments are drawn from: one clean run's length in 5 ms steps, found once (not a bound). */
let steps = 0;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** mulberry32: the same moments on every run of the test. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-cli-signals-'));
  const plain = new Uint8Array(8 << 20);
  const rnd = random(25);
  for (let i = 0; i < plain.length; i += 4) new DataView(plain.buffer).setUint32(i, rnd() * 2 ** 32);
  plainHash = sha256(plain);
  await writeFile(join(dir, 'plain'), plain);
  pass = join(dir, 'pass');
  await writeFile(pass, 'signals');
  image = join(dir, 'image');
  const made = await run('x-luks', [
    'encrypt',
    join(dir, 'plain'),
    image,
    '-d',
    pass,
    '--pbkdf',
    'pbkdf2',
    '--pbkdf-force-iterations',
    '1000',
  ]);
  expect(made.stderr).toMatch(/encrypted/);
  const out = await mkdtemp(join(dir, 'clean-'));
  const t0 = performance.now();
  const clean = await run('x-disk', ['decrypt', image, join(out, 'plain'), '-d', pass], { env: ENV });
  steps = Math.max(20, Math.ceil((performance.now() - t0) / 5));
  expect(clean.code).toBe(0);
  expect(sha256(await readFile(join(out, 'plain')))).toBe(plainHash);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

type Outcome = 'before handlers' | 'stopped' | 'done';

/** One `decrypt` into an empty directory, `signal` sent `delay` ms after spawn (0: at once); its outcome, checked. */
async function signalled(
  command: (typeof COMMANDS)[number],
  signal: (typeof SIGNALS)[number],
  delay: number,
  threads: string,
): Promise<Outcome> {
  const outDir = await mkdtemp(join(dir, 'out-'));
  const out = join(outDir, 'plain');
  const r = await run(command, ['decrypt', image, out, '-d', pass, '--threads', threads], {
    env: ENV,
    onSpawn: (pid) => {
      const send = () => {
        try {
          process.kill(pid, signal);
        } catch {
          // ended already
        }
      };
      if (delay === 0) send();
      else setTimeout(send, delay);
    },
  });
  const left = await readdir(outDir);
  const what = `${command} ${signal} after ${delay} ms: exit ${r.code ?? r.signal}, left ${JSON.stringify(left)}, ${r.stderr}`;
  // Done: exit 0, or killed by the signal itself after OUT was in place (it came while Node was exiting,
  // its handlers already gone: seen once on a loaded machine); either way OUT must be whole.
  if (r.code === 0 || (r.code === null && left.length === 1 && !/stopped by/.test(r.stderr))) {
    expect(left, what).toEqual(['plain']);
    expect(sha256(await readFile(out)), what).toBe(plainHash);
    await rm(outDir, { recursive: true });
    return 'done';
  }
  expect(left, what).toEqual([]);
  await rm(outDir, { recursive: true });
  if (r.code === null) {
    // killed by the signal itself: only before the handlers exist (SIGPIPE: before Node ignores it)
    expect(r.signal, what).toBe(signal);
    return 'before handlers';
  }
  expect(r.code, what).toBe(128 + constants.signals[signal]);
  if (signal !== 'SIGPIPE') expect(r.stderr, what).toMatch(new RegExp(`^${command}: stopped by ${signal}`, 'm'));
  return 'stopped';
}

describe.each(COMMANDS)('%s decrypt under signals', (command) => {
  it.each(SIGNALS)(
    `%s at ${RUNS} moments leaves nothing in OUT's directory`,
    async (signal) => {
      const rnd = random(command.length * 100 + SIGNALS.indexOf(signal));
      const jobs = Array.from({ length: RUNS }, (_, i) => ({
        // every fifth at once, before the command's handlers could exist; the rest over a clean run's length
        delay: i % 5 === 0 ? 0 : 1 + Math.floor(rnd() * steps) * 5,
        threads: i % 2 === 0 ? '1' : '2',
      }));
      const outcomes: Record<Outcome, number> = { 'before handlers': 0, stopped: 0, done: 0 };
      for (let i = 0; i < jobs.length; i += BATCH) {
        const batch = jobs.slice(i, i + BATCH).map((j) => signalled(command, signal, j.delay, j.threads));
        for (const o of await Promise.all(batch)) outcomes[o]++;
      }
      console.log(`${command} ${signal}: ${JSON.stringify(outcomes)}`);
      expect(Object.values(outcomes).reduce((a, b) => a + b)).toBe(RUNS);
    },
    600_000,
  );
});

describe('a signal while the temporary file holds plaintext', () => {
  it.each(COMMANDS.flatMap((c) => SIGNALS.map((s) => [c, s] as const)))(
    '%s %s: the file is removed, exit 128 + the signal',
    async (command, signal) => {
      const outDir = await mkdtemp(join(dir, 'part-'));
      let pid = 0;
      let ended = false;
      const running = run(command, ['decrypt', image, join(outDir, 'plain'), '-d', pass], {
        env: ENV,
        onSpawn: (p) => (pid = p),
      });
      running.then(
        () => (ended = true),
        () => (ended = true),
      );
      // wait (no deadline) until the temporary file has plaintext in it
      for (;;) {
        const part = (await readdir(outDir)).find((f) => f.endsWith('.part'));
        if (part && (await stat(join(outDir, part)).catch(() => undefined))?.size) break;
        if (ended) throw new Error('the command ended before its temporary file had any plaintext');
        await new Promise((r) => setTimeout(r, 5));
      }
      process.kill(pid, signal);
      const r = await running;
      expect(r.code).toBe(128 + constants.signals[signal]);
      if (signal !== 'SIGPIPE')
        expect(r.stderr).toMatch(new RegExp(`^${command}: stopped by ${signal}; the partial output was removed$`, 'm'));
      expect(await readdir(outDir)).toEqual([]);
    },
    60_000,
  );
});
