/**
 * The memory contract: one fixed memory that never grows, several keys alive at once, round keys wiped
 * from WebAssembly memory on dispose(), nothing left behind in the chunk buffer after a call.
 */
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { wasmKernel } from '../src/index.js';
import { CHUNK, DATA, IV, KEY_BYTES, KEY_IN, PAGE } from '../src/layout.js';
import { getInstance } from '../src/module.js';
import { load, refDecryptCBC, refEncryptCBC, refEncryptECB } from './helpers.js';

const memory = () => getInstance()!.exports.memory as WebAssembly.Memory;
const keyArea = () => new Uint8Array(memory().buffer, KEY_IN, KEY_BYTES);
const scratch = () => new Uint8Array(memory().buffer, IV, DATA + CHUNK - IV);
const allZero = (b: Uint8Array) => b.every((x) => x === 0);

describe('wasm-simd128 memory', () => {
  it('has one page that cannot grow', () => {
    const m = memory();
    expect(m.buffer.byteLength).toBe(PAGE);
    expect(() => m.grow(1)).toThrow(RangeError);
    expect(m.buffer.byteLength).toBe(PAGE);
  });

  it('keeps several keys alive at once, interleaved calls', () => {
    const keys = [16, 24, 32, 16, 32].map((n, i) => new Uint8Array(n).map((_, j) => 17 * i + j));
    const kernels = keys.map(load);
    const data = new Uint8Array(16 * 77).map((_, i) => i);
    const iv = new Uint8Array(16).fill(9);
    for (let round = 0; round < 3; round++) {
      kernels.forEach((k, i) => {
        const out = new Uint8Array(data.length);
        k.encryptECB(out, data);
        expect(Buffer.compare(out, refEncryptECB(keys[i], data))).toBe(0);
        k.encryptCBC(out, data, iv);
        expect(Buffer.compare(out, refEncryptCBC(keys[i], data, iv))).toBe(0);
        k.decryptCBC(out, data, iv);
        expect(Buffer.compare(out, refDecryptCBC(keys[i], data, iv))).toBe(0);
      });
    }
    // Disposing one leaves the others working.
    kernels[1].dispose();
    const out = new Uint8Array(data.length);
    kernels[0].encryptECB(out, data);
    expect(Buffer.compare(out, refEncryptECB(keys[0], data))).toBe(0);
    kernels.forEach((k, i) => i !== 1 && k.dispose());
  });

  it('wipes the round keys in WebAssembly memory on dispose()', () => {
    const k = load(new Uint8Array(32).fill(0x5c));
    k.encryptECB(new Uint8Array(16), new Uint8Array(16));
    expect(allZero(keyArea())).toBe(false);
    k.dispose();
    expect(allZero(keyArea())).toBe(true);
  });

  it('wipes when the disposed key is not the active one, and the active one stays', () => {
    const a = load(new Uint8Array(16).fill(1));
    const b = load(new Uint8Array(16).fill(2));
    const before = keyArea().slice();
    a.dispose(); // b is active
    expect(keyArea()).toEqual(before);
    b.dispose();
    expect(allZero(keyArea())).toBe(true);
  });

  it('leaves no plaintext, ciphertext or chaining value behind after a call', () => {
    const k = load(new Uint8Array(16).fill(3));
    const data = new Uint8Array(CHUNK + 48).fill(0x77);
    const out = new Uint8Array(data.length);
    k.decryptCBC(out, data, new Uint8Array(16).fill(1));
    expect(allZero(scratch())).toBe(true);
    k.encryptCBC(out, data, new Uint8Array(16).fill(1));
    expect(allZero(scratch())).toBe(true);
    k.decryptSectors(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4));
    expect(allZero(scratch())).toBe(true);
    k.encryptSectors(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4));
    expect(allZero(scratch())).toBe(true);
    k.encryptSectors(new Uint8Array(9 * 4112), new Uint8Array(9 * 4112).fill(0x77), 4112, new Uint8Array(9 * 16).fill(4));
    expect(allZero(scratch())).toBe(true);
    k.encryptXTS(out, data.subarray(0, 4096), 512, new Uint8Array(128).fill(4));
    expect(allZero(scratch())).toBe(true);
    k.decryptXTS(out, data, data.length, new Uint8Array(16).fill(4));
    expect(allZero(scratch())).toBe(true);
    k.dispose();
  });

  it('leaves the staging area for the schedule zeroed after load()', () => {
    const s = expandKey(new Uint8Array(24).fill(0xee));
    const k = wasmKernel.load(s);
    expect(allZero(new Uint8Array(memory().buffer, KEY_IN, 256))).toBe(true);
    // The schedule may be wiped by the caller; the kernel keeps its own converted copy.
    s.wipe();
    const out = new Uint8Array(16);
    k.encryptECB(out, new Uint8Array(16));
    expect(Buffer.compare(out, refEncryptECB(new Uint8Array(24).fill(0xee), new Uint8Array(16)))).toBe(0);
    k.dispose();
  });

  it('refuses calls after dispose()', () => {
    const k = load(new Uint8Array(16));
    k.dispose();
    expect(() => k.encryptECB(new Uint8Array(16), new Uint8Array(16))).toThrow(/disposed/);
  });

  it('never grows memory, whatever the input size', () => {
    const k = load(new Uint8Array(16).fill(8));
    const big = new Uint8Array(5 * CHUNK + 16);
    k.encryptECB(big, big);
    k.decryptCBC(big, big, new Uint8Array(16));
    k.decryptSectors(big, big, big.length, new Uint8Array(16));
    k.encryptSectors(big, big, big.length, new Uint8Array(16));
    k.encryptXTS(big, big, big.length, new Uint8Array(16));
    expect(memory().buffer.byteLength).toBe(PAGE);
    k.dispose();
  });
});

