// Which Argon2 runs (node:crypto's native argon2 where the runtime has it, else hash-wasm), the memory
// hash-wasm cannot allocate refused at once with one clear line, and the parameter checks of both KDFs
// (RFC 9106 §3.1 ranges, PBKDF2's c ≥ 1, RFC 8018 §5.2) made before any work. "Before any work" is counted,
// not timed: hash-wasm's Argon2 and @noble/hashes' PBKDF2 are the real ones behind a counter (vi.mock), and
// WebCrypto's importKey and deriveBits are spied on, so the checks hold on a loaded machine.
//
// Node 20 has no native Argon2 (node:crypto's argon2 arrived in Node 24.7), so a runtime that has one is
// stood in by answering `process.getBuiltinModule('node:crypto')` with an object whose `argon2` records what
// it is asked and computes with hash-wasm: a parameter handed over wrongly (memory for passes, say) changes
// the result, which the reference implementation's output then catches.
import * as nodeCrypto from 'node:crypto';
import { argon2i, argon2id } from 'hash-wasm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { argon2, argon2Runtime, HASH_WASM_ARGON2_MAX_MEMORY, type Argon2Params, pbkdf2 } from '../src/index.js';
import { sha256 } from '@noble/hashes/sha2.js';

const enc = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Calls of the computations behind the two KDFs, counted by the mocks below (which then run the real ones). */
const started = vi.hoisted(() => ({ hashWasm: 0, noble: 0 }));

vi.mock('hash-wasm/dist/argon2.umd.min.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('hash-wasm/dist/argon2.umd.min.js') & { default?: unknown }>();
  const real = (typeof mod.argon2id === 'function' ? mod : mod.default) as typeof mod;
  return {
    argon2i: (...a: Parameters<typeof real.argon2i>) => {
      started.hashWasm++;
      return real.argon2i(...a);
    },
    argon2id: (...a: Parameters<typeof real.argon2id>) => {
      started.hashWasm++;
      return real.argon2id(...a);
    },
  };
});

vi.mock('@noble/hashes/pbkdf2.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('@noble/hashes/pbkdf2.js')>();
  return {
    ...real,
    pbkdf2Async: (...a: Parameters<typeof real.pbkdf2Async>) => {
      started.noble++;
      return real.pbkdf2Async(...a);
    },
  };
});

/** What `f` settles with, and how many KDF computations it started (hash-wasm, @noble/hashes, WebCrypto). */
async function workOf(f: () => Promise<unknown>): Promise<{ outcome: unknown; computations: number }> {
  const subtle = globalThis.crypto.subtle;
  const spies = [vi.spyOn(subtle, 'importKey'), vi.spyOn(subtle, 'deriveBits')];
  const before = started.hashWasm + started.noble;
  try {
    const outcome = await f().catch((e: unknown) => e);
    const webCrypto = spies.reduce((n, s) => n + s.mock.calls.length, 0);
    return { outcome, computations: started.hashWasm + started.noble - before + webCrypto };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

// phc-winner-argon2: `echo -n password | argon2 somesalt -id -t 2 -m 16 -p 1 -l 32` (and -i)
const REFERENCE = { time: 2, memory: 1 << 16, cpus: 1 };
const ID_32 = '09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7';
const I_32 = 'c1628832147d9720c5bd1cfd61367078729f6dfb6f8fea9ff98158e0d7816ed0';

interface NativeCall {
  algorithm: string;
  parameters: {
    message: Uint8Array;
    nonce: Uint8Array;
    parallelism: number;
    tagLength: number;
    memory: number;
    passes: number;
  };
}

/** Makes `process.getBuiltinModule('node:crypto')` answer `fake` (every other module as before). */
function standIn(fake: Record<string, unknown>) {
  const real = process.getBuiltinModule.bind(process);
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) =>
    id === 'node:crypto' ? fake : real(id)) as typeof process.getBuiltinModule);
}

