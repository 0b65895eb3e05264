/**
 * The arm64 test run, executed by an arm64 Node under qemu-aarch64 (scripts/test-arm64.mjs), in process
 * with node:test (no `--test`: its child processes would need binfmt_misc to start the arm64 binary).
 *
 * Runs the kernel conformance suite of @x/testkit on kernel native-arm64, then, when they were compiled,
 * the conformance suites of @x/cbc, @x/xts, @x/ctr, @x/gcm, @x/hctr2, @x/ccm and @x/adiantum
 * (packages/<mode>/test/conformance.ts) with kernel `native-arm64`, and those of the first six again on
 * the kernel's block primitives alone (the modes' generic code over its encryptBlocks/decryptBlocks; about
 * 25 s more under emulation, X_AES_TEST_GENERIC=0 leaves it out); all compiled to JS by the script into
 * X_AES_TEST_JS. The same property runs (60) and Monte Carlo iterations (100) as on x64, except @x/xts's
 * suite, whose properties run X_AES_TEST_XTS_RUNS times (default 20: its cases are up to 80 KiB each,
 * checked against node:crypto, slow under emulation), and @x/gcm's, @x/hctr2's, @x/ccm's (messages up to
 * 256 KiB) and @x/adiantum's, X_AES_TEST_GCM_RUNS, X_AES_TEST_HCTR2_RUNS, X_AES_TEST_CCM_RUNS and
 * X_AES_TEST_ADIANTUM_RUNS times (default 20).
 * X_AES_TEST_RUNS and X_AES_TEST_MCT lower the others.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

const here = path.dirname(fileURLToPath(import.meta.url));
const packagesDir = path.join(here, '..', '..');
const js = process.env.X_AES_TEST_JS || path.join(here, '..', '.cache', 'js');
const runs = Number(process.env.X_AES_TEST_RUNS || 60);
const generic = process.env.X_AES_TEST_GENERIC !== '0';
const require = createRequire(import.meta.url);
const { kernel, nativeCallCount } = require('@x/aes-native-arm64');
const { blocksOnly, kernelConformance } = await import(
  pathToFileURL(path.join(js, 'tools', 'testkit', 'src', 'index.js')).href
);
const ctrApi = await import('@x/ctr');
const gcmApi = await import('@x/gcm');

describe('native-arm64 under arm64', () => {
  it('runs on arm64 with the AES instructions', () => {
    assert.equal(process.arch, 'arm64');
    assert.equal(kernel.name, 'native-arm64');
    assert.equal(kernel.parallelBlocks, 8);
    assert.equal(kernel.isAvailable(), true);
  });

  it('rejects what would read or write outside the arrays, and writes nothing', async () => {
    const { expandKey } = await import('@x/aes-keyschedule');
    const k = kernel.load(expandKey(new Uint8Array(16)));
    assert.throws(() => k.encryptBlocks(new Uint8Array(16), new Uint8Array(32)), RangeError);
    assert.throws(() => k.decryptBlocks(new Uint8Array(32), new Uint8Array(17)), RangeError);
    assert.throws(() => k.encryptBlocks(new Uint16Array(8), new Uint8Array(16)), TypeError);
    assert.throws(() => k.cbcEncrypt(new Uint8Array(32), new Uint8Array(32), new Uint8Array(8)), RangeError);
    for (const m of ['cbcDecryptSectors', 'cbcEncryptSectors', 'xtsEncrypt', 'xtsDecrypt']) {
      const d = new Uint8Array(1024),
        ivs = new Uint8Array(32);
      assert.throws(
        () => k[m](d, new Uint8Array(1024), 512, new Uint8Array(31)),
        RangeError,
        `${m}: 16 bytes per sector`,
      );
      assert.throws(() => k[m](d, new Uint8Array(1024), 512, new Uint8Array(16)), RangeError, `${m}: an IV per sector`);
      assert.throws(() => k[m](d, new Uint8Array(1024), 0, ivs), RangeError, `${m}: sector size 0`);
      assert.throws(
        () => k[m](d, new Uint8Array(1024), 24, new Uint8Array(1024)),
        RangeError,
        `${m}: sector size not whole blocks`,
      );
      assert.throws(() => k[m](d, new Uint8Array(1024), 48, new Uint8Array(1024)), RangeError, `${m}: 48 ∤ 1024`);
      assert.throws(
        () => k[m](d, new Uint8Array(1032), 16, new Uint8Array(2048)),
        RangeError,
        `${m}: src not whole blocks`,
      );
      assert.throws(() => k[m](d.subarray(16), new Uint8Array(1024), 512, ivs), RangeError, `${m}: dst too short`);
      assert.throws(() => k[m](d, new Uint8Array(1024), 512, [0]), TypeError, `${m}: ivs not bytes`);
      assert.throws(() => k[m](d, new Uint8Array(1024), 512), TypeError, `${m}: no ivs`);
      assert.ok(
        d.every((b) => b === 0),
        `${m} wrote dst`,
      );
    }
    k.dispose();
  });
});

kernelConformance(kernel, { describe, it }, { runs, callCount: nativeCallCount, throwsAfterDispose: true });

describe('the native Elephant diffusers under arm64 (NEON, and the portable C)', () => {
  // Nine sectors of bytes (7i + 3) mod 256, keys (13i + 1) mod 256; the SHA-256 digests of what
  // @x/dm-crypt's test/reference.ts gives (@x/aes-native-x64's test/elephant.test.ts pins the same).
  const known = [
    [
      512,
      '811d977c346b670a93c2704adcc982c0d9a4cc3d00941477d73904725106cff9',
      'f55e76ec321fb52398a8a936ad457322bb3e1aaaebb1d3bd528260c85018646b',
    ],
    [
      4096,
      '50540c2b906679c76bfdd4114b7bddc6f55953807c6ff008eeec9ec141a02374',
      '419076bbceeafe48a936b37b01c7504af8692fdac1dbeed52ff1ee9a240bf4f4',
    ],
  ];
  for (const portable of [false, true]) {
    it(`${portable ? 'the portable C' : 'NEON'} gives the known answers both ways, and refuses a short key array`, async () => {
      const { createHash } = await import('node:crypto');
      const el = kernel.loadElephant(portable);
      assert.equal(el.core, portable ? 'c' : 'neon');
      for (const [size, decrypt, encrypt] of known) {
        const data = Uint8Array.from({ length: 9 * size }, (_, i) => (i * 7 + 3) & 0xff);
        const keys = Uint8Array.from({ length: 9 * 32 }, (_, i) => (i * 13 + 1) & 0xff);
        const d = data.slice();
        el.decrypt(d, size, keys);
        assert.equal(createHash('sha256').update(d).digest('hex'), decrypt);
        el.encrypt(d, size, keys);
        assert.deepEqual(d, data);
        el.encrypt(d, size, keys);
        assert.equal(createHash('sha256').update(d).digest('hex'), encrypt);
      }
      assert.throws(() => el.decrypt(new Uint8Array(1024), 512, new Uint8Array(63)), RangeError);
    });
  }

  it('NEON equals the portable C for 1 to 25 sectors of every size, at an odd byte offset', async () => {
    const { randomBytes } = await import('node:crypto');
    const [neon, c] = [kernel.loadElephant(), kernel.loadElephant(true)];
    for (const size of [512, 1024, 2048, 4096]) {
      for (const count of [1, 4, 7, 8, 9, 16, 17, 25]) {
        const keys = new Uint8Array(randomBytes(32 * count));
        const data = new Uint8Array(randomBytes(count * size + 1)).subarray(1);
        for (const dir of ['decrypt', 'encrypt']) {
          const [a, b] = [data.slice(), data.slice()];
          neon[dir](a, size, keys);
          c[dir](b, size, keys);
          assert.deepEqual(a, b, `${dir} ${count} × ${size}`);
        }
      }
    }
  });
});

/** The mode suite of packages/<mode>/test/conformance.ts, compiled; absent outside CI means "not built". */
async function modeSuite(mode) {
  const file = path.join(js, 'packages', mode, 'test', 'conformance.js');
  if (existsSync(file)) return import(pathToFileURL(file).href);
  if (process.env.CI === 'true')
    throw new Error(`@x/aes-native-arm64: the @x/${mode} conformance suite was not compiled (${file})`);
  describe(`@x/${mode} conformance on native-arm64`, () => {
    it(`skipped: packages/${mode}/test/conformance.ts was not compiled (@x/${mode} did not build)`, {
      skip: true,
    }, () => {});
  });
  return undefined;
}

