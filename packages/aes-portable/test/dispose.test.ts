import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { portableKernel, PortableKeyedKernel } from '../src/index.js';

describe('dispose', () => {
  it('wipes every copy of the round keys and the scratch state', () => {
    const schedule = expandKey(new Uint8Array(32).fill(0x5c));
    const k = portableKernel.load(schedule) as PortableKeyedKernel;
    schedule.wipe(); // the kernel owns converted copies; the schedule may go
    const data = new Uint8Array(16 * 40).fill(1);
    k.decryptCBC(data, data, new Uint8Array(16));
    k.encryptECB(data, data);
    const internals = k as unknown as Record<string, Int32Array | Uint8Array | Int32Array[]>;
    const stores = [k.wideEnc, k.wideDec, k.narrowEnc];
    for (const s of stores) expect(s.some((v) => v !== 0)).toBe(true);
    k.dispose();
    for (const s of stores) expect(s.every((v) => v === 0)).toBe(true);
    // the per-round views alias the same storage
    for (const name of ['encKeys', 'decKeys', 'narrowKeys']) {
      for (const v of internals[name] as Int32Array[]) expect(v.every((x) => x === 0)).toBe(true);
    }
    for (const name of ['sa', 'sb', 'raw', 'tail', 'q']) {
      expect((internals[name] as Int32Array).every((x) => x === 0)).toBe(true);
    }
    // and everything else the kernel allocated: it all lives in one buffer
    expect(k.memory.every((x) => x === 0)).toBe(true);
    expect(k.wideEnc.buffer).toBe(k.memory.buffer);
  });

  it('leaves no data in its scratch buffers after a call', () => {
    const k = portableKernel.load(expandKey(new Uint8Array(16).fill(1))) as PortableKeyedKernel;
    const internals = k as unknown as Record<string, Int32Array | Uint8Array>;
    const data = new Uint8Array(16 * 45).fill(0x3c);
    const scratchIsZero = () => ['sa', 'sb', 'raw', 'tail', 'q'].every((n) => internals[n].every((x) => x === 0));
    k.encryptECB(data, data);
    expect(scratchIsZero()).toBe(true);
    k.decryptECB(data, data);
    expect(scratchIsZero()).toBe(true);
    k.decryptSectors(data, data, 48, new Uint8Array(16 * 15));
    expect(scratchIsZero()).toBe(true);
    k.encryptCBC(data, data, new Uint8Array(16));
    expect(scratchIsZero()).toBe(true);
    k.dispose();
  });
});
