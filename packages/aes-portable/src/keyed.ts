/**
 * The keyed portable kernel: AES (FIPS 197) on bitsliced 32-bit words, constant time.
 *
 * Bulk calls (ECB both ways, CBC decryption, sector decryption) run 32 blocks at a time in 128 words,
 * word 8p + b holding bit b of byte p of all 32 blocks, so ShiftRows is a renaming and MixColumns a few
 * XORs; the serial CBC encryption runs one block in 8 words. Lengths, offsets and counts decide the only
 * branches and loop bounds; no array index depends on a key or on data.
 */
import type { AesKeyedKernel, KeySchedule } from '@x/aes-keyschedule';
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
        const from = 4 * ((p >>> 2) - r * (p & 3) + 4 * rounds) % 16 + (p & 3);
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
 * {@link AesKeyedKernel} of the portable kernel. Create it with `portableKernel.load(schedule)`.
 *
 * @example
 * ```ts
 * import { expandKey } from '@x/aes-keyschedule';
 * import { portableKernel } from '@x/aes-portable';
 * const k = portableKernel.load(expandKey(new Uint8Array(16)));
 * const block = new Uint8Array(16);
 * k.encryptECB(block, block); // in place
 * k.dispose();
 * ```
 */
export class PortableKeyedKernel implements AesKeyedKernel {
  /**
   * Bulk calls longer than this many blocks (1 GiB) are cut into views of this size, because the
   * generated code computes byte offsets in 32-bit arithmetic. A multiple of {@link BATCH_BLOCKS}.
   * @internal Tests lower it to exercise the split.
   */
  static chunkBlocks = 1 << 26;
  readonly rounds: number;
  /**
   * All the kernel's memory, one allocation: the three round-key copies below, then the scratch.
   * {@link dispose} zeroes all of it.
   */
  readonly memory: Int32Array;
  /** Encryption round keys, 32-block layout (a view of {@link memory}). */
  readonly wideEnc: Int32Array;
  /** Equivalent-inverse-cipher round keys (FIPS 197 §5.3.5), 32-block layout (a view of {@link memory}). */
  readonly wideDec: Int32Array;
  /** Encryption round keys, one-block layout (a view of {@link memory}). */
  readonly narrowEnc: Int32Array;
  // Views of one round key each, so that the generated code indexes them with constants.
  private readonly encKeys: Int32Array[] = [];
  private readonly decKeys: Int32Array[] = [];
  private readonly narrowKeys: Int32Array[] = [];
  // Scratch, owned and reused: two state buffers, CBC chaining words, a partial batch, one-block state.
  private readonly sa: Int32Array;
  private readonly sb: Int32Array;
  private readonly raw: Int32Array;
  private readonly tail: Uint8Array;
  private readonly q: Int32Array;
  private readonly zero: Int32Array;
  /** CBC encryption of sectors: the chaining value of each lane (sector) of a batch, 16 bytes a lane. */
  private readonly chain: Uint8Array;
  /** XTS: the tweak T·α^j of each lane of a batch, 4 little-endian words a lane. */
  private readonly xt: Int32Array;

