// essiv and eboiv reach AES only through @x/cbc's encryptECB, in batches (8 or more blocks per call when
// there are that many IVs to make), on the same two scratch views every time: nothing is allocated per call.
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls: { dst: Uint8Array; src: Uint8Array }[] = [];
vi.mock('@x/cbc', async (importOriginal) => {
  const real = await importOriginal<typeof import('@x/cbc')>();
  return {
    ...real,
    newCipher: (key: Uint8Array, options?: { kernel?: string }) => {
      const cipher = real.newCipher(key, options);
      const encryptECB = cipher.encryptECB.bind(cipher);
      return Object.assign(Object.create(cipher) as typeof cipher, {
        encryptECB(dst: Uint8Array, src: Uint8Array) {
          calls.push({ dst, src });
          encryptECB(dst, src);
        },
      });
    },
  };
});

const { newIvGenerator } = await import('../src/index.js');

describe.each(['essiv:sha256', 'eboiv'])('%s', (mode) => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('makes 2048 IVs in batches of 64 blocks', () => {
    const gen = newIvGenerator(mode, randomBytes(32));
    gen.generate(new Uint8Array(16 * 2048), 0, 2048);
    expect(calls.length).toBe(32);
    for (const c of calls) expect(c.src.length).toBe(16 * 64);
  });

  it('uses at least 8 blocks a call whenever there are 8 IVs to make, and never more than asked', () => {
    const gen = newIvGenerator(mode, randomBytes(16));
    for (const count of [1, 7, 8, 9, 63, 64, 65, 129, 200, 1000]) {
      calls.length = 0;
      gen.generate(new Uint8Array(16 * count), 5, count);
      const blocks = calls.map((c) => c.src.length / 16);
      expect(blocks.reduce((a, b) => a + b, 0)).toBe(count);
      for (const b of blocks) expect(b).toBeGreaterThanOrEqual(Math.min(count, 8));
      expect(blocks.length).toBe(Math.ceil(count / 64));
    }
  });

  it('reuses the same scratch views from call to call', () => {
    const gen = newIvGenerator(mode, randomBytes(32));
    const ivs = new Uint8Array(16 * 128);
    gen.generate(ivs, 0, 128);
    gen.generate(ivs, 1000, 128);
    expect(calls.length).toBe(4);
    for (const c of calls.slice(1)) {
      expect(c.src).toBe(calls[0].src);
      expect(c.dst).toBe(calls[0].dst);
    }
  });
});
