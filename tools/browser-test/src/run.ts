/**
 * The browser test: serves the built dist/ of every @x package from a node:http server on 127.0.0.1
 * (an import map resolves the bare names), drives Debian's Chromium and Firefox ESR headless through
 * puppeteer-core, one after the other, and checks in each NIST vectors and random cases through @x/cbc, @x/ctr, @x/gcm and @x/hctr2 on the wasm-simd128
 * kernel against results computed here with node:crypto (HCTR2, which OpenSSL lacks: @x/hctr2 on the
 * portable kernel), and Adiantum-XChaCha12, Adiantum-XChaCha20 and HPolyC-XChaCha12 through @x/adiantum on
 * the wasm-simd128 kernel and WebAssembly core and through @x/adiantum/portable, against the vectors of
 * Linux and of the Adiantum authors and against refHbsh of @x/testkit. A second page, served with a
 * Content-Security-Policy that forbids WebAssembly compilation, checks that @x/cbc and @x/adiantum fall back
 * to the portable kernel (and @x/adiantum to the portable core) and say so, with the same bytes.
 *
 * A browser that is not installed is skipped with one line saying so, except under CI=true, where that is
 * a failure.
 */
import { createCipheriv, randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import {
  BROWSER_LABELS,
  BROWSERS,
  type BrowserName,
  browserRequirement,
  FIPS197_PLAINTEXT,
  hex,
  launchBrowser,
  refCbc,
  refCbcSectors,
  refEcb,
  refHbsh,
  SP800_38A_CBC,
  SP800_38A_IV,
  SP800_38A_PLAINTEXT,
  toHex,
} from '@x/testkit';
import { newHctr2 } from '@x/hctr2';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = join(ROOT, 'packages');
const PAGE_JS = fileURLToPath(new URL('./page.js', import.meta.url));
const KERNEL = 'wasm-simd128';
/** The kernel's chunk size (packages/aes-wasm-kernel/src/layout.ts): random cases go past it. */
const CHUNK = 32768;

function fail(message: string): never {
  console.error(`@x/browser-test: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------------
// Cases and their expected results, computed with node:crypto.

interface Case {
  key: string;
  iv: string;
  ivs: string;
  data: string;
  offset: number;
  sectorSize: number;
  expected: Record<string, string>;
  /** What page.js's `modes` must give: CTR and GCM from node:crypto, HCTR2 from @x/hctr2 on the portable kernel. */
  modes: Record<string, string>;
}

/** The expected results of page.js's `modes` for one case (see there for what each is). */
function expectedModes(key: Uint8Array, iv: Uint8Array, ivs: Uint8Array, data: Uint8Array): Record<string, string> {
  const bits = key.length * 8;
  const gcm = createCipheriv(`aes-${bits}-gcm` as 'aes-128-gcm', key, iv.subarray(0, 12));
  gcm.setAAD(ivs.subarray(0, 20));
  const sealed = Buffer.concat([gcm.update(data), gcm.final(), gcm.getAuthTag()]);
  const h = newHctr2(key, { kernel: 'portable' });
  const hctr2 = new Uint8Array(data.length);
  h.encrypt(hctr2, data, ivs.subarray(0, 32));
  h.dispose();
  return {
    ctr: b64(createCipheriv(`aes-${bits}-ctr`, key, iv).update(data)),
    gcmSeal: b64(sealed),
    gcmOpen: b64(data),
    gcmForgery: '@x/gcm: authentication failed',
    hctr2: b64(hctr2),
    hctr2Back: b64(data),
  };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function makeCase(key: Uint8Array, iv: Uint8Array, data: Uint8Array, sectorSize: number, offset: number): Case {
  const ivs = randomBytes(16 * (data.length / sectorSize));
  const decrypted = refCbc(false, key, data, iv);
  return {
    key: b64(key),
    iv: b64(iv),
    ivs: b64(ivs),
    data: b64(data),
    offset,
    sectorSize,
    expected: {
      encrypt: b64(refCbc(true, key, data, iv)),
      decrypt: b64(decrypted),
      encryptECB: b64(refEcb(true, key, data)),
      decryptECB: b64(refEcb(false, key, data)),
      decryptSectors: b64(refCbcSectors(false, key, data, sectorSize, ivs)),
      decryptInPlace: b64(decrypted),
    },
    modes: expectedModes(key, iv, ivs, data),
  };
}

/** NIST SP 800-38A F.2 (CBC-AES128/192/256) and FIPS 197 Appendix C keys, then random cases. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const v of SP800_38A_CBC) {
    const c = makeCase(hex(v.key), hex(SP800_38A_IV), hex(SP800_38A_PLAINTEXT), 32, 0);
    if (toHex(Buffer.from(c.expected.encrypt, 'base64')) !== v.ciphertext) fail('SP 800-38A vector');
    out.push(c);
  }
  for (const n of [16, 24, 32]) {
    out.push(
      makeCase(
        Uint8Array.from({ length: n }, (_, i) => i),
        new Uint8Array(16),
        hex(FIPS197_PLAINTEXT),
        16,
        0,
      ),
    );
  }
  for (let i = 0; i < 12; i++) {
    const keySize = [16, 24, 32][i % 3];
    const sectorSize = [16, 512, 4096][randomInt(3)];
    const sectors = i < 3 ? Math.ceil((2 * CHUNK + 16) / sectorSize) + randomInt(3) : 1 + randomInt(24);
    out.push(
      makeCase(randomBytes(keySize), randomBytes(16), randomBytes(sectors * sectorSize), sectorSize, randomInt(16)),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Adiantum and HPolyC cases and their expected results, computed with refHbsh (the model of @x/testkit,
// BigInt arithmetic written out from the definitions; it shares no code with @x/adiantum).

type Variant = 'adiantum' | 'hpolyc';

interface HbshCase {
  /** What the case is, for failure messages: `Adiantum-XChaCha12 random 31 B`, … */
  name: string;
  variant: Variant;
  rounds: 12 | 20;
  key: string;
  tweak: string;
  data: string;
  offset: number;
  /** 0: one message under `tweak`; else sectors of this size through the sector calls, 32 bytes of `tweak` each. */
  sectorSize: number;
  /** What page.js's `hbsh` must give: `encrypt` and `decrypt` of the data, and `back` (the data again). */
  expected: Record<string, string>;
}

const hbshName = (variant: Variant, rounds: number) =>
  `${variant === 'adiantum' ? 'Adiantum' : 'HPolyC'}-XChaCha${rounds}`;

/** refHbsh of a message, or of each sector with its 32 bytes of tweak when `sectorSize` is not 0. */
function refHbshCall(
  variant: Variant,
  rounds: number,
  key: Uint8Array,
  tweak: Uint8Array,
  data: Uint8Array,
  sectorSize: number,
  decrypt: boolean,
): Uint8Array {
  if (sectorSize === 0) return refHbsh(variant, rounds, key, tweak, data, decrypt);
  const out = new Uint8Array(data.length);
  for (let at = 0, s = 0; at < data.length; at += sectorSize, s++) {
    const sector = data.subarray(at, at + sectorSize);
    out.set(refHbsh(variant, rounds, key, tweak.subarray(32 * s, 32 * s + 32), sector, decrypt), at);
  }
  return out;
}

/** A case; when `ciphertext` (hex) is given, refHbsh must agree with it, as a check of the model. */
function makeHbshCase(
  name: string,
  variant: Variant,
  rounds: 12 | 20,
  key: Uint8Array,
  tweak: Uint8Array,
  data: Uint8Array,
  sectorSize: number,
  ciphertext?: string,
): HbshCase {
  const encrypted = refHbshCall(variant, rounds, key, tweak, data, sectorSize, false);
  if (ciphertext !== undefined && toHex(encrypted) !== ciphertext) fail(`refHbsh disagrees with ${name}`);
  return {
    name,
    variant,
    rounds,
    key: b64(key),
    tweak: b64(tweak),
    data: b64(data),
    offset: randomInt(16),
    sectorSize,
    expected: {
      encrypt: b64(encrypted),
      decrypt: b64(refHbshCall(variant, rounds, key, tweak, data, sectorSize, true)),
      back: b64(data),
    },
  };
}

/** @x/adiantum's copies of the vector files (each names its source in its `source` field). */
function adiantumVectors(file: string): { key: string; tweak?: string; iv?: string; ptext: string; ctext: string }[] {
  const bytes = readFileSync(join(PACKAGES, 'adiantum', 'test', 'vectors', file));
  return JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')).vectors;
}

/**
 * Known answers: Linux's testmgr vectors for adiantum(xchacha12,aes) and adiantum(xchacha20,aes) (6 each:
 * 16 to 4096 bytes, 32-byte IVs), and the first HPolyC-XChaCha12 vector of the Adiantum authors
 * (github.com/google/adiantum test_vectors/ours/HPolyC, commit 4feeb5aa) for each message length (16 to
 * 4096 bytes) and tweak length (0, 17, 32 bytes). Then random cases of each of Adiantum-XChaCha12,
 * Adiantum-XChaCha20 and HPolyC-XChaCha12: messages of 16, 31, 4096 and a random number of bytes under
 * tweaks of 32, 0, 17 and a random number of bytes, and 8 sectors of 512 bytes with 32-byte tweaks.
 */
function hbshCases(): HbshCase[] {
  const out: HbshCase[] = [];
  for (const rounds of [12, 20] as const) {
    for (const [i, v] of adiantumVectors(`linux_testmgr_adiantum_xchacha${rounds}_aes.json`).entries()) {
      const name = `${hbshName('adiantum', rounds)} Linux testmgr #${i}`;
      out.push(makeHbshCase(name, 'adiantum', rounds, hex(v.key), hex(v.iv ?? ''), hex(v.ptext), 0, v.ctext));
    }
  }
  const seen = new Set<string>();
  for (const [i, v] of adiantumVectors('google_HPolyC_XChaCha12_32_AES256.json.gz').entries()) {
    const shape = `${v.ptext.length / 2} B, tweak ${(v.tweak ?? '').length / 2} B`;
    if (seen.has(shape)) continue;
    seen.add(shape);
    const name = `${hbshName('hpolyc', 12)} authors' #${i} (${shape})`;
    out.push(makeHbshCase(name, 'hpolyc', 12, hex(v.key), hex(v.tweak ?? ''), hex(v.ptext), 0, v.ctext));
  }
  for (const [variant, rounds] of [
    ['adiantum', 12],
    ['adiantum', 20],
    ['hpolyc', 12],
  ] as const) {
    const lengths = [16, 31, 4096, 17 + randomInt(2000)];
    const tweaks = [32, 0, 17, randomInt(64)];
    lengths.forEach((n, i) => {
      const name = `${hbshName(variant, rounds)} random ${n} B, tweak ${tweaks[i]} B`;
      out.push(makeHbshCase(name, variant, rounds, randomBytes(32), randomBytes(tweaks[i]), randomBytes(n), 0));
    });
    const name = `${hbshName(variant, rounds)} random 8 sectors of 512 B`;
    out.push(makeHbshCase(name, variant, rounds, randomBytes(32), randomBytes(8 * 32), randomBytes(8 * 512), 512));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The server: an import map for every @x package, their dist/ files, and the page script.

type Conditions = string | { [condition: string]: Conditions };

/** What a browser loads for an exports or imports entry: its `default`, when that is an ES module file. */
function browserFile(entry: Conditions | undefined): string | undefined {
  if (typeof entry === 'string') return entry.endsWith('.js') ? entry : undefined;
  return entry === undefined ? undefined : browserFile(entry.default);
}

/**
 * The import map: every export of every ES-module @x package (`@x/cbc`, `@x/aes-kernels/hazmat`, …) at
 * its dist/ file, and each package's own `#imports` scoped to that package.
 */
function importMap(): { imports: Record<string, string>; scopes: Record<string, Record<string, string>> } {
  const imports: Record<string, string> = {};
  const scopes: Record<string, Record<string, string>> = {};
  for (const dir of readdirSync(PACKAGES)) {
    const file = join(PACKAGES, dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string;
      type?: string;
      exports?: Record<string, Conditions>;
      imports?: Record<string, Conditions>;
    };
    if (pkg.type !== 'module') continue;
    const url = (target: string) => `/packages/${dir}/${target.replace(/^\.\//, '')}`;
    for (const [subpath, entry] of Object.entries(pkg.exports ?? {})) {
      const target = browserFile(entry);
      if (target) imports[pkg.name + subpath.slice(1)] = url(target);
    }
    for (const [name, entry] of Object.entries(pkg.imports ?? {})) {
      const target = browserFile(entry);
      if (!target) continue;
      scopes[`/packages/${dir}/`] ??= {};
      scopes[`/packages/${dir}/`][name] = url(target);
    }
  }
  return { imports, scopes };
}

function html(): string {
  return `<!doctype html><meta charset="utf-8"><title>@x browser test</title>
<script type="importmap">${JSON.stringify(importMap())}</script>
<script type="module" src="/page.js"></script>`;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
};

function serve(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
    res.end(body);
  };
  if (url.pathname === '/' || url.pathname === '/csp.html') {
    // The CSP page allows scripts but not WebAssembly compilation (no 'wasm-unsafe-eval').
    const csp =
      url.pathname === '/csp.html' ? { 'content-security-policy': "script-src 'self' 'unsafe-inline'" } : undefined;
    send(200, 'text/html; charset=utf-8', html(), csp);
    return;
  }
  if (url.pathname === '/page.js') {
    send(200, TYPES['.js'], readFileSync(PAGE_JS));
    return;
  }
  if (url.pathname.startsWith('/packages/')) {
    const file = normalize(join(ROOT, decodeURIComponent(url.pathname)));
    const inDist = file.startsWith(PACKAGES + sep) && file.split(sep).includes('dist');
    if (inDist && existsSync(file)) {
      send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
      return;
    }
  }
  send(404, 'text/plain', 'not found');
}

// ---------------------------------------------------------------------------------------------------

interface PageResult {
  kernels: string[];
  wasmAvailable: boolean;
  viaCbc: { kernel: string; out: Record<string, string> }[];
  direct: { kernel: string; out: Record<string, string> }[];
  modes: { kernel: string; out: Record<string, string> }[];
  errors: string[];
}

/** What page.js's `xaes.adiantum` gives: through @x/adiantum (`index`) and @x/adiantum/portable. */
interface AdiantumResult {
  kernels: string[];
  /** The core a new @x/adiantum cipher on a kernel other than portable gets: 'wasm-simd128', or null (portable). */
  wasmCore: string | null;
  index: { kernel: string; out: Record<string, string> }[];
  portable: { kernel: string; out: Record<string, string> }[];
  errors: string[];
}

function check<C extends { key: string; data: string; expected: Record<string, string>; name?: string }>(
  label: string,
  all: C[],
  results: { kernel: string; out: Record<string, string> }[],
  kernel: string,
  expected: (c: C) => Record<string, string> = (c) => c.expected,
): number {
  let failures = 0;
  if (results.length !== all.length) {
    console.error(`  ${label}: ${results.length} of ${all.length} cases ran`);
    return 1;
  }
  all.forEach((c, i) => {
    const r = results[i];
    if (r.kernel !== kernel) {
      failures++;
      console.error(`  ${label} case ${i}: kernel is ${r.kernel}, expected ${kernel}`);
    }
    for (const [op, want] of Object.entries(expected(c))) {
      if (r.out[op] !== want) {
        failures++;
        const what =
          c.name ?? `${Buffer.from(c.data, 'base64').length} B, key ${Buffer.from(c.key, 'base64').length} B`;
        console.error(`  ${label} case ${i} (${what}): ${op} differs`);
      }
    }
  });
  return failures;
}

async function main(): Promise<void> {
  const browsers = (Object.keys(BROWSERS) as BrowserName[]).filter((name) => {
    const need = browserRequirement(name);
    if (need.failure) fail(`${need.failure} (.ci/run installs it)`);
    if (need.skipNotice) console.log(`@x/browser-test: ${BROWSER_LABELS[name]} ${need.skipNotice}`);
    return need.run;
  });
  if (browsers.length === 0) return;
  for (const dir of [
    'cbc',
    'ctr',
    'gcm',
    'hctr2',
    'adiantum',
    'aes-kernels',
    'aes-keyschedule',
    'aes-wasm-kernel',
    'aes-portable',
  ]) {
    if (!existsSync(join(PACKAGES, dir, 'dist', 'index.js')))
      fail(`packages/${dir}/dist is missing: run npm run build first`);
  }
  const server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // The same cases for every browser: each must give the bytes computed here.
  const all = cases();
  const hbshAll = hbshCases();
  let failures = 0;
  try {
    for (const name of browsers) {
      const started = performance.now();
      const failed = await inBrowser(name, origin, all, hbshAll);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`${BROWSER_LABELS[name]}: ${failed ? `${failed} failure(s)` : 'passed'} in ${seconds} s`);
      failures += failed;
    }
  } finally {
    server.close();
  }
  if (failures) fail(`${failures} failure(s)`);
  console.log(`@x/browser-test: passed in ${browsers.map((name) => BROWSER_LABELS[name]).join(' and ')}`);
}