  constructor(schedule: KeySchedule) {
    const nr = schedule.rounds;
    this.rounds = nr;
    const n = nr + 1;
    // Typed-array allocations are slow in V8; one buffer and views of it keep load() cheap.
    const m = (this.memory = new Int32Array(2 * 128 * n + 8 * n + 128 + 128 + (4 + 4 * BATCH_BLOCKS) + 8 + 8 + 4 * BATCH_BLOCKS + BATCH_BYTES / 2));
    let at = 0;
    const take = (words: number): Int32Array => m.subarray(at, (at += words));
    this.wideEnc = take(128 * n);
    this.wideDec = take(128 * n);
    this.narrowEnc = take(8 * n);
    this.sa = take(128);
    this.sb = take(128);
    this.raw = take(4 + 4 * BATCH_BLOCKS);
    this.q = take(8);
    this.zero = take(8);
    this.xt = take(4 * BATCH_BLOCKS);
    this.tail = new Uint8Array(m.buffer, 4 * at, BATCH_BYTES);
    this.chain = new Uint8Array(m.buffer, 4 * at + BATCH_BYTES, BATCH_BYTES);
    wideKeys(this.wideEnc, schedule.encryptionKeys, nr, SBOX_C_IN, SBOX_C_OUT);
    wideKeys(this.wideDec, schedule.decryptionKeys, nr, INV_SBOX_C_IN, INV_SBOX_C_OUT);
    narrowKeys(this.narrowEnc, schedule.encryptionKeys, nr, SBOX_C_IN, SBOX_C_OUT);
    for (let r = 0; r <= nr; r++) {
      this.encKeys.push(this.wideEnc.subarray(128 * r, 128 * r + 128));
      this.decKeys.push(this.wideDec.subarray(128 * r, 128 * r + 128));
      this.narrowKeys.push(this.narrowEnc.subarray(8 * r, 8 * r + 8));
    }
  }

