// A static check of the constant-time discipline of the kernel sources (README, "Constant time"):
// no array index and no branch or loop condition may involve anything but public values (lengths,
// offsets, counts, round and bit numbers). Data and keys live in locals such as x0, t, v, w, g_*, a*_*,
// which never appear inside brackets or conditions, and the generated code has no branches and only
// fixed-count loops. A dynamic check (memory-access traces) follows the static one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { loadInternal, type PortableState } from '../src/keyed.js';
import { loadPolyvalInternal, type PolyvalState } from '../src/polyval.js';

const src = (f: string) =>
  readFileSync(new URL(`../src/${f}`, import.meta.url), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '') // block comments (TSDoc)
    .replace(/\/\/.*$/gm, '') // line comments
    .replace(/^import .*$/gm, ''); // imports (module names hold slashes, and run nothing)

const FILES = ['bitsliced.generated.ts', 'narrow.ts', 'keyed.ts', 'index.ts', 'polyval.ts'];

/**
 * Public names: loop counters, lengths, offsets, round counts (`from`: a key byte position from r and p),
 * the call's mode; in the generated code also
 * the index variables i, p, q, v, which the third test shows are computed from loop counters only.
 */
const PUBLIC = new Set([
  'o',
  'so',
  'ko',
  'dOff',
  'i',
  'j',
  'r',
  'p',
  'q',
  'v',
  'w',
  'b',
  'n',
  'm',
  'nr',
  'rounds',
  'len',
  'spb',
  'from',
  'first',
  'chunk',
  'decrypt',
  'partial',
  'BATCH_BLOCKS',
  'u',
  'units',
  'per',
  'to',
  's0',
  'sectors',
  'k',
  // POLYVAL (polyval.ts): the flag for GHASH's byte order, the aggregation width.
  'reversed',
  'AGG',
]);

const identifiers = (expr: string) =>
  (expr.match(/[A-Za-z_$][\w$]*/g) ?? []).filter((x) => !/^(this|let|const)$/.test(x));

describe('constant-time discipline (static scan of src/)', () => {
  it('every array index is built from public values and constants only', () => {
    let seen = 0;
    for (const f of FILES) {
      for (const m of src(f).matchAll(/[\w$\]]\[([^[\]]*)\]/g)) {
        seen++;
        const bad = identifiers(m[1]).filter((x) => !PUBLIC.has(x));
        expect(bad, `${f}: index [${m[1]}]`).toEqual([]);
      }
    }
    expect(seen).toBeGreaterThan(1000);
  });

  it('the generated code and the one-block conversions have no branches, and only fixed-count loops', () => {
    for (const f of ['bitsliced.generated.ts', 'narrow.ts']) {
      const code = src(f).replace(/for \(let (o|w) = 0; \1 < \d+; \1(\+\+| \+= \d+)\) \{/g, '');
      expect(code).not.toMatch(/\b(if|for|while|do|switch|case|break|continue|return)\b|\?|&&|\|\||%|\//);
    }
  });

  it('index variables of the generated code are computed from loop counters and offsets only', () => {
    const code = src('bitsliced.generated.ts');
    let n = 0;
    for (const m of code.matchAll(/\b(i|p|q|v) = ([^;,]*)/g)) {
      n++;
      const bad = identifiers(m[2]).filter((x) => !['o', 'w'].includes(x));
      expect(bad, `${m[1]} = ${m[2]}`).toEqual([]);
    }
    expect(n).toBeGreaterThan(8);
  });

  for (const [f, least] of [
    ['keyed.ts', 15],
    ['polyval.ts', 8],
  ] as const) {
    it(`every branch and loop condition of ${f} is on public values`, () => {
      const code = src(f);
      const conditions: string[] = [];
      for (const m of code.matchAll(/\bif \(([^)]*)\)/g)) conditions.push(m[1]);
      for (const m of code.matchAll(/\bfor \([^;]*;([^;]*);/g)) conditions.push(m[1]);
      for (const m of code.matchAll(/([^(=:]*) \?/g)) conditions.push(m[1]);
      expect(conditions.length).toBeGreaterThan(least);
      for (const c of conditions) {
        const bad = identifiers(c).filter((x) => !PUBLIC.has(x));
        expect(bad, `condition "${c}"`).toEqual([]);
      }
    });
  }

  it('polyval.ts has no while, switch, %, / or logical operators outside its length arithmetic', () => {
    // Its only division and remainder are of data.length (public), in update().
    const code = src('polyval.ts').replace(/data\.length % 16|\(len - o\) \/ 16/g, '');
    expect(code).not.toMatch(/\b(while|do|switch|case)\b|&&|\|\||%|[^/]\/[^/]/);
  });
});

// A dynamic check of the same property: run the whole kernel with every array it touches (its own state,
// chaining and key arrays, and the caller's buffers) wrapped in a Proxy that records each element read
// and write, and compare the traces of two runs with different keys and data but the same lengths and
// offsets. Any key- or data-dependent index, branch or loop count would show up as a difference.
type Arr = Uint8Array | Int32Array;

function traced<T extends Arr>(target: T, name: string, log: string[]): T {
  return new Proxy(target, {
    get(t, prop) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) log.push(`${name}[${prop}]`);
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
    set(t, prop, value) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) log.push(`${name}[${prop}]=`);
      return Reflect.set(t, prop, value, t);
    },
  });
}

