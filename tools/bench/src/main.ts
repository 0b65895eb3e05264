/**
 * The benchmarks behind the README's tables, side by side in one process with interleaved rounds: each
 * round measures every contender once, and a table reports each contender's median round, so that a slow
 * phase of the machine hits all of them alike. Eleven tables:
 *
 * - openssl (./openssl.ts): the native-x64 kernel on its paths (avx512, vaes, aesni), native-x64 and
 *   wasm-simd128 through @x/cbc and @x/xts, node:crypto, and `openssl speed` run as a child process, each
 *   operation of the issue's table at AES-128 and AES-256, with the ratios to OpenSSL and the goals; then
 *   wasm-simd128's serial CBC encryption against OpenSSL's constant-time vpaes (AES-NI hidden);
 * - modes (./modes.ts): CTR, GCM and HCTR2 on every @x kernel against node:crypto, @noble/ciphers and
 *   `openssl speed`, with HCTR2 in cycles per byte at the measured clock (./clock.c);
 * - adiantum (./adiantum.ts): Adiantum and HPolyC on 4 KiB sectors on every @x kernel against
 *   @noble/ciphers' xchacha20, node:crypto's chacha20 and `openssl speed -evp chacha20`;
 * - go (./go-seeds.ts): @x/adiantum and @x/hctr2 against the Go packages they come from
 *   (lukechampine.com/adiantum, github.com/ericlagergren/hctr2), each Go package's own benchmark run as a
 *   child process in the same rounds; needs go on PATH and X_BENCH_GOPATH, a GOPATH of their sources
 *   (unset, the full run skips the table in a line, and `--go` prints how to lay the GOPATH out);
 * - libraries (./libraries.ts): every @x kernel usable here through @x/cbc, @x/xts and @x/disk-iv
 *   against node:crypto (OpenSSL, AES-NI), @noble/ciphers (T-tables) and aes-js;
 * - job (./job.ts): `x-luks decrypt` of a 1 GiB aes-xts-plain64 LUKS2 volume against cryptsetup's
 *   offline decryption of the same payload, `dd` and `cat` of the image (needs cryptsetup and the built
 *   x-luks; makes the volume in a temporary directory, about 4 GiB of disk while it runs, removed after);
 * - disk (./disk.ts): `x-disk decrypt` of cryptsetup's BitLocker test images (XTS, CBC, Elephant) against
 *   `x-luks decrypt` of LUKS2 aes-xts-plain64 volumes of the same sizes (needs cryptsetup and the built
 *   commands);
 * - encrypt (./encrypt.ts): `x-luks encrypt` of 256 MiB of random plaintext into a new LUKS2 image against
 *   `cryptsetup reencrypt --encrypt --force-offline-reencrypt` of the same data with the same settings, three
 *   ways (header in the file; detached header, resilience none and checksum), with the ratio to the fastest
 *   (needs cryptsetup and the built x-luks; about 1.5 GiB of temporary files while it runs);
 * - threads (./threads.ts): `x-luks decrypt --threads 1` against `--threads 2` of a 256 MiB LUKS2 volume on
 *   the wasm-simd128 kernel, with how much two busy threads get done against one on this machine;
 * - startup (./startup.ts): the commands' start-up, spawn to exit, against `node -e 0`: `x-disk --version`,
 *   `x-disk --help`, `x-luks --help`, `x-disk dump` of a LUKS2, a BitLocker and a FileVault 2 image, and
 *   `cryptsetup luksDump` when cryptsetup is installed (needs the built commands, not cryptsetup);
 * - tcrypt (./tcrypt.ts): opening VeraCrypt's SHA-512 image with no PRF hint against the SHA-512
 *   derivation alone, and the time to open each PRF's image with @x/tcrypt (needs the built package).
 *
 *   npm run bench                   all eleven tables (about 18 minutes on 2 cores)
 *   npm run bench -- --openssl      only the OpenSSL tables (about 4 minutes)
 *   npm run bench -- --modes        only the CTR / GCM / HCTR2 table (about 2 minutes)
 *   npm run bench -- --adiantum     only the Adiantum / HPolyC table (about 1 minute)
 *   npm run bench -- --go           only ours against the Go packages (about 1 minute; X_BENCH_GOPATH)
 *   npm run bench -- --libraries    only the library table (about 5 minutes)
 *   npm run bench -- --job          only the job (about 2 minutes); --job-mib N for an N MiB payload
 *   npm run bench -- --disk         only x-disk against x-luks (about 1 minute)
 *   npm run bench -- --encrypt      only x-luks encrypt against cryptsetup reencrypt --encrypt (about 1 minute)
 *   npm run bench -- --threads      only x-luks decrypt --threads 1 against 2, wasm-simd128 (about 1 minute)
 *   npm run bench -- --startup      only the commands' start-up against node -e 0 (about 30 seconds)
 *   npm run bench -- --tcrypt       only TrueCrypt/VeraCrypt's time to open (about 2 minutes)
 *   npm run bench -- --xts-vs-cbc   XTS against CBC decryptSectors on wasm-simd128, through @x/xts and @x/cbc
 *                                   (a few seconds; not part of the full run: @x/aes-wasm-kernel's README)
 *   npm run bench -- --aes-issue    the peak rate of AESDEC at each register width (./aes-issue.c) against
 *                                   OpenSSL's CBC decryption: the ceiling of any kernel's ratio to OpenSSL
 *                                   (about 20 seconds; not part of the full run)
 *   npm start                       the library table's short form (under a minute)
 *   npm run bench -- --json         also print the raw numbers (bytes/s; ms for the job) as JSON
 *   npm run bench -- --baseline DIR
 *                                   the library table before and after: every @x kernel of this tree against
 *                                   the same kernel of another built checkout DIR (e.g. a git worktree of an
 *                                   older commit), row by row, interleaved in this one process; the other
 *                                   libraries are left out. With --modes, the modes table (CTR, GCM, HCTR2)
 *                                   the same way (this tree's @x/ctr, @x/gcm, @x/hctr2 against DIR's); with
 *                                   --startup, the start-up table adds DIR's commands, interleaved
 */
