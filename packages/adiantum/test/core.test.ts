/**
 * The SIMD128 core (src/core-wasm.ts) against the Adiantum authors' vectors for XChaCha8/12/20, NH,
 * NHPoly1305 and Poly1305 (test/vectors, from github.com/google/adiantum test_vectors/ours at commit
 * 4feeb5aa), the HChaCha20 subkey of draft-irtf-cfrg-xchacha-03 §2.2.1 and the Poly1305 tag of RFC 8439
 * §2.5.2, against @noble/ciphers' XChaCha20, and against the portable core (src/core-portable.ts) on
 * random keys, lengths, offsets and states for all five functions of the contract.
 *
 * The Poly1305 and NHPoly1305 vectors come with their own keys, which the contract's `setup` would
 * derive instead: they run on the raw module, whose `setup(rounds, 0)` clamps the keys already at DERIVED
 * (scripts/wat.ts). NH's vectors are checked through NHPoly1305 under a random K_M, against a BigInt
 * Poly1305 written from its definition (refPoly1305H of @x/testkit, itself checked on the Poly1305 vectors).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { poly1305 } from '@noble/ciphers/_poly1305.js';
import { chacha8, chacha12, chacha20, chacha20orig, xchacha20 } from '@noble/ciphers/chacha.js';
import fc from 'fast-check';
import { refHChaCha, refPoly1305H } from '@x/testkit';
import { describe, expect, it, vi } from 'vitest';
import { portableCore } from '../src/core-portable.js';
import type { HbshCore } from '../src/core.js';
import { wasmCore } from '../src/core-wasm.js';
import { DATA, DERIVED, HDR, KEY, NH_KEY, NONCE, STATES, STATE_BYTES, XS, YS } from '../src/layout.js';
import { WASM_BASE64 } from '../src/wasm.generated.js';

const vectors = <T>(name: string): { source: string; vectors: T[] } => {
  const bytes = readFileSync(new URL(`./vectors/${name}`, import.meta.url));
  return JSON.parse((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
};
const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const le = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const leBytes = (x: bigint, n: number) => Uint8Array.from({ length: n }, (_, i) => Number((x >> BigInt(8 * i)) & 255n));

/** The raw module (exports of scripts/wat.ts), for the vectors that bring their own Poly1305 keys. */
function rawModule() {
  const bytes = Uint8Array.from(atob(WASM_BASE64), (c) => c.charCodeAt(0));
  const e = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as {
    memory: WebAssembly.Memory;
    setup(rounds: number, bytes: number): void;
    header(ptr: number, len: number, state: number, more: number): void;
    absorb(ptr: number, len: number, state: number, hpolyc: number): void;
    finish(ptr: number, len: number, state: number, out: number, base: number, sign: number, hpolyc: number): void;
  };
  return { e, m: new Uint8Array(e.memory.buffer) };
}

const core = wasmCore();

describe('wasmCore', () => {
  it('is available here (Node 20 has SIMD128), a new instance with its own memory per call', () => {
    expect(core?.name).toBe('wasm-simd128');
    const other = wasmCore();
    expect(other?.memory.buffer).not.toBe(core?.memory.buffer);
    expect(core?.memory.length).toBe(196608);
  });
});

