// The portable core's constant-time discipline (core-portable.ts), checked two ways. Statically: every array
// index and every branch or loop condition is made of public names only (pointers, lengths, loop counters,
// the variant flag); keys and data live in locals (x0…x15, h, r, d, s, t0…t7, m0…m3, c, v, q, buf, ll, mid,
// hh…) that never appear inside brackets or conditions. Dynamically: the core runs on a memory that records
// every element read and written, and two runs with different keys and data but the same lengths and
// pointers give the same trace. (The WebAssembly core is checked by its instruction allowlist,
// wasm-build.test.ts.)
import { readFileSync } from 'node:fs';
import { random } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { portableCore } from '../src/core-portable.js';
import { DATA, HDR, KEY, MEMORY_BYTES, NONCE, STATES, XS } from '../src/layout.js';

const code = readFileSync(new URL('../src/core-portable.ts', import.meta.url), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\/\/.*$/gm, '')
  // The variant flag (Adiantum or HPolyC) is configuration, not a secret.
  .replace(/(this\.memory|m)\[ROUNDS \+ 1\]/g, 'VARIANT');

const PUBLIC = new Set([
  // pointers and areas
  'ptr',
  'p',
  'acc',
  'statePtr',
  'out',
  'outPtr',
  'basePtr',
  'noncePtr',
  'from',
  'to',
  'rAt',
  'keyAt',
  'k',
  'PAD',
  'KEY',
  'NH_OUT',
  'NH_KEY',
  'HASH',
  'HASH_B',
  'ACC_A',
  'ACC_B',
  'DERIVED',
  'R_HEADER',
  'R_MESSAGE',
  // lengths, counters, flags
  'len',
  'n',
  'whole',
  'padded',
  'end',
  'units',
  'at',
  'u',
  'i',
  'j',
  'o',
  'bits',
  'pass',
  'r',
  'doubleRounds',
  'hpolyc',
  'more',
  'sign',
  'bytes',
  'NH_CHUNK',
  'VARIANT',
  'ROUNDS',
  'block',
  'hibit',
]);
const identifiers = (expr: string) =>
  (expr.match(/[A-Za-z_$][\w$]*/g) ?? []).filter((x) => !/^(this|let|const|Math|min)$/.test(x));

describe('constant-time discipline of the portable core (static scan)', () => {
  it('every array index is made of public names and constants only', () => {
    let seen = 0;
    for (const m of code.matchAll(/[\w$\]]\[([^[\]]*)\]/g)) {
      seen++;
      expect(
        identifiers(m[1]).filter((x) => !PUBLIC.has(x)),
        `index [${m[1]}]`,
      ).toEqual([]);
    }
    expect(seen).toBeGreaterThan(80);
  });

  it('every branch and loop condition is on public names only', () => {
    const conditions: string[] = [];
    for (const m of code.matchAll(/\b(?:if|while) \(([^)]*)\)/g)) conditions.push(m[1]);
    for (const m of code.matchAll(/\bfor \([^;]*;([^;]*);/g)) conditions.push(m[1]);
    for (const m of code.matchAll(/([^(=:]*) \?/g)) conditions.push(m[1]);
    expect(conditions.length).toBeGreaterThan(30);
    for (const c of conditions) {
      expect(
        identifiers(c).filter((x) => !PUBLIC.has(x)),
        `condition "${c}"`,
      ).toEqual([]);
    }
  });

  it('no division, remainder or logical operator outside public arithmetic', () => {
    // Carries are multiplications by powers of two (constants 1 / 2^k) and Math.floor; the one division of
    // a variable is of a public length.
    const rest = code.replace(/NH_CHUNK \/ 16|\b1 \/ \d+|'\.\/[\w-]+\.js'/g, '');
    expect(rest).not.toMatch(/&&(?! o < 16)|\|\||%|[^/*]\/[^/*]/);
  });
});

/** A memory that logs the index of every element read or written. */
function tracedMemory(log: string[]): Uint8Array {
  return new Proxy(new Uint8Array(MEMORY_BYTES), {
    get(t, prop) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) log.push(`r${prop}`);
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
    set(t, prop, value) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) log.push(`w${prop}`);
      return Reflect.set(t, prop, value, t);
    },
  });
}

/** Every call of the contract once, with key, tweak and data from `seed`. */
function trace(hpolyc: number, rounds: number, len: number, seed: number): string[] {
  const log: string[] = [];
  const core = portableCore(tracedMemory(log));
  const m = core.memory;
  const rnd = (n: number) => random(n).map((b, i) => b ^ (seed * 31 + i));
  for (const [at, b] of [
    [KEY, rnd(32)],
    [NONCE, rnd(24)],
    [HDR, rnd(48)],
    [DATA, rnd(len)],
    [XS, rnd(16)],
  ] as const) {
    for (let i = 0; i < b.length; i++) Reflect.set(m, i + at, b[i]);
  }
  core.setup(rounds, hpolyc);
  core.header(HDR, 48, STATES, 0);
  core.header(HDR, 33, STATES, 1);
  if (len >= 1024) core.absorb(DATA, 1024, STATES);
  core.finish(DATA, len, STATES, XS + 16, XS, 0);
  core.finish(DATA, len - 5, STATES, XS + 16, XS, 1);
  core.stream(NONCE, DATA, len, 3);
  return log;
}

describe('constant-time discipline of the portable core (memory-access traces)', () => {
  for (const [hpolyc, name] of [
    [0, 'Adiantum'],
    [1, 'HPolyC'],
  ] as const) {
    it(`${name}: setup, header, absorb, finish and stream touch the same bytes for different keys and data`, () => {
      for (const [rounds, len] of [
        [12, 4080],
        [20, 1100],
        [8, 37],
      ]) {
        const a = trace(hpolyc, rounds, len, 1);
        const b = trace(hpolyc, rounds, len, 2);
        expect(a.length).toBeGreaterThan(len);
        expect(a).toEqual(b);
      }
    });
  }
});