  /**
   * Runs the cipher (FIPS 197 §5.1) or the equivalent inverse cipher (§5.3.5) on the 32 blocks at
   * `src[so ..]`, which must all be readable, and leaves the result in the returned state buffer.
   */
  private batch(src: Uint8Array, so: number, decrypt: boolean): Int32Array {
    const keys = decrypt ? this.decKeys : this.encKeys;
    const nr = this.rounds;
    const x = this.sa, y = this.sb, raw = this.raw;
    pack(src, so, x, raw, keys[0]);
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
  private loadTail(src: Uint8Array, so: number, n: number): Uint8Array {
    const t = this.tail;
    const len = 16 * n;
    for (let i = 0; i < len; i++) t[i] = src[so + i];
    t.fill(0, len);
    return t;
  }

  /** Copies `n` blocks of the tail buffer to `dst` at `dOff`, then wipes the tail buffer. */
  private storeTail(dst: Uint8Array, dOff: number, n: number): void {
    const t = this.tail;
    const len = 16 * n;
    for (let i = 0; i < len; i++) dst[dOff + i] = t[i];
    t.fill(0);
  }

  /** Zeroes the state and chaining buffers, so no data outlives the call that processed it. */
  private wipeScratch(): void {
    this.sa.fill(0);
    this.sb.fill(0);
    this.raw.fill(0);
  }

  private ecb(dst: Uint8Array, src: Uint8Array, decrypt: boolean): void {
    const n = src.length >>> 4;
    const chunk = PortableKeyedKernel.chunkBlocks;
    if (n > chunk) {
      for (let i = 0; i < n; i += chunk) {
        const end = 16 * (n - i < chunk ? n : i + chunk);
        this.ecb(dst.subarray(16 * i, end), src.subarray(16 * i, end), decrypt);
      }
      return;
    }
    let i = 0;
    for (; i + BATCH_BLOCKS <= n; i += BATCH_BLOCKS) {
      unpack(this.batch(src, 16 * i, decrypt), dst, 16 * i);
    }
    const m = n - i;
    if (m > 0) {
      unpack(this.batch(this.loadTail(src, 16 * i, m), 0, decrypt), this.tail, 0);
      this.storeTail(dst, 16 * i, m);
    }
    this.wipeScratch();
  }

  /** See {@link AesKeyedKernel.encryptECB}. @example `k.encryptECB(dst, src)` */
  encryptECB(dst: Uint8Array, src: Uint8Array): void {
    this.ecb(dst, src, false);
  }

  /** See {@link AesKeyedKernel.decryptECB}. @example `k.decryptECB(dst, src)` */
  decryptECB(dst: Uint8Array, src: Uint8Array): void {
    this.ecb(dst, src, true);
  }

  /**
   * CBC encryption (NIST SP 800-38A §6.2), one block at a time in the one-block layout. The chaining value
   * C[i-1] stays bitsliced in the state, so P[i] is converted and XORed in directly.
   *
   * @example `k.encryptCBC(dst, src, iv)`
   */
  encryptCBC(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    const q = this.q, k = this.narrowKeys, nr = this.rounds;
    const n = src.length >>> 4;
    q.fill(0);
    narrowPackXor(iv, 0, q, this.zero, 0);
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
   * CBC decryption of chains of `spb` blocks each, chain s starting with IV `ivs[16s ..]`: every block is
   * D(C[i]) ^ C[i-1], so batches of 32 cross chain boundaries freely. `raw[4j .. 4j+3]` is the chaining
   * value of lane j; `raw[128 .. 131]`, the last ciphertext of a batch, carries over to the next batch, so
   * in-place decryption never reads a block it has overwritten.
   */
  private cbcDecrypt(dst: Uint8Array, src: Uint8Array, spb: number, ivs: Uint8Array): void {
    const n = src.length >>> 4;
    const chunk = PortableKeyedKernel.chunkBlocks;
    if (n > chunk) {
      for (let i = 0; i < n; i += chunk) {
        const end = 16 * (n - i < chunk ? n : i + chunk);
        this.cbcBlocks(dst.subarray(16 * i, end), src.subarray(16 * i, end), i, spb, ivs);
      }
    } else {
      this.cbcBlocks(dst, src, 0, spb, ivs);
    }
    this.wipeScratch();
  }

  /** {@link cbcDecrypt} of the blocks `first ..` of the call, held by `src` and `dst`. */
  private cbcBlocks(dst: Uint8Array, src: Uint8Array, first: number, spb: number, ivs: Uint8Array): void {
    const n = src.length >>> 4;
    const raw = this.raw;
    for (let i = 0; i < n; i += BATCH_BLOCKS) {
      const m = n - i < BATCH_BLOCKS ? n - i : BATCH_BLOCKS;
      const partial = m < BATCH_BLOCKS;
      const s = partial ? this.batch(this.loadTail(src, 16 * i, m), 0, true) : this.batch(src, 16 * i, true);
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
        unpackXor(s, raw, this.tail, 0);
        this.storeTail(dst, 16 * i, m);
      } else {
        unpackXor(s, raw, dst, 16 * i);
        raw[0] = raw[128];
        raw[1] = raw[129];
        raw[2] = raw[130];
        raw[3] = raw[131];
      }
    }
  }

  /** See {@link AesKeyedKernel.decryptCBC}. @example `k.decryptCBC(dst, src, iv)` */
  decryptCBC(dst: Uint8Array, src: Uint8Array, iv: Uint8Array): void {
    this.cbcDecrypt(dst, src, src.length >>> 4, iv);
  }

  /** See {@link AesKeyedKernel.decryptSectors}. @example `k.decryptSectors(dst, src, 512, ivs)` */
  decryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    this.cbcDecrypt(dst, src, sectorSize >>> 4, ivs);
  }

