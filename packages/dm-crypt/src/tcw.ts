// TrueCrypt 1.0–4.0's whitening, dm-crypt's IV mode tcw (drivers/md/dm-crypt.c, crypt_iv_tcw_whitening):
// for IV sector s, buf = whitening ⊕ (le64(s) ‖ le64(s)); each 4-byte word of buf becomes its CRC-32
// (Linux's "crc32" shash: crc32_le, reflected polynomial 0xEDB88320, seed 0, no final XOR, stored
// little-endian); then w = (buf[0..4) ⊕ buf[12..16)) ‖ (buf[4..8) ⊕ buf[8..12)), and every 8 bytes of
// the 512-byte sector are XORed with w: after CBC encryption on write, before CBC decryption on read.
// The CRC runs bit by bit through masks (no table indexed by the secret whitening).

const TWO32 = 0x1_0000_0000;

/** CRC-32 (crc32_le, seed 0, no final XOR) of the 4 bytes of `v` (little-endian), constant-time. */
function crc32Word(v: number): number {
  let c = v;
  for (let i = 0; i < 32; i++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  return c >>> 0;
}

function le32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/** The whitening of one aes-cbc-tcw key: its last 16 bytes, copied (wiped by dispose). */
export class TcwWhitening {
  readonly #w = new Uint32Array(4);

  constructor(key: Uint8Array) {
    const at = key.length - 16;
    for (let i = 0; i < 4; i++) this.#w[i] = le32(key, at + 4 * i);
  }

  /**
   * `dst[512i ..] = src[512i ..] ⊕ w(s + i)` for `count` sectors from IV sector `s`; `dst` and `src` may be
   * the same bytes. The sector number is public; the whitening goes only through XOR and masks.
   */
  apply(dst: Uint8Array, src: Uint8Array, s: number | bigint, count: number): void {
    let lo: number, hi: number;
    if (typeof s === 'bigint') {
      lo = Number(s & 0xffff_ffffn);
      hi = Number((s >> 32n) & 0xffff_ffffn);
    } else {
      hi = Math.floor(s / TWO32);
      lo = s - hi * TWO32;
    }
    const w = this.#w;
    for (let n = 0; n < count; n++) {
      // buf words: w0 ⊕ lo, w1 ⊕ hi, w2 ⊕ lo, w3 ⊕ hi, each replaced by its CRC-32
      const a = crc32Word(w[0] ^ lo) ^ crc32Word(w[3] ^ hi);
      const b = crc32Word(w[1] ^ hi) ^ crc32Word(w[2] ^ lo);
      const base = 512 * n;
      for (let o = base; o < base + 512; o += 8) {
        dst[o] = src[o] ^ (a & 0xff);
        dst[o + 1] = src[o + 1] ^ ((a >>> 8) & 0xff);
        dst[o + 2] = src[o + 2] ^ ((a >>> 16) & 0xff);
        dst[o + 3] = src[o + 3] ^ (a >>> 24);
        dst[o + 4] = src[o + 4] ^ (b & 0xff);
        dst[o + 5] = src[o + 5] ^ ((b >>> 8) & 0xff);
        dst[o + 6] = src[o + 6] ^ ((b >>> 16) & 0xff);
        dst[o + 7] = src[o + 7] ^ (b >>> 24);
      }
      lo += 1;
      if (lo === TWO32) {
        lo = 0;
        hi = (hi + 1) % TWO32;
      }
    }
  }

  dispose(): void {
    this.#w.fill(0);
  }
}
