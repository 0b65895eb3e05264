// BlockBatch: the batch every mode's generic path runs the kernel on (cbc, ctr, xts, lrw extend it).
import { describe, expect, it } from 'vitest';
import { BlockBatch } from '../src/index.js';

describe('BlockBatch', () => {
  it('holds a whole multiple of parallelBlocks, at least 32 blocks, and a view of every prefix, made once', () => {
    for (const [parallel, blocks] of [
      [1, 32],
      [4, 32],
      [8, 32],
      [6, 36],
      [64, 64],
    ]) {
      const b = new BlockBatch(parallel);
      expect(b.blocks).toBe(blocks);
      expect(b.batch.length).toBe(16 * blocks);
      expect(b.views.length).toBe(blocks + 1);
      b.views.forEach((v, m) => {
        expect(v.buffer).toBe(b.batch.buffer);
        expect([v.byteOffset, v.length]).toEqual([0, 16 * m]);
      });
    }
  });
  it('wipe zeroes the batch, and a subclass its own state after it', () => {
    class Masked extends BlockBatch {
      readonly masks = new Uint8Array(16 * this.blocks);
      override wipe(): void {
        super.wipe();
        this.masks.fill(0);
      }
    }
    const s = new Masked(4);
    expect(s.masks.length).toBe(16 * 32);
    s.batch.fill(7);
    s.masks.fill(9);
    s.wipe();
    expect(s.batch.every((x) => x === 0) && s.masks.every((x) => x === 0)).toBe(true);
  });
});
