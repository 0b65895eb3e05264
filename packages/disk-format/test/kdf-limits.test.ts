// secretBytes, and the limits every format puts on the key derivations a header asks for (the options, their defaults and
// checks, the messages, which candidates are tried), and formatErrors, the classes a format package exports.
import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  argon2Problem,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TIME_COST,
  DiskError,
  formatErrors,
  HeaderError,
  iterationsProblem,
  kdfLimits,
  kdfProblemError,
  MAX_ARGON2_MEMORY,
  notTried,
  secretBytes,
  triable,
  WrongPassphraseError,
  WrongSecretError,
  WrongVolumeKeyError,
} from '../src/index.js';

const limits = { maxIterations: 1000, maxTimeCost: 4, maxMemory: 64 };
const runtime = { backend: 'hash-wasm', maxMemory: 100 };

describe('kdfLimits', () => {
  it('defaults: 2^26 iterations, 2^16 passes, 4 GiB of Argon2 memory at most half the machine', () => {
    expect(DEFAULT_MAX_ITERATIONS).toBe(67_108_864);
    expect(DEFAULT_MAX_TIME_COST).toBe(65_536);
    expect(MAX_ARGON2_MEMORY).toBe(4_194_304);
    expect(kdfLimits({}, '@x/t')).toEqual({
      maxIterations: 67_108_864,
      maxTimeCost: 65_536,
      maxMemory: Math.min(4_194_304, Math.floor(totalmem() / 2048)),
    });
    expect(kdfLimits({ maxIterations: 5, maxTimeCost: 6, maxMemory: 7 }, '@x/t')).toEqual({
      maxIterations: 5,
      maxTimeCost: 6,
      maxMemory: 7,
    });
  });

  it('refuses a bound that is not a positive whole number, with the prefix given', () => {
    expect(() => kdfLimits({ maxMemory: '1' as unknown as number }, '@x/t')).toThrow(
      new TypeError('@x/t: options.maxMemory must be a number'),
    );
    for (const v of [0, -1, 1.5, Number.NaN, 2 ** 53])
      expect(() => kdfLimits({ maxTimeCost: v }, '@x/t')).toThrow(
        new RangeError(`@x/t: options.maxTimeCost must be a positive whole number, got ${v}`),
      );
  });
});

describe('the checks', () => {
  it('iterations: at least 1, at most 2^32 − 1 and maxIterations', () => {
    expect(iterationsProblem('slot', 1000, limits)).toBeUndefined();
    expect(iterationsProblem('slot', 0, limits)).toBe('slot.iterations is 0; PBKDF2 needs at least 1');
    expect(iterationsProblem('slot', 2 ** 32, { ...limits, maxIterations: 2 ** 40 })).toMatch(
      /^slot\.iterations 4294967296 is above 2\^32 − 1/,
    );
    expect(iterationsProblem('slot', 1001, limits)).toBe(
      'slot.iterations 1001 is above maxIterations, 1000 (raise options.maxIterations to try it)',
    );
  });

  it('Argon2: the rules, the bounds, then what the runtime can allocate (a runtime problem)', () => {
    const p = (time: number, memory: number, cpus: number) =>
      argon2Problem('k.kdf', 'k', { time, memory, cpus }, limits, runtime);
    expect(p(4, 64, 1)).toBeUndefined();
    const cost = (why: string) => ({ message: `k.kdf: argon2 cost out of range: ${why}`, runtime: false });
    expect(p(0, 64, 1)).toEqual(cost('time 0 is not within 1 … 2^32 − 1'));
    expect(p(5, 64, 1)).toEqual({
      ...cost('time 5 is above maxTimeCost, 4 (raise options.maxTimeCost to try it)'),
      limit: { option: 'maxTimeCost', limit: 4, asked: 5 },
    });
    expect(p(4, 64, 17)).toEqual(cost('cpus 17 is not within 1 … 16'));
    expect(p(4, 15, 2)).toEqual(cost('memory 15 KiB is below 8 KiB per lane (RFC 9106 §3.1)'));
    expect(p(4, 65, 1)).toEqual({
      ...cost('memory 65 KiB is above maxMemory, 64 KiB (raise options.maxMemory to try it)'),
      limit: { option: 'maxMemory', limit: 64, asked: 65 },
    });
    const big = { ...limits, maxMemory: 2 ** 32 };
    expect(argon2Problem('k.kdf', 'k', { time: 4, memory: MAX_ARGON2_MEMORY + 1, cpus: 1 }, big, runtime)).toEqual(
      cost("memory 4194305 KiB is above 4194304 KiB (4 GiB), cryptsetup's maximum"),
    );
    expect(argon2Problem('k.kdf', 'k', { time: 4, memory: 101, cpus: 1 }, big, runtime)).toEqual({
      message:
        'k: Argon2 memory of 101 KiB cannot be allocated in this runtime (its Argon2, hash-wasm, holds at most 100 KiB; Node ≥ 24.7 has a native Argon2 that can)',
      runtime: true,
    });
  });
});

