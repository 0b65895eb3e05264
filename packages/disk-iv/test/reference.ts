// An independent, deliberately plain model of dm-crypt's IV modes (drivers/md/dm-crypt.c, the comment
// "Different IV generation algorithms" and the crypt_iv_*_gen functions): one IV at a time, bigint
// arithmetic modulo 2^64, node:crypto (OpenSSL) for the hashes and AES. Nothing here shares code with src/.
import { createCipheriv, createHash } from 'node:crypto';

const MASK64 = (1n << 64n) - 1n;

export const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
export const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** dm-crypt's iv_sector for a sector counted in sectorSize units. */
export function ivSector(sector: bigint, sectorSize: number, ivLargeSectors: boolean): bigint {
  return ivLargeSectors ? sector : (sector * BigInt(sectorSize / 512)) & MASK64;
}

function le64(v: bigint): Buffer {
  const b = Buffer.alloc(16);
  b.writeBigUInt64LE(v & MASK64, 0);
  return b;
}

function aesEcb(key: Uint8Array, block: Uint8Array): Uint8Array {
  const c = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
  c.setAutoPadding(false);
  return new Uint8Array(c.update(block));
}

/** ESSIV salt hashes through OpenSSL, except blake2b-256, which node:crypto lacks (see salts below). */
export function saltOf(hash: string, key: Uint8Array): Uint8Array {
  const openssl: Record<string, string> = { sha256: 'sha256', md5: 'md5', 'sha3-256': 'sha3-256' };
  const name = openssl[hash];
  if (!name) throw new Error(`reference: no OpenSSL hash for ${hash}`);
  return new Uint8Array(createHash(name).update(key).digest());
}

/** The IV of one sector (sector counted in sectorSize units), the way dm-crypt computes it. */
export function referenceIv(
  mode: string,
  key: Uint8Array,
  sectorSize: number,
  ivLargeSectors: boolean,
  sector: bigint,
  salt?: Uint8Array,
): Uint8Array {
  const s = ivSector(sector, sectorSize, ivLargeSectors);
  const iv = Buffer.alloc(16);
  switch (mode) {
    case 'null':
      return new Uint8Array(iv);
    case 'plain':
      iv.writeUInt32LE(Number(s & 0xffffffffn), 0);
      return new Uint8Array(iv);
    case 'plain64':
      iv.writeBigUInt64LE(s, 0);
      return new Uint8Array(iv);
    case 'plain64be':
      iv.writeBigUInt64BE(s, 8);
      return new Uint8Array(iv);
    case 'benbi':
      // shift = 9 - log2(cipher block size 16) = 5
      iv.writeBigUInt64BE(((s << 5n) + 1n) & MASK64, 8);
      return new Uint8Array(iv);
    case 'eboiv':
      return aesEcb(key, le64(s * BigInt(sectorSize)));
    default: {
      if (!mode.startsWith('essiv:')) throw new Error(`reference: unknown mode ${mode}`);
      return aesEcb(salt ?? saltOf(mode.slice(6), key), le64(s));
    }
  }
}

/** IVs of sectors first … first + count − 1, concatenated. */
export function referenceIvs(
  mode: string,
  key: Uint8Array,
  sectorSize: number,
  ivLargeSectors: boolean,
  first: bigint,
  count: number,
  salt?: Uint8Array,
): Uint8Array {
  const out = new Uint8Array(16 * count);
  const saltOnce = mode.startsWith('essiv:') ? (salt ?? saltOf(mode.slice(6), key)) : undefined;
  for (let i = 0; i < count; i++) {
    out.set(referenceIv(mode, key, sectorSize, ivLargeSectors, first + BigInt(i), saltOnce), 16 * i);
  }
  return out;
}
