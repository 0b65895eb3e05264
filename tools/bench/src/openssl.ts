// The OpenSSL table: the kernels side by side with `openssl speed` for the same cipher and the same buffer
// size. Each row is one operation at one key size. Each round runs every contender once, in a rotating
// order, `openssl speed -elapsed -seconds 1 -evp CIPHER [-decrypt] -bytes N` (a child process, while this
// process waits) among them; the table reports medians over the rounds.
//
// Contenders, all doing the row's work once per call:
// - native-x64 `avx512`, `vaes` and `aesni`: the raw keyed kernel of `kernelOn(path)` (every path in one process;
//   the public APIs choose one path per process), one call per row operation, as @x/cbc and @x/xts make it.
//   XTS includes the tweak encryption E_K2(i) of every sector, as @x/xts does and OpenSSL does per call;
// - native-x64 through the public API (`newCipher`/`newXts` with kernel 'native-x64', its default path);
// - wasm-simd128 through the public API;
// - node:crypto (OpenSSL with AES-NI through Node) the way its users call it: a cipher object per message;
// - OpenSSL itself: `openssl speed`, the 'numbers' table (1000s of bytes per second), last column.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import nativeX64 from '@x/aes-native-x64';
import { expandKey } from '@x/aes-keyschedule';
import * as cbc from '@x/cbc';
import * as xts from '@x/xts';
import { nodeCrypto } from './libraries.js';
import { interleaved, markdownTable, type Measurement, mbps, measure, ratio2, type Run } from './stats.js';

const SECTOR = 512;
const SECTORS = 2048;
const KIB4 = 4096;
const ROUNDS = 5;
const MAX_TIME = 0.15;

type Path = 'avx512' | 'vaes' | 'aesni';
const PATHS: readonly Path[] = ['avx512', 'vaes', 'aesni'];
const API = 'native-x64 (API)';
const CONTENDERS = [
  'native-x64 avx512',
  'native-x64 vaes',
  'native-x64 aesni',
  API,
  'wasm-simd128',
  'node:crypto',
] as const;
type Contender = (typeof CONTENDERS)[number];
/** The path of a raw-kernel contender, or undefined for the others. */
const pathOf = (who: Contender): Path | undefined =>
  who.startsWith('native-x64 ') && who !== API ? (who.slice('native-x64 '.length) as Path) : undefined;

/** The raw keyed kernel on `path` for `key`, or undefined where this CPU lacks the path. */
function rawKernel(path: Path, key: Uint8Array) {
  const k = nativeX64.kernelOn(path);
  if (!k.isAvailable()) return undefined;
  const schedule = expandKey(key);
  try {
    return k.load(schedule);
  } finally {
    schedule.wipe();
  }
}
type Keyed = NonNullable<ReturnType<typeof rawKernel>>;

/** One operation of the issue's table. */
interface Operation {
  readonly label: string;
  /** The `openssl speed` arguments after `-evp`, for AES-`keyBits`. */
  openssl(keyBits: number): string[];
  /** Goal for the `vaes` path, as a ratio to OpenSSL; the `aesni` path must reach 1.0 on parallel rows. */
  readonly goal: number;
  /** Goal for the `avx512` path (issue 27), as a ratio to OpenSSL; undefined where it sets none. */
  readonly goal512?: number;
  readonly parallel: boolean;
  readonly bytes: number;
  /** The row's work once, for a contender; `dispose` frees keys. Undefined where the contender cannot run. */
  make(who: Contender, keyBits: number): { run: Run; dispose(): void } | undefined;
}

const ivs = randomBytes(16 * SECTORS);
const iv = ivs.subarray(0, 16);
const sectorsOf = (bytes: number, size: number) =>
  Array.from({ length: bytes / size }, (_, i) => [i * size, (i + 1) * size] as const);

