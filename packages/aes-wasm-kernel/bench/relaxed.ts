/**
 * Is a second WebAssembly build worth shipping? The module as it ships (`i8x16.swizzle`) against the same
 * module with `i8x16.relaxed_swizzle` (relaxed-simd), both assembled here from the generator
 * (scripts/build.ts), instantiated side by side in one process and called directly, with the data
 * movement the keyed kernel does around each call (copy into the chunk buffer, call, copy out). Rounds
 * interleave the two builds (their order alternating), each sample about 25 ms of process CPU time;
 * the table gives medians (MB/s = 10^6 bytes per CPU second) and the median of the per-round ratios.
 *
 *   node --experimental-wasm-relaxed-simd --import tsx bench/relaxed.ts [rounds]   (Node 20; default 21)
 *   npx tsx bench/relaxed.ts                                                        (Node ≥ 22)
 */
import { randomBytes } from 'node:crypto';
import { expandKey } from '@x/aes-keyschedule';
import { assembler } from '@x/circuits/wasm';
import { kernelCircuits } from '../scripts/circuit.js';
import { moduleText, type Swizzle } from '../scripts/wat.js';
import { CHUNK, DATA, IV, IVS, IVS_BYTES, KEY_IN } from '../src/layout.js';
import { roundFunctions, type RoundFunctions } from '../src/module.js';

const ROUNDS = Number(process.argv[2] ?? 21);
const SAMPLE_MS = 25;
const BUILDS: Swizzle[] = ['i8x16.swizzle', 'i8x16.relaxed_swizzle'];

const assemble = await assembler();
const circuits = kernelCircuits();
const modules = BUILDS.map((swizzle) => {
  const bytes = assemble(moduleText({ circuits, swizzle }));
  if (!WebAssembly.validate(bytes)) {
    console.error(
      `this runtime cannot run the ${swizzle} build: on Node 20, run with --experimental-wasm-relaxed-simd`,
    );
    process.exit(1);
  }
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  return { swizzle, inst, mem: new Uint8Array((inst.exports.memory as WebAssembly.Memory).buffer) };
});

type Build = (typeof modules)[number];

/** One operation on one build, as the keyed kernel runs it: `n` bytes of `src` into `dst`. */
type Op = (b: Build, f: RoundFunctions, dst: Uint8Array, src: Uint8Array) => void;

const SECTORS = 2048,
  SECTOR = 512;
const ivs = randomBytes(16 * SECTORS);
const iv = randomBytes(16);

/** Whole chunks through `fn`, copying in and out (kernel.ts's #chunks). */
function chunks(b: Build, dst: Uint8Array, src: Uint8Array, fn: (p: number, n: number) => void): void {
  for (let off = 0; off < src.length; off += CHUNK) {
    const len = Math.min(CHUNK, src.length - off);
    b.mem.set(src.subarray(off, off + len), DATA);
    fn(DATA, len);
    dst.set(b.mem.subarray(DATA, DATA + len), off);
  }
}

