// Opening TrueCrypt/VeraCrypt volumes with @x/tcrypt (the built package, as users get it): the goal,
// side by side in one run, that `vc_1-sha512-xts-aes` with no PRF hint opens in at most 1.5× the time of
// the SHA-512 derivation alone (PBKDF2-HMAC-SHA-512, VeraCrypt's 500 000 iterations, 64 bytes, on
// WebCrypto as @x/tcrypt runs it), with the hinted open beside them; then the time to open each PRF's
// VeraCrypt image with its hint, and a wrong password with no hint (every derivation). The images are
// cryptsetup's test images as @x/tcrypt keeps them (packages/tcrypt/test/fixtures/tcrypt-images.tar.xz),
// unpacked into a temporary directory that is removed after.
//
// Each run is a fresh process (as `x-disk` runs), timed inside it around the open (or the derivation)
// alone, wall time and the process's CPU time (every thread). The goal rows run `rounds` interleaved
// rounds in an order that rotates, and the table gives medians; the costly rows run once each.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable, median } from './stats.js';

/** The goal: an open with no hint within this many times the SHA-512 derivation alone. */
const GOAL = 1.5;
const PASSWORD = 'aaaaaaaaaaaa';

/** One timed run in a child process: what it opens (or derives), with which secret and hint. */
interface Job {
  readonly image: string;
  readonly passphrase: string;
  /** The PRF hint, `-` for none, or `derive` for the SHA-512 derivation alone. */
  readonly prf: string;
}

interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
  /** The PRF that opened it, the error's name, or `derived`. */
  readonly result: string;
}

/** The child's side: one job, its times printed as JSON. */
async function child(images: string, job: Job): Promise<void> {
  const { openTcrypt } = await import('@x/tcrypt');
  const bytes = new Uint8Array(readFileSync(join(images, job.image)));
  const t = performance.now();
  const cpu = process.cpuUsage();
  let result: string;
  if (job.prf === 'derive') {
    const password = new TextEncoder().encode(job.passphrase);
    const key = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    await crypto.subtle.deriveBits(
      { name: 'PBKDF2', hash: 'SHA-512', salt: bytes.subarray(0, 64), iterations: 500000 },
      key,
      512,
    );
    result = 'derived';
  } else {
    try {
      const v = await openTcrypt(bytes, { passphrase: job.passphrase, ...(job.prf === '-' ? {} : { prf: job.prf }) });
      result = v.header?.kdf.prf ?? '?';
      v.close();
    } catch (e) {
      result = (e as Error).name;
    }
  }
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000, result }));
}

function run(images: string, job: Job): Sample {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', images, job.image, job.passphrase, job.prf],
    { encoding: 'utf8', cwd: dirname(fileURLToPath(import.meta.url)) },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as Sample;
}

/** The goal rows, then one run of each PRF's image and of a wrong password; the tables printed. */
export async function runTcrypt(options: { rounds?: number } = {}): Promise<Record<string, number> | undefined> {
  const rounds = options.rounds ?? 7;
  const tcrypt = dirname(createRequire(import.meta.url).resolve('@x/tcrypt/package.json'));
  const archive = join(tcrypt, 'test', 'fixtures', 'tcrypt-images.tar.xz');
  if (!existsSync(join(tcrypt, 'dist', 'index.js')) || !existsSync(archive)) {
    console.log(`tcrypt: skipped: ${tcrypt} is not built or has no test fixtures (npm run build)\n`);
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'x-aes-bench-tcrypt-'));
  try {
    execFileSync('tar', ['xJSf', archive, '-C', dir, '--no-same-owner']);
    const images = join(dir, 'tcrypt-images');
    const head = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`;
    const load = () =>
      loadavg()
        .map((x) => x.toFixed(1))
        .join(' ');

    const goalRows: [string, Job][] = [
      [
        'PBKDF2-SHA-512, 500 000 iterations (the derivation alone)',
        { image: 'vc_1-sha512-xts-aes', passphrase: PASSWORD, prf: 'derive' },
      ],
      ['vc_1-sha512-xts-aes, `prf: sha512`', { image: 'vc_1-sha512-xts-aes', passphrase: PASSWORD, prf: 'sha512' }],
      ['vc_1-sha512-xts-aes, no hint', { image: 'vc_1-sha512-xts-aes', passphrase: PASSWORD, prf: '-' }],
    ];
    const samples: Sample[][] = goalRows.map(() => []);
    for (let r = 0; r < rounds; r++)
      for (let k = 0; k < goalRows.length; k++) {
        const i = (k + r) % goalRows.length;
        samples[i].push(run(images, goalRows[i][1]));
      }
    const ms = samples.map((s) => median(s.map((x) => x.ms)));
    const cpu = samples.map((s) => median(s.map((x) => x.cpuMs)));
    const ratio = ms[2] / ms[0];
    console.log(
      `## TrueCrypt/VeraCrypt: opening with no hint against the derivation alone\n\n${head}, load average ${load()}. ` +
        `Median of ${rounds} interleaved rounds, each a fresh process timed around the open alone; goal: at most ${GOAL}× the derivation.\n`,
    );
    console.log(
      markdownTable(
        ['run', 'ms (median)', 'CPU ms (median)', '× the derivation', `goal ≤ ${GOAL}×`],
        goalRows.map(([name], i) => [
          name,
          ms[i].toFixed(0),
          cpu[i].toFixed(0),
          `${(ms[i] / ms[0]).toFixed(2)}×`,
          i === 2 ? (ratio <= GOAL ? 'met' : 'not met') : '',
        ]),
        1,
      ),
    );

    const each: [string, Job][] = [
      ...['sha512', 'sha256', 'whirlpool', 'blake2s-256', 'ripemd160', 'argon2id'].map((prf): [string, Job] => {
        const image = `vc_1-${prf.replace('-256', '')}-xts-aes`;
        return [`${image}, \`prf: ${prf}\``, { image, passphrase: PASSWORD, prf }];
      }),
      [
        'vc_1-stribog512-xts-camellia, `prf: stribog512` (Camellia: not opened)',
        { image: 'vc_1-stribog512-xts-camellia', passphrase: PASSWORD, prf: 'stribog512' },
      ],
      ['vc_1-whirlpool-xts-aes, no hint', { image: 'vc_1-whirlpool-xts-aes', passphrase: PASSWORD, prf: '-' }],
      [
        'vc_1-sha512-xts-aes, a wrong password, no hint (every derivation)',
        { image: 'vc_1-sha512-xts-aes', passphrase: 'wrong', prf: '-' },
      ],
    ];
    const once = each.map(([, job]) => run(images, job));
    console.log(
      `\n## TrueCrypt/VeraCrypt: the time to open each PRF's image\n\n${head}, load average ${load()}. One run each.\n`,
    );
    console.log(
      markdownTable(
        ['run', 's', 'CPU s', 'result'],
        each.map(([name], i) => [
          name,
          (once[i].ms / 1000).toFixed(2),
          (once[i].cpuMs / 1000).toFixed(2),
          once[i].result,
        ]),
        1,
      ),
    );
    console.log(
      `\nNo hint within ${GOAL}× the SHA-512 derivation alone: ${ratio <= GOAL ? 'met' : 'not met'} (${ratio.toFixed(2)}×).\n`,
    );
    return Object.fromEntries([
      ...goalRows.map(([name], i) => [name, ms[i]]),
      ...each.map(([name], i) => [name, once[i].ms]),
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') {
  const [, , , images, image, passphrase, prf] = process.argv;
  await child(images, { image, passphrase, prf });
}
