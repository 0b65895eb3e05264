// An independent model of dm-crypt for the tests: one sector at a time, dm-crypt's iv_sector computed by
// hand with bigint arithmetic, the IV from @x/testkit's model of dm-crypt's IV modes, AES from node:crypto
// (OpenSSL) through @x/testkit's references. HCTR2 has no node:crypto reference: its sectors are single
// `encrypt`/`decrypt` calls of @x/hctr2 (checked there against the HCTR2 authors' and Linux's vectors)
// with the 32-byte IV built here by hand as dm-crypt builds it. Adiantum's sectors come from @x/testkit's
// refHbsh (Adiantum written out from its definition, BigInt arithmetic), with the same 32-byte IVs.
// BitLocker's AES-CBC + Elephant (`elephant` IV mode) is written out below from Ferguson's paper, word by
// word, with node:crypto's aes-*-cbc and aes-*-ecb for the AES parts.
import { newHctr2 } from '@x/hctr2';
import { dmCryptIv, refCbc, refEcb, refHbsh, refXts } from '@x/testkit';

export interface RefSpec {
  chainMode: 'cbc' | 'xts' | 'lrw' | 'hctr2' | 'adiantum' | 'ecb';
  ivMode: string;
  /** For adiantum: `xchacha12,aes` or `xchacha20,aes`. */
  cipher?: string;
}

const MASK64 = (1n << 64n) - 1n;

// ---- AES-CBC + Elephant diffuser (N. Ferguson, "AES-CBC + Elephant diffuser: A Disk Encryption Algorithm
// for Windows Vista", Microsoft, 2006), straight from the paper's pseudo-code: the sector is n 32-bit
// little-endian words d_0 … d_{n−1}, all indices taken mod n, and
//   diffuser A decryption:  for i = 0, 1, …, Acycles·n − 1:  d_i ← d_i + (d_{i−2} ⊕ (d_{i−5} <<< Ra_{i mod 4}))
//   diffuser B decryption:  for i = 0, 1, …, Bcycles·n − 1:  d_i ← d_i + (d_{i+2} ⊕ (d_{i+5} <<< Rb_{i mod 4}))
// with Acycles = 5, Bcycles = 3, Ra = [9, 0, 13, 0], Rb = [0, 10, 0, 25]; encryption runs i downward and
// subtracts. Plain numbers, `>>> 0` after every operation, no unrolling: slow and easy to check.

const A_CYCLES = 5;
const B_CYCLES = 3;
const RA = [9, 0, 13, 0];
const RB = [0, 10, 0, 25];

function rotl(x: number, r: number): number {
  return r === 0 ? x : ((x << r) | (x >>> (32 - r))) >>> 0;
}

/** a mod n for possibly negative a. */
function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** One Elephant diffuser over the words `d`, in place: 'A' or 'B', decryption or encryption direction. */
export function refDiffuser(which: 'A' | 'B', decrypt: boolean, d: number[]): void {
  const n = d.length;
  const cycles = which === 'A' ? A_CYCLES : B_CYCLES;
  const step = (i: number, sign: 1 | -1) => {
    const j = mod(i, n);
    const [p, q, r] =
      which === 'A' ? [mod(i - 2, n), mod(i - 5, n), RA[i % 4]] : [mod(i + 2, n), mod(i + 5, n), RB[i % 4]];
    const t = (d[p] ^ rotl(d[q], r)) >>> 0;
    d[j] = (d[j] + sign * t) >>> 0;
  };
  if (decrypt) for (let i = 0; i < cycles * n; i++) step(i, 1);
  else for (let i = cycles * n - 1; i >= 0; i--) step(i, -1);
}

/**
 * The Elephant layer alone (@x/dm-crypt's newElephant) over whole sectors from `first` on: sector s's key
 * Ks = AES-ECB(elephantKey, e ‖ e'), e = le64((first + s) << shift mod 2^64) ‖ 0^8, e' = e with byte 15 =
 * 0x80; decrypt: Ks ⊕ A⁻¹(B⁻¹(d)); encrypt: B(A(Ks ⊕ d)) (the diffusers in their encryption direction).
 */
export function refElephantLayer(
  decrypt: boolean,
  elephantKey: Uint8Array,
  data: Uint8Array,
  first: number | bigint,
  sectorSize: number,
  shift: number,
): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let s = 0; s * sectorSize < data.length; s++) {
    const e = Buffer.alloc(32);
    e.writeBigUInt64LE(((BigInt(first) + BigInt(s)) << BigInt(shift)) & MASK64, 0);
    e.copy(e, 16, 0, 16);
    e[31] = 0x80;
    const ks = Buffer.from(refEcb(true, elephantKey, new Uint8Array(e)));
    const sector = Buffer.from(data.subarray(s * sectorSize, (s + 1) * sectorSize));
    let d = Array.from({ length: sectorSize / 4 }, (_, i) => sector.readUInt32LE(4 * i));
    const withKey = () => {
      d = d.map((w, i) => (w ^ ks.readUInt32LE(4 * (i % 8))) >>> 0);
    };
    if (decrypt) {
      refDiffuser('B', true, d);
      refDiffuser('A', true, d);
      withKey();
    } else {
      withKey();
      refDiffuser('A', false, d);
      refDiffuser('B', false, d);
    }
    d.forEach((w, i) => {
      sector.writeUInt32LE(w, 4 * i);
    });
    out.set(sector, s * sectorSize);
  }
  return out;
}

/**
 * One sector of aes-cbc-elephant (dm-crypt's crypt_iv_elephant), `key` = data key ‖ elephant key, for the
 * sector whose dm-crypt IV sector number is `ivSector`:
 *   e = le64(ivSector × sectorSize) ‖ 0^8, e' = e with byte 15 = 0x80, Ks = AES-ECB(K_elephant, e ‖ e')
 *   IV = AES-ECB(K_data, e) (eboiv), decrypt: P = Ks ⊕ A⁻¹(B⁻¹(CBC⁻¹(C))), encrypt the other way round.
 */
export function refElephantSector(
  encrypt: boolean,
  key: Uint8Array,
  data: Uint8Array,
  ivSector: bigint,
  sectorSize: number,
): Uint8Array {
  const half = key.length / 2;
  const dataKey = key.subarray(0, half);
  const elephantKey = key.subarray(half);
  const shift = Math.log2(sectorSize);
  const e = Buffer.alloc(16);
  e.writeBigUInt64LE((ivSector << BigInt(shift)) & MASK64, 0);
  const iv = refEcb(true, dataKey, new Uint8Array(e));
  if (encrypt)
    return refCbc(true, dataKey, refElephantLayer(false, elephantKey, data, ivSector, sectorSize, shift), iv);
  return refElephantLayer(true, elephantKey, refCbc(false, dataKey, data, iv), ivSector, sectorSize, shift);
}

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
    if (spec.ivMode === 'elephant') {
      out.set(refElephantSector(encrypt, key, src, s, sectorSize), i * sectorSize);
      continue;
    }
    const iv = dmCryptIv(spec.ivMode, key, s, sectorSize);
    out.set(spec.chainMode === 'cbc' ? refCbc(encrypt, key, src, iv) : refXts(encrypt, key, src, iv), i * sectorSize);
  }
  return out;
}
