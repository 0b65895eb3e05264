// The library table: every @x kernel usable here against node:crypto (OpenSSL, AES-NI), @noble/ciphers
// (T-tables) and aes-js, in one process, through each library's public API. Rounds are interleaved: each
// round measures every contender once (benchmark.js, a short time each), and the table reports each
// contender's median round, so that a slow phase of the machine hits all of them alike. With a baseline
// checkout, every @x kernel of this tree against the same kernel built there, the other libraries left out.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cbc as nobleCbc, ecb as nobleEcb } from '@noble/ciphers/aes.js';
import aesjs from 'aes-js';
import * as cbc from '@x/cbc';
import * as diskIv from '@x/disk-iv';
import * as xts from '@x/xts';
import { markdownTable, mbps, measure, median, ratio, type Run } from './stats.js';

/** The @x APIs a row calls: this tree's, or (with a baseline) those built in another checkout. */
interface Api {
  newCipher: typeof cbc.newCipher;
  newXts: typeof xts.newXts;
  newIvGenerator: typeof diskIv.newIvGenerator;
}
const here: Api = { newCipher: cbc.newCipher, newXts: xts.newXts, newIvGenerator: diskIv.newIvGenerator };
/** The baseline's APIs, while {@link runLibraries} runs with one. */
let before: Api | undefined;
const BEFORE = ' (before)';

const SECTOR = 512;
const SECTORS = 2048;
const OURS = cbc.kernels();
/** With a baseline: the kernels of {@link OURS} that the baseline has too. */
let compared: string[] = OURS;
const OTHERS = ['node:crypto', '@noble/ciphers', 'aes-js'] as const;

/** For an @x contender (this tree's or the baseline's): its API and kernel name; else undefined. */
function ours(who: string): { api: Api; kernel: string } | undefined {
  if (OURS.includes(who)) return { api: here, kernel: who };
  if (before && who.endsWith(BEFORE)) return { api: before, kernel: who.slice(0, -BEFORE.length) };
  return undefined;
}

interface Row {
  group: string;
  label: string;
  keyBits: number;
  bytes: number;
  /** The function that does the row's work once, per contender; undefined where it has no such mode. */
  make(contender: string): Run | undefined;
}

const iv = randomBytes(16);
const chunks = (bytes: number, size: number) =>
  Array.from({ length: bytes / size }, (_, i) => [i * size, (i + 1) * size] as const);

/** node:crypto the way its users do it: a (de)cipher object per message. */
export function nodeCrypto(name: string, encrypt: boolean, key: Uint8Array, data: Uint8Array, v: Uint8Array | null) {
  const c = encrypt ? createCipheriv(name, key, v) : createDecipheriv(name, key, v);
  c.setAutoPadding(false);
  c.update(data);
  c.final();
}