import path from 'node:path';
import { runAdiantum } from './adiantum.js';
import { runAesIssue } from './aes-issue.js';
import { runCallCost } from './call-cost.js';
import { runDisk } from './disk.js';
import { runEncrypt } from './encrypt.js';
import { runGoSeeds } from './go-seeds.js';
import { runJob } from './job.js';
import { runLibraries } from './libraries.js';
import { runModes, runModesBaseline } from './modes.js';
import { runOpenssl } from './openssl.js';
import { runStartup } from './startup.js';
import { runTcrypt } from './tcrypt.js';
import { runThreads } from './threads.js';
import { runXtsVsCbc } from './xts-vs-cbc.js';

const argv = process.argv.slice(2);
const args = new Set(argv);
const option = (name: string) => (args.has(name) ? argv[argv.indexOf(name) + 1] : undefined);
const short = args.has('--short');
const baseline = option('--baseline');
const jobMib = Number(option('--job-mib') ?? 1024);
if (!Number.isInteger(jobMib) || jobMib <= 0) throw new Error('bench: --job-mib takes a positive whole number');

const picked = [
  '--openssl',
  '--modes',
  '--adiantum',
  '--go',
  '--libraries',
  '--job',
  '--disk',
  '--encrypt',
  '--threads',
  '--startup',
  '--tcrypt',
  '--xts-vs-cbc',
  '--call-cost',
  '--aes-issue',
].filter((a) => args.has(a));
const all = picked.length === 0 && !short && baseline === undefined;
const baselineDir = baseline && path.resolve(baseline);
const want = (name: string) => all || args.has(name);

const started = Date.now();
const json: Record<string, unknown> = {};
if (want('--openssl')) json.openssl = runOpenssl();
if (want('--modes')) json.modes = baselineDir ? await runModesBaseline(baselineDir) : runModes();
if (want('--adiantum')) json.adiantum = runAdiantum();
if (want('--go')) json.go = runGoSeeds({ quiet: all });
if (want('--libraries') || short || (baseline !== undefined && picked.length === 0)) {
  json.libraries = await runLibraries({ short, baselineDir });
}
if (want('--job')) json.job = await runJob({ mib: jobMib, rounds: 5 });
if (want('--disk')) json.disk = await runDisk();
if (want('--encrypt')) json.encrypt = await runEncrypt();
if (want('--threads')) {
  const t = await runThreads();
  if (t) console.log(t.table);
  json.threads = t && { rows: t.rows, ratio: t.ratio, cpuScaling: t.cpuScaling };
}
if (want('--startup')) json.startup = await runStartup({ baselineDir });
if (want('--tcrypt')) json.tcrypt = await runTcrypt();
if (args.has('--xts-vs-cbc')) json.xtsVsCbc = runXtsVsCbc(); // not part of the full run
if (args.has('--call-cost')) json.callCost = await runCallCost({ baselineDir }); // not part of the full run
if (args.has('--aes-issue')) json.aesIssue = runAesIssue(); // not part of the full run
if (picked.length !== 1 && !short) console.log(`(all: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (args.has('--json')) console.log(JSON.stringify(json, null, 2));