const OPS: { name: string; bytes: number; op: Op }[] = [
  {
    name: `CBC decryptSectors ${SECTORS} × ${SECTOR} B`,
    bytes: SECTORS * SECTOR,
    op: (b, f, dst, src) => {
      // kernel.ts's #wholeUnits: as many sectors per call as the chunk and the IV area hold.
      const per = Math.min(CHUNK / SECTOR, IVS_BYTES / 16);
      for (let i = 0; i < SECTORS; i += per) {
        const k = Math.min(per, SECTORS - i),
          off = i * SECTOR,
          len = k * SECTOR;
        b.mem.set(ivs.subarray(16 * i, 16 * (i + k)), IVS);
        b.mem.set(src.subarray(off, off + len), DATA);
        f.secDec(DATA, len, SECTOR);
        dst.set(b.mem.subarray(DATA, DATA + len), off);
      }
    },
  },
  {
    name: `XTS decrypt ${SECTORS} × ${SECTOR} B`,
    bytes: SECTORS * SECTOR,
    op: (b, f, dst, src) => {
      // kernel.ts's #xts: as many units per call as the chunk and the tweak area hold.
      const per = Math.min(CHUNK / SECTOR, IVS_BYTES / 16);
      for (let i = 0; i < SECTORS; i += per) {
        const k = Math.min(per, SECTORS - i),
          off = i * SECTOR,
          len = k * SECTOR;
        b.mem.set(ivs.subarray(16 * i, 16 * (i + k)), IVS);
        b.mem.set(src.subarray(off, off + len), DATA);
        f.xtsDec(DATA, len, SECTOR, IVS);
        dst.set(b.mem.subarray(DATA, DATA + len), off);
      }
    },
  },
  {
    name: 'CBC decrypt 4 KiB',
    bytes: 4096,
    op: (b, f, dst, src) => {
      b.mem.set(iv, IV);
      chunks(b, dst, src.subarray(0, 4096), (p, n) => f.cbcDec(p, n, IV));
    },
  },
  { name: 'ECB encrypt 4 KiB', bytes: 4096, op: (b, f, dst, src) => chunks(b, dst, src.subarray(0, 4096), f.ecbEnc) },
  {
    name: 'CBC encrypt 4 KiB',
    bytes: 4096,
    op: (b, f, dst, src) => {
      b.mem.set(iv, IV);
      chunks(b, dst, src.subarray(0, 4096), f.cbcEnc);
    },
  },
];

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (a: number[]): number => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const src = randomBytes(SECTORS * SECTOR);
const rows: string[] = [];
for (const bits of [128, 256]) {
  const schedule = expandKey(randomBytes(bits / 8));
  const fns = modules.map((b) => {
    const f = roundFunctions(b.inst, schedule.rounds);
    b.mem.set(schedule.encryptionKeys, KEY_IN);
    f.prepEnc();
    b.mem.set(schedule.decryptionKeys, KEY_IN);
    f.prepDec();
    return f;
  });
  schedule.wipe();
  for (const { name, bytes, op } of OPS) {
    // Same bytes from both builds, then calls per sample from a warm-up.
    const out = modules.map((b, i) => {
      const dst = new Uint8Array(bytes);
      op(b, fns[i], dst, src);
      return Buffer.from(dst).toString('hex');
    });
    if (out[0] !== out[1]) throw new Error(`${name}: the two builds disagree`);
    const dst = new Uint8Array(bytes);
    let calls = 1;
    for (;;) {
      const t = cpuMs();
      for (let c = 0; c < calls; c++) op(modules[0], fns[0], dst, src);
      const ms = cpuMs() - t;
      if (ms >= SAMPLE_MS / 4) {
        calls = Math.max(1, Math.round((calls * SAMPLE_MS) / ms));
        break;
      }
      calls *= 2;
    }
    const speed: number[][] = modules.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [1, 0] : [0, 1];
      for (const i of order) {
        const t = cpuMs();
        for (let c = 0; c < calls; c++) op(modules[i], fns[i], dst, src);
        speed[i].push((calls * bytes) / ((cpuMs() - t) * 1000));
      }
    }
    const ratio = median(speed[1].map((v, r) => v / speed[0][r]));
    const row = `| ${name} | ${bits} | ${median(speed[0]).toFixed(0)} | ${median(speed[1]).toFixed(0)} | ${ratio.toFixed(3)}× |`;
    console.error(row);
    rows.push(row);
  }
}
console.log(
  `\nNode ${process.version}, ${ROUNDS} interleaved rounds of ~${SAMPLE_MS} ms CPU time per build, medians (MB/s):\n`,
);
console.log(
  '| operation | AES | i8x16.swizzle MB/s | i8x16.relaxed_swizzle MB/s | relaxed ÷ plain (median of per-round ratios) |',
);
console.log('| --- | --- | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
