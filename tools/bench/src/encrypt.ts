// Writing a volume: `x-luks encrypt` of 256 MiB of random plaintext into a new LUKS2 image, against
// cryptsetup's offline encryption of the same data (`cryptsetup reencrypt --encrypt --type luks2
// --force-offline-reencrypt`), in one run with interleaved rounds (the issue's goal: x-luks ≥ 3×).
//
// Both are given the same settings, word for word (SETTINGS below): aes-xts-plain64, a 512-bit key,
// 4096-byte sectors, pbkdf2-sha256 forced to 1000 iterations, so that neither spends time worth measuring in
// a key derivation or a KDF benchmark. cryptsetup cannot write a new file: it encrypts a file in place, so
// each of its rounds first gets a fresh copy of the plaintext (untimed). It is run three ways:
//
// - `--reduce-device-size 32M`: the header goes inside the file (the copy is grown by 32 MiB, untimed):
//   the same image x-luks writes (16 MiB of header, then the payload), cryptsetup moving the data by 16 MiB
//   as it goes (its default "datashift" resilience);
// - `--header HDR --resilience none`: a detached header and no crash-safety journal, so each block is read,
//   encrypted and written once: the least work cryptsetup can do, and the closest to x-luks, which keeps no
//   journal either (it writes a new file and renames it when done);
// - `--header HDR` with the default resilience (checksum), as a user would type it.
//
// The goal is judged against the fastest of the three (by median): the comparison most favourable to
// cryptsetup, so that the ratio holds whichever way one thinks cryptsetup ought to be run.
//
// cryptsetup writes the payload with O_DIRECT (to the device, past the page cache), x-luks through the page
// cache without fsync; so one more row times `x-luks encrypt` followed by `sync OUT` (fsync), the cost of
// having x-luks's image on disk as well. Every command is timed from spawn to exit (node's start included
// for x-luks); before each one, untimed, a fresh 256 MiB copy is written (cryptsetup's working copy, or for
// x-luks a scratch copy deleted at once, which leaves it the same freshly freed memory to write into; see
// ./job.ts on this VM's free page reporting) and then `sync` runs, so that no command pays for writing back
// another's files. The first round checks every output: `cryptsetup luksDump` shows the same settings for
// all, `cryptsetup open --test-passphrase` accepts the passphrase, and the payload equals the plaintext
// (decrypted with node:crypto's aes-256-xts under the volume key `luksDump --dump-volume-key` prints; and
// cryptsetup's in-file image also with `x-luks decrypt`).
import { createDecipheriv, randomBytes } from 'node:crypto';
import { copyFile, open, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import nativeX64 from '@x/aes-native-x64';
import { dumpVolumeKey, runCryptsetup } from '@x/containers';
import { timed } from './job.js';
import { markdownTable, median } from './stats.js';
import { openWorkdir } from './workdir.js';

const MiB = 1 << 20;
const PASSPHRASE = 'x-aes bench passphrase';
const SECTOR = 4096;
/** The volume's settings, the same options for x-luks encrypt and cryptsetup reencrypt. */
const SETTINGS = [
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
];
/** cryptsetup's recommended room for an in-file header when encrypting (man cryptsetup-reencrypt). */
const REDUCE = 32 * MiB;

/** What {@link runEncrypt} takes. */
export interface EncryptOptions {
  /** Plaintext size in MiB (256 for the issue's goal). */
  readonly mib?: number;
  /** Interleaved rounds (at least 3). */
  readonly rounds?: number;
}

/** One row's figures: median and fastest seconds from spawn to exit, MB/s (10^6 bytes of plaintext/s). */
export interface EncryptFigures {
  readonly seconds: number;
  readonly fastest: number;
  readonly mbps: number;
}

/** What {@link runEncrypt} measured. */
export interface EncryptResult {
  readonly mib: number;
  readonly rounds: number;
  /** The settings every output was found to have, as `luksDump` shows them. */
  readonly volume: string;
  /** Every row by its command. */
  readonly rows: Record<string, EncryptFigures>;
  /** `x-luks encrypt PLAIN OUT`. */
  readonly xluks: EncryptFigures;
  /** The same, then `sync OUT`. */
  readonly xluksSynced: EncryptFigures;
  /** The fastest cryptsetup row (by median), the one the goal is judged against. */
  readonly cryptsetup: EncryptFigures & { readonly name: string };
  /** x-luks ÷ the fastest cryptsetup row, in MB/s (the issue's goal: ≥ 3). */
  readonly ratio: number;
  /** x-luks then sync ÷ the fastest cryptsetup row. */
  readonly ratioSynced: number;
  readonly met: boolean;
  /** The Markdown table, for the README. */
  readonly table: string;
  /** The whole run, making the plaintext included. */
  readonly seconds: number;
}

/** One command of the table. */
interface Contender {
  readonly name: string;
  readonly output: string;
  readonly cryptsetup: boolean;
  /** Untimed: the fresh copy it needs (or a scratch copy, deleted). */
  prepare(): Promise<void>;
  /** Timed: the command; returns ms from spawn to exit, and x-luks's own payload time when it says. */
  run(): Promise<{ ms: number; payloadMs?: number }>;
  /** Untimed, first round only: checks the output, returns its settings as luksDump shows them. */
  verify(): Promise<string>;
  /** Untimed: removes the output. */
  clean(): Promise<void>;
}

/** The settings luksDump shows for segment 0 and keyslot 0, and the payload offset. */
async function dumpOf(image: string, header: string | undefined) {
  const { stdout } = await runCryptsetup(['luksDump', '--disable-locks', ...headerArgs(header), image]);
  const field = (re: RegExp) => {
    const m = re.exec(stdout);
    if (!m) throw new Error(`bench: cryptsetup luksDump ${image}: no ${re.source} in\n${stdout}`);
    return m[1];
  };
  const offset = Number(field(/^\s*offset:\s*(\d+) \[bytes\]/m));
  const cipher = field(/^\s*cipher:\s*(\S+)/m);
  const sector = field(/^\s*sector:\s*(\d+)/m);
  const keyBits = field(/^\s*Key:\s*(\d+) bits/m);
  const pbkdf = field(/^\s*PBKDF:\s*(\S+)/m);
  const hash = field(/^\s*PBKDF:[^\n]*\n\s*Hash:\s*(\S+)/m);
  const iterations = field(/^\s*PBKDF:[^\n]*\n(?:[^\n]*\n)*?\s*Iterations:\s*(\d+)/m);
  return { offset, describe: `${cipher}, ${keyBits}-bit key, ${sector}-byte sectors, ${pbkdf}-${hash} ${iterations}` };
}

const headerArgs = (header: string | undefined) => (header === undefined ? [] : ['--header', header]);

/**
 * Reads `size` bytes of `path` from `offset` and the plaintext file side by side, 4 MiB at a time; returns
 * the position of the first chunk that `matches(chunk, plainChunk, pos)` rejects, or -1 when none is (the
 * plaintext stays on disk: the parent holds no 256 MiB buffer that would change the memory the timed
 * commands find).
 */
async function firstMismatch(
  path: string,
  offset: number,
  plain: string,
  size: number,
  matches: (chunk: Buffer, plainChunk: Buffer, pos: number) => boolean,
): Promise<number> {
  const [fh, ph] = await Promise.all([open(path, 'r'), open(plain, 'r')]);
  const buf = Buffer.alloc(4 * MiB);
  const pbuf = Buffer.alloc(4 * MiB);
  try {
    for (let pos = 0; pos < size; pos += buf.length) {
      const n = Math.min(buf.length, size - pos);
      const [a, b] = await Promise.all([fh.read(buf, 0, n, offset + pos), ph.read(pbuf, 0, n, pos)]);
      if (a.bytesRead !== n || b.bytesRead !== n) return pos;
      if (!matches(buf.subarray(0, n), pbuf.subarray(0, n), pos)) return pos;
    }
    return -1;
  } finally {
    await Promise.all([fh.close(), ph.close()]);
  }
}

/**
 * Checks that cryptsetup opens `image` with the passphrase and that its payload is the plaintext, decrypted
 * by node:crypto (OpenSSL) under the volume key cryptsetup prints: a check that trusts neither contender's
 * encryption code. aes-xts-plain64: the IV of each sector is its number in 512-byte units, little-endian
 * (dm-crypt's plain64; LUKS2 does not set iv_large_sectors), whatever the sector size.
 */
async function verifyPayload(image: string, header: string | undefined, pass: string, plain: string, size: number) {
  await runCryptsetup([
    'open',
    '--test-passphrase',
    '--disable-locks',
    '--key-file',
    pass,
    ...headerArgs(header),
    image,
  ]);
  const { offset, describe } = await dumpOf(image, header);
  const key = Buffer.from(await dumpVolumeKey(image, pass, header));
  if (key.length !== 64) throw new Error(`bench: no 512-bit volume key for ${image}`);
  const iv = Buffer.alloc(16);
  try {
    const bad = await firstMismatch(image, offset, plain, size, (chunk, p, pos) => {
      for (let s = 0; s < chunk.length; s += SECTOR) {
        iv.writeBigUInt64LE(BigInt((pos + s) / 512));
        const d = createDecipheriv('aes-256-xts', key, iv).update(chunk.subarray(s, s + SECTOR));
        if (!d.equals(p.subarray(s, s + SECTOR))) return false;
      }
      return true;
    });
    if (bad >= 0)
      throw new Error(`bench: ${image}: the payload differs from the plaintext in the 4 MiB from byte ${bad}`);
  } finally {
    key.fill(0);
  }
  return describe;
}

/** What every contender works with: the command, its environment, the files of the scratch folder. */
interface EncryptRun {
  readonly mib: number;
  readonly size: number;
  /** packages/cli/dist/bin/x-luks.cjs. */
  readonly bin: string;
  /** cryptsetup's path. */
  readonly cryptsetup: string;
  /** The environment of x-luks: no X_AES_KERNEL, no X_AES_NATIVE_X64 (the default kernel and path). */
  readonly env: NodeJS.ProcessEnv;
  readonly plain: string;
  readonly pass: string;
  readonly out: string;
  readonly data: string;
  readonly hdr: string;
  readonly scratch: string;
  readonly dec: string;
  /** The kernel x-luks decrypt reported in the first round ('?' until then). */
  kernel: string;
}

/** The files of the run in `dir`, the plaintext (`size` random bytes) and the passphrase file written. */
async function prepareRun(dir: string, mib: number, bin: string, cryptsetup: string): Promise<EncryptRun> {
  const size = mib * MiB;
  const file = (name: string) => join(dir, name);
  const env = { ...process.env };
  delete env.X_AES_KERNEL; // the default kernel, on its default path
  delete env.X_AES_NATIVE_X64;
  const run: EncryptRun = {
    mib,
    size,
    bin,
    cryptsetup,
    env,
    plain: file('plain'),
    pass: file('pass'),
    out: file('out'),
    data: file('data'),
    hdr: file('hdr'),
    scratch: file('scratch'),
    dec: file('dec'),
    kernel: '?',
  };
  const fh = await open(run.plain, 'w');
  try {
    for (let pos = 0; pos < size; pos += 4 * MiB) await fh.write(randomBytes(Math.min(4 * MiB, size - pos)));
  } finally {
    await fh.close();
  }
  await writeFile(run.pass, PASSPHRASE, { mode: 0o600 });
  return run;
}

/** `x-luks encrypt PLAIN OUT` (then `sync OUT` when `sync`). */
function xluksContender(run: EncryptRun, name: string, sync: boolean): Contender {
  const { plain, out, pass } = run;
  return {
    name,
    output: `a new image file (${16 + run.mib} MiB)`,
    cryptsetup: false,
    async prepare() {
      await copyFile(plain, run.scratch);
      await rm(run.scratch);
    },
    async run() {
      const r = await timed(
        process.execPath,
        [run.bin, 'encrypt', plain, out, '--passphrase-file', pass, ...SETTINGS],
        run.env,
      );
      const s = sync ? await timed('sync', [out]) : { ms: 0 };
      const payload = /encrypted .* in ([\d.]+) s/.exec(r.stderr);
      return { ms: r.ms + s.ms, payloadMs: payload ? Number(payload[1]) * 1000 : undefined };
    },
    verify: () => verifyPayload(out, undefined, pass, plain, run.size),
    clean: () => rm(out, { force: true }),
  };
}

/** x-luks decrypt of cryptsetup's in-file image `data` (cut after the payload) gives the plaintext back. */
async function checkXluksReads(run: EncryptRun): Promise<void> {
  const { data, dec, size } = run;
  const { offset } = await dumpOf(data, undefined);
  await truncate(data, offset + size); // the rest is the unused 16 MiB
  const r = await timed(process.execPath, [run.bin, 'decrypt', data, dec, '--passphrase-file', run.pass], run.env);
  run.kernel = /kernel (\S+)/.exec(r.stderr)?.[1] ?? run.kernel;
  const same =
    (await stat(dec)).size === size && (await firstMismatch(dec, 0, run.plain, size, (a, b) => a.equals(b))) < 0;
  await rm(dec);
  if (!same) throw new Error(`bench: x-luks decrypt of cryptsetup's image is not the plaintext`);
}

/** `cryptsetup reencrypt --encrypt … extra` of a fresh copy of the plaintext (`header`: detached). */
function reencryptContender(
  run: EncryptRun,
  name: string,
  output: string,
  extra: string[],
  header: boolean,
): Contender {
  const { data, hdr } = run;
  return {
    name,
    output,
    cryptsetup: true,
    async prepare() {
      await rm(hdr, { force: true });
      await copyFile(run.plain, data);
      if (!header) await truncate(data, run.size + REDUCE);
    },
    async run() {
      return timed(run.cryptsetup, [
        'reencrypt',
        '--encrypt',
        '--type',
        'luks2',
        '--force-offline-reencrypt',
        ...extra,
        ...SETTINGS,
        '--key-file',
        run.pass,
        '--batch-mode',
        '--disable-locks',
        data,
      ]);
    },
    async verify() {
      const describe = await verifyPayload(data, header ? hdr : undefined, run.pass, run.plain, run.size);
      if (!header) await checkXluksReads(run); // and x-luks reads cryptsetup's image
      return describe;
    },
    async clean() {
      await Promise.all([rm(data, { force: true }), rm(hdr, { force: true })]);
    },
  };
}

/** The rows of the table: x-luks (and then sync), and cryptsetup `version` three ways. */
function encryptContenders(run: EncryptRun, version: string): Contender[] {
  return [
    xluksContender(run, '`x-luks encrypt PLAIN OUT`', false),
    xluksContender(run, '`x-luks encrypt PLAIN OUT` then `sync OUT`', true),
    reencryptContender(
      run,
      `\`cryptsetup ${version} reencrypt --encrypt --reduce-device-size 32M\``,
      'the copy, in place, header inside (data moved 16 MiB)',
      ['--reduce-device-size', `${REDUCE / MiB}M`],
      false,
    ),
    reencryptContender(
      run,
      `\`cryptsetup ${version} reencrypt --encrypt --header HDR --resilience none\``,
      'the copy, in place, detached header',
      ['--header', run.hdr, '--resilience', 'none'],
      true,
    ),
    reencryptContender(
      run,
      `\`cryptsetup ${version} reencrypt --encrypt --header HDR\` (resilience checksum)`,
      'the same',
      ['--header', run.hdr],
      true,
    ),
  ];
}

/** Every contender once per round, in a rotating order; the first round checks every output. */
async function measureContenders(contenders: readonly Contender[], rounds: number) {
  const times = contenders.map(() => [] as number[]);
  const payloadTimes: number[] = [];
  const volumes = new Set<string>();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (k + r) % contenders.length; // every command once per round, in a rotating order
      const c = contenders[i];
      await c.prepare();
      await timed('sync', []); // untimed: nobody pays for writing back the copy or the last command's files
      const res = await c.run();
      times[i].push(res.ms);
      if (i === 0 && res.payloadMs !== undefined) payloadTimes.push(res.payloadMs);
      if (r === 0) volumes.add(await c.verify());
      await c.clean();
    }
    process.stderr.write(
      `encrypt: round ${r + 1}/${rounds}: ${times.map((t) => `${(t[r] / 1000).toFixed(2)} s`).join(', ')}\n`,
    );
  }
  if (volumes.size !== 1) throw new Error(`bench: the outputs differ in their settings: ${[...volumes].join(' / ')}`);
  const [volume] = volumes;
  return { times, payloadTimes, volume };
}

