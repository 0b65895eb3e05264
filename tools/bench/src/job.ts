// The main job: `x-luks decrypt` of a 1 GiB aes-xts-plain64 LUKS2 volume, against cryptsetup's offline
// decryption of the same payload and against plain copies of the image file, interleaved in rounds.
//
// 1. @x/containers makes the volume in a temporary directory: 1 GiB of random data encrypted in place by
//    `cryptsetup reencrypt --encrypt` (LUKS2, aes-xts-plain64, 512-bit key, 512-byte sectors; pbkdf2 at
//    1000 iterations, so that unlocking a keyslot costs nothing worth measuring).
// 2. cryptsetup 2.6 decrypts a LUKS2 payload offline only with a detached header whose data offset is 0
//    (there is no dm-crypt here: no `cryptsetup open`). So the payload alone is copied into a data file
//    and a detached header is made for it with `luksFormat --header HDR --offset 0 --volume-key-file VK`,
//    with the volume's own key, cipher and sector size (once, untimed). Each round copies that data file
//    and header afresh (untimed) and times `cryptsetup reencrypt --decrypt --force-offline-reencrypt
//    --header HDR DATA`, which decrypts the copy in place: with --resilience none (no crash-safety
//    journal, as x-luks, which writes a new file) and with cryptsetup's default (checksum).
// 3. Each round also times, in a rotating order: the built x-luks (`node packages/cli/dist/bin/x-luks.cjs decrypt
//    IMAGE OUT --passphrase-file F`, kernel native-x64 on its default path), x-luks into /dev/null (the same
//    reads and decryption, no writes), `dd bs=128K` (image to a new file through a user-space buffer, no
//    crypto: the two copies any user-space decrypter makes) and `cat IMAGE > OUT` (coreutils 9 copies a
//    file to a file with copy_file_range: one copy, inside the kernel, the ceiling of a file-to-file job).
// Every tool is timed from spawn to exit; every OUT is a new file in the same directory, removed right
// after. The first round checks x-luks's output and both cryptsetup outputs against the original data.
// Right before each tool that writes a new file, a scratch copy of the image is written and deleted
// (untimed), so that each of them finds the same memory: on the VM this was measured on, pages freed a
// moment too long ago go back to the host (free page reporting), and the page cache of a new file then
// costs a host page fault per page: `cat` of the image took 1.5–2.3 s that way, 0.3 s right after a free.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, open, rm, statfs, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import nativeX64 from '@x/aes-native-x64';
import { makeDetachedHeader, makeLuks2Container, reencryptDecryptArgs } from '@x/containers';
import { markdownTable, median } from './stats.js';
import { openWorkdir } from './workdir.js';

const PASSPHRASE = 'x-aes bench passphrase';
const MiB = 1 << 20;

/** What {@link runJob} takes. */
export interface JobOptions {
  /** Payload size in MiB (1024 for the issue's job). */
  readonly mib: number;
  readonly rounds: number;
}

