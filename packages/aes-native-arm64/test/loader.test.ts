/**
 * The loader on the machine running vitest (x64 here): requiring the package never throws, and where
 * the addon cannot load the kernel says so through isAvailable() and a load() error with the cause.
 * The kernel itself is tested under arm64 by scripts/test-arm64.mjs.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { AesKernel } from '@x/aes-kernel-contract';
import { expandKey } from '@x/aes-keyschedule';

const require = createRequire(import.meta.url);

describe('@x/aes-native-arm64 loader', () => {
  it('is a CommonJS module that requires without throwing, with the kernel contract', () => {
    const m = require('@x/aes-native-arm64') as {
      kernel: AesKernel;
      nativeArm64Kernel: AesKernel;
      nativeCallCount(): number;
    };
    expect(m.kernel.name).toBe('native-arm64');
    expect(m.kernel.parallelBlocks).toBe(8);
    expect(typeof m.kernel.isAvailable()).toBe('boolean');
    expect(m.nativeArm64Kernel).toBe(m.kernel); // the old name, deprecated
    expect(m.nativeCallCount()).toBeGreaterThanOrEqual(0);
  });

  it('is importable from ESM with named exports', async () => {
    const m = await import('@x/aes-native-arm64');
    expect(m.kernel.name).toBe('native-arm64');
  });

  it.runIf(process.arch !== 'arm64')('is unavailable off arm64, and load() says why with a cause', () => {
    const { kernel, nativeCallCount } = require('@x/aes-native-arm64') as {
      kernel: AesKernel;
      nativeCallCount(): number;
    };
    expect(kernel.isAvailable()).toBe(false);
    expect(nativeCallCount()).toBe(0);
    let error: Error | undefined;
    try {
      kernel.load(expandKey(new Uint8Array(16)));
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(/^@x\/aes-native-arm64: kernel native-arm64 is not available here/);
    const cause = error?.cause as Error | undefined;
    expect(cause?.message).toMatch(/did not load/);
    expect((cause?.cause as Error | undefined)?.message).toMatch(/No native build was found/);
  });
});
