// The runtime parts of the contract: the fast-path names and the view cache.
import { describe, expect, it } from 'vitest';
import { type AesFastPaths, FAST_PATHS, type FastPath, ViewCache } from '../src/index.js';

describe('FAST_PATHS', () => {
  it('names every optional method of a keyed kernel, once', () => {
    // Each name is a key of AesFastPaths (checked by the type), and every key is named.
    const all: Record<keyof AesFastPaths, true> = {
      cbcEncrypt: true,
      cbcDecryptSectors: true,
      cbcEncryptSectors: true,
      xtsEncrypt: true,
      xtsDecrypt: true,
      ctr: true,
      hctr2: true,
      gcmSeal: true,
      gcmOpen: true,
    };
    const names: readonly FastPath[] = FAST_PATHS;
    expect([...names].sort()).toEqual(Object.keys(all).sort());
  });
});

describe('ViewCache', () => {
  it('gives the same view while the memory is the same, a new one when it changes', () => {
    const views = new ViewCache();
    const a = new Uint8Array(64);
    const v = views.get(0, a, 16, 32);
    expect([v.buffer, v.byteOffset, v.length]).toEqual([a.buffer, 16, 32]);
    expect(views.get(0, a, 16, 32)).toBe(v);
    expect(views.get(0, new Uint8Array(a.buffer, 0, 64), 16, 32)).toBe(v); // another view of the same bytes
    const w = views.get(0, a, 16, 16);
    expect(w).not.toBe(v);
    expect(w.length).toBe(16);
    const b = new Uint8Array(64);
    expect(views.get(0, b, 16, 16).buffer).toBe(b.buffer);
  });
  it('keeps one view per slot', () => {
    const views = new ViewCache();
    const a = new Uint8Array(64);
    const v0 = views.get(0, a, 0, 16);
    const v1 = views.get(1, a, 16, 16);
    expect(views.get(0, a, 0, 16)).toBe(v0);
    expect(views.get(1, a, 16, 16)).toBe(v1);
  });
  it('prefix: the array itself when all of it is asked for', () => {
    const views = new ViewCache();
    const a = new Uint8Array(48);
    expect(views.prefix(0, a, 48)).toBe(a);
    const p = views.prefix(0, a, 32);
    expect([p.byteOffset, p.length]).toEqual([0, 32]);
    expect(views.prefix(0, a, 32)).toBe(p);
  });
  it('clear forgets every view', () => {
    const views = new ViewCache();
    const a = new Uint8Array(32);
    const v = views.get(0, a, 0, 16);
    views.clear();
    expect(views.get(0, a, 0, 16)).not.toBe(v);
  });
});