/** The mode's internal factory on a given kernel (`newCipherOn`, `newXtsOn`), from its built dist/. */
const internal = (mode, file) => import(pathToFileURL(path.join(packagesDir, mode, 'dist', file)).href);

const cbc = await modeSuite('cbc');
if (cbc) {
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'cbc', 'test', 'vectors') + path.sep);
  const options = { runs, mctIterations: Number(process.env.X_AES_TEST_MCT || 100), vectorsDir };
  cbc.cbcConformance(cbc.onKernel('native-arm64'), { describe, it }, options);
  if (generic) {
    const { newCipherOn } = await internal('cbc', 'cipher.js');
    const primitives = blocksOnly(kernel);
    cbc.cbcConformance(
      { name: primitives.name, make: (key) => newCipherOn(primitives, key) },
      { describe, it },
      { ...options, inputRules: false },
    );
  }
}

const xts = await modeSuite('xts');
if (xts) {
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'xts', 'test', 'vectors') + path.sep);
  const options = { runs: Number(process.env.X_AES_TEST_XTS_RUNS || 20), vectorsDir };
  xts.xtsConformance(xts.onKernel('native-arm64'), { describe, it }, options);
  if (generic) {
    const { newXtsOn } = await internal('xts', 'xts.js');
    const primitives = blocksOnly(kernel);
    xts.xtsConformance(
      { name: primitives.name, make: (key) => newXtsOn(primitives, key) },
      { describe, it },
      { ...options, inputRules: false },
    );
  }
}

