// An independent, deliberately plain model of dm-crypt's IV modes (drivers/md/dm-crypt.c, the comment
// "Different IV generation algorithms" and the crypt_iv_*_gen functions): one IV at a time, bigint
// arithmetic modulo 2^64, node:crypto (OpenSSL) for the hashes and AES. Used by @x/disk-iv's and
// @x/dm-crypt's tests; nothing here shares code with either package.
import { createHash } from 'node:crypto';
import { refEcb } from './reference.js';

const MASK64 = (1n << 64n) - 1n;

/** v mod 2^64 as 8 little-endian bytes at the start of a zero block. */
function le64(v: bigint): Uint8Array {
  const b = Buffer.alloc(16);
  b.writeBigUInt64LE(v & MASK64, 0);
  return new Uint8Array(b);
}

/**
 * The IV dm-crypt gives the sector whose IV sector number (dm-crypt's `iv_sector`: the sector in 512-byte
 * units plus the IV offset, or in `sectorSize` units with `iv_large_sectors`) is `ivSector`, for IV mode
 * `mode`: `null`, `plain`, `plain64`, `plain64be`, `benbi`, `eboiv` or `essiv:<hash>`. ESSIV's salt is
 * `salt` when given, else the hash of `key` by node:crypto (which names it like dm-crypt: sha256, …).
 *
 * @example
 * ```ts
 * dmCryptIv('plain64', key, 7n, 512);          // 07 00 00 00 00 00 00 00 00 … 00
 * dmCryptIv('essiv:sha256', key, 7n, 512);     // E_{SHA-256(key)}(le64(7))
 * ```
 */
export function dmCryptIv(
  mode: string,
  key: Uint8Array,
  ivSector: bigint,
  sectorSize: number,
  salt?: Uint8Array,
): Uint8Array {
  const s = ivSector & MASK64;
  const iv = Buffer.alloc(16);
  switch (mode) {
    case 'null':
      return new Uint8Array(iv);
    case 'plain':
      iv.writeUInt32LE(Number(s & 0xffffffffn), 0);
      return new Uint8Array(iv);
    case 'plain64':
      return le64(s);
    case 'plain64be':
      iv.writeBigUInt64BE(s, 8);
      return new Uint8Array(iv);
    case 'benbi':
      // shift = 9 - log2(cipher block size 16) = 5; the count starts at 1
      iv.writeBigUInt64BE(((s << 5n) + 1n) & MASK64, 8);
      return new Uint8Array(iv);
    case 'eboiv':
      // E_K(the sector's byte offset), le64
      return refEcb(true, key, le64(s * BigInt(sectorSize)));
    default: {
      const essiv = /^essiv:(.+)$/.exec(mode);
      if (!essiv) throw new Error(`dmCryptIv: unknown IV mode ${mode}`);
      return refEcb(true, salt ?? new Uint8Array(createHash(essiv[1]).update(key).digest()), le64(s));
    }
  }
}
