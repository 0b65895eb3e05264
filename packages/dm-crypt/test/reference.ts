// An independent model of dm-crypt for the tests: one sector at a time, dm-crypt's iv_sector computed by
// hand with bigint arithmetic, the IV from @x/testkit's model of dm-crypt's IV modes, AES from node:crypto
// (OpenSSL) through @x/testkit's references. HCTR2 has no node:crypto reference: its sectors are single
// `encrypt`/`decrypt` calls of @x/hctr2 (checked there against the HCTR2 authors' and Linux's vectors)
// with the 32-byte IV built here by hand as dm-crypt builds it. Adiantum's sectors come from @x/testkit's
// refHbsh (Adiantum written out from its definition, BigInt arithmetic), with the same 32-byte IVs.
import { newHctr2 } from '@x/hctr2';
import { dmCryptIv, refCbc, refEcb, refHbsh, refXts } from '@x/testkit';

export interface RefSpec {
  chainMode: 'cbc' | 'xts' | 'hctr2' | 'adiantum' | 'ecb';
  ivMode: string;
  /** For adiantum: `xchacha12,aes` or `xchacha20,aes`. */
  cipher?: string;
}

const MASK64 = (1n << 64n) - 1n;

/**
 * dm-crypt's IV for hctr2(aes) and adiantum(…) (ivsize 32): zeroed, then plain the low 32 bits and plain64 the 64 bits of
 * the IV sector little-endian at byte 0, plain64be big-endian in the last 8 bytes, null nothing
 * (drivers/md/dm-crypt.c, crypt_iv_plain_gen, crypt_iv_plain64_gen, crypt_iv_plain64be_gen).
 */
export function hctr2Iv(ivMode: string, ivSector: bigint): Uint8Array {
  const iv = Buffer.alloc(32);
  const s = ivSector & MASK64;
  if (ivMode === 'plain') iv.writeUInt32LE(Number(s & 0xffffffffn), 0);
  else if (ivMode === 'plain64') iv.writeBigUInt64LE(s, 0);
  else if (ivMode === 'plain64be') iv.writeBigUInt64BE(s, 24);
  else if (ivMode !== 'null') throw new Error(`no hctr2 IV model for ${ivMode}`);
  return new Uint8Array(iv);
}

function refHctr2Sector(encrypt: boolean, key: Uint8Array, src: Uint8Array, iv: Uint8Array): Uint8Array {
  const h = newHctr2(key, { kernel: 'portable' });
  const out = new Uint8Array(src.length);
  if (encrypt) h.encrypt(out, src, iv);
  else h.decrypt(out, src, iv);
  h.dispose();
  return out;
}

/** Encrypts or decrypts whole sectors the slow way: one node:crypto call per sector. */
export function referenceCrypt(
  direction: 'encrypt' | 'decrypt',
  spec: RefSpec,
  key: Uint8Array,
  data: Uint8Array,
  firstSector: bigint,
  sectorSize: number,
  opts: { ivLargeSectors?: boolean; ivOffset?: bigint } = {},
): Uint8Array {
  const encrypt = direction === 'encrypt';
  const out = new Uint8Array(data.length);
  for (let i = 0; i * sectorSize < data.length; i++) {
    const sector = firstSector + BigInt(i);
    const src = data.subarray(i * sectorSize, (i + 1) * sectorSize);
    if (spec.chainMode === 'ecb') {
      out.set(refEcb(encrypt, key, src), i * sectorSize);
      continue;
    }
    // dm-crypt: iv_sector = sector in 512-byte units + iv_offset, then >> shift with iv_large_sectors
    let s = sector * BigInt(sectorSize / 512) + (opts.ivOffset ?? 0n);
    if (opts.ivLargeSectors) s /= BigInt(sectorSize / 512);
    if (spec.chainMode === 'hctr2') {
      out.set(refHctr2Sector(encrypt, key, src, hctr2Iv(spec.ivMode, s)), i * sectorSize);
      continue;
    }
    if (spec.chainMode === 'adiantum') {
      const rounds = spec.cipher === 'xchacha20,aes' ? 20 : 12;
      out.set(refHbsh('adiantum', rounds, key, hctr2Iv(spec.ivMode, s), src, !encrypt), i * sectorSize);
      continue;
    }
    const iv = dmCryptIv(spec.ivMode, key, s, sectorSize);
    out.set(spec.chainMode === 'cbc' ? refCbc(encrypt, key, src, iv) : refXts(encrypt, key, src, iv), i * sectorSize);
  }
  return out;
}
