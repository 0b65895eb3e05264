// `x-disk decrypt` of the BitLocker test images against `x-luks decrypt` of LUKS2 aes-xts-plain64 volumes
// of the same sizes, in one run with interleaved rounds (the goal: x-disk ≥ 0.9× x-luks for XTS
// and CBC with BitLocker's IVs; Elephant ≥ 0.8× the same command on the XTS volume).
//
// The BitLocker images are cryptsetup's (tools/testkit/fixtures/bitlk-images.tar.xz, made by Windows):
// XTS-AES-128 and AES-CBC-128 of 100 MiB, AES-CBC-128 + Elephant of 128 MiB (the largest). The LUKS2
// volumes are made by cryptsetup here: aes-xts-plain64 with a 256-bit key (XTS-AES-128, as BitLocker's),
// 512-byte sectors, 100 and 128 MiB of payload. Every command is the built one (packages/cli/dist), on the
// default kernel, given the raw key with --volume-key-file (the FVEK from `cryptsetup bitlkDump --dump-volume-key`,
// the LUKS volume key), so that what is timed is reading, decrypting and writing the volume, not a key
// derivation; one more row opens the XTS image with its password, to show what BitLocker's 2^20 SHA-256
// rounds add. Each command is timed from spawn to exit, writing a new file in a temporary directory
// (removed right after); rounds rotate the order.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { makeLuks2Container, runCryptsetup } from '@x/containers';
import { timed } from './job.js';
import { markdownTable, median } from './stats.js';
import { openWorkdir, type Workdir } from './workdir.js';

const MiB = 1 << 20;

interface Row {
  readonly name: string;
  readonly volume: string;
  readonly bytes: number;
  /** The LUKS row this one is compared with. */
  readonly against?: string;
  readonly args: string[];
  readonly bin: string;
}

/** The commands timed: x-luks on the LUKS volumes, x-disk on the BitLocker images of the same sizes. */
function diskRows(
  xluks: string,
  xdisk: string,
  img: (name: string) => string,
  keys: Record<'l100' | 'l128', { image: string; kf: string }> &
    Record<'xts' | 'cbc' | 'el', { kf: string; pw: string }>,
): Row[] {
  const { l100, l128, xts, cbc, el } = keys;
  return [
    {
      name: 'x-luks',
      volume: 'LUKS2 aes-xts-plain64, 100 MiB',
      bytes: 100 * MiB,
      bin: xluks,
      args: [l100.image, '--volume-key-file', l100.kf],
    },
    {
      name: 'x-disk',
      volume: 'BitLocker XTS-AES-128, 100 MiB (Windows 10)',
      bytes: 100 * MiB,
      against: 'LUKS2 aes-xts-plain64, 100 MiB',
      bin: xdisk,
      args: [img('bitlk-aes-xts-128'), '--volume-key-file', xts.kf],
    },
    {
      name: 'x-disk',
      volume: 'BitLocker AES-CBC-128, 100 MiB (Windows 10)',
      bytes: 100 * MiB,
      against: 'LUKS2 aes-xts-plain64, 100 MiB',
      bin: xdisk,
      args: [img('bitlk-aes-cbc-128'), '--volume-key-file', cbc.kf],
    },
    {
      name: 'x-luks',
      volume: 'LUKS2 aes-xts-plain64, 128 MiB',
      bytes: 128 * MiB,
      bin: xluks,
      args: [l128.image, '--volume-key-file', l128.kf],
    },
    {
      name: 'x-disk',
      volume: 'BitLocker AES-CBC-128 + Elephant, 128 MiB (Windows 7)',
      bytes: 128 * MiB,
      against: 'LUKS2 aes-xts-plain64, 128 MiB',
      bin: xdisk,
      args: [img('bitlk-aes-cbc-elephant-128'), '--volume-key-file', el.kf],
    },
    {
      name: 'x-disk (password)',
      volume: 'BitLocker XTS-AES-128, 100 MiB (Windows 10)',
      bytes: 100 * MiB,
      against: 'LUKS2 aes-xts-plain64, 100 MiB',
      bin: xdisk,
      args: [img('bitlk-aes-xts-128'), '--passphrase-file', xts.pw],
    },
  ];
}

