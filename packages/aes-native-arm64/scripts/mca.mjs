#!/usr/bin/env node
/**
 * `npm run mca`: an estimate, on paper, of the inner loops' speed on Arm Neoverse cores, as there is no
 * arm64 hardware here. It compiles src/native/aes_arm64.c to assembly with the release flags
 * (aarch64-linux-gnu-gcc -S), cuts out the steady-state loop of each kernel (the loop with the most AES
 * instructions in the function), and runs LLVM's machine-code analyser on it:
 *
 *   llvm-mca -mtriple=aarch64 -mcpu=<core> -mattr=+aes -iterations=200 <loop.s>
 *
 * Cycles per byte = total cycles / (iterations x bytes per iteration): 128 for the 8-block loops, 16 for
 * serial CBC encryption, whose loop-carried chain llvm-mca simulates. A second table does the same for
 * HPolyC's Poly1305: the NEON primitive (hbsh_arm64.h: the loop with the most UMLAL, 8 blocks) against the
 * glue's portable C (@x/aes-native-addon's native/hbsh.h, compiled from addon.c: the loop with the most
 * UMULH, two blocks), the two that the native core chooses between. The figures are the model's, not a
 * measurement. LLVM's Apple models are left out: they price every AES instruction at one per cycle on a
 * single unit, far below the real cores. LLVM_MCA overrides the tool; the loops are kept in .cache/mca/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_INCLUDE, ADDON_SOURCE } from '@x/native-build/compile';
import { CC, CFLAGS } from './build-arm64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const NODE_API_INCLUDE = path.join(path.dirname(require.resolve('node-api-headers/package.json')), 'include');
const MCA = process.env.LLVM_MCA || '/usr/lib/llvm-19/bin/llvm-mca';
const CORES = ['neoverse-n1', 'neoverse-v1', 'neoverse-v2'];
const ITERATIONS = 200;
const outDir = path.join(root, '.cache', 'mca');

const LOOPS = [
  ['AES-128 CBC decrypt, 8 blocks', 'aes_arm64_sectors_dec_10', 128],
  ['AES-256 CBC decrypt, 8 blocks', 'aes_arm64_sectors_dec_14', 128],
  ['AES-128 ECB encrypt, 8 blocks', 'aes_arm64_ecb_enc_10', 128],
  ['AES-256 ECB encrypt, 8 blocks', 'aes_arm64_ecb_enc_14', 128],
  ['AES-128 XTS encrypt, 8 blocks', 'aes_arm64_xts_enc_10', 128],
  ['AES-256 XTS encrypt, 8 blocks', 'aes_arm64_xts_enc_14', 128],
  ['AES-128 XTS decrypt, 8 blocks', 'aes_arm64_xts_dec_10', 128],
  ['AES-256 XTS decrypt, 8 blocks', 'aes_arm64_xts_dec_14', 128],
  ['AES-128 CBC encrypt, 8 sectors interleaved', 'aes_arm64_sectors_enc_10', 128],
  ['AES-256 CBC encrypt, 8 sectors interleaved', 'aes_arm64_sectors_enc_14', 128],
  ['AES-128 CBC encrypt, serial', 'aes_arm64_cbc_enc_10', 16],
  ['AES-256 CBC encrypt, serial', 'aes_arm64_cbc_enc_14', 16],
];

/** The instructions that mark the loop to take: AES rounds by default. */
const AES_OPS = /\baes(e|d|mc|imc)\b/;

/**
 * The instructions of the innermost loop of `fn` with the most instructions matching `ops`, from label to
 * back branch. Innermost: a loop that encloses another (XTS's loop over data units, around the 8-block
 * loop and a fully unrolled 1-7 block tail) is not a steady state.
 */