/** A CBC or ECB operation: `kernel` and `api` do it with a raw keyed kernel and with an @x/cbc Cipher. */
function cbcOperation(spec: {
  label: string;
  openssl(keyBits: number): string[];
  goal: number;
  goal512?: number;
  parallel: boolean;
  bytes: number;
  /** The node:crypto cipher name and direction, and the size of each message (one cipher object each). */
  node: { mode: 'cbc' | 'ecb'; encrypt: boolean; message: number };
  kernel(k: Keyed, dst: Uint8Array, src: Uint8Array): void;
  api(c: cbc.Cipher, dst: Uint8Array, src: Uint8Array): void;
}): Operation {
  return {
    ...spec,
    make(who, keyBits) {
      const key = randomBytes(keyBits / 8);
      const src = randomBytes(spec.bytes);
      const dst = new Uint8Array(spec.bytes);
      const path = pathOf(who);
      if (path) {
        const k = rawKernel(path, key);
        return k && { run: () => spec.kernel(k, dst, src), dispose: () => k.dispose() };
      }
      if (who === API || who === 'wasm-simd128') {
        const kernel = who === API ? 'native-x64' : who;
        if (!cbc.kernels().includes(kernel)) return undefined;
        const c = cbc.newCipher(key, { kernel });
        return { run: () => spec.api(c, dst, src), dispose: () => c.dispose() };
      }
      const { mode, encrypt, message } = spec.node;
      const messages = sectorsOf(spec.bytes, message);
      return {
        run: () => {
          for (const [i, [a, z]] of messages.entries()) {
            const v = mode === 'ecb' ? null : ivs.subarray(16 * i, 16 * i + 16);
            nodeCrypto(`aes-${keyBits}-${mode}`, encrypt, key, src.subarray(a, z), v);
          }
        },
        dispose: () => {},
      };
    },
  };
}

/** XTS decryption of 2048 sectors of 512 bytes (IEEE 1619 §5.4), 32- or 64-byte keys. */
const xtsDecryptSectors: Operation = {
  label: `XTS decryptSectors ${SECTORS} × ${SECTOR} B`,
  openssl: (keyBits) => [`aes-${keyBits}-xts`, '-decrypt', '-bytes', String(SECTOR)],
  goal: 1.5,
  goal512: 3,
  parallel: true,
  bytes: SECTOR * SECTORS,
  make(who, keyBits) {
    const key = randomBytes(keyBits / 4);
    const src = randomBytes(this.bytes);
    const dst = new Uint8Array(this.bytes);
    const tweaks = ivs; // the sector numbers' 16-byte tweak inputs, as plain64 makes them (any bytes will do)
    const path = pathOf(who);
    if (path) {
      const k1 = rawKernel(path, key.subarray(0, keyBits / 8));
      const k2 = rawKernel(path, key.subarray(keyBits / 8));
      if (!k1 || !k2) return undefined;
      const encrypted = new Uint8Array(tweaks.length);
      return {
        run: () => {
          k2.encryptBlocks(encrypted, tweaks); // T = E_K2(i) for every sector (IEEE 1619 §5.4.1 step 1)
          k1.xtsDecrypt(dst, src, SECTOR, encrypted);
        },
        dispose: () => {
          k1.dispose();
          k2.dispose();
        },
      };
    }
    if (who === API || who === 'wasm-simd128') {
      const kernel = who === API ? 'native-x64' : who;
      if (!xts.kernels().includes(kernel)) return undefined;
      const x = xts.newXts(key, { kernel });
      return { run: () => x.decryptSectors(dst, src, SECTOR, tweaks), dispose: () => x.dispose() };
    }
    const sectors = sectorsOf(this.bytes, SECTOR);
    return {
      run: () => {
        for (const [i, [a, z]] of sectors.entries()) {
          nodeCrypto(`aes-${keyBits}-xts`, false, key, src.subarray(a, z), tweaks.subarray(16 * i, 16 * i + 16));
        }
      },
      dispose: () => {},
    };
  },
};

/** The issue's rows, in its order. */
const OPERATIONS: Operation[] = [
  cbcOperation({
    label: `CBC decryptSectors ${SECTORS} × ${SECTOR} B`,
    openssl: (b) => [`aes-${b}-cbc`, '-decrypt', '-bytes', String(SECTOR)],
    goal: 1.5,
    goal512: 3,
    parallel: true,
    bytes: SECTOR * SECTORS,
    node: { mode: 'cbc', encrypt: false, message: SECTOR },
    kernel: (k, dst, src) => k.cbcDecryptSectors(dst, src, SECTOR, ivs),
    api: (c, dst, src) => c.decryptSectors(dst, src, SECTOR, ivs),
  }),
  cbcOperation({
    label: 'CBC decrypt one 4 KiB chain',
    openssl: (b) => [`aes-${b}-cbc`, '-decrypt', '-bytes', String(KIB4)],
    goal: 1.3,
    goal512: 1,
    parallel: true,
    bytes: KIB4,
    node: { mode: 'cbc', encrypt: false, message: KIB4 },
    kernel: (k, dst, src) => k.cbcDecryptSectors(dst, src, KIB4, iv), // one chain: one sector as long as src
    api: (c, dst, src) => c.decrypt(dst, src, iv),
  }),
  cbcOperation({
    label: 'ECB encrypt 4 KiB',
    openssl: (b) => [`aes-${b}-ecb`, '-bytes', String(KIB4)],
    goal: 1.5,
    goal512: 1,
    parallel: true,
    bytes: KIB4,
    node: { mode: 'ecb', encrypt: true, message: KIB4 },
    kernel: (k, dst, src) => k.encryptBlocks(dst, src),
    api: (c, dst, src) => c.encryptECB(dst, src),
  }),
  xtsDecryptSectors,
  cbcOperation({
    label: 'CBC encrypt one 4 KiB chain (serial)',
    openssl: (b) => [`aes-${b}-cbc`, '-bytes', String(KIB4)],
    goal: 0.95,
    goal512: 1,
    parallel: false,
    bytes: KIB4,
    node: { mode: 'cbc', encrypt: true, message: KIB4 },
    kernel: (k, dst, src) => k.cbcEncrypt(dst, src, iv),
    api: (c, dst, src) => c.encrypt(dst, src, iv),
  }),
  cbcOperation({
    label: `CBC encryptSectors ${SECTORS} × ${SECTOR} B (vs OpenSSL's serial CBC at 512 B)`,
    openssl: (b) => [`aes-${b}-cbc`, '-bytes', String(SECTOR)],
    goal: 4,
    parallel: true,
    bytes: SECTOR * SECTORS,
    node: { mode: 'cbc', encrypt: true, message: SECTOR },
    kernel: (k, dst, src) => k.cbcEncryptSectors(dst, src, SECTOR, ivs),
    api: (c, dst, src) => c.encryptSectors(dst, src, SECTOR, ivs),
  }),
];