describe('wasmCore where WebAssembly is missing or refused', () => {
  const fresh = async () => {
    vi.resetModules();
    return import('../src/core-wasm.js');
  };

  it.each([
    ['no WebAssembly', undefined],
    ['no SIMD128 (the module does not validate)', { ...WebAssembly, validate: () => false }],
    [
      'compilation refused (a CSP without wasm-unsafe-eval)',
      {
        ...WebAssembly,
        Module: function refused() {
          throw new WebAssembly.CompileError('refused');
        },
        compile: () => Promise.reject(new WebAssembly.CompileError('refused')),
      },
    ],
  ])('%s: undefined, never a throw; initCore resolves', async (_, stub) => {
    vi.stubGlobal('WebAssembly', stub);
    try {
      const m = await fresh();
      expect(m.wasmCore()).toBeUndefined();
      await expect(m.initCore()).resolves.toBeUndefined();
      expect(m.wasmCore()).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('initCore compiles ahead of time, then wasmCore instantiates from it', async () => {
    const m = await fresh();
    await m.initCore();
    expect(m.wasmCore()?.name).toBe('wasm-simd128');
  });
});

describe('XChaCha (stream)', () => {
  it.each([
    [8, 'wasm'],
    [12, 'wasm'],
    [20, 'wasm'],
    [8, 'portable'],
    [12, 'portable'],
    [20, 'portable'],
  ] as const)('XChaCha%d: the authors’ vectors, blocks 0, 1, 1023, 1024, 2048, %s core', (rounds, which) => {
    const c = which === 'wasm' ? (core as HbshCore) : portableCore();
    const { vectors: vs } = vectors<{ key: string; nonce: string; tests: { offset: number; block: string }[] }>(
      `xchacha_${rounds}.json`,
    );
    expect(vs.length).toBeGreaterThan(0);
    for (const v of vs) {
      c.memory.set(hex(v.key), KEY);
      c.setup(rounds, 0);
      c.memory.set(hex(v.nonce), NONCE);
      for (const t of v.tests) {
        c.memory.fill(0, DATA, DATA + 64);
        c.stream(NONCE, DATA, 64, t.offset);
        expect(toHex(c.memory.subarray(DATA, DATA + 64))).toBe(t.block);
      }
    }
  });

  it('HChaCha20 gives the subkey of draft-irtf-cfrg-xchacha-03 §2.2.1 (both cores)', () => {
    // Key 00..1f, nonce 000000090000004a0000000031415927: the subkey the draft prints. XChaCha20's block 0
    // under any 8-byte nonce tail n is then ChaCha20 (djb's layout) under that subkey with nonce n.
    const subkey = hex('82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc');
    const tail = hex('0102030405060708');
    const want = chacha20orig(subkey, tail, new Uint8Array(128));
    for (const c of [wasmCore() as HbshCore, portableCore()]) {
      c.memory.set(
        Uint8Array.from({ length: 32 }, (_, i) => i),
        KEY,
      );
      c.setup(20, 0);
      c.memory.set(hex('000000090000004a0000000031415927'), NONCE);
      c.memory.set(tail, NONCE + 16);
      c.memory.fill(0, DATA, DATA + 128);
      c.stream(NONCE, DATA, 128, 0);
      expect(toHex(c.memory.subarray(DATA, DATA + 128)), c.name).toBe(toHex(want));
    }
  });

  it('XChaCha20 equals @noble/ciphers xchacha20 at any length, offset and counter', () => {
    const c = core as HbshCore;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 24, maxLength: 24 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 0, max: 2 ** 20 }),
        (key, nonce, len, offset, counter) => {
          const data = Uint8Array.from({ length: len }, (_, i) => (i * 7 + offset) & 255);
          c.memory.set(key, KEY);
          c.setup(20, 1);
          c.memory.set(nonce, NONCE);
          const at = DATA + offset;
          c.memory.fill(0xa5, at - 16, at + len + 300);
          c.memory.set(data, at);
          c.stream(NONCE, at, len, counter);
          expect(toHex(c.memory.subarray(at, at + len))).toBe(toHex(xchacha20(key, nonce, data, undefined, counter)));
          // Nothing around the range is touched.
          expect(c.memory.subarray(at - 16, at).every((x) => x === 0xa5)).toBe(true);
          expect(c.memory.subarray(at + len, at + len + 300).every((x) => x === 0xa5)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each([2 ** 32 - 3, 2 ** 32 + 5, 2 ** 40 - 1, 2 ** 52 + 17])(
    'takes and carries the 64-bit block counter (words 12–13) from block %d',
    (block) => {
      const c = core as HbshCore;
      const p = portableCore();
      for (const x of [c, p]) {
        x.memory.set(new Uint8Array(32).fill(7), KEY);
        x.setup(12, 0);
        x.memory.set(new Uint8Array(24).fill(9), NONCE);
        x.memory.fill(0, DATA, DATA + 600);
        x.stream(NONCE, DATA, 600, block);
      }
      expect(toHex(c.memory.subarray(DATA, DATA + 600))).toBe(toHex(p.memory.subarray(DATA, DATA + 600)));
    },
  );
});

describe('against @noble/ciphers on random inputs, both cores', () => {
  // Fresh cores: the shared `core` must keep the memory the cross-core tests below compare.
  const cores = () => [wasmCore() as HbshCore, portableCore()];

  it('XChaCha8/12/20 = noble chacha8/chacha12/chacha20 under the HChaCha subkey (refHChaCha of @x/testkit)', () => {
    // With the IETF nonce 0^4 ‖ N[16..24) and a counter below 2^32, noble's ChaCha state equals the djb
    // layout XChaCha uses (words 12–13 the 64-bit counter, 14–15 N[16..24)).
    const noble = { 8: chacha8, 12: chacha12, 20: chacha20 } as const;
    fc.assert(
      fc.property(
        fc.constantFrom<8 | 12 | 20>(8, 12, 20),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 24, maxLength: 24 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (rounds, key, nonce, len, counter) => {
          const subkey = refHChaCha(rounds, key, nonce.subarray(0, 16));
          const ietf = new Uint8Array(12);
          ietf.set(nonce.subarray(16), 4);
          const want = noble[rounds](subkey, ietf, new Uint8Array(len), undefined, counter);
          for (const c of cores()) {
            c.memory.set(key, KEY);
            c.setup(rounds, 1);
            c.memory.set(nonce, NONCE);
            c.memory.fill(0, DATA, DATA + len);
            c.stream(NONCE, DATA, len, counter);
            expect(toHex(c.memory.subarray(DATA, DATA + len)), c.name).toBe(toHex(want));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('Poly1305 = noble poly1305: header then finish with s as the base, under the key setup derives', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ maxLength: 700 }),
        fc.boolean(),
        (key, s, msg, asMessage) => {
          for (const c of cores()) {
            c.memory.set(key, KEY);
            c.setup(12, 1); // HPolyC: K_H at DERIVED+32, clamped by the core
            const r = c.memory.slice(DERIVED + 32, DERIVED + 48);
            c.memory.set(s, XS);
            if (asMessage) {
              // As HPolyC's message: an empty header, then the message through finish.
              c.memory.set(msg, DATA);
              c.header(HDR, 0, STATES, 0);
              c.finish(DATA, msg.length, STATES, YS, XS, 0);
            } else {
              c.memory.set(msg, HDR);
              c.header(HDR, msg.length, STATES, 0);
              c.finish(DATA, 0, STATES, YS, XS, 0);
            }
            const want = poly1305(msg, Uint8Array.from([...r, ...s]));
            expect(toHex(c.memory.subarray(YS, YS + 16)), c.name).toBe(toHex(want));
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('Poly1305 (header, finish)', () => {
  const { vectors: vs } = vectors<{ key: string; mask: string; message: string; mac: string }>('poly1305.json');

  it('the BigInt reference (refPoly1305H of @x/testkit) gives the authors’ vectors', () => {
    for (const v of vs) {
      const mac = (refPoly1305H(hex(v.key), hex(v.message)) + le(hex(v.mask))) & ((1n << 128n) - 1n);
      expect(toHex(leBytes(mac, 16))).toBe(v.mac);
    }
  });

  it('the authors’ vectors: as a header (A) and as HPolyC’s message (A), mask as the base', () => {
    const { e, m } = rawModule();
    for (const v of vs) {
      const msg = hex(v.message);
      m.set(hex(v.key), DERIVED + 32);
      e.setup(12, 0);
      m.set(hex(v.mask), XS);
      m.set(msg, HDR);
      e.header(HDR, msg.length, STATES, 0);
      e.finish(DATA, 0, STATES, YS, XS, 0, 0);
      expect(toHex(m.subarray(YS, YS + 16))).toBe(v.mac);
      m.set(msg, DATA);
      e.header(HDR, 0, STATES, 0);
      e.finish(DATA, msg.length, STATES, YS + 16, XS, 0, 1);
      expect(toHex(m.subarray(YS + 16, YS + 32))).toBe(v.mac);
    }
  });

  it('RFC 8439 §2.5.2: the tag of "Cryptographic Forum Research Group" (s as the base)', () => {
    const { e, m } = rawModule();
    const key = hex('85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b');
    const msg = new TextEncoder().encode('Cryptographic Forum Research Group');
    m.set(key.subarray(0, 16), DERIVED + 32);
    e.setup(12, 0);
    m.set(key.subarray(16), XS);
    m.set(msg, HDR);
    e.header(HDR, msg.length, STATES, 0);
    e.finish(DATA, 0, STATES, YS, XS, 0, 0);
    expect(toHex(m.subarray(YS, YS + 16))).toBe('a8061dc1305136c6c22b8baf0c0127a9');
  });

  it('reduces fully where h lands in [p, 2^130) (the inputs of RFC 8439 §A.3 #5 and #9, and more)', () => {
    const { e, m } = rawModule();
    const ff = 'ff'.repeat(16);
    const cases: [string, string, string?][] = [
      // r = 2, m = FF…FF: h = 2·(2^129 − 1) = 2^130 − 2 ≡ 3 (RFC 8439 §A.3 #5 without s).
      [`02${'00'.repeat(15)}`, ff, `03${'00'.repeat(15)}`],
      // r = 2, m = FD FF…FF: h = 2^130 − 6 ≡ p − 1, taken mod 2^128 (§A.3 #9).
      [`02${'00'.repeat(15)}`, `fd${'ff'.repeat(15)}`, `fa${'ff'.repeat(15)}`],
      [`01${'00'.repeat(15)}`, `${ff}f0${'ff'.repeat(15)}11${'00'.repeat(15)}`],
      [`01${'00'.repeat(15)}`, `${ff}fb${'fe'.repeat(15)}${'01'.repeat(16)}`],
      [
        `0100000000000000${'04'}${'00'.repeat(7)}`,
        `e33594d7505e43b9${'00'.repeat(8)}3394d7505e4379cd01${'00'.repeat(23)}`,
      ],
      [ff, ff.repeat(5)],
    ];
    for (const [key, msg, want] of cases) {
      const data = hex(msg);
      const expected = toHex(leBytes(refPoly1305H(hex(key), data) & ((1n << 128n) - 1n), 16));
      if (want) expect(expected).toBe(want);
      m.set(hex(key), DERIVED + 32);
      e.setup(12, 0);
      m.fill(0, XS, XS + 16);
      m.set(data, HDR);
      e.header(HDR, data.length, STATES, 0);
      e.finish(DATA, 0, STATES, YS, XS, 0, 0);
      expect(toHex(m.subarray(YS, YS + 16))).toBe(expected);
    }
  });
});

describe('NH and NHPoly1305 (absorb, finish)', () => {
  it('the authors’ NHPoly1305 vectors, in one finish and split by absorb', () => {
    const { vectors: vs } = vectors<{ key: string; message: string; hash: string }>('nhpoly1305.json.gz');
    expect(vs.length).toBe(30);
    const { e, m } = rawModule();
    for (const v of vs) {
      const key = hex(v.key);
      const msg = hex(v.message);
      m.set(key.subarray(0, 16), DERIVED + 48);
      m.set(key.subarray(16), NH_KEY);
      e.setup(12, 0);
      m.fill(0, XS, XS + 16);
      m.set(msg, DATA);
      e.header(HDR, 0, STATES, 0);
      e.finish(DATA, msg.length, STATES, YS, XS, 0, 0);
      expect(toHex(m.subarray(YS, YS + 16))).toBe(v.hash);
      const whole = msg.length & ~1023;
      if (whole > 0 && whole < msg.length) {
        e.header(HDR, 0, STATES, 0);
        e.absorb(DATA, whole, STATES, 0);
        e.finish(DATA + whole, msg.length - whole, STATES, YS, XS, 0, 0);
        expect(toHex(m.subarray(YS, YS + 16))).toBe(v.hash);
      }
    }
  });

  it('the authors’ NH vectors (through Poly1305 under a random K_M)', () => {
    const { vectors: vs } = vectors<{ key: string; message: string; hash: string }>('nh.json');
    expect(vs.length).toBeGreaterThan(0);
    const { e, m } = rawModule();
    const km = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) & 255);
    for (const v of vs) {
      const msg = hex(v.message);
      m.set(km, DERIVED + 48);
      m.set(hex(v.key), NH_KEY);
      e.setup(12, 0);
      m.fill(0, XS, XS + 16);
      m.set(msg, DATA);
      e.header(HDR, 0, STATES, 0);
      e.finish(DATA, msg.length, STATES, YS, XS, 0, 0);
      const want = refPoly1305H(km, hex(v.hash)) & ((1n << 128n) - 1n);
      expect(toHex(m.subarray(YS, YS + 16))).toBe(toHex(leBytes(want, 16)));
    }
  });
});

describe('wasm core = portable core', () => {
  const p = portableCore();
  const w = core as HbshCore;
  const both = (f: (c: HbshCore) => void) => {
    f(w);
    f(p);
  };
  const same = (from: number, to: number) =>
    expect(toHex(w.memory.subarray(from, to))).toBe(toHex(p.memory.subarray(from, to)));

  it('setup: the same subkeys at DERIVED (Adiantum 1136 bytes, HPolyC 48)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom(8, 12, 20),
        fc.constantFrom(0, 1),
        (key, rounds, hpolyc) => {
          both((c) => {
            c.memory.fill(0xee, DERIVED, DERIVED + 1200);
            c.memory.set(key, KEY);
            c.setup(rounds, hpolyc);
          });
          same(DERIVED, DERIVED + (hpolyc ? 48 : 1136));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('stream: the same bytes at any length, alignment and block', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 24, maxLength: 24 }),
        fc.constantFrom(8, 12, 20),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (key, nonce, rounds, len, offset, block) => {
          both((c) => {
            c.memory.set(key, KEY);
            c.setup(rounds, 0);
            c.memory.set(nonce, NONCE);
            for (let i = 0; i < len + 128; i++) c.memory[DATA + i] = (i * 13) & 255;
            c.stream(NONCE, DATA + offset, len, block);
          });
          same(DATA, DATA + len + 128);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('header, absorb, finish: the same out = base ± H for Adiantum and HPolyC, the state left as it was', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom(8, 12, 20),
        fc.constantFrom(0, 1),
        fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 4200 }),
        fc.constantFrom(0, 1),
        fc.integer({ min: 0, max: 200 }),
        fc.boolean(),
        (key, rounds, hpolyc, headerLens, chunks, tail, sign, state, sameOut) => {
          const lens = headerLens.map((l, i) => (i < headerLens.length - 1 ? l & ~15 : l));
          const stateAt = STATES + STATE_BYTES * state;
          const absorbed = 1024 * chunks;
          both((c) => {
            const m = c.memory;
            m.set(key, KEY);
            c.setup(rounds, hpolyc);
            for (let i = 0; i < 2048; i++) m[HDR + i] = (i * 29 + 3) & 255;
            for (let i = 0; i < absorbed + tail; i++) m[DATA + i] = (i * 131 + (i >> 8)) & 255;
            for (let i = 0; i < 32; i++) m[XS + i] = (i * 71) & 255;
            let at = HDR;
            lens.forEach((l, i) => {
              c.header(at, l, stateAt, i === 0 ? 0 : 1);
              at += l;
            });
            if (absorbed) c.absorb(DATA, absorbed, stateAt);
            const out = sameOut ? XS : YS;
            c.finish(DATA + absorbed, tail, stateAt, out, XS, sign);
            // finish again from the same state: the same result (the state was not changed).
            c.finish(DATA + absorbed, tail, stateAt, XS + 16, sameOut ? YS + 32 : XS, sign);
          });
          same(XS, XS + 32);
          same(YS, YS + 16);
          if (!sameOut) expect(toHex(w.memory.subarray(XS + 16, XS + 32))).toBe(toHex(w.memory.subarray(YS, YS + 16)));
          same(DATA, DATA + absorbed + tail);
        },
      ),
      { numRuns: 80 },
    );
  });
});
