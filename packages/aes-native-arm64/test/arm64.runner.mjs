/**
 * The arm64 test run, executed by an arm64 Node under qemu-aarch64 (scripts/test-arm64.mjs), in process
 * with node:test (no `--test`: its child processes would need binfmt_misc to start the arm64 binary).
 *
 * Runs the kernel-level suite (test/kernel-conformance.ts) and, when they exist, the conformance suites
 * of @x/cbc and @x/xts (packages/{cbc,xts}/test/conformance.ts) with kernel `native-arm64`; all compiled
 * to JS by the script into X_AES_TEST_JS. The same property runs (60) and Monte Carlo iterations (100) as
 * on x64, except @x/xts's suite, whose properties run X_AES_TEST_XTS_RUNS times (default 20: its cases
 * are up to 80 KiB each, checked against node:crypto, slow under emulation). X_AES_TEST_RUNS and
 * X_AES_TEST_MCT lower the others.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

const here = path.dirname(fileURLToPath(import.meta.url));
const js = process.env.X_AES_TEST_JS || path.join(here, '..', '.cache', 'js');
const runs = Number(process.env.X_AES_TEST_RUNS || 60);
const require = createRequire(import.meta.url);
const { nativeArm64Kernel, nativeCallCount } = require('@x/aes-native-arm64');

describe('native-arm64 under arm64', () => {
  it('runs on arm64 with the AES instructions', () => {
    assert.equal(process.arch, 'arm64');
    assert.equal(nativeArm64Kernel.name, 'native-arm64');
    assert.equal(nativeArm64Kernel.parallelBlocks, 8);
    assert.equal(nativeArm64Kernel.isAvailable(), true);
  });

  it('refuses calls after dispose instead of using wiped keys', async () => {
    const { expandKey } = await import('@x/aes-keyschedule');
    const k = nativeArm64Kernel.load(expandKey(new Uint8Array(16)));
    k.dispose();
    assert.throws(() => k.encryptECB(new Uint8Array(16), new Uint8Array(16)), /disposed/);
  });

  it('rejects what would read or write outside the arrays', async () => {
    const { expandKey } = await import('@x/aes-keyschedule');
    const k = nativeArm64Kernel.load(expandKey(new Uint8Array(16)));
    assert.throws(() => k.encryptECB(new Uint8Array(16), new Uint8Array(32)), RangeError);
    assert.throws(() => k.decryptECB(new Uint8Array(32), new Uint8Array(17)), RangeError);
    assert.throws(() => k.decryptCBC(new Uint8Array(32), new Uint8Array(32), new Uint8Array(8)), RangeError);
    assert.throws(() => k.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 512, new Uint8Array(16)), RangeError);
    assert.throws(() => k.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 0, new Uint8Array(64)), RangeError);
    {
      const d = new Uint8Array(1024);
      assert.throws(() => k.encryptSectors(d, new Uint8Array(1024), 512, new Uint8Array(31)), RangeError); // 16 per sector
      assert.throws(() => k.encryptSectors(d, new Uint8Array(1024), 0, new Uint8Array(64)), RangeError);
      assert.throws(() => k.encryptSectors(d, new Uint8Array(1024), 48, new Uint8Array(1024)), RangeError); // 48 ∤ 1024
      assert.throws(() => k.encryptSectors(d.subarray(16), new Uint8Array(1024), 512, new Uint8Array(32)), RangeError);
      assert.throws(() => k.encryptSectors(d, new Uint8Array(1024), 512, [0]), TypeError);
      assert.ok(d.every((b) => b === 0));
    }
    assert.throws(() => k.encryptECB(new Uint16Array(8), new Uint8Array(16)), TypeError);
    for (const m of ['encryptXTS', 'decryptXTS']) {
      const d = new Uint8Array(1024), t = new Uint8Array(32);
      assert.throws(() => k[m](d, new Uint8Array(1024), 512, new Uint8Array(31)), RangeError); // 16 per unit
      assert.throws(() => k[m](d, new Uint8Array(1024), 0, t), RangeError);
      assert.throws(() => k[m](d, new Uint8Array(1024), 24, new Uint8Array(1024)), RangeError);
      assert.throws(() => k[m](d, new Uint8Array(1024), 48, new Uint8Array(1024)), RangeError); // 48 ∤ 1024
      assert.throws(() => k[m](d, new Uint8Array(1032), 16, new Uint8Array(2048)), RangeError); // not whole blocks
      assert.throws(() => k[m](d.subarray(16), new Uint8Array(1024), 512, t), RangeError); // dst too short
      assert.throws(() => k[m](d, new Uint8Array(1024), 512, [0]), TypeError);
      assert.throws(() => k[m](d, new Uint8Array(1024), 512), TypeError);
      assert.ok(d.every((b) => b === 0));
    }
    k.dispose();
  });
});

const { kernelConformance } = await import(pathToFileURL(path.join(js, 'aes-native-arm64', 'test', 'kernel-conformance.js')).href);
kernelConformance(nativeArm64Kernel, { describe, it }, { runs, callCount: nativeCallCount });

const cbcSuite = path.join(js, 'cbc', 'test', 'conformance.js');
if (existsSync(cbcSuite)) {
  const { cbcConformance } = await import(pathToFileURL(cbcSuite).href);
  const vectorsDir = pathToFileURL(path.join(here, '..', '..', 'cbc', 'test', 'vectors') + path.sep);
  cbcConformance('native-arm64', { describe, it }, { runs, mctIterations: Number(process.env.X_AES_TEST_MCT || 100), vectorsDir });
} else if (process.env.CI === 'true') {
  throw new Error(`@x/aes-native-arm64: the @x/cbc conformance suite was not compiled (${cbcSuite})`);
} else {
  describe('@x/cbc conformance on native-arm64', () => {
    it('skipped: packages/cbc/test/conformance.ts is not there yet', { skip: true }, () => {});
  });
}

const xtsSuite = path.join(js, 'xts', 'test', 'conformance.js');
if (existsSync(xtsSuite)) {
  const { xtsConformance } = await import(pathToFileURL(xtsSuite).href);
  const vectorsDir = pathToFileURL(path.join(here, '..', '..', 'xts', 'test', 'vectors') + path.sep);
  xtsConformance('native-arm64', { describe, it }, { runs: Number(process.env.X_AES_TEST_XTS_RUNS || 20), vectorsDir });
} else if (process.env.CI === 'true') {
  throw new Error(`@x/aes-native-arm64: the @x/xts conformance suite was not compiled (${xtsSuite})`);
} else {
  describe('@x/xts conformance on native-arm64', () => {
    it('skipped: packages/xts/test/conformance.ts is not there yet', { skip: true }, () => {});
  });
}