/** `openssl version`, or undefined when there is no openssl to run. */
export function opensslVersion(): string | undefined {
  try {
    return execFileSync('openssl', ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Bytes per second from `openssl speed` output: the row under "The 'numbers' are in 1000s of bytes per
 * second processed.", last column. speed.c prints a value above 10000 bytes/s divided by 1000 with a `k`
 * suffix, and a smaller one as it is (bytes/s, no suffix).
 */
export function parseOpensslSpeed(out: string): number {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith("The 'numbers' are in 1000s of bytes per second processed."));
  const row = at < 0 ? undefined : lines.slice(at + 2).find((l) => l.trim() !== '');
  const last = row?.trim().split(/\s+/).pop();
  const m = last && /^([\d.]+)(k?)$/.exec(last);
  if (!m) throw new Error(`bench: no throughput in openssl speed output:\n${out}`);
  return Number(m[1]) * (m[2] === 'k' ? 1000 : 1);
}

/** One `openssl speed` run of about a second: bytes per second (`env`: extra environment variables). */
export function opensslSpeed(args: string[], env?: Record<string, string>): number {
  const out = execFileSync('openssl', ['speed', '-elapsed', '-seconds', '1', '-evp', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: env && { ...process.env, ...env },
  });
  return parseOpensslSpeed(out);
}

const OPENSSL = 'OpenSSL speed';

/** Measures and prints the OpenSSL table; returns the medians (bytes per second) by row and contender. */
export function runOpenssl(): Record<string, Record<string, number | undefined>> {
  const version = opensslVersion();
  if (!version) console.log('openssl: not found on PATH, so the table has no OpenSSL column and no ratios.\n');
  const started = Date.now();
  const results: Record<string, Record<string, number | undefined>> = {};
  const rows: { op: Operation; keyBits: number; id: string }[] = [];
  for (const op of OPERATIONS)
    for (const keyBits of [128, 256]) rows.push({ op, keyBits, id: `${op.label} AES-${keyBits}` });

  for (const { op, keyBits, id } of rows) {
    const made = CONTENDERS.map((c) => op.make(c, keyBits));
    const runs: Measurement[] = CONTENDERS.flatMap((name, i) => {
      const m = made[i];
      return m ? [{ name, run: () => measure(m.run, op.bytes, MAX_TIME) }] : [];
    });
    if (version) runs.push({ name: OPENSSL, run: () => opensslSpeed(op.openssl(keyBits)) });
    let medians: Record<string, number>;
    try {
      medians = interleaved(runs, ROUNDS);
    } finally {
      for (const m of made) m?.dispose();
    }
    results[id] = Object.fromEntries([...CONTENDERS, OPENSSL].map((c) => [c, medians[c]]));
    process.stderr.write(`. ${id}\n`);
  }

  const met = (x: number | undefined, base: number | undefined, goal: number) =>
    x === undefined || base === undefined ? '—' : x / base >= goal ? 'yes' : 'no';
  const lines = rows.map(({ op, keyBits, id }) => {
    const r = results[id];
    const o = r[OPENSSL];
    const avx512 = r['native-x64 avx512'];
    const vaes = r['native-x64 vaes'];
    const aesni = r['native-x64 aesni'];
    const g512 = op.goal512;
    return [
      op.label,
      String(keyBits),
      ...CONTENDERS.map((c) => mbps(r[c])),
      mbps(o),
      ratio2(avx512, o),
      ratio2(vaes, o),
      ratio2(aesni, o),
      `${g512 === undefined ? '—' : `≥ ${g512}×`} / ≥ ${op.goal}× / ${op.parallel ? '≥ 1.0×' : '—'}`,
      `${g512 === undefined ? '—' : met(avx512, o, g512)} / ${met(vaes, o, op.goal)} / ${op.parallel ? met(aesni, o, 1) : '—'}`,
    ];
  });
  const header = [
    'operation',
    'AES',
    'native-x64 avx512 (kernel)',
    'native-x64 vaes (kernel)',
    'native-x64 aesni (kernel)',
    'native-x64 via @x/cbc, @x/xts',
    'wasm-simd128 via @x/cbc, @x/xts',
    'node:crypto',
    OPENSSL,
    'avx512 ÷ OpenSSL',
    'vaes ÷ OpenSSL',
    'aesni ÷ OpenSSL',
    'goal avx512 / vaes / aesni',
    'met avx512 / vaes / aesni',
  ];
  const paths = PATHS.map((p) => `${p} ${nativeX64.kernelOn(p).isAvailable() ? 'runs' : 'does not run'} here`).join(
    ', ',
  );
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${version ?? 'no openssl'}; ` +
      `native-x64: ${paths}, default path (the API column) ${nativeX64.kernel.path ?? 'none'}. ` +
      `MB/s (10^6 bytes/s), median of ${ROUNDS} interleaved rounds; higher is better.\n`,
  );
  console.log(markdownTable(header, lines, 2));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  if (version) results.vpaes = runVpaes();
  return results;
}

/*
 * OpenSSL's constant-time AES without AES-NI: OPENSSL_ia32cap's first word with bits 57 (AES-NI) and 33
 * (PCLMULQDQ) cleared (crypto/cpuid.c reads `~mask` as "these bits off"), so EVP's AES-CBC runs
 * vpaes_cbc_encrypt (SSSE3 PSHUFB tables). That is the bar issue 27 sets for the WebAssembly kernel's
 * serial CBC encryption, which has no AES instruction either.
 */
const VPAES_ENV = { OPENSSL_ia32cap: '~0x200000200000000' };
const VPAES = 'OpenSSL vpaes (AES-NI hidden)';
const WASM = 'wasm-simd128 via @x/cbc';

/** Serial CBC encryption of 4 KiB: the wasm-simd128 kernel through @x/cbc against vpaes, interleaved. */
function runVpaes(): Record<string, number | undefined> {
  const started = Date.now();
  const results: Record<string, number | undefined> = {};
  const lines: string[][] = [];
  if (!cbc.kernels().includes('wasm-simd128')) {
    console.log('wasm-simd128 is not available here, so the vpaes table is skipped.\n');
    return results;
  }
  for (const keyBits of [128, 256]) {
    const c = cbc.newCipher(randomBytes(keyBits / 8), { kernel: 'wasm-simd128' });
    const src = randomBytes(KIB4);
    const dst = new Uint8Array(KIB4);
    const args = [`aes-${keyBits}-cbc`, '-bytes', String(KIB4)];
    let medians: Record<string, number>;
    try {
      medians = interleaved(
        [
          { name: WASM, run: () => measure(() => c.encrypt(dst, src, iv), KIB4, MAX_TIME) },
          { name: VPAES, run: () => opensslSpeed(args, VPAES_ENV) },
        ],
        2 * ROUNDS + 1,
      );
    } finally {
      c.dispose();
    }
    const [w, v] = [medians[WASM], medians[VPAES]];
    results[`AES-${keyBits} ${WASM}`] = w;
    results[`AES-${keyBits} ${VPAES}`] = v;
    lines.push([String(keyBits), mbps(w), mbps(v), ratio2(w, v), '≥ 1.00×', w / v >= 1 ? 'yes' : 'no']);
    process.stderr.write(`. CBC encrypt one 4 KiB chain (serial), wasm-simd128 against vpaes, AES-${keyBits}\n`);
  }
  console.log(
    `CBC encrypt one 4 KiB chain (serial), the WebAssembly kernel against OpenSSL's constant-time vpaes ` +
      `(\`OPENSSL_ia32cap=${VPAES_ENV.OPENSSL_ia32cap} openssl speed -elapsed -evp aes-N-cbc -bytes 4096\`): ` +
      `MB/s, median of ${2 * ROUNDS + 1} interleaved rounds.\n`,
  );
  console.log(markdownTable(['AES', WASM, VPAES, 'wasm ÷ vpaes', 'goal', 'met'], lines, 1));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return results;
}