/** A BitLocker test image's password file and its FVEK, as a raw volume key file (from cryptsetup). */
async function bitlockerKeys(dir: string, images: string, name: string): Promise<{ kf: string; pw: string }> {
  const conf = readFileSync(join(images, 'images.conf'), 'utf8');
  const password = new RegExp(`\\[${name}\\][^[]*?\\nPW=(.*)\\n`).exec(conf)![1];
  const pw = join(dir, `${name}.pw`);
  await writeFile(pw, password);
  const { stdout } = await runCryptsetup([
    'bitlkDump',
    '--dump-volume-key',
    '--key-file',
    pw,
    join(images, `${name}.img`),
  ]);
  const hex = /(?:MK dump|Volume key):\s*((?:[0-9a-f]{2}\s*)+)/.exec(stdout)![1].replace(/\s+/g, '');
  const kf = join(dir, `${name}.key`);
  await writeFile(kf, Buffer.from(hex, 'hex'), { mode: 0o600 });
  return { kf, pw };
}

/** A LUKS2 aes-xts-plain64 volume of `mib` MiB made by cryptsetup, and its volume key file. */
async function luksVolume(dir: string, mib: number): Promise<{ image: string; kf: string }> {
  const made = await makeLuks2Container({
    cipher: 'aes-xts-plain64',
    keySize: 256,
    sectorSize: 512,
    dataSize: mib * MiB,
    passphrases: ['x-aes bench'],
    pbkdf: { type: 'pbkdf2', iterations: 1000 },
    dir,
    name: `luks-${mib}`,
  });
  const kf = join(dir, `luks-${mib}.key`);
  await writeFile(kf, made.volumeKey, { mode: 0o600 });
  return { image: made.path, kf };
}

/** Unpacks the BitLocker images and makes the LUKS volumes in `w.dir`; the rows to time. */
async function prepareDisk(w: Workdir): Promise<Row[]> {
  const { cs, dir } = w;
  const require = createRequire(import.meta.url);
  const archive = join(dirname(require.resolve('@x/testkit/package.json')), 'fixtures', 'bitlk-images.tar.xz');
  execFileSync('tar', ['xJSf', archive, '-C', dir, '--no-same-owner']);
  const images = join(dir, 'bitlk-images');
  process.stderr.write(`disk: making LUKS2 volumes of 100 and 128 MiB with cryptsetup ${cs.version} in ${dir} …\n`);
  const [l100, l128, xts, cbc, el] = await Promise.all([
    luksVolume(dir, 100),
    luksVolume(dir, 128),
    bitlockerKeys(dir, images, 'bitlk-aes-xts-128'),
    bitlockerKeys(dir, images, 'bitlk-aes-cbc-128'),
    bitlockerKeys(dir, images, 'bitlk-aes-cbc-elephant-128'),
  ]);
  const img = (name: string) => join(images, `${name}.img`);
  return diskRows(join(w.cli, 'x-luks.cjs'), join(w.cli, 'x-disk.cjs'), img, { l100, l128, xts, cbc, el });
}

/** Each row once per round in a rotating order, decrypting into a new file in `dir` (removed after). */
async function measureDisk(rows: readonly Row[], rounds: number, dir: string) {
  const env = { ...process.env };
  delete env.X_AES_KERNEL; // the default kernel, on its default path
  delete env.X_AES_NATIVE_X64;
  const times: number[][] = rows.map(() => []);
  const payload: number[][] = rows.map(() => []);
  const kernels = new Set<string>();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < rows.length; k++) {
      const i = (k + r) % rows.length;
      const out = join(dir, 'out');
      await rm(out, { force: true });
      const [file, ...rest] = rows[i].args;
      const res = await timed(process.execPath, [rows[i].bin, 'decrypt', file, out, ...rest], env);
      const kernel = /kernel (\S+)/.exec(res.stderr)?.[1];
      if (kernel) kernels.add(kernel);
      times[i].push(res.ms);
      const p = /decrypted .* in ([\d.]+) s/.exec(res.stderr);
      if (p) payload[i].push(Number(p[1]) * 1000);
      await rm(out, { force: true });
    }
  }
  return { times, payload, kernels };
}