  /**
   * CBC encryption (NIST SP 800-38A §6.2) of many sectors at once: lane j of a batch is sector s0 + j of a
   * group of up to 32, and step k encrypts block k of every sector of the group. Each lane's input is its
   * plaintext block XOR its chaining value (the IV, then its previous ciphertext), gathered into the batch
   * buffer; the batch's output is the new chaining values, scattered to `dst`. Every block of the group is
   * read before it is written, so in place works.
   *
   * @example `k.encryptSectors(dst, src, 512, ivs)`
   */
  encryptSectors(dst: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array): void {
    const spb = sectorSize >>> 4;
    const sectors = src.length / sectorSize;
    const t = this.tail, c = this.chain;
    for (let s0 = 0; s0 < sectors; s0 += BATCH_BLOCKS) {
      const m = sectors - s0 < BATCH_BLOCKS ? sectors - s0 : BATCH_BLOCKS;
      for (let i = 0; i < 16 * m; i++) c[i] = ivs[16 * s0 + i];
      t.fill(0);
      for (let k = 0; k < spb; k++) {
        for (let j = 0; j < m; j++) {
          const o = (s0 + j) * sectorSize + 16 * k;
          for (let i = 0; i < 16; i++) t[16 * j + i] = src[o + i] ^ c[16 * j + i];
        }
        unpack(this.batch(t, 0, false), c, 0);
        for (let j = 0; j < m; j++) {
          const o = (s0 + j) * sectorSize + 16 * k;
          for (let i = 0; i < 16; i++) dst[o + i] = c[16 * j + i];
        }
      }
    }
    c.fill(0);
    t.fill(0);
    this.wipeScratch();
  }

  /**
   * XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks, units of `spb` blocks, unit u starting from the
   * encrypted tweak `tweaks[16u ..]`. Each lane's tweak T·α^j is computed on four little-endian words
   * (doubling in GF(2^128), §5.2, the reduction applied through a mask, not a branch), XORed into the
   * block as it is copied to the batch buffer, and XORed into the output by `unpackXor`, which XORs lane
   * j with `raw[4j .. 4j+3]`: the path CBC decryption uses for its chaining values.
   */
  private xtsBlocks(dst: Uint8Array, src: Uint8Array, spb: number, tweaks: Uint8Array, decrypt: boolean): void {
    const n = src.length >>> 4;
    const raw = this.raw, xt = this.xt, t = this.tail;
    let t0 = 0, t1 = 0, t2 = 0, t3 = 0;
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
        const so = 16 * b, to = 16 * j;
        putWord(t, to, word(src, so) ^ t0);
        putWord(t, to + 4, word(src, so + 4) ^ t1);
        putWord(t, to + 8, word(src, so + 8) ^ t2);
        putWord(t, to + 12, word(src, so + 12) ^ t3);
      }
      if (m < BATCH_BLOCKS) t.fill(0, 16 * m);
      const s = this.batch(t, 0, decrypt);
      raw.set(xt);
      if (m === BATCH_BLOCKS) {
        unpackXor(s, raw, dst, 16 * i);
      } else {
        unpackXor(s, raw, t, 0);
        this.storeTail(dst, 16 * i, m);
      }
    }
  }

  private xts(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array, decrypt: boolean): void {
    const spb = unitSize >>> 4;
    const units = src.length / unitSize;
    // Calls past the chunk size go through in whole units, as views (offsets stay small integers).
    const per = Math.max(1, Math.floor(PortableKeyedKernel.chunkBlocks / spb));
    if (units > per) {
      for (let u = 0; u < units; u += per) {
        const end = u + per < units ? u + per : units;
        const a = u * unitSize, z = end * unitSize;
        this.xtsBlocks(dst.subarray(a, z), src.subarray(a, z), spb, tweaks.subarray(16 * u, 16 * end), decrypt);
      }
    } else {
      this.xtsBlocks(dst, src, spb, tweaks, decrypt);
    }
    this.xt.fill(0);
    this.tail.fill(0);
    this.wipeScratch();
  }

  /** See {@link AesKeyedKernel.encryptXTS}. @example `k.encryptXTS(dst, src, 512, encryptedTweaks)` */
  encryptXTS(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    this.xts(dst, src, unitSize, tweaks, false);
  }

  /** See {@link AesKeyedKernel.decryptXTS}. @example `k.decryptXTS(dst, src, 512, encryptedTweaks)` */
  decryptXTS(dst: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array): void {
    this.xts(dst, src, unitSize, tweaks, true);
  }

  /** Wipes every copy of the round keys and all scratch state (all of {@link memory}). @example `k.dispose()` */
  dispose(): void {
    this.memory.fill(0);
  }
}