/** Runs `cmd args`, waits for its exit, and returns the milliseconds from spawn to exit and its stderr. */
export function timed(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: env ?? process.env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t;
      if (code === 0) resolve({ ms, stderr });
      else reject(new Error(`bench: ${cmd} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

async function sha256File(path: string): Promise<string> {
  const fh = await open(path, 'r');
  const h = createHash('sha256');
  const buf = Buffer.alloc(4 * MiB);
  try {
    for (let pos = 0; ; ) {
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

/** One contender: `run` does the timed work and returns ms (and x-luks's own payload time, when it says). */
interface Tool {
  readonly name: string;
  readonly work: string;
  /** Bytes it processes: the payload for the decrypters, the whole image for the copies. */
  readonly bytes: number;
  /** It writes a new file: a 1 GiB scratch file is written and deleted right before it (see the top). */
  readonly fresh?: boolean;
  run(check: boolean): Promise<{ ms: number; payloadMs?: number }>;
}

/** The volume, and the SHA-256 of its plaintext (which is not kept: it is 1 GiB). */
async function makeVolume(dir: string, size: number) {
  const made = await makeLuks2Container({
    cipher: 'aes-xts-plain64',
    keySize: 512,
    sectorSize: 512,
    dataSize: size,
    passphrases: [PASSPHRASE],
    pbkdf: { type: 'pbkdf2', iterations: 1000 },
    dir,
    name: 'volume',
  });
  const want = createHash('sha256').update(made.original).digest('hex');
  return { image: made.path, payloadOffset: made.payloadOffset, volumeKey: made.volumeKey, want };
}

/** What every tool works with: the volume, its copies for cryptsetup, the command and its environment. */
interface JobRun {
  /** The scratch folder. */
  readonly dir: string;
  readonly size: number;
  /** packages/cli/dist/bin/x-luks.cjs. */
  readonly bin: string;
  /** cryptsetup's path. */
  readonly cryptsetup: string;
  /** The environment of x-luks: no X_AES_KERNEL, no X_AES_NATIVE_X64 (the default kernel and path). */
  readonly env: NodeJS.ProcessEnv;
  readonly image: string;
  readonly imageBytes: number;
  /** The SHA-256 of the plaintext. */
  readonly want: string;
  readonly pass: string;
  readonly out: string;
  readonly dataOrig: string;
  readonly hdrOrig: string;
  readonly data: string;
  readonly hdr: string;
  readonly scratch: string;
  /** The kernel x-luks reported ('?' until it has run). */
  kernel: string;
}

/** Makes the volume of `size` bytes in `dir`, the passphrase file, and cryptsetup's payload copy and header. */
async function prepareJob(dir: string, size: number, bin: string, cryptsetup: string): Promise<JobRun> {
  const { image, payloadOffset, volumeKey, want } = await makeVolume(dir, size);
  const env = { ...process.env };
  delete env.X_AES_KERNEL; // the default kernel, on its default path
  delete env.X_AES_NATIVE_X64;
  const file = (name: string) => join(dir, name);
  const run: JobRun = {
    dir,
    size,
    bin,
    cryptsetup,
    env,
    image,
    imageBytes: payloadOffset + size,
    want,
    pass: file('pass'),
    out: file('out'),
    dataOrig: file('data.orig'),
    hdrOrig: file('hdr.orig'),
    data: file('data'),
    hdr: file('hdr'),
    scratch: file('scratch'),
    kernel: '?',
  };
  await writeFile(run.pass, PASSPHRASE);
  // cryptsetup's copy of the payload, and a detached header for it (offset 0, the same volume key).
  await timed('dd', [
    `if=${image}`,
    `of=${run.dataOrig}`,
    'bs=128K',
    'iflag=skip_bytes',
    `skip=${payloadOffset}`,
    'status=none',
  ]);
  await makeDetachedHeader({
    header: run.hdrOrig,
    data: run.dataOrig,
    volumeKey,
    cipher: 'aes-xts-plain64',
    sectorSize: 512,
    keyFile: run.pass,
  });
  return run;
}

/** `x-luks decrypt IMAGE target …extra`; checks the output in the first round when it is a file. */
const xluksRun =
  (run: JobRun, target: string, extra: string[]): Tool['run'] =>
  async (check) => {
    const r = await timed(
      process.execPath,
      [run.bin, 'decrypt', run.image, target, '--passphrase-file', run.pass, ...extra],
      run.env,
    );
    run.kernel = /kernel (\S+)/.exec(r.stderr)?.[1] ?? run.kernel;
    const payload = /decrypted .* in ([\d.]+) s/.exec(r.stderr);
    if (check && target === run.out && (await sha256File(run.out)) !== run.want)
      throw new Error('bench: x-luks output differs from the original data');
    if (target === run.out) await rm(run.out);
    return { ms: r.ms, payloadMs: payload ? Number(payload[1]) * 1000 : undefined };
  };

/** `cryptsetup reencrypt --decrypt …extra` of a fresh copy of the payload and its detached header. */
const cryptsetupRun =
  (run: JobRun, extra: string[]): Tool['run'] =>
  async (check) => {
    const { data, hdr } = run;
    await Promise.all([copyFile(run.dataOrig, data), copyFile(run.hdrOrig, hdr)]); // untimed: a fresh copy to decrypt in place
    const r = await timed(run.cryptsetup, reencryptDecryptArgs(hdr, data, run.pass, extra));
    if (check && (await sha256File(data)) !== run.want)
      throw new Error(`bench: cryptsetup ${extra.join(' ')} output differs from the original data`);
    await Promise.all([rm(data), rm(hdr)]);
    return { ms: r.ms };
  };

/** A plain copy of the image to OUT (removed after). */
const copyRun =
  (run: JobRun, cmd: string, args: string[]): Tool['run'] =>
  async () => {
    const r = await timed(cmd, args);
    await rm(run.out);
    return { ms: r.ms };
  };

/** The rows of the table: x-luks two ways, cryptsetup `version` two ways, dd and cat. */
function jobTools(run: JobRun, mibs: number, version: string): Tool[] {
  const { size, image, out, imageBytes } = run;
  const mib = `${mibs} MiB`;
  return [
    {
      name: 'x-luks decrypt IMAGE OUT',
      work: `${mib} payload, image → new file`,
      bytes: size,
      fresh: true,
      run: xluksRun(run, out, []),
    },
    {
      name: 'x-luks decrypt IMAGE /dev/null --force',
      work: 'the same reads and decryption, nothing written',
      bytes: size,
      run: xluksRun(run, '/dev/null', ['--force']),
    },
    {
      name: `cryptsetup ${version} reencrypt --decrypt --resilience none`,
      work: 'the same payload, detached header, in place',
      bytes: size,
      run: cryptsetupRun(run, ['--resilience', 'none']),
    },
    {
      name: `cryptsetup ${version} reencrypt --decrypt (default resilience: checksum)`,
      work: 'the same',
      bytes: size,
      run: cryptsetupRun(run, []),
    },
    {
      name: 'dd if=IMAGE of=OUT bs=128K',
      work: 'image → new file through a user-space buffer, no crypto',
      bytes: imageBytes,
      fresh: true,
      run: copyRun(run, 'dd', [`if=${image}`, `of=${out}`, 'bs=128K', 'status=none']),
    },
    {
      name: 'cat IMAGE > OUT',
      work: 'image → new file (copy_file_range: one copy, in the kernel)',
      bytes: imageBytes,
      fresh: true,
      run: copyRun(run, 'sh', ['-c', 'cat "$1" > "$2"', 'sh', image, out]),
    },
  ];
}

/** Every tool once per round, in a rotating order (the first round checks the outputs). */
async function measureTools(run: JobRun, tools: readonly Tool[], rounds: number) {
  const warm = async () => {
    await timed('sh', ['-c', 'cat "$1" > "$2"', 'sh', run.image, run.scratch]);
    await rm(run.scratch);
  };
  const times = tools.map(() => [] as number[]);
  const payloadTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < tools.length; i++) {
      const j = (i + r) % tools.length; // every tool once per round, in a rotating order
      if (tools[j].fresh) await warm();
      const res = await tools[j].run(r === 0);
      times[j].push(res.ms);
      if (j === 0 && res.payloadMs !== undefined) payloadTimes.push(res.payloadMs);
    }
    process.stderr.write(
      `job: round ${r + 1}/${rounds}: ${tools.map((t, i) => `${t.name.split(' ')[0]} ${(times[i][r] / 1000).toFixed(2)} s`).join(', ')}\n`,
    );
  }
  return { times, payloadTimes };
}

/** Prints the table and the verdict; returns the median milliseconds by tool. */
function reportJob(
  run: JobRun,
  tools: readonly Tool[],
  { times, payloadTimes }: Awaited<ReturnType<typeof measureTools>>,
  options: JobOptions,
  fs: { type: number },
  started: number,
): Record<string, number> {
  const { dir, size, kernel } = run;
  const mib = `${options.mib} MiB`;
  const path = nativeX64.paths().find((p) => p.available)?.name; // the default path of a process without X_AES_NATIVE_X64
  const med = times.map(median);
  const rate = (i: number) => tools[i].bytes / (med[i] / 1000);
  const cat = tools.length - 1;
  const lines = tools.map((t, i) => [
    i === 0
      ? `${t.name} (node ${process.versions.node}, kernel ${kernel}${kernel === 'native-x64' && path ? ` on ${path}` : ''})`
      : t.name,
    t.work,
    `${(med[i] / 1000).toFixed(2)} s`,
    `${(Math.min(...times[i]) / 1000).toFixed(2)} s`,
    (rate(i) / 1e6).toFixed(0),
    `${(rate(i) / rate(cat)).toFixed(2)}×`,
  ]);
  console.log(
    `The job: ${mib} of aes-xts-plain64 payload (LUKS2, 512-byte sectors, pbkdf2 1000 iterations) in ${dir} ` +
      `(${fs.type === 0xef53 ? 'ext4' : `file system type 0x${fs.type.toString(16)}`}); ` +
      `median of ${options.rounds} interleaved rounds, each tool timed from spawn to exit; MB/s = 10^6 bytes/s.\n`,
  );
  console.log(markdownTable(['tool', 'work', 'time (median)', 'fastest', 'MB/s (median)', '÷ cat'], lines, 2));
  const pm = payloadTimes.length ? median(payloadTimes) : undefined;
  const ratio = rate(0) / rate(cat);
  console.log(
    `\nx-luks ÷ cat: ${ratio.toFixed(2)}× (goal ≥ 0.7×: ${ratio >= 0.7 ? 'met' : 'not met'}).` +
      (pm === undefined
        ? ''
        : ` Of x-luks's ${(med[0] / 1000).toFixed(2)} s, the payload took ${(pm / 1000).toFixed(2)} s ` +
          `(${(size / 1e6 / (pm / 1000)).toFixed(0)} MB/s, its own timing); the rest is node's start, loading ` +
          'the modules and unlocking the keyslot.'),
  );
  console.log(
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}. (${((Date.now() - started) / 1000).toFixed(0)} s, making the volume included)\n`,
  );
  return Object.fromEntries(tools.map((t, i) => [t.name, med[i]]));
}

/** Measures and prints the job table; returns the median milliseconds by tool (undefined when skipped). */
export async function runJob(options: JobOptions): Promise<Record<string, number> | undefined> {
  const size = options.mib * MiB;
  const w = await openWorkdir('job', ['x-luks.cjs']);
  if (!w) return undefined;
  const { cs, dir } = w;
  const started = Date.now();
  try {
    // The image, a payload copy, a working copy for cryptsetup and one output at a time, with room to spare.
    if (!(await w.hasRoom(4 * size + 256 * MiB))) return undefined;
    const fs = await statfs(dir); // its type, for the table
    process.stderr.write(
      `job: making a ${options.mib} MiB LUKS2 aes-xts-plain64 volume with cryptsetup ${cs.version} in ${dir} …\n`,
    );
    const run = await prepareJob(dir, size, join(w.cli, 'x-luks.cjs'), cs.path);
    const tools = jobTools(run, options.mib, cs.version);
    return reportJob(run, tools, await measureTools(run, tools, options.rounds), options, fs, started);
  } finally {
    await w.close();
  }
}