/** Every check in browser `name`; returns the number of failures (each printed). */
async function inBrowser(name: BrowserName, origin: string, all: Case[], hbshAll: HbshCase[]): Promise<number> {
  const browser = await launchBrowser(name);
  let failures = 0;
  try {
    /** Loads `path` and runs page.js's `xaes.run` on every case, then `xaes.adiantum` on `hbsh`. */
    const run = async (
      path: string,
      kernel: string | undefined,
      callInit: boolean,
      hbsh: HbshCase[],
    ): Promise<PageResult & { adiantum: AdiantumResult }> => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      await page.goto(`${origin}${path}`);
      await page
        .waitForFunction(() => (window as unknown as { xaesReady?: boolean }).xaesReady === true, {
          timeout: 120_000,
          polling: 100,
        })
        .catch(() => fail(`${BROWSER_LABELS[name]}: ${path} did not load: ${problems.join('; ') || 'timeout'}`));
      const result = (await page.evaluate(
        (arg) => (window as unknown as { xaes: { run(a: unknown): Promise<unknown> } }).xaes.run(arg),
        { cases: all, kernel, callInit },
      )) as PageResult;
      const adiantum = (await page.evaluate(
        (arg) => (window as unknown as { xaes: { adiantum(a: unknown): Promise<unknown> } }).xaes.adiantum(arg),
        { cases: hbsh, kernel, callInit },
      )) as AdiantumResult;
      await page.close();
      return { ...result, adiantum };
    };

    // 1. Main thread, init() awaited: @x/cbc with kernel wasm-simd128, and the kernel contract directly.
    const main = await run('/', KERNEL, true, hbshAll);
    console.log(`${BROWSER_LABELS[name]} (${await browser.version()}): kernels() = ${JSON.stringify(main.kernels)}`);
    for (const e of main.errors.slice(0, 3)) console.error(`  ${e}`);
    failures += main.errors.length;
    if (!main.kernels.includes(KERNEL)) {
      failures++;
      console.error(`  @x/cbc does not list ${KERNEL} in kernels()`);
    }
    const viaCbc = check('@x/cbc', all, main.viaCbc, KERNEL);
    console.log(`${all.length} cases × 6 operations through @x/cbc with kernel ${KERNEL}: ${viaCbc ? 'FAIL' : 'ok'}`);
    const direct = check('kernel', all, main.direct, 'wasm-simd128 (direct)');
    console.log(`${all.length} cases × 6 operations through the ${KERNEL} kernel contract: ${direct ? 'FAIL' : 'ok'}`);
    const modes = check('modes', all, main.modes, KERNEL, (c) => c.modes);
    console.log(
      `${all.length} cases × CTR, GCM seal/open/forgery, HCTR2 through @x/ctr, @x/gcm, @x/hctr2 with kernel ${KERNEL}: ${modes ? 'FAIL' : 'ok'}`,
    );
    failures += viaCbc + direct + modes;

    // @x/adiantum after its init(): kernel wasm-simd128 on the WebAssembly core, and @x/adiantum/portable.
    const a = main.adiantum;
    let adiantumFailures = a.errors.length;
    for (const e of a.errors.slice(0, 3)) console.error(`  ${e}`);
    if (a.wasmCore !== KERNEL) {
      adiantumFailures++;
      console.error(`  @x/adiantum after init(): the WebAssembly core is ${a.wasmCore ?? 'unavailable'}`);
    }
    const index = check('@x/adiantum', hbshAll, a.index, KERNEL);
    const portable = check('@x/adiantum/portable', hbshAll, a.portable, 'portable');
    failures += adiantumFailures + index + portable;
    const known = hbshAll.filter((c) => !c.name.includes(' random ')).length;
    const what = `${hbshAll.length} Adiantum-XChaCha12/20 and HPolyC cases (${known} known answers) × encrypt, decrypt, in place`;
    console.log(
      `${what} through @x/adiantum with kernel ${KERNEL}, core ${a.wasmCore}: ${adiantumFailures + index ? 'FAIL' : 'ok'}`,
    );
    console.log(`${what} through @x/adiantum/portable: ${portable ? 'FAIL' : 'ok'}`);

    // Without init(): whether this browser compiles the module synchronously on the main thread.
    const sync = await run('/', undefined, false, []);
    const compiles = (available: boolean) => (available ? 'compiles synchronously' : 'needs init()');
    console.log(
      `main thread without init(): wasm-simd128 ${compiles(sync.wasmAvailable)}, @x/adiantum's core ${compiles(sync.adiantum.wasmCore !== null)}`,
    );

    // 2. A Content-Security-Policy without 'wasm-unsafe-eval': @x/cbc falls back to portable and says so.
    const csp = await run('/csp.html', undefined, true, hbshAll);
    let cspFailures = csp.errors.length + (csp.wasmAvailable ? 1 : 0);
    if (csp.wasmAvailable) console.error('  under CSP: the wasm kernel claims to be available');
    cspFailures += check('@x/cbc under CSP', all.slice(0, 6), csp.viaCbc.slice(0, 6), 'portable');
    cspFailures += check('modes under CSP', all.slice(0, 6), csp.modes.slice(0, 6), 'portable', (c) => c.modes);
    console.log(
      `CSP without 'wasm-unsafe-eval': falls back to ${csp.viaCbc[0]?.kernel}: ${cspFailures ? 'FAIL' : 'ok'}`,
    );
    failures += cspFailures;

    // @x/adiantum under that CSP, no kernel asked for: the portable kernel and the portable core, same bytes.
    const ca = csp.adiantum;
    let cspAdiantum = ca.errors.length;
    for (const e of ca.errors.slice(0, 3)) console.error(`  ${e}`);
    if (ca.wasmCore !== null || ca.kernels.includes(KERNEL)) {
      cspAdiantum++;
      console.error(`  @x/adiantum under CSP: kernels ${JSON.stringify(ca.kernels)}, WebAssembly core ${ca.wasmCore}`);
    }
    cspAdiantum += check('@x/adiantum under CSP', hbshAll, ca.index, 'portable');
    cspAdiantum += check('@x/adiantum/portable under CSP', hbshAll, ca.portable, 'portable');
    console.log(
      `CSP without 'wasm-unsafe-eval': @x/adiantum falls back to kernel ${ca.index[0]?.kernel}, core ${ca.wasmCore ?? 'portable'}, ${hbshAll.length} cases: ${cspAdiantum ? 'FAIL' : 'ok'}`,
    );
    failures += cspAdiantum;
  } finally {
    await browser.close();
  }
  return failures;
}

await main();
