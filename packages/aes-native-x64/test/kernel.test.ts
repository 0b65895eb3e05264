/**
 * The kernel conformance suite of @x/testkit on native-x64, once per code path this CPU has (avx512,
 * vaes, aesni; a path the CPU lacks is skipped with a line that says so), with the count of native calls (every contract call must be one Node-API call); then the
 * loader: what the binary holds, how X_AES_NATIVE_X64 forces a path (in child processes, as it is read
 * once at load), and what a machine without the binary or the CPU feature sees.
 */
import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { blocksOnly, ghashKey, kernelConformance } from '@x/testkit';

const require = createRequire(import.meta.url);
const x64 = require('@x/aes-native-x64') as typeof import('@x/aes-native-x64');
const { kernel, kernelOn, paths, nativeCallCount } = x64;

const CI = process.env.CI === 'true';
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
/** The CPU's feature flags as Linux reports them (empty elsewhere). */
const flags = new Set(
  linuxX64
    ? (readFileSync('/proc/cpuinfo', 'utf8')
        .match(/^flags\s*:(.*)$/m)?.[1]
        .trim()
        .split(/\s+/) ?? [])
    : [],
);
const usable = paths()
  .filter((p) => p.available)
  .map((p) => p.name);
for (const p of paths().filter((p) => !p.available)) {
  console.log(`@x/aes-native-x64: path ${p.name} skipped: this CPU lacks what it needs (kernel suite not run on it)`);
}
/** What each path needs, as /proc/cpuinfo names it (the C's cpu_has_*: CPUID, and XGETBV for the OS). */
const vaesFlags = ['aes', 'avx2', 'vaes', 'vpclmulqdq'];
const avx512Flags = [...vaesFlags, 'avx512f', 'avx512vl', 'avx512bw'];

describe('native-x64 on this machine', () => {
  it('is the kernel contract: named native-x64, 16 blocks a batch', () => {
    expect([kernel.name, kernel.parallelBlocks]).toEqual(['native-x64', 16]);
  });

  it('holds the three paths, each available exactly when the CPU reports its features', () => {
    if (!linuxX64 || (!CI && paths().length === 0)) return; // not built here (no compiler): the kernel is absent
    expect(paths().map((p) => p.name)).toEqual(['avx512', 'vaes', 'aesni']);
    const want = [
      ...(avx512Flags.every((f) => flags.has(f)) ? ['avx512'] : []),
      ...(vaesFlags.every((f) => flags.has(f)) ? ['vaes'] : []),
      ...(flags.has('aes') ? ['aesni'] : []),
    ];
    expect(usable).toEqual(want);
    expect(kernel.isAvailable()).toBe(want.length > 0);
    if (!process.env.X_AES_NATIVE_X64) expect(kernel.path).toBe(want[0]);
  });

  it('is built and runs under CI (CI builds it with the system compiler)', () => {
    if (CI && linuxX64) expect(kernel.isAvailable()).toBe(true);
  });
});

for (const path of usable) {
  kernelConformance(
    kernelOn(path as 'avx512' | 'vaes' | 'aesni'),
    { describe, it },
    // chunkBlocks: the avx512 path's groups of 32 blocks, whose edges (31, 32, 33 and 81 blocks, data units
    // of 33) the default lengths around the batch of 16 reach only in part.
    { runs: 60, callCount: nativeCallCount, throwsAfterDispose: true, chunkBlocks: [32] },
  );
}
describe('gcmSeal and gcmOpen with a POLYVAL key of another path', () => {
  // The glue runs CTR and GHASH in one pass only with its own path's key table (avx512's ctr_polyval); a
  // key of another path is hashed by that path's update after the keystream: node:crypto's bytes either way.
  const [one, other] = usable;
  it(other ? `${one} keyed, ${other} POLYVAL key, and the other way` : 'skipped: this CPU has one path', () => {
    if (!one || !other) return;
    const key = randomBytes(16),
      nonce = randomBytes(12),
      aad = randomBytes(21),
      src = randomBytes(16 * 70 + 9);
    const gcm = createCipheriv('aes-128-gcm', key, nonce);
    gcm.setAAD(aad);
    const want = Buffer.concat([gcm.update(src), gcm.final(), gcm.getAuthTag()]);
    const j0 = new Uint8Array(16);
    j0.set(nonce);
    j0[15] = 1;
    const h = new Uint8Array(16);
    createCipheriv('aes-128-ecb', key, null).setAutoPadding(false).update(h).copy(h);
    for (const [a, b] of [
      [one, other],
      [other, one],
    ] as const) {
      const k = kernelOn(a as 'avx512').load(expandKey(key));
      const hash = kernelOn(b as 'vaes').loadPolyval?.(ghashKey(h));
      if (!hash || !k.gcmSeal) throw new Error(`${a}/${b}: no POLYVAL or no gcmSeal`);
      const dst = new Uint8Array(src.length + 16);
      k.gcmSeal(dst, src, j0, aad, hash, 16);
      expect(Buffer.from(dst).toString('hex'), `${a} keyed, ${b} key`).toBe(want.toString('hex'));
      const back = new Uint8Array(src.length);
      expect(k.gcmOpen?.(back, dst, j0, aad, hash, 16), `${a} keyed, ${b} key: open`).toBe(true);
      expect(Buffer.from(back).equals(src)).toBe(true);
      k.dispose();
      hash.dispose();
    }
  });
});