/** A native argon2 that computes with hash-wasm; `compute: false` answers zeros at once (for huge memory). */
function fakeNative(calls: NativeCall[], compute = true) {
  return {
    argon2(algorithm: string, parameters: NativeCall['parameters'], cb: (e: Error | null, k: Uint8Array) => void) {
      calls.push({ algorithm, parameters });
      if (!compute) return queueMicrotask(() => cb(null, Buffer.alloc(parameters.tagLength)));
      const f = algorithm === 'argon2i' ? argon2i : argon2id;
      f({
        password: parameters.message,
        salt: parameters.nonce,
        iterations: parameters.passes,
        parallelism: parameters.parallelism,
        memorySize: parameters.memory,
        hashLength: parameters.tagLength,
        outputType: 'binary',
      }).then(
        (k) => {
          cb(null, Buffer.from(k));
        },
        (e: Error) => {
          cb(e, new Uint8Array(0));
        },
      );
    },
    argon2Sync: () => Buffer.alloc(4),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('the Argon2 in use', () => {
  it('is node:crypto where this runtime has it, else hash-wasm, and gives the reference outputs', async () => {
    const has = typeof (nodeCrypto as { argon2?: unknown }).argon2 === 'function';
    expect(argon2Runtime()).toEqual(
      has
        ? { backend: 'node:crypto', maxMemory: 2 ** 32 - 1 }
        : { backend: 'hash-wasm', maxMemory: HASH_WASM_ARGON2_MAX_MEMORY },
    );
    expect(hex(await argon2({ type: 'argon2id', ...REFERENCE }, enc('password'), enc('somesalt'), 32))).toBe(ID_32);
  });

  it('uses a native argon2 when the runtime has one, with every parameter where it belongs', async () => {
    const calls: NativeCall[] = [];
    standIn(fakeNative(calls));
    expect(argon2Runtime()).toEqual({ backend: 'node:crypto', maxMemory: 2 ** 32 - 1 });
    expect(hex(await argon2({ type: 'argon2id', ...REFERENCE }, enc('password'), enc('somesalt'), 32))).toBe(ID_32);
    expect(hex(await argon2({ type: 'argon2i', ...REFERENCE }, enc('password'), enc('somesalt'), 32))).toBe(I_32);
    expect(calls.map((c) => c.algorithm)).toEqual(['argon2id', 'argon2i']);
    expect(calls[0].parameters).toMatchObject({ parallelism: 1, tagLength: 32, memory: 1 << 16, passes: 2 });
    expect(hex(calls[0].parameters.message)).toBe(hex(enc('password')));
    expect(hex(calls[0].parameters.nonce)).toBe(hex(enc('somesalt')));
  });

  it('hands cryptsetup’s maximum, 4 GiB, to a native argon2 (hash-wasm cannot hold it)', async () => {
    const calls: NativeCall[] = [];
    standIn(fakeNative(calls, false));
    const p: Argon2Params = { type: 'argon2id', time: 4, memory: 4 * 1024 * 1024, cpus: 4 };
    expect(await argon2(p, enc('pass'), new Uint8Array(32), 64)).toHaveLength(64);
    expect(calls[0].parameters).toMatchObject({ memory: 4194304, passes: 4, parallelism: 4, tagLength: 64 });
  });

  it('passes a native argon2’s failure on', async () => {
    standIn({
      argon2: (_a: string, _p: unknown, cb: (e: Error | null, k?: Uint8Array) => void) =>
        queueMicrotask(() => cb(new Error('out of memory'))),
      argon2Sync: () => Buffer.alloc(4),
    });
    await expect(argon2({ type: 'argon2id', ...REFERENCE }, enc('p'), enc('somesalt'), 32)).rejects.toThrow(
      'out of memory',
    );
  });

  it('falls back to hash-wasm when node:crypto has argon2 but its OpenSSL lacks Argon2', async () => {
    const calls: NativeCall[] = [];
    const fake = fakeNative(calls);
    standIn({
      argon2: fake.argon2,
      argon2Sync: () => {
        throw Object.assign(new Error('Argon2 is not supported'), { code: 'ERR_CRYPTO_ARGON2_NOT_SUPPORTED' });
      },
    });
    expect(argon2Runtime().backend).toBe('hash-wasm');
    expect(hex(await argon2({ type: 'argon2id', ...REFERENCE }, enc('password'), enc('somesalt'), 32))).toBe(ID_32);
    expect(calls).toEqual([]);
  });

  it('refuses at once, in one line, an Argon2 memory hash-wasm cannot allocate', async () => {
    standIn({}); // a runtime without a native argon2, whatever this one is
    expect(argon2Runtime()).toEqual({ backend: 'hash-wasm', maxMemory: 4194175 });
    // the count sees hash-wasm at work where it runs ...
    const small = await workOf(() =>
      argon2({ type: 'argon2id', time: 1, memory: 64, cpus: 1 }, enc('p'), enc('somesalt'), 32),
    );
    expect(small).toMatchObject({ outcome: expect.any(Uint8Array), computations: 1 });
    for (const memory of [4 * 1024 * 1024, HASH_WASM_ARGON2_MAX_MEMORY + 1]) {
      const { outcome: err, computations } = await workOf(() =>
        argon2({ type: 'argon2id', time: 4, memory, cpus: 4 }, enc('p'), new Uint8Array(32), 64),
      );
      expect(computations).toBe(0); // ... and not here: refused before hash-wasm is asked for (and allocates)
      expect(err).toBeInstanceOf(RangeError);
      expect((err as Error).message).toBe(
        `@x/kdf: Argon2 memory of ${memory} KiB cannot be allocated in this runtime: hash-wasm's WebAssembly memory holds at most 4194175 KiB, and there is no native Argon2 (node:crypto has one from Node 24.7)`,
      );
      expect((err as Error).message).not.toMatch(/\n/);
    }
  });
});

describe('parameter checks, before any work', () => {
  const SHA256 = { fn: sha256, webCrypto: 'SHA-256' };

  it.each([
    [0, 'PBKDF2 iterations must be a whole number from 1 to 2^32 − 1, got 0'],
    [-1, 'PBKDF2 iterations must be a whole number from 1 to 2^32 − 1, got -1'],
    [1.5, 'PBKDF2 iterations must be a whole number from 1 to 2^32 − 1, got 1.5'],
    [2 ** 32, 'PBKDF2 iterations must be a whole number from 1 to 2^32 − 1, got 4294967296'],
  ])('PBKDF2 refuses %s iterations', async (c, message) => {
    const { outcome, computations } = await workOf(() => pbkdf2(SHA256, enc('p'), enc('salt'), c, 32));
    expect(outcome).toEqual(new RangeError(`@x/kdf: ${message}`));
    expect(outcome).toBeInstanceOf(RangeError);
    expect(computations).toBe(0); // before any work: neither WebCrypto nor @noble/hashes was asked
  });

  it('PBKDF2 work is seen by the count that shows the refusals above did none', async () => {
    expect((await workOf(() => pbkdf2(SHA256, enc('p'), enc('salt'), 2, 32))).computations).toBeGreaterThan(0);
    // an empty passphrase, which WebCrypto refuses, goes to @noble/hashes
    expect((await workOf(() => pbkdf2(SHA256, new Uint8Array(0), enc('salt'), 2, 32))).computations).toBe(1);
  });

  it('PBKDF2 refuses a length below 1 and a count that is not a number', async () => {
    await expect(pbkdf2(SHA256, enc('p'), enc('salt'), 1, 0)).rejects.toThrow(
      '@x/kdf: PBKDF2 length must be a whole number from 1 to 2^32 − 1, got 0',
    );
    await expect(pbkdf2(SHA256, enc('p'), enc('salt'), '1' as unknown as number, 32)).rejects.toThrow(
      new TypeError('@x/kdf: PBKDF2 iterations must be a number'),
    );
  });

  it.each([
    [{ time: 0 }, 32, 'Argon2 time must be a whole number from 1 to 2^32 − 1, got 0'],
    [{ time: 2 ** 32 }, 32, 'Argon2 time must be a whole number from 1 to 2^32 − 1, got 4294967296'],
    [{ cpus: 0 }, 32, 'Argon2 cpus must be a whole number from 1 to 2^24 − 1, got 0'],
    [{ cpus: 2 ** 24 }, 32, 'Argon2 cpus must be a whole number from 1 to 2^24 − 1, got 16777216'],
    [{ memory: 31, cpus: 4 }, 32, 'Argon2 memory (KiB) must be a whole number from 32 to 2^32 − 1, got 31'],
    [{ memory: 2 ** 32 }, 32, 'Argon2 memory (KiB) must be a whole number from 8 to 2^32 − 1, got 4294967296'],
    [{}, 3, 'Argon2 length must be a whole number from 4 to 2^32 − 1, got 3'],
  ])('Argon2 refuses %o (length %i)', async (change, length, message) => {
    const p = { type: 'argon2id' as const, time: 1, memory: 64, cpus: 1, ...change };
    const { outcome, computations } = await workOf(() => argon2(p, enc('p'), enc('somesalt'), length));
    expect(outcome).toEqual(new RangeError(`@x/kdf: ${message}`));
    expect(outcome).toBeInstanceOf(RangeError);
    expect(computations).toBe(0);
  });

  it('Argon2 refuses an unknown type', async () => {
    const p = { type: 'argon2d', time: 1, memory: 64, cpus: 1 } as unknown as Argon2Params;
    await expect(argon2(p, enc('p'), enc('somesalt'), 32)).rejects.toThrow(
      '@x/kdf: Argon2 type must be argon2i or argon2id, got argon2d',
    );
  });
});