/** Two decimals rounded down, so that a ratio shown as meeting the goal does meet it. */
const x = (a: number) => `${(Math.floor(100 * a) / 100).toFixed(2)}×`;

/** The Markdown table and the line above it. */
function encryptTable(
  run: EncryptRun,
  contenders: readonly Contender[],
  figures: readonly EncryptFigures[],
  volume: string,
  rounds: number,
): string {
  const path = nativeX64.paths().find((p) => p.available)?.name; // the default path of a process without X_AES_NATIVE_X64
  const lines = contenders.map((c, i) => [
    c.name,
    c.output,
    figures[i].seconds.toFixed(2),
    figures[i].fastest.toFixed(2),
    figures[i].mbps.toFixed(0),
    c.cryptsetup ? x(figures[0].mbps / figures[i].mbps) : '',
    c.cryptsetup ? x(figures[1].mbps / figures[i].mbps) : '',
  ]);
  const { kernel } = run;
  const kernelNote = `${kernel}${kernel === 'native-x64' && path ? ` on ${path}` : ''}`;
  return (
    `${run.mib} MiB of random plaintext into a LUKS2 volume (${volume}, the same options to both), ` +
    `median of ${rounds} interleaved rounds; each command timed from spawn to exit; MB/s = 10^6 bytes of plaintext/s; ` +
    `x-luks on node ${process.versions.node}, default kernel (${kernelNote}).\n\n` +
    markdownTable(
      ['command', 'writes', 's (median)', 's (fastest)', 'MB/s', 'x-luks ÷ it', 'x-luks + sync ÷ it'],
      lines,
      2,
    )
  );
}