const ctr = await modeSuite('ctr');
if (ctr) {
  ctr.ctrConformance(
    { name: 'native-arm64', make: (key) => ctrApi.newCtr(key, { kernel: 'native-arm64' }) },
    { describe, it },
    { runs },
  );
  if (generic) {
    const { newCtrOn } = await internal('ctr', 'ctr.js');
    const primitives = blocksOnly(kernel);
    ctr.ctrConformance({ name: primitives.name, make: (key) => newCtrOn(primitives, key) }, { describe, it }, { runs });
  }
}

const gcm = await modeSuite('gcm');
if (gcm) {
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'gcm', 'test', 'vectors') + path.sep);
  const options = { runs: Number(process.env.X_AES_TEST_GCM_RUNS || 20), vectorsDir };
  const { parallelBlocks } = kernel;
  gcm.gcmConformance(
    {
      name: 'native-arm64',
      parallelBlocks,
      make: (key, o) => gcmApi.newGcm(key, { ...o, kernel: 'native-arm64' }),
    },
    { describe, it },
    options,
  );
  if (generic) {
    const { newGcmOn } = await internal('gcm', 'gcm.js');
    const primitives = blocksOnly(kernel);
    gcm.gcmConformance(
      { name: primitives.name, parallelBlocks, make: (key, o) => newGcmOn(primitives, key, o) },
      { describe, it },
      { ...options, inputRules: false },
    );
  }
}

const hctr2 = await modeSuite('hctr2');
if (hctr2) {
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'hctr2', 'test', 'vectors') + path.sep);
  const options = { runs: Number(process.env.X_AES_TEST_HCTR2_RUNS || 20), vectorsDir };
  hctr2.hctr2Conformance(hctr2.onKernel('native-arm64'), { describe, it }, options);
  if (generic) {
    const { newHctr2On } = await internal('hctr2', 'hctr2.js');
    const { polyvalOn } = await import('@x/aes-kernels/hazmat');
    const primitives = blocksOnly(kernel);
    hctr2.hctr2Conformance(
      { name: primitives.name, make: (key) => newHctr2On(primitives, key, polyvalOn) },
      { describe, it },
      { ...options, inputRules: false },
    );
  }
}

const ccm = await modeSuite('ccm');
if (ccm) {
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'ccm', 'test', 'vectors') + path.sep);
  const options = { runs: Number(process.env.X_AES_TEST_CCM_RUNS || 20), vectorsDir, largeMessage: (1 << 18) + 5 };
  const { newCcm } = await import('@x/ccm');
  const { parallelBlocks } = kernel;
  ccm.ccmConformance(
    { name: 'native-arm64', parallelBlocks, make: (key, o) => newCcm(key, { ...o, kernel: 'native-arm64' }) },
    { describe, it },
    options,
  );
  if (generic) {
    const { newCcmOn } = await internal('ccm', 'ccm.js');
    const primitives = blocksOnly(kernel);
    ccm.ccmConformance(
      { name: primitives.name, parallelBlocks, make: (key, o) => newCcmOn(primitives, key, o) },
      { describe, it },
      { ...options, inputRules: false },
    );
  }
}

