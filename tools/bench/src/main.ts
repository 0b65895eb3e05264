/**
 * Side-by-side AES benchmark: every @x kernel usable here against node:crypto (OpenSSL, AES-NI),
 * @noble/ciphers (T-tables) and aes-js, in one process. Rounds are interleaved: each round measures
 * every contender once (benchmark.js, a short time each), and the table reports each contender's median
 * round, so that a slow phase of the machine hits all of them alike.
 *
 *   npm run bench            full table (several minutes)
 *   npm start                short form (under a minute)
 *   npm run bench -- --json  also print the raw numbers as JSON
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import Benchmark from 'benchmark';
import { cbc as nobleCbc, ecb as nobleEcb } from '@noble/ciphers/aes.js';
import aesjs from 'aes-js';
import { kernels, newCipher } from '@x/cbc';

const args = new Set(process.argv.slice(2));
const short = args.has('--short');
const rounds = short ? 3 : 7;
const maxTime = short ? 0.12 : 0.4;

interface Contender {
  name: string;
  /** Returns a function that processes `bytes` bytes once. */
  make(op: Op, key: Uint8Array, bytes: number): () => void;
}
type Op = 'cbc-decrypt' | 'cbc-encrypt' | 'ecb-encrypt' | 'sectors';

const SECTOR = 512;
const iv = randomBytes(16);

function ivsFor(bytes: number) {
  return randomBytes((bytes / SECTOR) * 16);
}

const ourKernels: Contender[] = kernels().map((kernel) => ({
  name: kernel,
  make(op, key, bytes) {
    const c = newCipher(key, { kernel });
    const src = randomBytes(bytes);
    const dst = new Uint8Array(bytes);
    switch (op) {
      case 'cbc-decrypt':
        return () => c.decrypt(dst, src, iv);
      case 'cbc-encrypt':
        return () => c.encrypt(dst, src, iv);
      case 'ecb-encrypt':
        return () => c.encryptECB(dst, src);
      case 'sectors': {
        const ivs = ivsFor(bytes);
        return () => c.decryptSectors(dst, src, SECTOR, ivs);
      }
    }
  },
}));

const nodeCrypto: Contender = {
  name: 'node:crypto',
  make(op, key, bytes) {
    const bits = key.length * 8;
    const src = randomBytes(bytes);
    const once = (mode: string, encrypt: boolean, data: Uint8Array, v: Uint8Array | null) => {
      const c = encrypt ? createCipheriv(`aes-${bits}-${mode}`, key, v) : createDecipheriv(`aes-${bits}-${mode}`, key, v);
      c.setAutoPadding(false);
      c.update(data);
      c.final();
    };
    switch (op) {
      case 'cbc-decrypt':
        return () => once('cbc', false, src, iv);
      case 'cbc-encrypt':
        return () => once('cbc', true, src, iv);
      case 'ecb-encrypt':
        return () => once('ecb', true, src, null);
      case 'sectors': {
        // What a user of node:crypto does for disk sectors: one decipher per sector.
        const ivs = ivsFor(bytes);
        return () => {
          for (let s = 0; s < bytes / SECTOR; s++) {
            once('cbc', false, src.subarray(s * SECTOR, (s + 1) * SECTOR), ivs.subarray(16 * s, 16 * s + 16));
          }
        };
      }
    }
  },
};

const noble: Contender = {
  name: '@noble/ciphers',
  make(op, key, bytes) {
    const src = randomBytes(bytes);
    switch (op) {
      case 'cbc-decrypt':
        return () => nobleCbc(key, iv, { disablePadding: true }).decrypt(src);
      case 'cbc-encrypt':
        return () => nobleCbc(key, iv, { disablePadding: true }).encrypt(src);
      case 'ecb-encrypt':
        return () => nobleEcb(key, { disablePadding: true }).encrypt(src);
      case 'sectors': {
        const ivs = ivsFor(bytes);
        return () => {
          for (let s = 0; s < bytes / SECTOR; s++) {
            nobleCbc(key, ivs.subarray(16 * s, 16 * s + 16), { disablePadding: true }).decrypt(src.subarray(s * SECTOR, (s + 1) * SECTOR));
          }
        };
      }
    }
  },
};