function blockRow(op: 'cbc-decrypt' | 'cbc-encrypt' | 'ecb-encrypt', keyBits: number, bytes: number): Row {
  const key = randomBytes(keyBits / 8);
  const src = randomBytes(bytes);
  const dst = new Uint8Array(bytes);
  const label = { 'cbc-decrypt': 'CBC decrypt', 'cbc-encrypt': 'CBC encrypt', 'ecb-encrypt': 'ECB encrypt' }[op];
  return {
    group: label,
    label: `${label} ${bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`}`,
    keyBits,
    bytes,
    make(who) {
      const x = ours(who);
      if (x) {
        const c = x.api.newCipher(key, { kernel: x.kernel });
        if (op === 'cbc-decrypt') return () => c.decrypt(dst, src, iv);
        if (op === 'cbc-encrypt') return () => c.encrypt(dst, src, iv);
        return () => c.encryptECB(dst, src);
      }
      const mode = op === 'ecb-encrypt' ? 'ecb' : 'cbc';
      const encrypt = op !== 'cbc-decrypt';
      switch (who) {
        case 'node:crypto':
          return () => nodeCrypto(`aes-${keyBits}-${mode}`, encrypt, key, src, mode === 'ecb' ? null : iv);
        case '@noble/ciphers': {
          const make = () =>
            mode === 'ecb' ? nobleEcb(key, { disablePadding: true }) : nobleCbc(key, iv, { disablePadding: true });
          return encrypt ? () => make().encrypt(src) : () => make().decrypt(src);
        }
        case 'aes-js': {
          const make = () =>
            mode === 'ecb' ? new aesjs.ModeOfOperation.ecb(key) : new aesjs.ModeOfOperation.cbc(key, iv);
          return encrypt ? () => make().encrypt(src) : () => make().decrypt(src);
        }
      }
      return undefined;
    },
  };
}

/** 2048 CBC sectors of 512 bytes with given IVs: one call for us, one cipher object per sector for the others. */
function sectorsRow(keyBits: number, encrypt: boolean): Row {
  const key = randomBytes(keyBits / 8);
  const bytes = SECTOR * SECTORS;
  const src = randomBytes(bytes);
  const dst = new Uint8Array(bytes);
  const ivs = randomBytes(16 * SECTORS);
  const sectors = chunks(bytes, SECTOR);
  const ivOf = (i: number) => ivs.subarray(16 * i, 16 * i + 16);
  const name = encrypt ? 'encryptSectors' : 'decryptSectors';
  return {
    group: `CBC ${name}`,
    label: `CBC ${name} ${SECTORS} × ${SECTOR} B`,
    keyBits,
    bytes,
    make(who) {
      const x = ours(who);
      if (x) {
        const c = x.api.newCipher(key, { kernel: x.kernel });
        return encrypt ? () => c.encryptSectors(dst, src, SECTOR, ivs) : () => c.decryptSectors(dst, src, SECTOR, ivs);
      }
      const each = (f: (a: number, z: number, i: number) => void) => () => {
        for (const [i, [a, z]] of sectors.entries()) f(a, z, i);
      };
      switch (who) {
        case 'node:crypto':
          return each((a, z, i) => nodeCrypto(`aes-${keyBits}-cbc`, encrypt, key, src.subarray(a, z), ivOf(i)));
        case '@noble/ciphers':
          return each((a, z, i) => {
            const c = nobleCbc(key, ivOf(i), { disablePadding: true });
            if (encrypt) c.encrypt(src.subarray(a, z));
            else c.decrypt(src.subarray(a, z));
          });
        case 'aes-js':
          return each((a, z, i) => {
            const c = new aesjs.ModeOfOperation.cbc(key, ivOf(i));
            if (encrypt) c.encrypt(src.subarray(a, z));
            else c.decrypt(src.subarray(a, z));
          });
      }
      return undefined;
    },
  };
}

/** aes-cbc-essiv:sha256: the IVs of 2048 sectors (AES-256 of the sector numbers under SHA-256(key)) and their decryption. */
function essivRow(keyBits: number): Row {
  const key = randomBytes(keyBits / 8);
  const bytes = SECTOR * SECTORS;
  const src = randomBytes(bytes);
  const dst = new Uint8Array(bytes);
  const ivs = new Uint8Array(16 * SECTORS);
  const sectors = chunks(bytes, SECTOR);
  const salt = createHash('sha256').update(key).digest();
  const numbers = Buffer.alloc(16 * SECTORS);
  for (let i = 0; i < SECTORS; i++) numbers.writeUInt32LE(i, 16 * i);
  return {
    group: 'essiv',
    label: `essiv:sha256 IVs + decryptSectors ${SECTORS} × ${SECTOR} B`,
    keyBits,
    bytes,
    make(who) {
      const x = ours(who);
      if (x) {
        // The generator's own AES runs on the same kernel: X_AES_KERNEL is read when it is made.
        const saved = process.env.X_AES_KERNEL;
        process.env.X_AES_KERNEL = x.kernel;
        const gen = x.api.newIvGenerator('essiv:sha256', key);
        if (saved === undefined) delete process.env.X_AES_KERNEL;
        else process.env.X_AES_KERNEL = saved;
        const c = x.api.newCipher(key, { kernel: x.kernel });
        return () => {
          gen.generate(ivs, 0, SECTORS);
          c.decryptSectors(dst, src, SECTOR, ivs);
        };
      }
      if (who === 'node:crypto') {
        return () => {
          const e = createCipheriv('aes-256-ecb', salt, null).setAutoPadding(false);
          const v = e.update(numbers);
          for (const [i, [a, z]] of sectors.entries()) {
            nodeCrypto(`aes-${keyBits}-cbc`, false, key, src.subarray(a, z), v.subarray(16 * i, 16 * i + 16));
          }
        };
      }
      return undefined;
    },
  };
}

/** XTS-AES, 2048 sectors of 512 bytes, both directions: one call for us, one cipher object per sector for node:crypto. */
function xtsRow(keyBits: number, encrypt: boolean): Row {
  const key = randomBytes(keyBits / 4);
  const bytes = SECTOR * SECTORS;
  const src = randomBytes(bytes);
  const dst = new Uint8Array(bytes);
  const tweaks = randomBytes(16 * SECTORS);
  const sectors = chunks(bytes, SECTOR);
  const name = encrypt ? 'encryptSectors' : 'decryptSectors';
  return {
    group: `XTS ${name}`,
    label: `XTS ${name} ${SECTORS} × ${SECTOR} B`,
    keyBits,
    bytes,
    make(who) {
      const o = ours(who);
      if (o) {
        const x = o.api.newXts(key, { kernel: o.kernel });
        return encrypt
          ? () => x.encryptSectors(dst, src, SECTOR, tweaks)
          : () => x.decryptSectors(dst, src, SECTOR, tweaks);
      }
      if (who === 'node:crypto') {
        return () => {
          for (const [i, [a, z]] of sectors.entries()) {
            nodeCrypto(`aes-${keyBits}-xts`, encrypt, key, src.subarray(a, z), tweaks.subarray(16 * i, 16 * i + 16));
          }
        };
      }
      return undefined;
    },
  };
}

/** The rows of the table: the short form (`npm start`) or all of them. */
function makeRows(short: boolean): Row[] {
  const rows: Row[] = [];
  for (const keyBits of [128, 256]) {
    for (const bytes of [512, 4096]) rows.push(blockRow('cbc-decrypt', keyBits, bytes));
    rows.push(sectorsRow(keyBits, false));
    rows.push(xtsRow(keyBits, false));
    if (!short) {
      rows.push(xtsRow(keyBits, true));
      rows.push(sectorsRow(keyBits, true));
      rows.push(essivRow(keyBits));
      for (const bytes of [512, 4096]) rows.push(blockRow('ecb-encrypt', keyBits, bytes));
      for (const bytes of [512, 4096]) rows.push(blockRow('cbc-encrypt', keyBits, bytes));
    }
  }
  rows.sort((a, b) => a.group.localeCompare(b.group) || a.keyBits - b.keyBits || a.bytes - b.bytes);
  return rows;
}

/** What {@link runLibraries} takes. */
export interface LibrariesOptions {
  /** The short form: fewer rows, rounds and time per run. */
  readonly short: boolean;
  /** A built checkout to compare this tree's kernels with (before and after). */
  readonly baselineDir?: string;
}

/**
 * Measures and prints the library table; returns the medians (bytes per second) by row and contender.
 */
export async function runLibraries(
  options: LibrariesOptions,
): Promise<Record<string, Record<string, number | undefined>>> {
  const { short, baselineDir } = options;
  const rounds = short ? 3 : 5;
  const maxTime = short ? 0.07 : 0.15;
  if (baselineDir) {
    const load = (pkg: string) =>
      import(pathToFileURL(path.join(baselineDir, 'packages', pkg, 'dist', 'index.js')).href);
    const baselineCbc = await load('cbc');
    before = {
      newCipher: baselineCbc.newCipher,
      newXts: (await load('xts')).newXts,
      newIvGenerator: (await load('disk-iv')).newIvGenerator,
    };
    // Before and after compare the kernels both trees have (a kernel new in this tree has no "before").
    const theirs: string[] = baselineCbc.kernels();
    compared = OURS.filter((k) => theirs.includes(k));
  }
  const contenders: string[] = before ? compared.flatMap((k) => [`${k}${BEFORE}`, k]) : [...OURS, ...OTHERS];
  const rows = makeRows(short);

  const results: Record<string, Record<string, number | undefined>> = {};
  const started = Date.now();
  if (before) console.log(`before: ${baselineDir}; after: this tree\n`);
  for (const row of rows) {
    const fns = contenders.map((c) => row.make(c));
    const samples = contenders.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++) {
      // Interleaved: every contender once per round, in a rotating order.
      for (let i = 0; i < contenders.length; i++) {
        const j = (i + r) % contenders.length;
        const fn = fns[j];
        if (fn) samples[j].push(measure(fn, row.bytes, maxTime));
      }
    }
    const id = `${row.label} AES-${row.keyBits}`;
    results[id] = Object.fromEntries(contenders.map((c, i) => [c, samples[i].length ? median(samples[i]) : undefined]));
    process.stderr.write(`. ${id}\n`);
  }

  const best = OURS[0];
  const header = before
    ? ['operation', 'AES', ...contenders, ...compared.map((k) => `${k} after ÷ before`)]
    : ['operation', 'AES', ...contenders, `${best} ÷ node:crypto`, `${best} ÷ noble`, 'portable ÷ noble'];
  const change = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}`;
  const lines: string[][] = [];
  for (const row of rows) {
    const r = results[`${row.label} AES-${row.keyBits}`];
    const tail = before
      ? compared.map((k) => change(r[k], r[`${k}${BEFORE}`]))
      : [ratio(r[best], r['node:crypto']), ratio(r[best], r['@noble/ciphers']), ratio(r.portable, r['@noble/ciphers'])];
    lines.push([row.label, String(row.keyBits), ...contenders.map((c) => mbps(r[c])), ...tail]);
  }
  console.log(
    `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ` +
      `${short ? 'short run' : 'full run'}: MB/s (10^6 bytes/s), median of ${rounds} interleaved rounds; higher is better.\n`,
  );
  console.log(markdownTable(header, lines, 2));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  before = undefined;
  return results;
}