describe('triable and the errors', () => {
  const errors = formatErrors('demo', 'DemoError');
  const problem = (n: number) => (n > 10 ? { message: `slot ${n} too costly`, runtime: n > 100 } : undefined);

  it('passes over a candidate with a problem while another is left', () => {
    expect(triable([1, 20, 3], problem, false, '@x/demo', errors)).toEqual({
      ok: [1, 3],
      skipped: [{ message: 'slot 20 too costly', runtime: false }],
    });
    expect(notTried([{ message: 'slot 20 too costly', runtime: false }])).toBe('; not tried: slot 20 too costly');
    expect(notTried([])).toBe('');
  });

  it('throws the first problem when none is left or the one asked for has one: HeaderError, or the base class for the runtime', () => {
    expect(() => triable([20, 200], problem, false, '@x/demo', errors)).toThrow(
      new errors.HeaderError('@x/demo: slot 20 too costly'),
    );
    expect(() => triable([20], problem, true, '@x/demo', errors)).toThrow(errors.HeaderError);
    const e = kdfProblemError({ message: 'slot 200 too costly', runtime: true }, '@x/demo', errors);
    expect(e).toBeInstanceOf(errors.FormatError);
    expect(e).not.toBeInstanceOf(HeaderError);
    expect([e.name, e.message, e.format, e.code]).toEqual([
      'DemoError',
      '@x/demo: slot 200 too costly',
      'demo',
      'DISK_ERROR',
    ]);
  });

  it('formatErrors: subclasses of the shared classes, each carrying the format, all instances of the base class', () => {
    const other = formatErrors('other', 'OtherError');
    const h = new errors.HeaderError('h'),
      p = new errors.WrongPassphraseError('p'),
      v = new errors.WrongVolumeKeyError('v');
    expect(errors.FormatError.name).toBe('DemoError');
    for (const [e, base, name, code] of [
      [h, HeaderError, 'HeaderError', 'HEADER_ERROR'],
      [p, WrongPassphraseError, 'WrongPassphraseError', 'WRONG_PASSPHRASE'],
      [v, WrongVolumeKeyError, 'WrongVolumeKeyError', 'WRONG_VOLUME_KEY'],
    ] as const) {
      expect(e).toBeInstanceOf(base);
      expect(e).toBeInstanceOf(DiskError);
      expect(e).toBeInstanceOf(errors.FormatError);
      expect(e).not.toBeInstanceOf(other.FormatError);
      expect([e.name, e.code, e.format]).toEqual([name, code, 'demo']);
    }
    expect(p).toBeInstanceOf(WrongSecretError);
    expect(h).not.toBeInstanceOf(errors.WrongPassphraseError);
    expect(new other.HeaderError('x')).not.toBeInstanceOf(errors.HeaderError);
    expect(() => formatErrors('', 'X')).toThrow(TypeError);
  });
});

describe('secretBytes', () => {
  it('a string as UTF-8, bytes as a copy; anything else a TypeError naming the secret', () => {
    expect(secretBytes('pä', 'passphrase', '@x/t')).toEqual(Uint8Array.of(0x70, 0xc3, 0xa4));
    const given = Uint8Array.of(1, 2, 3);
    const copy = secretBytes(given, 'passphrase', '@x/t');
    copy.fill(0);
    expect(given).toEqual(Uint8Array.of(1, 2, 3));
    expect(() => secretBytes(42, 'new passphrase', '@x/t')).toThrow(
      new TypeError('@x/t: new passphrase must be a string or a Uint8Array'),
    );
  });
});

describe('the bound an error is above, as a field (issue 25: a command names its own option)', () => {
  const errors = formatErrors('demo', 'DemoError');
  const limits = kdfLimits({ maxIterations: 1000, maxTimeCost: 4, maxMemory: 64 }, '@x/t');
  const runtime = { backend: 'hash-wasm', maxMemory: 2 ** 22 };

  it('an iterations problem (a message, as the formats wrap it) gives kdfLimit', () => {
    const message = iterationsProblem('crypto user 0.pbkdf2', 2 ** 32 - 1, { ...limits, maxIterations: 2 ** 26 })!;
    const e = kdfProblemError({ message, runtime: false }, '@x/demo', errors);
    expect(e).toBeInstanceOf(errors.HeaderError);
    expect(e.message).toBe(
      '@x/demo: crypto user 0.pbkdf2.iterations 4294967295 is above maxIterations, 67108864 (raise options.maxIterations to try it)',
    );
    expect(e.kdfLimit).toEqual({ option: 'maxIterations', limit: 2 ** 26, asked: 2 ** 32 - 1 });
  });

  it('Argon2 time and memory give theirs; a rule, or a limit of the runtime, gives none', () => {
    const time = argon2Problem('k.kdf', 'k', { time: 9, memory: 64, cpus: 1 }, limits, runtime)!;
    expect(kdfProblemError(time, '@x/demo', errors).kdfLimit).toEqual({ option: 'maxTimeCost', limit: 4, asked: 9 });
    const memory = argon2Problem('k.kdf', 'k', { time: 1, memory: 100, cpus: 1 }, limits, runtime)!;
    expect(triableError(memory)).toEqual({ option: 'maxMemory', limit: 64, asked: 100 });
    expect(
      kdfProblemError({ message: 'slot 1 too costly', runtime: false }, '@x/demo', errors).kdfLimit,
    ).toBeUndefined();
    const tooBig = argon2Problem('k.kdf', 'k', { time: 1, memory: 64, cpus: 1 }, limits, {
      ...runtime,
      maxMemory: 32,
    })!;
    expect(kdfProblemError(tooBig, '@x/demo', errors).kdfLimit).toBeUndefined();

    function triableError(p: ReturnType<typeof argon2Problem>) {
      try {
        triable([p], (x) => x, false, '@x/demo', errors);
      } catch (e) {
        return (e as { kdfLimit?: unknown }).kdfLimit;
      }
      return 'not thrown';
    }
  });
});
