// loadKey: the schedule a mode expands is wiped once the kernel has it, also when loading throws.
import { expandKey } from '@x/aes-keyschedule';
import { describe, expect, it } from 'vitest';
import { type AesKernel, type AesKeyedKernel, loadKey } from '../src/index.js';

/** A kernel that only records the round keys it was given (a copy), or throws. */
const recorder = (fail: boolean) => {
  const seen: Uint8Array[] = [];
  const kernel = {
    load(schedule: { encryptionKeys: Uint8Array }) {
      seen.push(schedule.encryptionKeys.slice());
      if (fail) throw new Error('no');
      return { name: 'recorder' } as unknown as AesKeyedKernel;
    },
  } as unknown as AesKernel;
  return { kernel, seen };
};

describe('loadKey', () => {
  it("hands the kernel the schedule's round keys, then wipes the schedule", () => {
    const { kernel, seen } = recorder(false);
    const key = new Uint8Array(16).fill(0x2b);
    const schedule = expandKey(key);
    const keys = schedule.encryptionKeys.slice();
    expect(keys.subarray(0, 16)).toEqual(key); // round key 0 is the key (FIPS 197 §5.2)
    expect(loadKey(kernel, schedule)).toEqual({ name: 'recorder' });
    expect(seen).toEqual([keys]);
    expect(schedule.encryptionKeys.every((b) => b === 0)).toBe(true);
    expect(schedule.decryptionKeys.every((b) => b === 0)).toBe(true);
  });
  it('wipes the schedule when the kernel throws, and lets the error through', () => {
    const { kernel } = recorder(true);
    const schedule = expandKey(new Uint8Array(32).fill(7));
    expect(schedule.encryptionKeys.some((b) => b !== 0)).toBe(true);
    expect(() => loadKey(kernel, schedule)).toThrow('no');
    expect(schedule.encryptionKeys.every((b) => b === 0)).toBe(true);
  });
});