const adiantum = await modeSuite('adiantum');
if (adiantum) {
  // Adiantum's single AES block per message goes through encryptBlocks/decryptBlocks only (no fast path
  // to bypass), so a second run on blocksOnly(kernel) would repeat this one. What arm64 adds: the native
  // core (the addon's native/hbsh.h over this package's NEON ChaCha and NH, hbsh_arm64.h), which
  // native-arm64 takes by default, the NEON primitives against the glue's portable C ones, and the pairing of native-arm64 with the WebAssembly SIMD128 core
  // (`core: 'wasm-simd128'`) on V8's arm64 SIMD backend; the first test requires that that core can be
  // made, lest the second run pass on the portable core unnoticed.
  const { newAdiantum, newHpolyc } = await import('@x/adiantum');
  const { wasmCore } = await internal('adiantum', 'core-wasm.js');
  describe('@x/adiantum under arm64', () => {
    it('the NEON primitives equal the portable C ones around every block, 256-byte group and NH chunk edge', async () => {
      const { randomBytes } = await import('node:crypto');
      const { expandKey } = await import('@x/aes-keyschedule');
      for (const hpolyc of [false, true]) {
        for (const rounds of [8, 12, 20]) {
          const key = randomBytes(32);
          const [ke, keC] = [new Uint8Array(32), new Uint8Array(32)];
          const [neon, c] = [kernel.loadHbsh(key, rounds, hpolyc, ke), kernel.loadHbsh(key, rounds, hpolyc, keC, true)];
          assert.deepEqual([neon.core, c.core], ['neon', 'c']);
          assert.deepEqual(ke, keC);
          const aes = kernel.load(expandKey(ke));
          const cases = [16, 17, 32, 271, 272, 273, 527, 1039, 1040, 1041, 4096, 4111].map((n) => [n, 1, 13]);
          cases.push([512, 19, 32]); // 19 sectors: the AES blocks in groups of 8 and a rest
          for (const [unit, count, tweakBytes] of cases) {
            const src = new Uint8Array(randomBytes(unit * count));
            const tweaks = new Uint8Array(randomBytes(tweakBytes * count));
            for (const decrypt of [false, true]) {
              const [a, b] = [new Uint8Array(src.length), new Uint8Array(src.length)];
              neon.crypt(a, src, unit, tweaks, tweakBytes, aes, decrypt);
              c.crypt(b, src, unit, tweaks, tweakBytes, aes, decrypt);
              assert.deepEqual(a, b, `${hpolyc ? 'HPolyC' : 'Adiantum'}-XChaCha${rounds} ${count} × ${unit}`);
            }
          }
          for (const k of [neon, c, aes]) k.dispose();
        }
      }
    });

    it('takes the native core with kernel native-arm64, and can make the WebAssembly SIMD128 core', () => {
      assert.equal(newAdiantum(new Uint8Array(32), { kernel: 'native-arm64' }).core, 'native');
      const core = wasmCore();
      assert.ok(core, 'the WebAssembly SIMD128 core cannot be made: the ciphers would run on the portable one');
      assert.equal(core.name, 'wasm-simd128');
    });
  });
  const vectorsDir = pathToFileURL(path.join(packagesDir, 'adiantum', 'test', 'vectors') + path.sep);
  for (const core of ['native', 'wasm-simd128']) {
    // Options that are not an object go through as they are: the input rules check that they are refused.
    const withKernel = (o) => (o === undefined || typeof o === 'object' ? { ...o, kernel: 'native-arm64', core } : o);
    adiantum.hbshConformance(
      {
        name: 'native-arm64',
        core,
        make: (variant, key, o) => (variant === 'adiantum' ? newAdiantum : newHpolyc)(key, withKernel(o)),
      },
      { describe, it },
      { runs: Number(process.env.X_AES_TEST_ADIANTUM_RUNS || 20), vectorsDir },
    );
  }
}