function innerLoop(asm, fn, ops = AES_OPS) {
  const lines = asm.split('\n');
  const start = lines.indexOf(`${fn}:`);
  const end = lines.findIndex((l, i) => i > start && l.includes(`.size\t${fn},`));
  if (start < 0 || end < 0) throw new Error(`@x/aes-native-arm64: ${fn} not found in the assembly`);
  const body = lines.slice(start + 1, end);
  const loops = [];
  body.forEach((line, i) => {
    const label = line.match(/^(\.L\w+):/)?.[1];
    if (!label) return;
    const j = body.findIndex(
      (l, k) =>
        k > i && new RegExp(`^\\s+(b\\.\\w+|b\\w*|cbn?z|tbn?z)\\s(.*[\\s,])?${label.replace('.', '\\.')}$`).test(l),
    );
    if (j >= 0) loops.push({ i, j });
  });
  let best;
  for (const { i, j } of loops) {
    if (loops.some((o) => o.i > i && o.j <= j)) continue; // encloses another loop
    const loop = body.slice(i + 1, j + 1).filter((l) => /^\s+[a-z]/.test(l) && !/^\s+\./.test(l));
    const aes = loop.filter((l) => ops.test(l)).length;
    if (!best || aes > best.aes) best = { aes, loop };
  }
  if (!best) throw new Error(`@x/aes-native-arm64: no loop in ${fn}`);
  return `${best.loop.join('\n')}\n`;
}

mkdirSync(outDir, { recursive: true });
const asmFile = path.join(outDir, 'aes_arm64.s');
execFileSync(CC, [
  ...CFLAGS,
  `-I${ADDON_INCLUDE}`,
  '-S',
  '-o',
  asmFile,
  path.join(root, 'src', 'native', 'aes_arm64.c'),
]);
const asm = readFileSync(asmFile, 'utf8');
const addonAsmFile = path.join(outDir, 'addon.s');
execFileSync(CC, [...CFLAGS, `-I${NODE_API_INCLUDE}`, `-I${ADDON_INCLUDE}`, '-S', '-o', addonAsmFile, ADDON_SOURCE]);
const addonAsm = readFileSync(addonAsmFile, 'utf8');

/** [title, assembly, function, the instructions that mark its loop, bytes per iteration] */
const POLY_LOOPS = [
  ['Poly1305, NEON (8 blocks, 4 lanes)', asm, 'hbsh_poly_neon', /\bumlal2?\b/, 128],
  ['Poly1305, portable C (2 blocks)', addonAsm, 'hbsh_poly_blocks', /\bumulh\b/, 32],
];

/** Cycles per byte of the loop of `fn` in `text` on each core, as strings of three decimals. */
function estimate(text, fn, ops, bytes) {
  const file = path.join(outDir, `${fn}.s`);
  writeFileSync(file, innerLoop(text, fn, ops));
  return CORES.map((core) => {
    const report = execFileSync(
      MCA,
      ['-mtriple=aarch64', `-mcpu=${core}`, '-mattr=+aes', `-iterations=${ITERATIONS}`, file],
      {
        encoding: 'utf8',
      },
    );
    const cycles = Number(report.match(/Total Cycles:\s+(\d+)/)?.[1]);
    return (cycles / (ITERATIONS * bytes)).toFixed(3);
  });
}

const rows = LOOPS.map(([title, fn, bytes]) => [title, ...estimate(asm, fn, AES_OPS, bytes)]);
const polyRows = POLY_LOOPS.map(([title, text, fn, ops, bytes]) => [title, ...estimate(text, fn, ops, bytes)]);

console.log(
  `llvm-mca (${execFileSync(MCA, ['--version'], { encoding: 'utf8' }).match(/LLVM version [\d.]+/)?.[0]}), ${CC} -S ${CFLAGS.join(' ')}`,
);
console.log(`\n| Inner loop (estimate, cycles/byte) | ${CORES.join(' | ')} |`);
console.log(`|---|${CORES.map(() => '---:').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(`\n| HPolyC's Poly1305 (estimate, cycles/byte) | ${CORES.join(' | ')} |`);
console.log(`|---|${CORES.map(() => '---:').join('|')}|`);
for (const r of polyRows) console.log(`| ${r.join(' | ')} |`);
