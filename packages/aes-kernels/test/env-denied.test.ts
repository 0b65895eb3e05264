// A runtime that denies reading the environment (Deno without --allow-env: `process.env`'s getter throws
// NotCapable) must behave as if X_AES_KERNEL and X_AES_NATIVE_X64 were unset, never fail to make a cipher.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expandKey } from '@x/aes-keyschedule';
import { kernels } from '../src/index.js';
import { chooseKernel } from '../src/hazmat.js';

/** What Deno throws for `process.env.X` without --allow-env (an Error whose name is NotCapable). */
class NotCapable extends Error {
  override name = 'NotCapable';
}

/** Runs `f` with a `process.env` on which every read throws, as in Deno without --allow-env. */
function withEnvDenied<T>(f: () => T): T {
  const saved = process.env;
  const deny = (): never => {
    throw new NotCapable('Requires env access, run again with the --allow-env flag');
  };
  process.env = new Proxy({}, { get: deny, has: deny, ownKeys: deny, getOwnPropertyDescriptor: deny });
  try {
    return f();
  } finally {
    process.env = saved;
  }
}

const FIPS197_C1 = { key: '000102030405060708090a0b0c0d0e0f', plain: '00112233445566778899aabbccddeeff' };

function encryptC1(kernelName: string): string {
  const keyed = chooseKernel('@x/t', kernelName).load(expandKey(Buffer.from(FIPS197_C1.key, 'hex')));
  const block = Buffer.from(FIPS197_C1.plain, 'hex');
  keyed.encryptBlocks(block, block);
  keyed.dispose();
  return block.toString('hex');
}

describe('reading the environment is denied', () => {
  it('the stand-in really denies: reading X_AES_KERNEL throws NotCapable', () => {
    expect(() => withEnvDenied(() => process.env.X_AES_KERNEL)).toThrow(NotCapable);
  });

  it('the kernel choice behaves as if X_AES_KERNEL were unset: the best usable kernel, and it encrypts', () => {
    const saved = process.env.X_AES_KERNEL;
    delete process.env.X_AES_KERNEL;
    try {
      const best = chooseKernel('@x/t').name;
      const chosen = withEnvDenied(() => chooseKernel('@x/t').name);
      expect(chosen).toBe(best);
      expect(chosen).toBe(kernels()[0]);
      expect(encryptC1(chosen)).toBe('69c4e0d86a7b0430d8cdb78070b4c55a');
    } finally {
      if (saved !== undefined) process.env.X_AES_KERNEL = saved;
    }
  });

  it('a kernel named by the caller is still chosen, and an unknown one is still an error', () => {
    expect(withEnvDenied(() => chooseKernel('@x/t', 'portable').name)).toBe('portable');
    expect(() => withEnvDenied(() => chooseKernel('@x/t', 'aesni'))).toThrow(/^@x\/t: unknown kernel "aesni"; /);
  });

  it('the native kernel loaded while the environment is denied takes the path it takes with X_AES_NATIVE_X64 unset', () => {
    // @x/aes-native-x64 reads X_AES_NATIVE_X64 (through @x/aes-native-addon's loader, from dist/) when it
    // loads, once per process: so each case is a fresh node that loads it, denied or not, then reports.
    const load = (deny: boolean) => {
      const script = `
        import { createRequire } from 'node:module';
        const require = createRequire(${JSON.stringify(import.meta.url)});
        const env = process.env;
        // Only our variables are denied: Node's own loader reads the environment too (Deno: --allow-env=<others>).
        const deny = (t, k) => {
          if (typeof k === 'string' && k.startsWith('X_AES_')) throw Object.assign(new Error('Requires env access'), { name: 'NotCapable' });
          return Reflect.get(t, k);
        };
        if (${deny}) process.env = new Proxy(env, { get: deny });
        const { kernel } = require('@x/aes-native-x64');
        process.env = env;
        console.log(JSON.stringify({ available: kernel.isAvailable(), path: kernel.path ?? null }));`;
      const env = { ...process.env };
      delete env.X_AES_NATIVE_X64;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as { available: boolean; path: string | null };
    };
    const unset = load(false);
    expect(load(true)).toEqual(unset);
    if (process.arch === 'x64' && process.env.CI === 'true') expect(unset.path).toMatch(/^(avx512|vaes|aesni)$/);
  });
});
