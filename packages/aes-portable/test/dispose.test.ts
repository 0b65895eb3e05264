// What the portable kernel's memory holds, through its internal state (loadInternal: this package's tests
// only): dispose() zeroes every copy of the round keys and all scratch, and no call leaves data behind.
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { loadInternal } from '../src/keyed.js';

const SCRATCH = ['sa', 'sb', 'raw', 'q', 'xt', 'tail', 'chain'] as const;

describe('dispose', () => {
  it('wipes every copy of the round keys and the scratch state', () => {
    const schedule = expandKey(new Uint8Array(32).fill(0x5c));
    const { keyed: k, state } = loadInternal(schedule);
    schedule.wipe(); // the kernel owns converted copies; the schedule may go
    const data = new Uint8Array(16 * 40).fill(1);
    k.cbcDecryptSectors(data, data, data.length, new Uint8Array(16));
    k.encryptBlocks(data, data);
    const stores = [state.wideEnc, state.wideDec, state.narrowEnc];
    for (const s of stores) expect(s.some((v) => v !== 0)).toBe(true);
    k.dispose();
    for (const s of stores) expect(s.every((v) => v === 0)).toBe(true);
    // the per-round views alias the same storage
    for (const views of [state.encKeys, state.decKeys, state.narrowKeys]) {
      for (const v of views) expect(v.every((x) => x === 0)).toBe(true);
    }
    for (const name of SCRATCH) expect(state[name].every((x) => x === 0)).toBe(true);
    // and everything else the kernel allocated: it all lives in one buffer
    expect(state.memory.every((x) => x === 0)).toBe(true);
    for (const name of [...SCRATCH, 'wideEnc', 'wideDec', 'narrowEnc'] as const)
      expect(state[name].buffer).toBe(state.memory.buffer);
  });

  it('leaves no data in its scratch buffers after a call of any method', () => {
    const { keyed: k, state } = loadInternal(expandKey(new Uint8Array(16).fill(1)));
    const data = new Uint8Array(16 * 45).fill(0x3c);
    const ivs = new Uint8Array(16 * 15).fill(0x11);
    const calls: Record<string, () => void> = {
      encryptBlocks: () => k.encryptBlocks(data, data),
      decryptBlocks: () => k.decryptBlocks(data, data),
      cbcEncrypt: () => k.cbcEncrypt(data, data, ivs.subarray(0, 16)),
      cbcDecryptSectors: () => k.cbcDecryptSectors(data, data, 48, ivs),
      cbcEncryptSectors: () => k.cbcEncryptSectors(data, data, 48, ivs),
      xtsEncrypt: () => k.xtsEncrypt(data, data, 48, ivs),
      xtsDecrypt: () => k.xtsDecrypt(data, data, 48, ivs),
    };
    for (const [name, call] of Object.entries(calls)) {
      call();
      for (const s of SCRATCH)
        expect(
          state[s].every((x) => x === 0),
          `${name} left data in ${s}`,
        ).toBe(true);
    }
    k.dispose();
  });
});
