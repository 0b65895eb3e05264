// Benchmark: `x-luks decrypt` against cryptsetup's own offline decryption of the same container.
//
//   npm run bench --workspace @x/luks        (needs the built dist/: npm run build first)
//   … -- --size-mib 256 --sector-size 512 --rounds 3
//
// 1. @x/containers makes a LUKS2 aes-xts-plain64 container (512-bit key, pbkdf2 at 1000 iterations so
//    that key derivation is negligible) over SIZE MiB of random data.
// 2. x-luks: `node dist/bin.js decrypt IMAGE OUT --passphrase-file F --force`, timed from spawn to exit.
// 3. cryptsetup: cryptsetup 2.6 decrypts LUKS2 offline only with a detached header whose data offset is
//    0 (a `luksHeaderBackup` copy keeps the original offset and is refused). So the payload alone is
//    copied into a data file, and a detached header for it is made with `cryptsetup luksFormat --header
//    HEADER --offset 0 --volume-key-file VK` with the container's own volume key, cipher and sector size
//    (both untimed; the data file is checked to be untouched by the format). Then `cryptsetup reencrypt
//    --decrypt --force-offline-reencrypt --header HEADER DATA` decrypts the data file in place, timed
//    from spawn to exit: once with cryptsetup's default resilience (checksum) and once with
//    `--resilience none`.
// Both outputs are checked against the original data. Rounds alternate between the two tools; the
// median of each is reported as MB/s (10^6 bytes per second) of payload.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { open, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cryptsetupStatus, makeLuks2Container, removeAllContainers, runCryptsetup } from '@x/containers';

const { values } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '256' },
    'sector-size': { type: 'string', default: '512' },
    rounds: { type: 'string', default: '3' },
  },
});
const SIZE = Number(values['size-mib']) << 20;
const SECTOR = Number(values['sector-size']);
const ROUNDS = Number(values.rounds);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

const cs = cryptsetupStatus();
if (!cs.available) {
  console.error(`bench: ${cs.reason}`);
  process.exit(1);
}

function run(cmd: string, args: string[]): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t;
      if (code === 0) resolve({ ms, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

async function sha256File(path: string, offset = 0): Promise<string> {
  const fh = await open(path, 'r');
  const h = createHash('sha256');
  const buf = Buffer.alloc(16 << 20);
  try {
    for (let pos = offset; ; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}

/** Copies bytes [offset, end) of `src` to a new file `dst`. */
async function copyTail(src: string, dst: string, offset: number): Promise<void> {
  const [i, o] = await Promise.all([open(src, 'r'), open(dst, 'w')]);
  const buf = Buffer.alloc(16 << 20);
  try {
    for (let pos = offset, w = 0; ; ) {
      const { bytesRead } = await i.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      await o.write(buf, 0, bytesRead, w);
      pos += bytesRead;
      w += bytesRead;
    }
  } finally {
    await Promise.all([i.close(), o.close()]);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.error(
  `bench: making a ${SIZE >> 20} MiB LUKS2 aes-xts-plain64 container (${SECTOR}-byte sectors) with cryptsetup ${cs.version} …`,
);
const c = await makeLuks2Container({
  cipher: 'aes-xts-plain64',
  keySize: 512,
  sectorSize: SECTOR,
  dataSize: SIZE,
  passphrases: ['bench passphrase'],
  pbkdf: { type: 'pbkdf2', iterations: 1000, hash: 'sha256' },
});
const want = createHash('sha256').update(c.original).digest('hex');
const base = c.path.replace(/\.luks2\.img$/, '');
const pass = `${base}.pass`,
  out = `${base}.out`,
  header = `${base}.hdr`,
  data = `${base}.data`,
  vk = `${base}.vk`;
await writeFile(pass, 'bench passphrase');
await writeFile(vk, c.volumeKey, { mode: 0o600 });
const cipherText = createHash('sha256')
  .update(await c.readPayload())
  .digest('hex');

/** A payload-only copy of the container and a detached header for it (offset 0, same volume key). */
async function detachedCopy(): Promise<void> {
  await rm(header, { force: true });
  await copyTail(c.path, data, c.payloadOffset);
  await runCryptsetup([
    'luksFormat',
    '--type',
    'luks2',
    '--header',
    header,
    '--offset',
    '0',
    '--volume-key-file',
    vk,
    '--cipher',
    'aes-xts-plain64',
    '--key-size',
    '512',
    '--sector-size',
    String(SECTOR),
    '--pbkdf',
    'pbkdf2',
    '--pbkdf-force-iterations',
    '1000',
    '--key-file',
    pass,
    '--batch-mode',
    '--disable-locks',
    data,
  ]);
  if ((await sha256File(data)) !== cipherText) throw new Error('luksFormat --header changed the data file');
}

const xluks: number[] = [];
const crypt: number[] = [];
const cryptNone: number[] = [];
let kernel = '?';
try {
  for (let r = 0; r < ROUNDS; r++) {
    const a = await run(process.execPath, [BIN, 'decrypt', c.path, out, '--passphrase-file', pass, '--force']);
    kernel = /kernel (\S+)/.exec(a.stderr)?.[1] ?? kernel;
    if ((await sha256File(out)) !== want) throw new Error('x-luks output differs from the original data');
    xluks.push(a.ms);
    await rm(out, { force: true });

    const times: number[] = [];
    for (const [extra, into] of [
      [[], crypt],
      [['--resilience', 'none'], cryptNone],
    ] as const) {
      await detachedCopy();
      const b = await run(cs.path!, [
        'reencrypt',
        '--decrypt',
        '--force-offline-reencrypt',
        ...extra,
        '--header',
        header,
        data,
        '--key-file',
        pass,
        '--batch-mode',
        '--disable-locks',
      ]);
      if ((await sha256File(data)) !== want) throw new Error('cryptsetup output differs from the original data');
      into.push(b.ms);
      times.push(b.ms);
      await rm(data, { force: true });
    }
    console.error(
      `bench: round ${r + 1}/${ROUNDS}: x-luks ${(a.ms / 1000).toFixed(2)} s, cryptsetup ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(' / ')}`,
    );
  }
} finally {
  await Promise.all([pass, out, header, data, vk].map((f) => rm(f, { force: true })));
  await removeAllContainers();
}

const mbs = (ms: number) => (SIZE / 1e6 / (ms / 1000)).toFixed(1);
const xm = median(xluks),
  cm = median(crypt),
  cn = median(cryptNone);
console.log(`| tool | work | time (median of ${ROUNDS}) | MB/s | vs cryptsetup |`);
console.log('| --- | --- | ---: | ---: | ---: |');
console.log(
  `| x-luks decrypt (node ${process.versions.node}, kernel ${kernel}) | ${SIZE >> 20} MiB aes-xts-plain64, ${SECTOR}-byte sectors, image → new file | ${(xm / 1000).toFixed(2)} s | ${mbs(xm)} | ${(cm / xm).toFixed(2)}× |`,
);
console.log(
  `| cryptsetup ${cs.version} reencrypt --decrypt --force-offline-reencrypt | same payload, detached header, in place | ${(cm / 1000).toFixed(2)} s | ${mbs(cm)} | 1.00× |`,
);
console.log(
  `| cryptsetup ${cs.version} reencrypt --decrypt --force-offline-reencrypt --resilience none | same | ${(cn / 1000).toFixed(2)} s | ${mbs(cn)} | ${(cm / cn).toFixed(2)}× |`,
);
console.log(
  `\n${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; times include process start and key derivation (pbkdf2, 1000 iterations).`,
);
