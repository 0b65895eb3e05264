/**
 * The keyed portable kernel: AES (FIPS 197) on bitsliced 32-bit words, constant time.
 *
 * The block primitives and the parallel fast paths (CBC decryption of sectors, CBC encryption of many
 * sectors side by side, XTS) run 32 blocks at a time in 128 words, word 8p + b holding bit b of byte p of
 * all 32 blocks, so ShiftRows is a renaming and MixColumns a few XORs; the serial CBC encryption runs one
 * block in 8 words. Lengths, offsets and counts decide the only branches and loop bounds; no array index
 * depends on a key or on data.
 */
import type { AesKeyedKernel } from '@x/aes-kernel-contract';
import type { KeySchedule } from '@x/aes-keyschedule';
import {
  decLast,
  encLast,
  INV_SBOX_C_IN,
  INV_SBOX_C_OUT,
  invMixColumns,
  invSubShift,
  mixColumns,
  narrowLast,
  narrowRound0,
  narrowRound1,
  narrowRound2,
  narrowRound3,
  narrowShiftRows2,
  pack,
  SBOX_C_IN,
  SBOX_C_OUT,
  subShift,
  unpack,
  unpackXor,
} from './bitsliced.generated.js';
import { narrowPackXor, narrowUnpack } from './narrow.js';

/** Blocks per batch of the bulk path: one per bit of a 32-bit word. */
export const BATCH_BLOCKS = 32;
const BATCH_BYTES = 16 * BATCH_BLOCKS;

/**
 * Bulk calls longer than this many blocks (1 GiB) are cut into views of this size, because the generated
 * code computes byte offsets in 32-bit arithmetic. A multiple of {@link BATCH_BLOCKS}.
 */
const CHUNK_BLOCKS = 1 << 26;

/**
 * Writes the round keys `bytes` (16·(rounds+1) bytes) in the 32-block layout into `k`: word 128r + 8p + b
 * is all ones when bit b of byte p of round key r is set. The S-box input complement `cIn` is folded into
 * every key that precedes an S-box and the output complement `cOut` into every key that follows one
 * (MixColumns and InvMixColumns map a column of four equal bytes c to itself, FIPS 197 §5.1.3, §5.3.3).
 */
function wideKeys(k: Int32Array, bytes: Uint8Array, rounds: number, cIn: number, cOut: number): void {
  for (let r = 0; r <= rounds; r++) {
    const c = (r > 0 ? cOut : 0) ^ (r < rounds ? cIn : 0);
    for (let p = 0; p < 16; p++) {
      const v = bytes[16 * r + p] ^ c;
      for (let b = 0; b < 8; b++) k[128 * r + 8 * p + b] = -((v >>> b) & 1);
    }
  }
}

/**
 * Round keys in the one-block layout (8 words a round, byte p at bits p and 16 + p), constants folded, and
 * fixsliced: round key r is stored as SR^-r of itself (byte (row, c) taken from (row, c - r·row)), as the
 * state it meets (see scripts/generate.ts).
 */
function narrowKeys(k: Int32Array, bytes: Uint8Array, rounds: number, cIn: number, cOut: number): void {
  for (let r = 0; r <= rounds; r++) {
    const c = (r > 0 ? cOut : 0) ^ (r < rounds ? cIn : 0);
    for (let b = 0; b < 8; b++) {
      let w = 0;
      for (let p = 0; p < 16; p++) {
        const from = ((4 * ((p >>> 2) - r * (p & 3) + 4 * rounds)) % 16) + (p & 3);
        w |= (((bytes[16 * r + from] ^ c) >>> b) & 1) << p;
      }
      k[8 * r + b] = w | (w << 16);
    }
  }
}

