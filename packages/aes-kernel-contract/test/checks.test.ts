import { describe, expect, it } from 'vitest';
import * as rules from '../src/index.js';

const P = '@x/test';
const fails = (fn: () => void, type: ErrorConstructor, message: string) => {
  expect(fn).toThrow(type);
  expect(fn).toThrow(message);
};

describe('checkBytes and checkKey', () => {
  it('accepts Uint8Arrays and Buffers, refuses the rest with a TypeError', () => {
    rules.checkBytes(P, 'x', new Uint8Array(1));
    rules.checkBytes(P, 'x', Buffer.alloc(1));
    for (const bad of [
      null,
      undefined,
      'ab',
      [1],
      new Uint16Array(2),
      new DataView(new ArrayBuffer(2)),
      new ArrayBuffer(2),
    ]) {
      fails(() => rules.checkBytes(P, 'x', bad), TypeError, '@x/test: x must be a Uint8Array');
    }
  });
  it('takes AES key lengths only', () => {
    for (const n of [16, 24, 32]) rules.checkKey(P, new Uint8Array(n));
    for (const n of [0, 15, 17, 31, 33, 48, 64])
      fails(
        () => rules.checkKey(P, new Uint8Array(n)),
        RangeError,
        `@x/test: key must be 16, 24 or 32 bytes, got ${n}`,
      );
  });
});

describe('checkOptions', () => {
  it('takes undefined or an object, refuses the rest with a TypeError', () => {
    rules.checkOptions(P, undefined);
    rules.checkOptions(P, {});
    for (const bad of [null, 'portable', 7, true])
      fails(() => rules.checkOptions(P, bad), TypeError, '@x/test: options must be an object');
  });
});

describe('checkBlocks and checkDataUnit: the overlap rule', () => {
  const buf = new Uint8Array(256);
  const at = (o: number, n: number) => buf.subarray(o, o + n);
  it('in place (same bytes, also through another view) and disjoint are fine', () => {
    rules.checkBlocks(P, at(16, 64), at(16, 64));
    rules.checkBlocks(P, new Uint8Array(buf.buffer, 16, 64), at(16, 64));
    rules.checkBlocks(P, at(64, 64), at(0, 64));
    rules.checkBlocks(P, at(0, 64), at(64, 64));
    rules.checkBlocks(P, new Uint8Array(0), new Uint8Array(0));
    rules.checkBlocks(P, at(0, 0), at(0, 0));
    // Only the bytes written count: a long dst may extend over src past src.length.
    rules.checkBlocks(P, at(0, 128), at(96, 16));
  });
  it('partial overlap is a RangeError, in both directions and by one byte', () => {
    const msg = '@x/test: dst and src overlap without being the same bytes';
    fails(() => rules.checkBlocks(P, at(16, 64), at(0, 64)), RangeError, msg);
    fails(() => rules.checkBlocks(P, at(0, 64), at(16, 64)), RangeError, msg);
    fails(() => rules.checkBlocks(P, at(63, 64), at(0, 64)), RangeError, msg);
    fails(() => rules.checkDataUnit(P, at(1, 17), at(0, 17)), RangeError, msg);
  });
  it('different buffers never overlap', () => {
    rules.checkBlocks(P, new Uint8Array(32), new Uint8Array(32));
  });
  it('length rules', () => {
    fails(
      () => rules.checkBlocks(P, new Uint8Array(32), new Uint8Array(31)),
      RangeError,
      '@x/test: src is not a whole number of 16-byte blocks (31 bytes)',
    );
    fails(
      () => rules.checkBlocks(P, new Uint8Array(16), new Uint8Array(32)),
      RangeError,
      '@x/test: dst is shorter than src (16 < 32 bytes)',
    );
    fails(
      () => rules.checkDataUnit(P, new Uint8Array(32), new Uint8Array(15)),
      RangeError,
      '@x/test: src is shorter than one 16-byte block (15 bytes)',
    );
    fails(
      () => rules.checkDataUnit(P, new Uint8Array(16), new Uint8Array(17)),
      RangeError,
      '@x/test: dst is shorter than src (16 < 17 bytes)',
    );
    rules.checkDataUnit(P, new Uint8Array(17), new Uint8Array(17));
    fails(() => rules.checkBlocks(P, 1, new Uint8Array(16)), TypeError, '@x/test: dst must be a Uint8Array');
    fails(() => rules.checkDataUnit(P, new Uint8Array(16), 'x'), TypeError, '@x/test: src must be a Uint8Array');
  });
});

