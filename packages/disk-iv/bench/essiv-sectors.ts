// Benchmark: decrypt 2048 sectors of 512 bytes (1 MiB) of an aes-cbc-essiv:sha256 volume, IVs included.
//   @x/disk-iv + @x/cbc: one generate() (essiv IVs through encryptECB in batches) + one decryptSectors()
//   node:crypto:         one aes-256-ecb update over the 2048 sector numbers + one createDecipheriv per sector
// Interleaved rounds in one process; prints a markdown table for the README.
//   npx tsx --conditions=source bench/essiv-sectors.ts [--rounds N]
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { kernels, newCipher } from '@x/cbc';
import { newIvGenerator } from '../src/index.js';

const SECTORS = 2048;
const SECTOR_SIZE = 512;
const BYTES = SECTORS * SECTOR_SIZE;
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 15;
const TARGET_MS = 60; // time per sample

const key = randomBytes(32); // AES-256, the LUKS default key size for CBC
const ciphertext = new Uint8Array(randomBytes(BYTES));

type Task = { work: string; name: string; kernel: string; run: () => Uint8Array };
const FULL = 'essiv IVs + decryptSectors, 2048 × 512 B';
const IVS = 'of which: the 2048 essiv IVs';

function ours(kernel: string): Task {
  const gen = newIvGenerator('essiv:sha256', key); // essiv's own AES uses the default kernel
  const cbc = newCipher(key, { kernel });
  const ivs = new Uint8Array(16 * SECTORS);
  const out = new Uint8Array(BYTES);
  return {
    work: FULL,
    name: '@x/disk-iv + @x/cbc',
    kernel,
    run() {
      gen.generate(ivs, 0, SECTORS);
      cbc.decryptSectors(out, ciphertext, SECTOR_SIZE, ivs);
      return out;
    },
  };
}

function nodeCrypto(): Task {
  const salt = createHash('sha256').update(key).digest();
  const numbers = Buffer.alloc(16 * SECTORS);
  for (let i = 0; i < SECTORS; i++) numbers.writeUInt32LE(i, 16 * i);
  const out = new Uint8Array(BYTES);
  const ct = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, BYTES);
  return {
    work: FULL,
    name: 'node:crypto',
    kernel: 'OpenSSL',
    run() {
      const ecb = createCipheriv('aes-256-ecb', salt, null).setAutoPadding(false);
      const ivs = ecb.update(numbers);
      for (let i = 0; i < SECTORS; i++) {
        const d = createDecipheriv('aes-256-cbc', key, ivs.subarray(16 * i, 16 * i + 16)).setAutoPadding(false);
        out.set(d.update(ct.subarray(i * SECTOR_SIZE, (i + 1) * SECTOR_SIZE)), i * SECTOR_SIZE);
      }
      return out;
    },
  };
}

function oursIvs(): Task {
  const gen = newIvGenerator('essiv:sha256', key);
  const ivs = new Uint8Array(16 * SECTORS);
  return {
    work: IVS,
    name: '@x/disk-iv',
    kernel: newCipher(key).kernel,
    run: () => {
      gen.generate(ivs, 0, SECTORS);
      return ivs;
    },
  };
}

// the floor for oursIvs: the same 2048 blocks through one encryptECB call, no sector numbers written
function rawEcb(): Task {
  const cipher = newCipher(createHash('sha256').update(key).digest());
  const src = new Uint8Array(16 * SECTORS);
  const dst = new Uint8Array(16 * SECTORS);
  return {
    work: IVS,
    name: '@x/cbc encryptECB alone (floor)',
    kernel: cipher.kernel,
    run: () => {
      cipher.encryptECB(dst, src);
      return dst;
    },
  };
}

function nodeIvs(): Task {
  const salt = createHash('sha256').update(key).digest();
  const numbers = Buffer.alloc(16 * SECTORS);
  for (let i = 0; i < SECTORS; i++) numbers.writeUInt32LE(i, 16 * i);
  return {
    work: IVS,
    name: 'node:crypto',
    kernel: 'OpenSSL',
    run: () => createCipheriv('aes-256-ecb', salt, null).setAutoPadding(false).update(numbers),
  };
}

const full = [...kernels().map(ours), nodeCrypto()];
const tasks = [...full, oursIvs(), rawEcb(), nodeIvs()];

// same answer first
const expected = Buffer.from(full[full.length - 1].run());
if (Buffer.compare(Buffer.from(tasks[tasks.length - 3].run()), tasks[tasks.length - 1].run()) !== 0) {
  throw new Error('@x/disk-iv essiv IVs disagree with node:crypto');
}
for (const t of full) {
  if (Buffer.compare(Buffer.from(t.run()), expected) !== 0)
    throw new Error(`${t.name} (${t.kernel}) disagrees with node:crypto`);
}

// calibrate: iterations per sample so that one sample takes about TARGET_MS
const iterations = tasks.map((t) => {
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) t.run();
    const ms = performance.now() - t0;
    if (ms > TARGET_MS / 4) return Math.max(1, Math.round((n * TARGET_MS) / ms));
    n *= 2;
  }
});

const samples: number[][] = tasks.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  tasks.forEach((t, i) => {
    const t0 = performance.now();
    for (let k = 0; k < iterations[i]; k++) t.run();
    samples[i].push((performance.now() - t0) / iterations[i]);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const nodeMs = (work: string) => median(samples[tasks.findIndex((t) => t.work === work && t.kernel === 'OpenSSL')]);
console.log(
  `essiv:sha256 IVs + AES-256-CBC decryption of ${SECTORS} × ${SECTOR_SIZE}-byte sectors, median of ${ROUNDS} interleaved rounds (node ${process.version}, ${process.arch})\n`,
);
console.log('| work | implementation | kernel | time | MiB of sectors/s | vs node:crypto |');
console.log('| --- | --- | --- | ---: | ---: | ---: |');
tasks.forEach((t, i) => {
  const ms = median(samples[i]);
  console.log(
    `| ${t.work} | ${t.name} | ${t.kernel} | ${(ms * 1000).toFixed(0)} µs | ${(1000 / ms).toFixed(1)} | ${(nodeMs(t.work) / ms).toFixed(2)}× |`,
  );
});