/** The little-endian 32-bit word at `b[o .. o+3]`, assembled as {@link pack} assembles words. */
function word(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

/** Stores `v` as the little-endian bytes `b[o .. o+3]`. */
function putWord(b: Uint8Array, o: number, v: number): void {
  b[o] = v;
  b[o + 1] = v >>> 8;
  b[o + 2] = v >>> 16;
  b[o + 3] = v >>> 24;
}

/**
 * Everything one keyed kernel holds: its round keys, in two bitsliced layouts, and its scratch, all views
 * of `memory` (one allocation: typed-array allocations are slow in V8, and one buffer keeps `load()`
 * cheap and lets `dispose()` zero everything at once). Internal: the package exports neither this nor a
 * way to reach it; this package's tests reach it through {@link loadInternal}.
 */
export interface PortableState {
  /** 10, 12 or 14. */
  readonly rounds: number;
  /** The split of long calls, in blocks: {@link CHUNK_BLOCKS}, smaller only in tests. */
  readonly chunk: number;
  /** All of the memory below; `dispose()` zeroes it. */
  memory: Int32Array;
  /** Encryption round keys, 32-block layout. */
  wideEnc: Int32Array;
  /** Equivalent-inverse-cipher round keys (FIPS 197 §5.3.5), 32-block layout. */
  wideDec: Int32Array;
  /** Encryption round keys, one-block layout. */
  narrowEnc: Int32Array;
  /** Views of one round key each, so that the generated code indexes them with constants. */
  encKeys: Int32Array[];
  decKeys: Int32Array[];
  narrowKeys: Int32Array[];
  /** The two state buffers of a batch. */
  sa: Int32Array;
  sb: Int32Array;
  /** The words read by the conversion: CBC chaining values and XTS tweaks per lane, then a carry. */
  raw: Int32Array;
  /** The one-block state of serial CBC encryption, and a zero round key for its IV. */
  q: Int32Array;
  zero: Int32Array;
  /** XTS: the tweak T·α^j of each lane of a batch, 4 little-endian words a lane. */
  xt: Int32Array;
  /** A partial batch, zero-padded (and the gathered lanes of CBC encryption of sectors). */
  tail: Uint8Array;
  /** CBC encryption of sectors: the chaining value of each lane (sector) of a batch, 16 bytes a lane. */
  chain: Uint8Array;
}

/** Converts `schedule`'s round keys and lays out the scratch, in one allocation. */
function newState(schedule: KeySchedule, chunk: number): PortableState {
  const nr = schedule.rounds;
  const n = nr + 1;
  const memory = new Int32Array(
    2 * 128 * n + 8 * n + 128 + 128 + (4 + 4 * BATCH_BLOCKS) + 8 + 8 + 4 * BATCH_BLOCKS + BATCH_BYTES / 2,
  );
  let at = 0;
  const take = (words: number): Int32Array => {
    const view = memory.subarray(at, at + words);
    at += words;
    return view;
  };
  const wideEnc = take(128 * n);
  const wideDec = take(128 * n);
  const narrowEnc = take(8 * n);
  const sa = take(128);
  const sb = take(128);
  const raw = take(4 + 4 * BATCH_BLOCKS);
  const q = take(8);
  const zero = take(8);
  const xt = take(4 * BATCH_BLOCKS);
  const tail = new Uint8Array(memory.buffer, 4 * at, BATCH_BYTES);
  const chain = new Uint8Array(memory.buffer, 4 * at + BATCH_BYTES, BATCH_BYTES);
  wideKeys(wideEnc, schedule.encryptionKeys, nr, SBOX_C_IN, SBOX_C_OUT);
  wideKeys(wideDec, schedule.decryptionKeys, nr, INV_SBOX_C_IN, INV_SBOX_C_OUT);
  narrowKeys(narrowEnc, schedule.encryptionKeys, nr, SBOX_C_IN, SBOX_C_OUT);
  const encKeys: Int32Array[] = [];
  const decKeys: Int32Array[] = [];
  const narrow: Int32Array[] = [];
  for (let r = 0; r <= nr; r++) {
    encKeys.push(wideEnc.subarray(128 * r, 128 * r + 128));
    decKeys.push(wideDec.subarray(128 * r, 128 * r + 128));
    narrow.push(narrowEnc.subarray(8 * r, 8 * r + 8));
  }
  return {
    rounds: nr,
    chunk,
    memory,
    wideEnc,
    wideDec,
    narrowEnc,
    encKeys,
    decKeys,
    narrowKeys: narrow,
    sa,
    sb,
    raw,
    q,
    zero,
    xt,
    tail,
    chain,
  };
}

/**
 * Runs the cipher (FIPS 197 §5.1) or the equivalent inverse cipher (§5.3.5) on the 32 blocks at
 * `src[so ..]`, which must all be readable, and leaves the result in the returned state buffer.
 */
function batch(st: PortableState, src: Uint8Array, so: number, decrypt: boolean): Int32Array {
  const keys = decrypt ? st.decKeys : st.encKeys;
  const nr = st.rounds;
  const x = st.sa;
  const y = st.sb;
  pack(src, so, x, st.raw, keys[0]);
  // Each round: the S-box layer from x to y, then the linear layer and round key from y back to x.
  if (decrypt) {
    for (let r = 1; r < nr; r++) {
      invSubShift(x, y);
      invMixColumns(y, x, keys[r]);
    }
    decLast(x, y, keys[nr]);
  } else {
    for (let r = 1; r < nr; r++) {
      subShift(x, y);
      mixColumns(y, x, keys[r]);
    }
    encLast(x, y, keys[nr]);
  }
  return y;
}

/** Copies `n` blocks of `src` at `so` into the tail buffer and zeroes the rest of it. */
function loadTail(st: PortableState, src: Uint8Array, so: number, n: number): Uint8Array {
  const t = st.tail;
  const len = 16 * n;
  for (let i = 0; i < len; i++) t[i] = src[so + i];
  t.fill(0, len);
  return t;
}

/** Copies `n` blocks of the tail buffer to `dst` at `dOff`, then wipes the tail buffer. */
function storeTail(st: PortableState, dst: Uint8Array, dOff: number, n: number): void {
  const t = st.tail;
  const len = 16 * n;
  for (let i = 0; i < len; i++) dst[dOff + i] = t[i];
  t.fill(0);
}

/** Zeroes the state and chaining buffers, so no data outlives the call that processed it. */
function wipeScratch(st: PortableState): void {
  st.sa.fill(0);
  st.sb.fill(0);
  st.raw.fill(0);
}

/** Every block on its own (FIPS 197 §5.1, §5.3.5), 32 at a time, then a zero-padded partial batch. */
function blocks(st: PortableState, dst: Uint8Array, src: Uint8Array, decrypt: boolean): void {
  const n = src.length / 16;
  const chunk = st.chunk;
  if (n > chunk) {
    for (let i = 0; i < n; i += chunk) {
      const end = 16 * (n - i < chunk ? n : i + chunk);
      blocks(st, dst.subarray(16 * i, end), src.subarray(16 * i, end), decrypt);
    }
    return;
  }
  let i = 0;
  for (; i + BATCH_BLOCKS <= n; i += BATCH_BLOCKS) {
    unpack(batch(st, src, 16 * i, decrypt), dst, 16 * i);
  }
  const m = n - i;
  if (m > 0) {
    unpack(batch(st, loadTail(st, src, 16 * i, m), 0, decrypt), st.tail, 0);
    storeTail(st, dst, 16 * i, m);
  }
  wipeScratch(st);
}

/**
 * CBC encryption of one chain (NIST SP 800-38A §6.2), one block at a time in the one-block layout. The
 * chaining value C[i-1] stays bitsliced in the state, so P[i] is converted and XORed in directly.
 */
function cbcChain(st: PortableState, dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
  const q = st.q;
  const k = st.narrowKeys;
  const nr = st.rounds;
  const n = src.length / 16;
  q.fill(0);
  narrowPackXor(iv, 0, q, st.zero, 0);
  for (let i = 0; i < n; i++) {
    narrowPackXor(src, 16 * i, q, k[0], 0);
    // Fixsliced rounds (ShiftRows left out; the MixColumns variant follows the round number mod 4).
    for (let r = 1; r < nr; r++) {
      const m = r & 3;
      if (m === 1) narrowRound1(q, k[r]);
      else if (m === 2) narrowRound2(q, k[r]);
      else if (m === 3) narrowRound3(q, k[r]);
      else narrowRound0(q, k[r]);
    }
    narrowLast(q, k[nr]);
    if ((nr & 3) === 2) narrowShiftRows2(q); // back from SR^-nr to the true state
    narrowUnpack(q, dst, 16 * i);
  }
  q.fill(0);
}

/**
 * CBC decryption (NIST SP 800-38A §6.2) of chains of `spb` blocks each, chain s starting with IV
 * `ivs[16s ..]`: every block is D(C[i]) ^ C[i-1], so batches of 32 cross chain boundaries freely, and one
 * chain (`spb` = all the blocks) is the same loop. Calls longer than the chunk go through as views; the
 * chaining value and the chain numbering carry across the cut.
 */
function cbcDecrypt(st: PortableState, dst: Uint8Array, src: Uint8Array, spb: number, ivs: Uint8Array): void {
  const n = src.length / 16;
  const chunk = st.chunk;
  if (n > chunk) {
    for (let i = 0; i < n; i += chunk) {
      const end = 16 * (n - i < chunk ? n : i + chunk);
      cbcBlocks(st, dst.subarray(16 * i, end), src.subarray(16 * i, end), i, spb, ivs);
    }
  } else {
    cbcBlocks(st, dst, src, 0, spb, ivs);
  }
  wipeScratch(st);
}

/**
 * {@link cbcDecrypt} of the blocks `first ..` of the call, held by `src` and `dst`. `raw[4j .. 4j+3]` is
 * the chaining value of lane j; `raw[128 .. 131]`, the last ciphertext of a batch, carries over to the
 * next batch, so in-place decryption never reads a block it has overwritten.
 */
function cbcBlocks(
  st: PortableState,
  dst: Uint8Array,
  src: Uint8Array,
  first: number,
  spb: number,
  ivs: Uint8Array,
): void {
  const n = src.length / 16;
  const raw = st.raw;
  for (let i = 0; i < n; i += BATCH_BLOCKS) {
    const m = n - i < BATCH_BLOCKS ? n - i : BATCH_BLOCKS;
    const partial = m < BATCH_BLOCKS;
    const y = partial ? batch(st, loadTail(st, src, 16 * i, m), 0, true) : batch(st, src, 16 * i, true);
    // Lanes that start a chain take its IV (block indices are public).
    for (let j = 0; j < m; j++) {
      const b = first + i + j;
      if (b % spb === 0) {
        const o = 16 * (b / spb);
        raw[4 * j] = word(ivs, o);
        raw[4 * j + 1] = word(ivs, o + 4);
        raw[4 * j + 2] = word(ivs, o + 8);
        raw[4 * j + 3] = word(ivs, o + 12);
      }
    }
    if (partial) {
      unpackXor(y, raw, st.tail, 0);
      storeTail(st, dst, 16 * i, m);
    } else {
      unpackXor(y, raw, dst, 16 * i);
      raw[0] = raw[128];
      raw[1] = raw[129];
      raw[2] = raw[130];
      raw[3] = raw[131];
    }
  }
}

/**
 * CBC encryption (NIST SP 800-38A §6.2) of many sectors at once: lane j of a batch is sector s0 + j of a
 * group of up to 32, and step k encrypts block k of every sector of the group. Each lane's input is its
 * plaintext block XOR its chaining value (the IV, then its previous ciphertext), gathered into the batch
 * buffer; the batch's output is the new chaining values, scattered to `dst`. Every block of the group is
 * read before it is written, so in place works.
 */
function cbcEncryptLanes(
  st: PortableState,
  dst: Uint8Array,
  src: Uint8Array,
  sectorSize: number,
  ivs: Uint8Array,
): void {
  const spb = sectorSize / 16;
  const sectors = src.length / sectorSize;
  const t = st.tail;
  const c = st.chain;
  for (let s0 = 0; s0 < sectors; s0 += BATCH_BLOCKS) {
    const m = sectors - s0 < BATCH_BLOCKS ? sectors - s0 : BATCH_BLOCKS;
    for (let i = 0; i < 16 * m; i++) c[i] = ivs[16 * s0 + i];
    t.fill(0);
    for (let k = 0; k < spb; k++) {
      for (let j = 0; j < m; j++) {
        const o = (s0 + j) * sectorSize + 16 * k;
        for (let i = 0; i < 16; i++) t[16 * j + i] = src[o + i] ^ c[16 * j + i];
      }
      unpack(batch(st, t, 0, false), c, 0);
      for (let j = 0; j < m; j++) {
        const o = (s0 + j) * sectorSize + 16 * k;
        for (let i = 0; i < 16; i++) dst[o + i] = c[16 * j + i];
      }
    }
  }
  c.fill(0);
  t.fill(0);
  wipeScratch(st);
}

/**
 * XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks, units of `spb` blocks, unit u starting from the
 * encrypted tweak `tweaks[16u ..]`. Each lane's tweak T·α^j is computed on four little-endian words
 * (doubling in GF(2^128), §5.2, the reduction applied through a mask, not a branch), XORed into the
 * block as it is copied to the batch buffer, and XORed into the output by `unpackXor`, which XORs lane
 * j with `raw[4j .. 4j+3]`: the path CBC decryption uses for its chaining values.
 */
function xtsBlocks(
  st: PortableState,
  dst: Uint8Array,
  src: Uint8Array,
  spb: number,
  tweaks: Uint8Array,
  decrypt: boolean,
): void {
  const n = src.length / 16;
  const raw = st.raw;
  const xt = st.xt;
  const t = st.tail;
  let t0 = 0;
  let t1 = 0;
  let t2 = 0;
  let t3 = 0;
  for (let i = 0; i < n; i += BATCH_BLOCKS) {
    const m = n - i < BATCH_BLOCKS ? n - i : BATCH_BLOCKS;
    for (let j = 0; j < m; j++) {
      const b = i + j;
      if (b % spb === 0) {
        // A unit starts here (block indices are public): its first tweak.
        const o = 16 * (b / spb);
        t0 = word(tweaks, o);
        t1 = word(tweaks, o + 4);
        t2 = word(tweaks, o + 8);
        t3 = word(tweaks, o + 12);
      } else {
        const carry = t3 >>> 31;
        t3 = (t3 << 1) | (t2 >>> 31);
        t2 = (t2 << 1) | (t1 >>> 31);
        t1 = (t1 << 1) | (t0 >>> 31);
        t0 = (t0 << 1) ^ (0x87 & -carry);
      }
      xt[4 * j] = t0;
      xt[4 * j + 1] = t1;
      xt[4 * j + 2] = t2;
      xt[4 * j + 3] = t3;
      const so = 16 * b;
      const to = 16 * j;
      putWord(t, to, word(src, so) ^ t0);
      putWord(t, to + 4, word(src, so + 4) ^ t1);
      putWord(t, to + 8, word(src, so + 8) ^ t2);
      putWord(t, to + 12, word(src, so + 12) ^ t3);
    }
    if (m < BATCH_BLOCKS) t.fill(0, 16 * m);
    const y = batch(st, t, 0, decrypt);
    raw.set(xt);
    if (m === BATCH_BLOCKS) {
      unpackXor(y, raw, dst, 16 * i);
    } else {
      unpackXor(y, raw, t, 0);
      storeTail(st, dst, 16 * i, m);
    }
  }
}

/** {@link xtsBlocks} of a whole call: calls past the chunk go through in whole units, as views. */
function xts(
  st: PortableState,
  dst: Uint8Array,
  src: Uint8Array,
  unitSize: number,
  tweaks: Uint8Array,
  decrypt: boolean,
): void {
  const spb = unitSize / 16;
  const units = src.length / unitSize;
  const per = Math.max(1, Math.floor(st.chunk / spb));
  if (units > per) {
    for (let u = 0; u < units; u += per) {
      const end = u + per < units ? u + per : units;
      const a = u * unitSize;
      const z = end * unitSize;
      xtsBlocks(st, dst.subarray(a, z), src.subarray(a, z), spb, tweaks.subarray(16 * u, 16 * end), decrypt);
    }
  } else {
    xtsBlocks(st, dst, src, spb, tweaks, decrypt);
  }
  st.xt.fill(0);
  st.tail.fill(0);
  wipeScratch(st);
}

/**
 * The portable kernel bound to one key: what `kernel.load(schedule)` returns. It has the two block
 * primitives of the kernel contract (`@x/aes-kernel-contract`, contract v2) and every fast path but `ctr`, `hctr2`, `gcmSeal` and `gcmOpen`. Its round keys
 * and scratch are private: only {@link PortableKeyedKernel.dispose} touches them from outside.
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * import { kernel } from '@x/aes-portable';
 * const k = kernel.load(expandKey(new Uint8Array(16)));
 * const block = new Uint8Array(16);
 * k.encryptBlocks(block, block); // in place: 66e94bd4ef8a2c3b884cfa59ca342b2e
 * k.dispose();
 * ```
 */
export class PortableKeyedKernel implements AesKeyedKernel {
  /** 10, 12 or 14 (FIPS 197 §5 Figure 4). */
  readonly rounds: number;
  readonly #st: PortableState;

  /** Use `kernel.load(schedule)`. */
  constructor(st: PortableState) {
    this.rounds = st.rounds;
    this.#st = st;
  }

  /**
   * Each 16-byte block of `src` encrypted on its own (FIPS 197 §5.1), 32 at a time.
   *
   * @example `k.encryptBlocks(dst, src)`
   */
  encryptBlocks(dst: Uint8Array, src: Uint8Array): void {
    blocks(this.#st, dst, src, false);
  }

  /**
   * Each 16-byte block of `src` decrypted on its own (FIPS 197 §5.3.5, the equivalent inverse cipher).
   *
   * @example `k.decryptBlocks(dst, src)`
   */
  decryptBlocks(dst: Uint8Array, src: Uint8Array): void {
    blocks(this.#st, dst, src, true);
  }

  /**
   * CBC encryption of one chain (NIST SP 800-38A §6.2): serial, one block at a time in the one-block
   * (fixsliced) layout.
   *
   * @example `k.cbcEncrypt(dst, src, iv)`
   */
  cbcEncrypt(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    cbcChain(this.#st, dst, src, iv);
  }

  /**
   * CBC decryption (NIST SP 800-38A §6.2) of sectors of `sectorSize` bytes, sector s with IV
   * `ivs[16s .. 16s+16)`, 32 blocks at a time across sector boundaries. One chain is one sector as long
   * as `src`.
   *
   * @example `k.cbcDecryptSectors(dst, src, 512, ivs); k.cbcDecryptSectors(dst, src, src.length, iv)`
   */
  cbcDecryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    cbcDecrypt(this.#st, dst, src, sectorSize / 16, ivs);
  }

  /**
   * CBC encryption (NIST SP 800-38A §6.2) of sectors of `sectorSize` bytes, sector s with IV
   * `ivs[16s .. 16s+16)`: 32 sectors' chains side by side, block k of each in one batch.
   *
   * @example `k.cbcEncryptSectors(dst, src, 512, ivs)`
   */
  cbcEncryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    cbcEncryptLanes(this.#st, dst, src, sectorSize, ivs);
  }

  /**
   * XTS-AES encryption (IEEE 1619 §5.3.1) of whole blocks of data units of `unitSize` bytes, unit u from
   * the encrypted tweak `tweaks[16u .. 16u+16)`.
   *
   * @example `k.xtsEncrypt(dst, src, 512, encryptedTweaks)`
   */
  xtsEncrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    xts(this.#st, dst, src, unitSize, tweaks, false);
  }

  /**
   * XTS-AES decryption (IEEE 1619 §5.4.1) of whole blocks; the arguments as for `xtsEncrypt`.
   *
   * @example `k.xtsDecrypt(dst, src, 512, encryptedTweaks)`
   */
  xtsDecrypt(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    xts(this.#st, dst, src, unitSize, tweaks, true);
  }

  /**
   * Wipes every copy of the round keys and all scratch state (all of the kernel's memory).
   *
   * @example `k.dispose()`
   */
  dispose(): void {
    this.#st.memory.fill(0);
  }
}

/**
 * A keyed portable kernel for `schedule`: what `kernel.load` returns.
 *
 * @example
 * ```ts
 * const k = loadPortable(expandKey(key));
 * ```
 */
export function loadPortable(schedule: KeySchedule): PortableKeyedKernel {
  return new PortableKeyedKernel(newState(schedule, CHUNK_BLOCKS));
}

/**
 * For this package's tests only (the package does not export it): a keyed kernel together with its state,
 * whose arrays a test may read (dispose, scratch wiping) or replace before the first call (access
 * traces), and, when `chunkBlocks` is given (a multiple of 32), long calls cut at that many blocks
 * instead of 1 GiB, to exercise the cut.
 *
 * @example
 * ```ts
 * const { keyed, state } = loadInternal(expandKey(key), 64);
 * keyed.dispose();
 * state.memory.every((x) => x === 0); // true
 * ```
 */
export function loadInternal(
  schedule: KeySchedule,
  chunkBlocks: number = CHUNK_BLOCKS,
): { keyed: PortableKeyedKernel; state: PortableState } {
  const state = newState(schedule, chunkBlocks);
  return { keyed: new PortableKeyedKernel(state), state };
}