/** Prints the table and the goals; returns the median milliseconds by row. */
function reportDisk(
  rows: readonly Row[],
  rounds: number,
  { times, payload, kernels }: Awaited<ReturnType<typeof measureDisk>>,
): Record<string, number> {
  const med = times.map(median);
  const medPayload = payload.map((p) => (p.length > 0 ? median(p) : Number.NaN));
  const rate = (i: number) => rows[i].bytes / (med[i] / 1000);
  const payloadRate = (i: number) => rows[i].bytes / (medPayload[i] / 1000);
  const base = (name: string | undefined) => rows.findIndex((x) => x.name === 'x-luks' && x.volume === name);
  const table = rows.map((row, i) => {
    const b = base(row.against);
    return [
      `\`${row.name} decrypt\` ${row.args.includes('--volume-key-file') ? '--volume-key-file' : '--passphrase-file'}`,
      row.volume,
      (med[i] / 1000).toFixed(2),
      (rate(i) / 1e6).toFixed(0),
      b < 0 ? '' : `${(rate(i) / rate(b)).toFixed(2)}×`,
    ];
  });
  console.log(
    `## x-disk (BitLocker) against x-luks, same kernel (${[...kernels].join(', ')})\n\n` +
      `median of ${rounds} interleaved rounds; each command timed from spawn to exit (node's start, the unlock, the volume read, decrypted and written to a new file); MB/s = 10^6 bytes/s of volume.\n`,
  );
  console.log(markdownTable(['command', 'volume', 's', 'MB/s', '÷ x-luks, same size'], table, 2));
  const goal = (i: number) => rate(i) / rate(base(rows[i].against));
  const goalP = (i: number) => payloadRate(i) / payloadRate(base(rows[i].against));
  const met = goal(1) >= 0.9 && goal(2) >= 0.9;
  // Elephant against the same command on the BitLocker XTS volume (issue 27's goal: ≥ 0.8×)
  const elephant = rate(4) / rate(1);
  // the commands' own report of the volume's part has 10 ms steps: a rough figure, for Elephant only
  console.log(
    `\nx-disk ÷ x-luks, spawn to exit: XTS ${goal(1).toFixed(2)}×, CBC ${goal(2).toFixed(2)}× (goal ≥ 0.9×: ${met ? 'met' : 'not met'}). ` +
      `Elephant: ${(rate(4) / 1e6).toFixed(0)} MB/s spawn to exit, ${elephant.toFixed(2)}× x-disk on the XTS volume (goal ≥ 0.8×: ${elephant >= 0.8 ? 'met' : 'not met'}), ` +
      `${goal(4).toFixed(2)}× x-luks on XTS; about ${(payloadRate(4) / 1e6).toFixed(0)} MB/s for the volume alone (${goalP(4).toFixed(2)}×).\n`,
  );
  return Object.fromEntries(rows.map((row, i) => [`${row.name} ${row.volume}`, med[i]]));
}

/** Measures and prints the table (see the top of this file); undefined when cryptsetup or the commands are missing. */
export async function runDisk(rounds = 9): Promise<Record<string, number> | undefined> {
  const w = await openWorkdir('disk', ['x-luks.cjs', 'x-disk.cjs']);
  if (!w) return undefined;
  try {
    const rows = await prepareDisk(w);
    return reportDisk(rows, rounds, await measureDisk(rows, rounds, w.dir));
  } finally {
    await w.close();
  }
}
