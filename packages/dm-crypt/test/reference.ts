// An independent model of dm-crypt for the tests: one sector at a time, dm-crypt's iv_sector computed by
// hand with bigint arithmetic, the IV from @x/testkit's model of dm-crypt's IV modes, AES from node:crypto
// (OpenSSL) through @x/testkit's references.
import { dmCryptIv, refCbc, refEcb, refXts } from '@x/testkit';

export interface RefSpec {
  chainMode: 'cbc' | 'xts' | 'ecb';
  ivMode: string;
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
    const iv = dmCryptIv(spec.ivMode, key, s, sectorSize);
    out.set(spec.chainMode === 'cbc' ? refCbc(encrypt, key, src, iv) : refXts(encrypt, key, src, iv), i * sectorSize);
  }
  return out;
}
