// The allocation check itself: it must still fail a path that allocates, whatever its retries.
import { describe, expect, it } from 'vitest';
import { ATTEMPTS, allocationReport } from '../src/alloc.js';

describe('allocationReport', () => {
  it('passes a path that allocates nothing', async () => {
    const a = new Uint8Array(64);
    expect(await allocationReport(() => a.fill(1, 0, 16), 50_000)).toBeUndefined();
  });

  it('fails a path that keeps one small object per call, in every run', async () => {
    const kept: object[] = [];
    const report = await allocationReport(() => {
      kept.push({ n: kept.length });
    }, 50_000);
    expect(report?.split('; ')).toHaveLength(ATTEMPTS);
  });

  it('fails a path that makes a 16-byte ArrayBuffer per call, in every run', async () => {
    let last: Uint8Array | undefined;
    const report = await allocationReport(() => {
      last = new Uint8Array(16);
    }, 50_000);
    expect(last).toHaveLength(16);
    expect(report?.split('; ')).toHaveLength(ATTEMPTS);
  });
});