describe('wasm-simd128 allocation', () => {
  it('allocates nothing per call on inputs up to the chunk size', async () => {
    const { PerformanceObserver } = await import('node:perf_hooks');
    const k = load(new Uint8Array(16).fill(1));
    const src = new Uint8Array(512).fill(2), dst = new Uint8Array(512), iv = new Uint8Array(16), ivs = new Uint8Array(64);
    const calls = [
      () => k.encryptECB(dst, src),
      () => k.decryptECB(dst, src),
      () => k.encryptCBC(dst, src, iv),
      () => k.decryptCBC(dst, src, iv),
      () => k.decryptSectors(dst, src, 128, ivs),
      () => k.encryptSectors(dst, src, 128, ivs),
      () => k.encryptXTS(dst, src, 128, ivs),
      () => k.decryptXTS(dst, src, 128, ivs),
    ];
    for (const [i, call] of calls.entries()) {
      for (let n = 0; n < 5000; n++) call();
      // The least growth of three runs: one object per call would be ≥ 16 B × 30 000 in every run, while
      // the test runner's own background work shows up in some runs only.
      const growth: number[] = [];
      for (let run = 0; run < 3; run++) {
        const starts: number[] = [];
        const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => starts.push(e.startTime)));
        observer.observe({ entryTypes: ['gc'] });
        const before = process.memoryUsage();
        const t0 = performance.now();
        for (let n = 0; n < 30_000; n++) call();
        const t1 = performance.now();
        const after = process.memoryUsage();
        await new Promise((r) => setTimeout(r, 20));
        observer.disconnect();
        growth.push(after.heapUsed - before.heapUsed);
        expect([i, starts.filter((t) => t >= t0 && t <= t1).length]).toEqual([i, 0]);
        expect(after.arrayBuffers - before.arrayBuffers).toBe(0);
      }
      expect(Math.min(...growth)).toBeLessThan(64 * 1024);
    }
    k.dispose();
  });
});