function random(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) ^ i;
    b[i] = x >>> 24;
  }
  return b;
}

/** The access trace of one call of `method` with key/data from `seed`; lengths and layout are fixed. */
function trace(method: string, keyLen: number, blocks: number, seed: number): string[] {
  const log: string[] = [];
  const { keyed: k, state } = loadInternal(expandKey(random(keyLen, seed)));
  const st = state as unknown as Record<string, Arr | Arr[]>;
  for (const name of ['sa', 'sb', 'raw', 'tail', 'q', 'zero', 'xt', 'chain'] satisfies (keyof PortableState)[]) {
    st[name] = traced(st[name] as Arr, name, log);
  }
  for (const name of ['encKeys', 'decKeys', 'narrowKeys'] satisfies (keyof PortableState)[]) {
    st[name] = (st[name] as Arr[]).map((v, r) => traced(v, `${name}${r}`, log));
  }
  const buf = random(16 * blocks + 3, seed + 1);
  const src = traced(buf.subarray(3), 'src', log);
  const dst = traced(new Uint8Array(16 * blocks + 1).subarray(1), 'dst', log);
  const iv = traced(random(16 * blocks, seed + 2), 'iv', log);
  const calls: Record<string, () => void> = {
    encryptBlocks: () => k.encryptBlocks(dst, src),
    decryptBlocks: () => k.decryptBlocks(dst, src),
    cbcEncrypt: () => k.cbcEncrypt(dst, src, iv),
    'cbcDecryptSectors, one chain': () => k.cbcDecryptSectors(dst, src, src.length, iv),
    cbcDecryptSectors: () => k.cbcDecryptSectors(dst, src, 48, iv),
    cbcEncryptSectors: () => k.cbcEncryptSectors(dst, src, 48, iv),
    xtsEncrypt: () => k.xtsEncrypt(dst, src, 48, iv),
    xtsDecrypt: () => k.xtsDecrypt(dst, src, 48, iv),
  };
  calls[method]();
  return log;
}

const METHODS = [
  'encryptBlocks',
  'decryptBlocks',
  'cbcEncrypt',
  'cbcDecryptSectors, one chain',
  'cbcDecryptSectors',
  'cbcEncryptSectors',
  'xtsEncrypt',
  'xtsDecrypt',
];

/** The access trace of one POLYVAL update on `blocks` blocks with key, accumulator and data from `seed`. */
function tracePolyval(blocks: number, reversed: boolean, seed: number): string[] {
  const log: string[] = [];
  const { hash, state } = loadPolyvalInternal(traced(random(16, seed), 'h', log));
  const st = state as unknown as Record<string, Arr>;
  for (const name of ['powers', 'sums', 'acc'] satisfies (keyof PolyvalState)[]) {
    st[name] = traced(st[name], name, log);
  }
  const acc = traced(random(19, seed + 1).subarray(3), 'accBytes', log);
  const data = traced(random(16 * blocks + 5, seed + 2).subarray(5), 'data', log);
  hash.update(acc, data, reversed);
  return log;
}

describe('constant-time discipline (memory-access traces)', () => {
  it('POLYVAL load and update: the same trace for different keys, accumulators and data', () => {
    for (const blocks of [0, 1, 7, 8, 9, 21]) {
      for (const reversed of [false, true]) {
        const a = tracePolyval(blocks, reversed, 1);
        const b = tracePolyval(blocks, reversed, 2);
        expect(a.length).toBeGreaterThan(blocks * 81);
        expect(a).toEqual(b);
      }
    }
  });

  for (const method of METHODS) {
    it(`${method}: the same trace for different keys and data`, () => {
      for (const keyLen of [16, 32]) {
        const a = trace(method, keyLen, 36, 1);
        const b = trace(method, keyLen, 36, 2);
        expect(a.length).toBeGreaterThan(1000);
        expect(a).toEqual(b);
      }
    });
  }
});