if (usable.length > 0)
  kernelConformance(blocksOnly(kernelOn(usable[0] as 'avx512' | 'vaes' | 'aesni')), { describe, it }, { runs: 20 });

/** What a fresh Node sees of the kernel with `env` added: its availability, path and load() error. */
function probe(env: Record<string, string>): { available: boolean; path?: string; error?: string; cause?: string } {
  const script = `
    const { kernel } = require('@x/aes-native-x64');
    let error, cause;
    try { kernel.load({ rounds: 10, encryptionKeys: new Uint8Array(176), decryptionKeys: new Uint8Array(176) }).dispose(); }
    catch (e) { error = e.message; cause = e.cause && e.cause.message; }
    console.log(JSON.stringify({ available: kernel.isAvailable(), path: kernel.path, error, cause }));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    cwd: import.meta.dirname,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe.runIf(usable.length > 0)('X_AES_NATIVE_X64', () => {
  it.each(usable)('=%s forces that path', (path) => {
    expect(probe({ X_AES_NATIVE_X64: path })).toEqual({ available: true, path });
  });

  it('naming no path makes the kernel unavailable, with the reason', () => {
    const r = probe({ X_AES_NATIVE_X64: 'avx10' });
    expect(r.available).toBe(false);
    expect(r.error).toBe(
      '@x/aes-native-x64: kernel native-x64 is not available here: no path "avx10" (built: avx512, vaes, aesni)',
    );
  });

  it('kernelOn a path the CPU lacks is unavailable, and never runs it', () => {
    for (const p of paths().filter((p) => !p.available)) {
      const k = kernelOn(p.name as 'avx512' | 'vaes' | 'aesni');
      expect(k.isAvailable()).toBe(false);
      expect(() =>
        k.load({ rounds: 10, encryptionKeys: new Uint8Array(176), decryptionKeys: new Uint8Array(176), wipe() {} }),
      ).toThrow(/is not available on this CPU/);
    }
  });
});

describe('the native guards: what would read or write outside the arrays throws and writes nothing', () => {
  it.runIf(usable.length > 0)('on every path', () => {
    for (const path of usable) {
      const k = kernelOn(path as 'avx512' | 'vaes' | 'aesni').load({
        rounds: 10,
        encryptionKeys: new Uint8Array(176),
        decryptionKeys: new Uint8Array(176),
        wipe() {},
      });
      const d = new Uint8Array(1024).fill(7);
      expect(() => k.encryptBlocks(new Uint8Array(16), new Uint8Array(32))).toThrow(RangeError);
      expect(() => k.decryptBlocks(new Uint8Array(32), new Uint8Array(17))).toThrow(RangeError);
      expect(() => k.encryptBlocks(new Uint16Array(8) as unknown as Uint8Array, new Uint8Array(16))).toThrow(TypeError);
      expect(() => k.cbcEncrypt(new Uint8Array(32), new Uint8Array(32), new Uint8Array(8))).toThrow(RangeError);
      for (const m of ['cbcDecryptSectors', 'cbcEncryptSectors', 'xtsEncrypt', 'xtsDecrypt'] as const) {
        expect(() => k[m](d, new Uint8Array(1024), 512, new Uint8Array(31)), `${m}: 16 bytes per sector`).toThrow(
          RangeError,
        );
        expect(() => k[m](d, new Uint8Array(1024), 0, new Uint8Array(32)), `${m}: size 0`).toThrow(RangeError);
        expect(() => k[m](d, new Uint8Array(1024), 24, new Uint8Array(1024)), `${m}: not whole blocks`).toThrow(
          RangeError,
        );
        expect(() => k[m](d, new Uint8Array(1024), 384, new Uint8Array(1024)), `${m}: not whole sectors`).toThrow(
          RangeError,
        );
      }
      expect(d.every((b) => b === 7)).toBe(true);
      k.dispose();
      expect(() => k.encryptBlocks(new Uint8Array(16), new Uint8Array(16))).toThrow(/disposed/);
    }
  });
});

describe('the native guards of ctr and loadPolyval', () => {
  it.runIf(usable.length > 0)('bad arguments throw and write nothing; disposed objects refuse calls', () => {
    for (const path of usable) {
      const kern = kernelOn(path as 'avx512' | 'vaes' | 'aesni');
      const k = kern.load({
        rounds: 10,
        encryptionKeys: new Uint8Array(176),
        decryptionKeys: new Uint8Array(176),
        wipe() {},
      });
      const ctr = k.ctr?.bind(k);
      const loadPolyval = kern.loadPolyval;
      expect(typeof ctr, `${path} has ctr`).toBe('function');
      expect(typeof loadPolyval, `${path} has loadPolyval`).toBe('function');
      if (ctr === undefined || loadPolyval === undefined) continue;
      const d = new Uint8Array(64).fill(7);
      const iv = new Uint8Array(16);
      expect(() => ctr(d.subarray(0, 16), new Uint8Array(17), iv, 'be128')).toThrow(RangeError);
      expect(() => ctr(d, new Uint8Array(17), new Uint8Array(15), 'be128')).toThrow(RangeError);
      expect(() => ctr(d, new Uint8Array(17), iv, 'be64' as 'be128')).toThrow(TypeError);
      expect(() => ctr(d, new Uint8Array(17), iv, 1 as unknown as 'be128')).toThrow(TypeError);
      expect(() => ctr(new Uint16Array(8) as unknown as Uint8Array, new Uint8Array(16), iv, 'xctr')).toThrow(TypeError);
      expect(() => loadPolyval(new Uint8Array(15))).toThrow(RangeError);
      const p = loadPolyval(new Uint8Array(16).fill(1));
      expect(() => p.update(d.subarray(0, 15), new Uint8Array(16), false)).toThrow(RangeError);
      expect(() => p.update(d.subarray(0, 16), new Uint8Array(24), false)).toThrow(RangeError);
      expect(() => p.update(d.subarray(0, 16), new Uint8Array(16), 1 as unknown as boolean)).toThrow(TypeError);
      // A method of one native class on an object of the other throws instead of reading the wrong memory.
      expect(() => (p.update as unknown as (...a: unknown[]) => void).call(k, d, new Uint8Array(16), false)).toThrow(
        TypeError,
      );
      expect(() => k.ctr?.call(p, d, new Uint8Array(16), iv, 'be128')).toThrow(TypeError);
      expect(d.every((b) => b === 7)).toBe(true);
      p.dispose();
      expect(() => p.update(new Uint8Array(16), new Uint8Array(16), false)).toThrow(/disposed/);
      k.dispose();
      expect(() => ctr(d, new Uint8Array(16), iv, 'be128')).toThrow(/disposed/);
    }
  });
});

describe('where the binary does not load', () => {
  it('the kernel is unavailable and load() says why, with the cause', () => {
    const script = `
      const path = require('node:path');
      const { createNativeKernel } = require('@x/aes-native-addon');
      const { kernel, paths } = createNativeKernel({ name: 'native-x64', prefix: '@x/aes-native-x64',
        dir: path.join(require('node:os').tmpdir(), 'no-such-package'), parallelBlocks: 16, noPath: 'no AES-NI' });
      let e; try { kernel.load({}); } catch (x) { e = x; }
      console.log(JSON.stringify({ available: kernel.isAvailable(), path: kernel.path ?? null, paths: paths(),
        error: e.message, cause: e.cause.message }));`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: import.meta.dirname, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ available: false, path: null, paths: [] });
    expect(out.error).toMatch(
      /^@x\/aes-native-x64: kernel native-x64 is not available here: the native addon did not load on /,
    );
    expect(out.cause).toMatch(/did not load/);
  });
});
