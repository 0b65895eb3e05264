// The ceiling that this CPU's AES instructions put on CBC decryption against OpenSSL: src/aes-issue.c's
// peak rate of AESDEC at each register width the CPU has (xmm: AES-NI; ymm, zmm: VAES), in block-rounds
// per ns and per cycle at the clock of src/clock.c, interleaved with `openssl speed -evp aes-N-cbc
// -decrypt -bytes 16384` and `aes-N-xts -decrypt -bytes 512` (OpenSSL 3.0 runs both with AES-NI on xmm:
// 10 or 14 AESDEC/AESDECLAST per block; XTS encrypts one tweak per 512-byte call, so 33 blocks of AES
// per 32 of data). Both modes are AES rounds plus a little, so no implementation of them can outrun the
// widest peak here; that peak over OpenSSL's rate in the same units is the ceiling of any kernel's ratio
// to OpenSSL (issue 27 asks 3× for both decryptSectors rows on an AVX-512 machine). Medians of 5 rounds.
// Not part of the full run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredClock } from './modes.js';
import { opensslSpeed, opensslVersion } from './openssl.js';
import { markdownTable, median } from './stats.js';

const ROUNDS = 5;
/** AESDEC and AESDECLAST instructions per block: the rounds of AES-128 and AES-256. */
const ROUNDS_OF = { 128: 10, 256: 14 } as const;

/** One run of the probe: block-rounds per ns by register width. */
function probe(exe: string): Map<string, number> {
  const out = execFileSync(exe, { encoding: 'utf8' }).trim();
  return new Map(
    out.split('\n').map((line) => {
      const [width, rate] = line.split(' ');
      return [width, Number(rate)] as [string, number];
    }),
  );
}

export function runAesIssue(): Record<string, number> | undefined {
  if (process.arch !== 'x64') {
    console.log(`--aes-issue: x86-64 only (this is ${process.arch}).`);
    return undefined;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'x-bench-aes-issue-'));
  try {
    const exe = path.join(dir, 'aes-issue');
    try {
      execFileSync('cc', ['-O2', '-o', exe, fileURLToPath(new URL('./aes-issue.c', import.meta.url))], {
        stdio: 'ignore',
      });
    } catch {
      console.log('--aes-issue: no C compiler (cc), so no table.');
      return undefined;
    }
    const version = opensslVersion();
    const peaks = new Map<string, number[]>();
    /** OpenSSL's rows: cipher, buffer bytes, AES blocks per data block. */
    const modes = [
      ['cbc', 16384, 1],
      ['xts', 512, 33 / 32],
    ] as const;
    const openssl = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [width, rate] of probe(exe)) peaks.set(width, [...(peaks.get(width) ?? []), rate]);
      if (!version) continue;
      for (const [mode, bytes, blocks] of modes) {
        for (const bits of [128, 256] as const) {
          const label = `OpenSSL aes-${bits}-${mode} decrypt, ${bytes} B`;
          const bytesPerSecond = opensslSpeed([`aes-${bits}-${mode}`, '-decrypt', '-bytes', String(bytes)]);
          openssl.set(label, [...(openssl.get(label) ?? []), (bytesPerSecond / 16) * blocks * ROUNDS_OF[bits] * 1e-9]);
        }
      }
    }
    const clock = measuredClock();
    const peak = new Map([...peaks].map(([w, rs]) => [w, median(rs)]));
    const xmm = peak.get('xmm');
    const widest = [...peak.values()].reduce((a, b) => Math.max(a, b), 0);
    const perCycle = (r: number) => (clock ? (r / (clock * 1e-9)).toFixed(2) : '—');
    const rows = [...peak].map(([w, r]) => [
      `${w} AESDEC (${w === 'xmm' ? 'AES-NI' : 'VAES'})`,
      r.toFixed(2),
      perCycle(r),
      xmm ? `${(r / xmm).toFixed(2)}×` : '—',
      '',
    ]);
    const json: Record<string, number> = Object.fromEntries(peak);
    for (const [label, rs] of openssl) {
      const r = median(rs);
      json[label] = r;
      rows.push([
        label,
        r.toFixed(2),
        perCycle(r),
        xmm ? `${(r / xmm).toFixed(2)}×` : '—',
        `${(widest / r).toFixed(2)}×`,
      ]);
    }
    console.log(
      `\nAES decryption rounds: this CPU's peak against OpenSSL's CBC and XTS decryption. ${cpus()[0]?.model ?? 'unknown CPU'} ` +
        `(${cpus().length} cores), ${version ?? 'no openssl on PATH'}; block-rounds (one AES round of one ` +
        `16-byte block) per ns, medians of ${ROUNDS} interleaved rounds; per cycle at ` +
        `${clock ? `${(clock / 1e9).toFixed(2)} GHz (src/clock.c)` : 'an unknown clock'}. The last column is the ` +
        'ceiling of any CBC or XTS decryption here against OpenSSL: the widest peak over OpenSSL’s rate (XTS ' +
        'counted as 33 blocks of AES per 512 bytes, the tweak’s and 32).\n',
    );
    console.log(
      markdownTable(
        ['instruction or program', 'block-rounds/ns', 'per cycle', '÷ xmm peak', 'widest peak ÷ it'],
        rows,
        1,
      ),
    );
    return json;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