/** Prints the table and the verdict from the measured times; returns what {@link runEncrypt} returns. */
function reportEncrypt(
  run: EncryptRun,
  contenders: readonly Contender[],
  measured: Awaited<ReturnType<typeof measureContenders>>,
  rounds: number,
  started: number,
): EncryptResult {
  const { times, payloadTimes, volume } = measured;
  const { size } = run;
  const figures = times.map(
    (t): EncryptFigures => ({
      seconds: median(t) / 1000,
      fastest: Math.min(...t) / 1000,
      mbps: size / 1e6 / (median(t) / 1000),
    }),
  );
  const csRows = contenders.flatMap((c, i) => (c.cryptsetup ? [i] : []));
  const best = csRows.reduce((a, b) => (figures[b].seconds < figures[a].seconds ? b : a));
  const ratio = figures[0].mbps / figures[best].mbps;
  const ratioSynced = figures[1].mbps / figures[best].mbps;
  const table = encryptTable(run, contenders, figures, volume, rounds);
  const met = ratio >= 3;
  console.log(`## Writing volumes: x-luks encrypt against cryptsetup reencrypt --encrypt\n\n${table}\n`);
  const pm = payloadTimes.length > 0 ? median(payloadTimes) : undefined;
  console.log(
    `x-luks ÷ the fastest cryptsetup (${contenders[best].name}): ${x(ratio)} (goal ≥ 3×: ${met ? 'met' : 'not met'}); ` +
      `with sync OUT: ${x(ratioSynced)}.` +
      (pm === undefined
        ? ''
        : ` Of x-luks's ${figures[0].seconds.toFixed(2)} s, the payload took ${(pm / 1000).toFixed(2)} s by its own report ` +
          `(${(size / 1e6 / (pm / 1000)).toFixed(0)} MB/s).`),
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}. (${seconds.toFixed(0)} s in all)\n`,
  );
  return {
    mib: run.mib,
    rounds,
    volume,
    rows: Object.fromEntries(contenders.map((c, i) => [c.name, figures[i]])),
    xluks: figures[0],
    xluksSynced: figures[1],
    cryptsetup: { name: contenders[best].name, ...figures[best] },
    ratio,
    ratioSynced,
    met,
    table,
    seconds,
  };
}

/**
 * Measures and prints the table of `x-luks encrypt` against `cryptsetup reencrypt --encrypt`; returns the
 * figures and the table (undefined when cryptsetup or the built x-luks is missing, or the disk is too full).
 *
 * @example
 * ```ts
 * const r = await runEncrypt({ mib: 256, rounds: 9 });
 * if (r) console.log(`x-luks ${r.xluks.mbps.toFixed(0)} MB/s, ${r.ratio.toFixed(2)}× cryptsetup`);
 * ```
 */
export async function runEncrypt(options: EncryptOptions = {}): Promise<EncryptResult | undefined> {
  const mib = options.mib ?? 256;
  const rounds = options.rounds ?? 9;
  if (!Number.isInteger(mib) || mib <= 0) throw new RangeError('bench: encrypt: mib must be a positive whole number');
  if (!Number.isInteger(rounds) || rounds < 3) throw new RangeError('bench: encrypt: rounds must be 3 or more');
  const size = mib * MiB;
  const w = await openWorkdir('encrypt', ['x-luks.cjs']);
  if (!w) return undefined;
  const { cs, dir } = w;
  const started = Date.now();
  try {
    // the plaintext, cryptsetup's working copy (+ 32 MiB), one x-luks image (+ 16 MiB), a scratch copy, and
    // x-luks's decryption of cryptsetup's image in the first round, with room to spare
    if (!(await w.hasRoom(6 * size + 256 * MiB))) return undefined;
    process.stderr.write(
      `encrypt: ${mib} MiB of random plaintext, x-luks against cryptsetup ${cs.version}, in ${dir} …\n`,
    );
    const run = await prepareRun(dir, mib, join(w.cli, 'x-luks.cjs'), cs.path);
    const contenders = encryptContenders(run, cs.version);
    const measured = await measureContenders(contenders, rounds);
    return reportEncrypt(run, contenders, measured, rounds, started);
  } finally {
    await w.close();
  }
}
