/**
 * The kernel conformance suite: one suite that every AES kernel runs (Go's `cryptotest`), over the kernel
 * contract of `@x/aes-kernels/hazmat`, with one file per interface as cryptotest has one per interface:
 *
 * - `kernel-blocks.ts`: what every kernel has (`AesKernel`, `AesBlockPrimitives`), and the keyed kernel as
 *   a whole (no state kept between calls, several keys at once, the schedule wiped, `dispose()`, random
 *   calls, one native call per contract call);
 * - `kernel-fast-paths.ts`: each optional fast path the kernel has (CBC, XTS, CTR), or a test that says
 *   it lacks it ("no cbcEncrypt: generic path"): the modes run their own generic code there;
 * - `kernel-polyval.ts`: POLYVAL (`loadPolyval`), against the bit-serial POLYVAL and node:crypto's GCM tags;
 * - `kernel-hctr2.ts`: HCTR2 (`hctr2`, which takes the kernel's own POLYVAL key), against the paper's HCTR2;
 * - `kernel-gcm.ts`: a GCM seal and open in one call each (`gcmSeal`, `gcmOpen`, which take the kernel's own
 *   POLYVAL key), against node:crypto's AES-GCM and a model of slow references for any J0.
 *
 * The block and fast-path sections share `kernel-operations.ts`: every method checked against
 * node:crypto (XTS by its definition over ECB for AES-192, which OpenSSL lacks) at lengths derived from the
 * kernel's own batch size (`parallelBlocks` = p: 0, every tail 1..p-1, p, p+1, 2p-1, 2p, 2p+1, 4p+3, and the
 * same counts of sectors for the paths that run sectors side by side), with Go cryptotest's checks:
 * separate buffers, in place, the same bytes through another view, odd byteOffsets, no byte written
 * outside `dst[0, src.length)` nor read outside `src`, `iv`, `ivs`, `tweaks` (guard bytes around every
 * buffer).
 *
 * It takes the runner's `describe`/`it` and needs only node:assert, node:crypto, fast-check and
 * `@x/aes-keyschedule` at run time, so it also runs under `node:test` with an arm64 Node in qemu
 * (packages/aes-native-arm64/scripts/test-arm64.mjs), where vitest cannot.
 */
import assert from 'node:assert/strict';
import type { AesKernel } from '@x/aes-kernels/hazmat';
import { blockTests, keyedKernelTests, randomAndCallTests } from './kernel-blocks.js';
import { fastPathTests } from './kernel-fast-paths.js';
import { gcmSealSuite } from './kernel-gcm.js';
import { hctr2Suite } from './kernel-hctr2.js';
import { type KernelContext, type KernelSuiteOptions, load, METHODS, type Method } from './kernel-operations.js';
import { polyvalSuite } from './kernel-polyval.js';
import type { Suite } from './suite.js';

export type { KernelSuiteOptions } from './kernel-operations.js';

/**
 * Runs the kernel conformance suite on `kernel` with the runner's `describe`/`it`.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { kernelConformance } from '@x/testkit';
 * import { kernel } from '../src/index.js';
 * kernelConformance(kernel, { describe, it }, { throwsAfterDispose: true });
 * ```
 */
export function kernelConformance(kernel: AesKernel, { describe, it }: Suite, options: KernelSuiteOptions = {}): void {
  // A kernel with several code paths (native-x64: vaes, aesni) runs the suite once per path.
  const path = (kernel as { path?: unknown }).path;
  describe(`kernel ${kernel.name}${typeof path === 'string' ? ` (${path})` : ''}`, () => {
    let present: Method[];
    let hasHctr2: boolean;
    let hasGcmSeal: boolean;
    try {
      const probe = load(kernel, new Uint8Array(16));
      present = METHODS.filter((m) => typeof probe[m] === 'function');
      hasHctr2 = typeof probe.hctr2 === 'function';
      hasGcmSeal = typeof probe.gcmSeal === 'function' || typeof probe.gcmOpen === 'function';
      probe.dispose();
    } catch (error) {
      it('is available', () => assert.fail(`${kernel.name}: load() failed: ${(error as Error).message}`));
      return;
    }
    const runs = options.runs ?? 100;
    const ctx: KernelContext = {
      kernel,
      suite: { describe, it },
      options,
      runs,
      p: kernel.parallelBlocks,
      present,
      hasHctr2,
    };
    blockTests(ctx);
    fastPathTests(ctx);
    keyedKernelTests(ctx);
    randomAndCallTests(ctx);

    if (kernel.loadPolyval === undefined) {
      it('no loadPolyval: GHASH and POLYVAL callers use the portable one', () =>
        assert.equal(kernel.loadPolyval, undefined));
    } else {
      polyvalSuite(kernel, kernel.loadPolyval.bind(kernel), { describe, it }, runs, options.callCount);
    }

    if (!hasHctr2) {
      it('no hctr2: generic path (@x/hctr2 runs its own code over ctr, encryptBlocks and POLYVAL)', () => {
        const k = load(kernel, new Uint8Array(16));
        assert.equal(k.hctr2, undefined);
        k.dispose();
      });
    } else {
      hctr2Suite(kernel, { describe, it }, options);
    }

    if (!hasGcmSeal) {
      it('no gcmSeal or gcmOpen: generic path (@x/gcm runs its own over encryptBlocks, ctr and POLYVAL)', () => {
        const k = load(kernel, new Uint8Array(16));
        assert.equal(k.gcmSeal, undefined);
        assert.equal(k.gcmOpen, undefined);
        k.dispose();
      });
    } else {
      gcmSealSuite(kernel, { describe, it }, options, runs);
    }
  });
}