const aesJs: Contender = {
  name: 'aes-js',
  make(op, key, bytes) {
    const src = randomBytes(bytes);
    switch (op) {
      case 'cbc-decrypt':
        return () => new aesjs.ModeOfOperation.cbc(key, iv).decrypt(src);
      case 'cbc-encrypt':
        return () => new aesjs.ModeOfOperation.cbc(key, iv).encrypt(src);
      case 'ecb-encrypt':
        return () => new aesjs.ModeOfOperation.ecb(key).encrypt(src);
      case 'sectors': {
        const ivs = ivsFor(bytes);
        return () => {
          for (let s = 0; s < bytes / SECTOR; s++) {
            new aesjs.ModeOfOperation.cbc(key, ivs.subarray(16 * s, 16 * s + 16)).decrypt(src.subarray(s * SECTOR, (s + 1) * SECTOR));
          }
        };
      }
    }
  },
};

const contenders = [...ourKernels, nodeCrypto, noble, aesJs];

interface Row {
  op: Op;
  label: string;
  keyBits: number;
  bytes: number;
}

const rows: Row[] = [];
const opLabel: Record<Op, string> = {
  'cbc-decrypt': 'CBC decrypt',
  'cbc-encrypt': 'CBC encrypt',
  'ecb-encrypt': 'ECB encrypt',
  sectors: `decryptSectors ${SECTOR} B ×`,
};
for (const op of (short ? ['cbc-decrypt', 'sectors'] : ['cbc-decrypt', 'sectors', 'ecb-encrypt', 'cbc-encrypt']) as Op[]) {
  for (const keyBits of [128, 256]) {
    const sizes = op === 'sectors' ? [2048 * SECTOR] : [512, 4096];
    for (const bytes of sizes) {
      rows.push({ op, keyBits, bytes, label: op === 'sectors' ? `${opLabel[op]} ${bytes / SECTOR}` : `${opLabel[op]} ${bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`}` });
    }
  }
}

/** Bytes per second of one short benchmark.js run. */
function measure(fn: () => void, bytes: number): number {
  const bench = new Benchmark({ fn, maxTime, minSamples: 3, initCount: 1 });
  bench.run();
  return bench.hz * bytes;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};

const results: Record<string, Record<string, number>> = {};
const started = Date.now();
for (const row of rows) {
  const key = randomBytes(row.keyBits / 8);
  const fns = contenders.map((c) => c.make(row.op, key, row.bytes));
  const samples = contenders.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    // Interleaved: every contender once per round, in a rotating order.
    for (let i = 0; i < contenders.length; i++) {
      const j = (i + r) % contenders.length;
      samples[j].push(measure(fns[j], row.bytes));
    }
  }
  const id = `${row.label} AES-${row.keyBits}`;
  results[id] = Object.fromEntries(contenders.map((c, i) => [c.name, median(samples[i])]));
  process.stderr.write(`. ${id}\n`);
}

const mbps = (x: number) => (x / 1e6).toFixed(x >= 1e9 ? 0 : x >= 1e8 ? 0 : 1);
const header = ['operation', 'AES', ...contenders.map((c) => c.name), `${ourKernels[0].name} vs noble`];
const lines = [
  `Measured on ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}, ` +
    `${short ? 'short run' : 'full run'} (${rounds} interleaved rounds, median; MB/s = 10^6 bytes/s; higher is better).`,
  '',
  `| ${header.join(' | ')} |`,
  `|${header.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`,
];
for (const row of rows) {
  const id = `${row.label} AES-${row.keyBits}`;
  const r = results[id];
  const best = r[ourKernels[0].name];
  const ratio = best / r['@noble/ciphers'];
  lines.push(`| ${row.label} | ${row.keyBits} | ${contenders.map((c) => mbps(r[c.name])).join(' | ')} | ${ratio.toFixed(1)}× |`);
}
if (ourKernels.length > 1) {
  lines.push('', 'Ratio of each kernel to @noble/ciphers:', '');
  lines.push(`| operation | AES | ${ourKernels.map((k) => k.name).join(' | ')} |`);
  lines.push(`| --- | --- |${ourKernels.map(() => ' ---: ').join('|')}|`);
  for (const row of rows) {
    const r = results[`${row.label} AES-${row.keyBits}`];
    lines.push(`| ${row.label} | ${row.keyBits} | ${ourKernels.map((k) => `${(r[k.name] / r['@noble/ciphers']).toFixed(2)}×`).join(' | ')} |`);
  }
}
console.log(lines.join('\n'));
console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (args.has('--json')) console.log(JSON.stringify(results, null, 2));
