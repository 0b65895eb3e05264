// The plain model of dm-crypt's IVs these tests check against: dm-crypt's iv_sector from a sector number
// (here), then the IV of that IV sector from @x/testkit's model of the crypt_iv_*_gen functions (bigint
// arithmetic modulo 2^64, node:crypto for the hashes and AES). Nothing here shares code with src/.
import { dmCryptIv } from '@x/testkit';

export { hex, toHex } from '@x/testkit';

const MASK64 = (1n << 64n) - 1n;

/** dm-crypt's iv_sector for a sector counted in sectorSize units. */
export function ivSector(sector: bigint, sectorSize: number, ivLargeSectors: boolean): bigint {
  return ivLargeSectors ? sector : (sector * BigInt(sectorSize / 512)) & MASK64;
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
  return dmCryptIv(mode, key, ivSector(sector, sectorSize, ivLargeSectors), sectorSize, salt);
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
  for (let i = 0; i < count; i++)
    out.set(referenceIv(mode, key, sectorSize, ivLargeSectors, first + BigInt(i), salt), 16 * i);
  return out;
}