describe('checkIv and checkSectors', () => {
  it('IVs are 16 bytes and do not overlap what is written', () => {
    const buf = new Uint8Array(96);
    rules.checkIv(P, new Uint8Array(16), buf, 96);
    rules.checkIv(P, buf.subarray(64, 80), buf.subarray(0, 64), 64);
    fails(() => rules.checkIv(P, buf.subarray(48, 64), buf, 64), RangeError, '@x/test: iv overlaps dst');
    fails(
      () => rules.checkIv(P, new Uint8Array(12), buf, 16, 'tweak'),
      RangeError,
      '@x/test: tweak must be 16 bytes, got 12',
    );
    fails(() => rules.checkIv(P, {}, buf, 16), TypeError, '@x/test: iv must be a Uint8Array');
  });
  it('sector rules', () => {
    const src = new Uint8Array(1024),
      dst = new Uint8Array(1024);
    rules.checkSectors(P, dst, src, 512, new Uint8Array(32));
    rules.checkSectors(P, dst, new Uint8Array(0), 4096, new Uint8Array(0));
    fails(
      () => rules.checkSectors(P, dst, src, '512', new Uint8Array(32)),
      TypeError,
      '@x/test: sectorSize must be a number',
    );
    for (const bad of [0, -512, 8, 520, 1.5 * 16, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      fails(
        () => rules.checkSectors(P, dst, src, bad, new Uint8Array(32)),
        RangeError,
        `@x/test: sectorSize must be a positive multiple of 16, got ${bad}`,
      );
    }
    fails(
      () => rules.checkSectors(P, dst, src, 768, new Uint8Array(16)),
      RangeError,
      '@x/test: src is not a whole number of 768-byte sectors (1024 bytes)',
    );
    fails(
      () => rules.checkSectors(P, dst, src, 512, new Uint8Array(16), 'tweaks'),
      RangeError,
      '@x/test: tweaks must be 16 bytes per sector, 32 bytes, got 16',
    );
    fails(() => rules.checkSectors(P, dst, src, 512, [0]), TypeError, '@x/test: ivs must be a Uint8Array');
    fails(
      () => rules.checkSectors(P, dst, src, 512, dst.subarray(1000, 1024).subarray(0, 32)),
      RangeError,
      '@x/test: ivs must be 16 bytes per sector, 32 bytes, got 24',
    );
    fails(() => rules.checkSectors(P, dst, src, 512, dst.subarray(992, 1024)), RangeError, '@x/test: ivs overlaps dst');
  });
});

describe('checkStream, checkSide and overlaps', () => {
  const buf = new Uint8Array(64);
  it('a stream call takes any length, with the same overlap rule', () => {
    rules.checkStream(P, new Uint8Array(5), new Uint8Array(5));
    rules.checkStream(P, buf.subarray(0, 7), buf.subarray(0, 7));
    fails(
      () => rules.checkStream(P, buf.subarray(1, 8), buf.subarray(0, 7)),
      RangeError,
      '@x/test: dst and src overlap without being the same bytes',
    );
    fails(
      () => rules.checkStream(P, new Uint8Array(4), new Uint8Array(5)),
      RangeError,
      '@x/test: dst is shorter than src (4 < 5 bytes)',
    );
  });
  it('a side input may sit anywhere but in the bytes written', () => {
    rules.checkSide(P, 'aad', buf.subarray(32, 64), buf, 32);
    rules.checkSide(P, 'nonce', new Uint8Array(0), buf, 64);
    fails(() => rules.checkSide(P, 'aad', buf.subarray(31, 40), buf, 32), RangeError, '@x/test: aad overlaps dst');
    fails(() => rules.checkSide(P, 'nonce', 'abc', buf, 32), TypeError, '@x/test: nonce must be a Uint8Array');
  });
  it('sectors with 32-byte tweaks (HCTR2)', () => {
    const src = new Uint8Array(1024);
    rules.checkSectors(P, new Uint8Array(1024), src, 512, new Uint8Array(64), 'tweaks', 32);
    fails(
      () => rules.checkSectors(P, new Uint8Array(1024), src, 512, new Uint8Array(32), 'tweaks', 32),
      RangeError,
      '@x/test: tweaks must be 32 bytes per sector, 64 bytes, got 32',
    );
  });
  it('overlaps: shared memory within the given lengths only', () => {
    expect(rules.overlaps(buf, 16, buf.subarray(15), 1)).toBe(true);
    expect(rules.overlaps(buf, 16, buf.subarray(16), 16)).toBe(false);
    expect(rules.overlaps(buf.subarray(16), 16, buf, 17)).toBe(true);
    expect(rules.overlaps(buf, 0, buf, 16)).toBe(false);
    expect(rules.overlaps(buf, 16, new Uint8Array(16), 16)).toBe(false);
  });
});

describe('OverlapMemo: the same rules, with the placement of the last arrays remembered', () => {
  const P2 = '@x/memo';
  /** What a call does: 'ok', or the error it throws. */
  const outcome = (fn: () => void) => {
    try {
      fn();
      return 'ok';
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  };
  /** Each rule with a memo against the same rule without one, on the same arrays. */
  const same = (memo: rules.OverlapMemo, dst: Uint8Array, src: Uint8Array, iv: Uint8Array) => {
    expect(outcome(() => rules.checkBlocks(P2, dst, src, memo))).toBe(outcome(() => rules.checkBlocks(P2, dst, src)));
    expect(outcome(() => rules.checkIv(P2, iv, dst, src.length, 'iv', memo))).toBe(
      outcome(() => rules.checkIv(P2, iv, dst, src.length)),
    );
    const size = src.length || 16;
    expect(outcome(() => rules.checkSectors(P2, dst, src, size, iv, 'ivs', 16, memo))).toBe(
      outcome(() => rules.checkSectors(P2, dst, src, size, iv)),
    );
  };

  it('answers as the rules without it, for every placement, seen first and then again', () => {
    const buf = new Uint8Array(256);
    const views = [
      [0, 64],
      [16, 64],
      [63, 64],
      [64, 64],
      [0, 16],
      [48, 16],
      [56, 16],
      [128, 16],
      [0, 0],
    ].map(([o, n]) => buf.subarray(o, o + n));
    views.push(new Uint8Array(64), new Uint8Array(16), new Uint8Array(buf.buffer, 16, 64), buf);
    const memo = new rules.OverlapMemo();
    for (const dst of views) {
      for (const src of views) {
        for (const iv of views) {
          same(memo, dst, src, iv); // new arrays: the memo reads them
          same(memo, dst, src, iv); // the same arrays again: the memo answers
        }
      }
    }
  });

  it('reads lengths afresh: views of a resizable buffer, and of a detached one', () => {
    const Resizable = ArrayBuffer as unknown as new (
      n: number,
      o: { maxByteLength: number },
    ) => ArrayBuffer & {
      resize(n: number): void;
    };
    const rab = new Resizable(64, { maxByteLength: 128 });
    const dst = new Uint8Array(rab); // both track the buffer's length
    const src = new Uint8Array(rab, 32);
    const fixed = new Uint8Array(rab, 48, 16); // out of bounds (length 0) below 64 bytes
    const memo = new rules.OverlapMemo();
    for (const length of [64, 96, 48, 128, 32, 16, 64]) {
      rab.resize(length);
      same(memo, dst, src, fixed);
      same(memo, fixed, src, dst.subarray(0, 16));
    }
    expect(outcome(() => rules.checkBlocks(P2, dst, src, memo))).toBe('ok'); // 64 bytes: [0, 32) and [32, 64)
    rab.resize(96);
    expect(outcome(() => rules.checkBlocks(P2, dst, src, memo))).toBe(
      'RangeError: @x/memo: dst and src overlap without being the same bytes',
    );

    const plain = new Uint8Array(64);
    const a = plain.subarray(0, 32);
    const b = plain.subarray(16, 48);
    const c = plain.subarray(48, 64);
    same(memo, a, b, c);
    same(memo, a, a, c);
    structuredClone(plain.buffer, { transfer: [plain.buffer] }); // detaches: every view has 0 bytes
    same(memo, a, b, c);
    same(memo, a, a, c);
  });

  it('forgets the arrays on clear()', () => {
    const buf = new Uint8Array(64);
    const memo = new rules.OverlapMemo();
    rules.checkBlocks(P2, buf.subarray(0, 16), buf.subarray(16, 32), memo);
    memo.clear();
    fails(
      () => rules.checkBlocks(P2, buf.subarray(0, 32), buf.subarray(16, 48), memo),
      RangeError,
      '@x/memo: dst and src overlap without being the same bytes',
    );
  });
});
