// A dm-crypt target's data path for AES: each sector is encrypted on its own, with the IV (CBC) or tweak
// (XTS, HCTR2) that the IV mode derives from its sector number (drivers/md/dm-crypt.c, crypt_convert_block_skcipher).
// One call covers any number of whole sectors: the IVs of all of them come from one `generate` call into
// scratch owned by the cipher, then one `decryptSectors` call does the data. `aes-cbc-elephant` (BitLocker)
// adds the sector keys of all the call's sectors (one ECB call) and the Elephant diffuser per sector
// (elephant.ts) around the CBC call.
import { type Adiantum, newAdiantum } from '@x/adiantum';
import { newCipher, type Cipher } from '@x/cbc';
import { newIvGenerator, type IvGenerator } from '@x/disk-iv';
import { newHctr2, type Hctr2 } from '@x/hctr2';
import { type Lrw, newLrw } from '@x/lrw';
import { newXts, type Xts } from '@x/xts';
import { type Elephant, newElephant } from './elephant.js';
import { parseCipherSpec, type CipherSpec } from './spec.js';
import { TcwWhitening } from './tcw.js';

const PREFIX = '@x/dm-crypt';
const TWO53 = Number.MAX_SAFE_INTEGER;

/**
 * Options of {@link newSectorCipher}.
 *
 * @example
 * ```ts
 * // a LUKS2 segment { "sector_size": 4096, "iv_tweak": "0" }
 * const options: SectorCipherOptions = { sectorSize: 4096, ivOffset: 0 };
 * ```
 */
export interface SectorCipherOptions {
  /** Encryption sector size in bytes: 512 (default), 1024, 2048 or 4096 (LUKS2 segment `sector_size`). */
  sectorSize?: number;
  /**
   * dm-crypt's `iv_large_sectors`: IV sector numbers count `sectorSize` units instead of 512-byte units.
   * Default false, as for LUKS1 and LUKS2 volumes.
   */
  ivLargeSectors?: boolean;
  /**
   * dm-crypt's `iv_offset` (LUKS2 segment `iv_tweak`), in 512-byte units, added to every IV sector
   * number; a multiple of `sectorSize / 512`. Default 0.
   */
  ivOffset?: number | bigint;
  /** Forces an AES kernel by name (see `@x/cbc`'s `kernels()`); else `X_AES_KERNEL`, else the best. */
  kernel?: string;
}

/**
 * One dm-crypt cipher bound to a key. `firstSector` counts `sectorSize` units from the start of the
 * encrypted area (the LUKS payload). Calls check every argument before writing anything; `dst` and `src`
 * may be exactly the same bytes (in place) or disjoint.
 *
 * @example
 * ```ts
 * const c: SectorCipher = newSectorCipher('aes-cbc-essiv:sha256', key);
 * c.decrypt(buf, buf, 42);   // in place, sectors 42, 43, …
 * c.dispose();
 * ```
 */
export interface SectorCipher {
  /** The parsed specification (`spec.canonical` is the old form, e.g. `aes-xts-plain64`). */
  readonly spec: CipherSpec;
  /** Sector size in bytes. */
  readonly sectorSize: number;
  /** The AES kernel in use. */
  readonly kernel: string;
  /** Decrypts the whole sectors of `src` (sectors `firstSector`, `firstSector + 1`, …) into `dst`. */
  decrypt(dst: Uint8Array, src: Uint8Array, firstSector: number | bigint): void;
  /** Encrypts the whole sectors of `src` into `dst`. */
  encrypt(dst: Uint8Array, src: Uint8Array, firstSector: number | bigint): void;
  /** Wipes the round keys and the IV scratch. Every later call throws. */
  dispose(): void;
}

function overlapsBadly(a: Uint8Array, b: Uint8Array, n: number): boolean {
  if (a.buffer !== b.buffer || n === 0) return false;
  const a0 = a.byteOffset,
    b0 = b.byteOffset;
  return a0 !== b0 && a0 < b0 + n && b0 < a0 + n;
}

class DmCryptSectorCipher implements SectorCipher {
  readonly spec: CipherSpec;
  readonly sectorSize: number;
  readonly kernel: string;
  readonly #ivOffset: number | bigint; // in sectorSize units
  #cbc: Cipher | undefined;
  #xts: Xts | undefined;
  #lrw: Lrw | undefined;
  /** aes-cbc-tcw: the whitening (the CBC part is #cbc, with the AES key). */
  #tcw: TcwWhitening | undefined;
  #hctr2: Hctr2 | undefined;
  #adiantum: Adiantum | undefined;
  /** aes-cbc-elephant: the sector keys and diffusers (the CBC part is #cbc, with the data key). */
  #elephant: Elephant | undefined;
  readonly #ivGen: IvGenerator | undefined;
  #ivs = new Uint8Array(0);
  /** The last IV view handed to the kernel: reused while the sector count stays the same. */
  #ivView = new Uint8Array(0);
  /** HCTR2, Adiantum: the 32-byte IVs (tweaks) of a call, and the view of them the last call used. */
  #tweaks = new Uint8Array(0);
  #tweakView = new Uint8Array(0);
  /** HCTR2, Adiantum: where the 16-byte IV goes in the 32-byte one (0: plain, plain64, null; 16: plain64be). */
  readonly #tweakAt: number = 0;
  #disposed = false;

  constructor(
    spec: CipherSpec,
    key: Uint8Array,
    sectorSize: number,
    ivLargeSectors: boolean,
    ivOffset: number | bigint,
    kernel: string | undefined,
  ) {
    this.spec = spec;
    this.sectorSize = sectorSize;
    this.#ivOffset = ivOffset;
    if (spec.chainMode === 'xts') {
      this.#xts = newXts(key, { kernel });
      this.kernel = this.#xts.kernel;
    } else if (spec.chainMode === 'lrw') {
      this.#lrw = newLrw(key, { kernel });
      this.kernel = this.#lrw.kernel;
    } else if (spec.ivMode === 'tcw') {
      // key = AES key ‖ IV seed ‖ whitening (dm-crypt: key_extra_size = iv_size + TCW_WHITENING_SIZE)
      this.#cbc = newCipher(key.subarray(0, key.length - 32), { kernel });
      this.kernel = this.#cbc.kernel;
      this.#tcw = new TcwWhitening(key);
    } else if (spec.chainMode === 'hctr2') {
      this.#hctr2 = newHctr2(key, { kernel });
      this.kernel = this.#hctr2.kernel;
      this.#tweakAt = spec.ivMode === 'plain64be' ? 16 : 0;
    } else if (spec.chainMode === 'adiantum') {
      this.#adiantum = newAdiantum(key, { rounds: spec.cipher === 'xchacha20,aes' ? 20 : 12, kernel });
      this.kernel = this.#adiantum.kernel;
      this.#tweakAt = spec.ivMode === 'plain64be' ? 16 : 0;
    } else if (spec.ivMode === 'elephant') {
      // key = data key ‖ elephant key (dm-crypt: key_parts 2, key_extra_size = key_size / 2); the IVs are
      // eboiv's with the data key, e's byte offset is the IV sector × sectorSize.
      const half = key.length / 2;
      this.#cbc = newCipher(key.subarray(0, half), { kernel });
      this.kernel = this.#cbc.kernel;
      const ivShift = ivLargeSectors ? 0 : Math.log2(sectorSize / 512);
      this.#elephant = newElephant(key.subarray(half), sectorSize, ivShift + Math.log2(sectorSize), { kernel });
    } else {
      this.#cbc = newCipher(key, { kernel });
      this.kernel = this.#cbc.kernel;
    }
    if (spec.ivMode !== '') {
      try {
        // elephant's IVs are eboiv's, of the data key
        const [ivMode, ivKey] = this.#elephant ? ['eboiv', key.subarray(0, key.length / 2)] : [spec.ivMode, key];
        this.#ivGen = newIvGenerator(ivMode, ivKey, { sectorSize, ivLargeSectors });
      } catch (error) {
        this.dispose();
        throw new RangeError(`${PREFIX}: unsupported cipher spec "${spec.canonical}": ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  }

  /** Checks a call and returns the number of sectors; throws before anything is written. */
  #check(dst: Uint8Array, src: Uint8Array, firstSector: number | bigint): number {
    if (this.#disposed) throw new Error(`${PREFIX}: cipher was disposed`);
    if (!(dst instanceof Uint8Array)) throw new TypeError(`${PREFIX}: dst must be a Uint8Array`);
    if (!(src instanceof Uint8Array)) throw new TypeError(`${PREFIX}: src must be a Uint8Array`);
    if (src.length % this.sectorSize !== 0) {
      throw new RangeError(
        `${PREFIX}: src is not a whole number of ${this.sectorSize}-byte sectors (${src.length} bytes)`,
      );
    }
    if (dst.length < src.length)
      throw new RangeError(`${PREFIX}: dst is shorter than src (${dst.length} < ${src.length} bytes)`);
    if (overlapsBadly(dst, src, src.length))
      throw new RangeError(`${PREFIX}: dst and src overlap without being the same bytes`);
    if (typeof firstSector === 'number') {
      if (!Number.isSafeInteger(firstSector) || firstSector < 0) {
        throw new RangeError(
          `${PREFIX}: firstSector ${firstSector} is not a non-negative safe integer (pass a bigint past 2^53 - 1)`,
        );
      }
    } else if (typeof firstSector === 'bigint') {
      if (firstSector < 0n) throw new RangeError(`${PREFIX}: firstSector ${firstSector} is negative`);
    } else {
      throw new TypeError(`${PREFIX}: firstSector must be a number or a bigint`);
    }
    return src.length / this.sectorSize;
  }

  /** `firstSector` plus the IV offset (in `sectorSize` units): the sector number the IV mode sees. */
  #ivSector(firstSector: number | bigint): number | bigint {
    const off = this.#ivOffset;
    if (off === 0) return firstSector;
    if (typeof firstSector === 'number' && typeof off === 'number' && firstSector + off <= TWO53) {
      return firstSector + off;
    }
    return BigInt(firstSector) + BigInt(off);
  }

  /** The IVs (or tweaks) of `count` sectors from `firstSector` on, in the cipher's scratch. */
  #ivsFor(firstSector: number | bigint, count: number): Uint8Array {
    return this.#ivsAt(this.#ivSector(firstSector), count);
  }

  /** The IVs of `count` sectors from IV-mode sector `s` on (checks that the last one fits in 64 bits). */
  #ivsAt(s: number | bigint, count: number): Uint8Array {
    const bytes = 16 * count;
    if (this.#ivView.length !== bytes) {
      if (this.#ivs.length < bytes) {
        this.#ivs.fill(0);
        this.#ivs = new Uint8Array(bytes);
      }
      this.#ivView = this.#ivs.subarray(0, bytes);
    }
    this.#ivGen!.generate(this.#ivView, s, count);
    return this.#ivView;
  }

  /**
   * HCTR2's and Adiantum's 32-byte IVs of `count` sectors: dm-crypt zeroes the IV (the template's ivsize, 32 bytes) and
   * writes the sector number where the IV mode says, which is the 16-byte IV at byte 0 (plain, plain64,
   * null) or at byte 16 (plain64be, whose big-endian number ends the IV), the other 16 bytes zero.
   */
  #tweaksFor(firstSector: number | bigint, count: number): Uint8Array {
    const ivs = this.#ivsFor(firstSector, count);
    const bytes = 32 * count;
    if (this.#tweakView.length !== bytes) {
      if (this.#tweaks.length < bytes) {
        this.#tweaks.fill(0);
        this.#tweaks = new Uint8Array(bytes);
      }
      this.#tweakView = this.#tweaks.subarray(0, bytes);
    }
    const t = this.#tweakView;
    const at = this.#tweakAt;
    for (let i = 0; i < count; i++) {
      for (let j = 0; j < 16; j++) {
        t[32 * i + at + j] = ivs[16 * i + j];
        t[32 * i + 16 - at + j] = 0;
      }
    }
    return t;
  }

  decrypt(dst: Uint8Array, src: Uint8Array, firstSector: number | bigint): void {
    const count = this.#check(dst, src, firstSector);
    if (count === 0) return;
    const size = this.sectorSize;
    if (this.spec.chainMode === 'ecb') {
      this.#cbc!.decryptECB(dst, src);
    } else if (this.spec.chainMode === 'xts') {
      this.#xts!.decryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    } else if (this.spec.chainMode === 'lrw') {
      this.#lrw!.decryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    } else if (this.#tcw) {
      // the whitening off the ciphertext (into dst), then CBC⁻¹ of every sector in place
      const s = this.#ivSector(firstSector);
      const ivs = this.#ivsAt(s, count); // the range check comes before anything is written
      this.#tcw.apply(dst, src, s, count);
      this.#cbc!.decryptSectors(dst, dst, size, ivs);
    } else if (this.spec.chainMode === 'hctr2') {
      this.#hctr2!.decryptSectors(dst, src, size, this.#tweaksFor(firstSector, count));
    } else if (this.spec.chainMode === 'adiantum') {
      this.#adiantum!.decryptSectors(dst, src, size, this.#tweaksFor(firstSector, count));
    } else if (this.#elephant) {
      // CBC⁻¹ of every sector in one call, then per sector diffuser B, diffuser A, ⊕ its sector key.
      const s = this.#ivSector(firstSector);
      const ivs = this.#ivsAt(s, count); // the range check comes before anything is written
      this.#elephant.sectorKeys(s, count);
      this.#cbc!.decryptSectors(dst, src, size, ivs);
      this.#elephant.decrypt(dst, count);
    } else {
      this.#cbc!.decryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    }
  }

  encrypt(dst: Uint8Array, src: Uint8Array, firstSector: number | bigint): void {
    const count = this.#check(dst, src, firstSector);
    if (count === 0) return;
    const size = this.sectorSize;
    if (this.spec.chainMode === 'ecb') {
      this.#cbc!.encryptECB(dst, src);
    } else if (this.spec.chainMode === 'xts') {
      this.#xts!.encryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    } else if (this.spec.chainMode === 'lrw') {
      this.#lrw!.encryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    } else if (this.#tcw) {
      // CBC of every sector, then the whitening on the ciphertext
      const s = this.#ivSector(firstSector);
      const ivs = this.#ivsAt(s, count);
      this.#cbc!.encryptSectors(dst, src, size, ivs);
      this.#tcw.apply(dst, dst, s, count);
    } else if (this.spec.chainMode === 'hctr2') {
      // One HCTR2 message per sector: every bit of a sector depends on every bit of it.
      this.#hctr2!.encryptSectors(dst, src, size, this.#tweaksFor(firstSector, count));
    } else if (this.spec.chainMode === 'adiantum') {
      // Adiantum too: one wide-block message per sector.
      this.#adiantum!.encryptSectors(dst, src, size, this.#tweaksFor(firstSector, count));
    } else if (this.#elephant) {
      // Per sector ⊕ its sector key, diffuser A, diffuser B, into dst; then CBC of every sector in place.
      const s = this.#ivSector(firstSector);
      const ivs = this.#ivsAt(s, count);
      this.#elephant.sectorKeys(s, count);
      const diffused = this.#elephant.encrypt(dst, src, count);
      this.#cbc!.encryptSectors(diffused, diffused, size, ivs);
    } else {
      // One CBC chain per sector (NIST SP 800-38A §6.2); the kernel runs the chains side by side.
      this.#cbc!.encryptSectors(dst, src, size, this.#ivsFor(firstSector, count));
    }
  }

  dispose(): void {
    this.#disposed = true;
    this.#cbc?.dispose();
    this.#xts?.dispose();
    this.#lrw?.dispose();
    this.#tcw?.dispose();
    this.#hctr2?.dispose();
    this.#adiantum?.dispose();
    this.#elephant?.dispose();
    this.#ivGen?.dispose(); // essiv's and eboiv's round keys
    this.#cbc = this.#xts = this.#lrw = this.#hctr2 = this.#adiantum = this.#elephant = undefined;
    this.#tcw = undefined;
    this.#ivs.fill(0);
    this.#tweaks.fill(0);
  }
}

const SECTOR_SIZES = [512, 1024, 2048, 4096];

/**
 * Creates the sector cipher of a dm-crypt cipher spec for `key`: `aes-cbc-<ivmode>` with every IV mode of
 * `@x/disk-iv` (`plain`, `plain64`, `plain64be`, `benbi`, `null`, `essiv:<hash>`, `eboiv`),
 * `aes-xts-<ivmode>` (`plain64`, `plain`, `plain64be`, `benbi`, `null`), `aes-hctr2-<ivmode>` (`plain64`,
 * `plain`, `plain64be`, `null`; Linux `hctr2(aes)`, 32-byte IVs), `xchacha12,aes-adiantum-<ivmode>` and
 * `xchacha20,aes-adiantum-<ivmode>` (the same IV modes; Linux `adiantum(xchacha12,aes)`), `aes-cbc-elephant`
 * (BitLocker's AES-CBC + Elephant diffuser of Windows Vista and 7: eboiv IVs with the data key, sector keys
 * from the elephant key, the diffusers A and B), `aes-lrw-<ivmode>` (Linux `lrw(aes)`, TrueCrypt 4.1–4.3:
 * `benbi`, and the other IV modes xts takes), `aes-cbc-tcw` (TrueCrypt 1.0–4.0's CBC with whitening,
 * 512-byte sectors only), `aes-ecb`, and the `capi:` forms of the same
 * (`capi:xts(aes)-plain64`, `capi:hctr2(aes)-plain64`, `capi:adiantum(xchacha12,aes)-plain64`,
 * `capi:cbc(aes)-essiv:sha256`, `capi:cbc(aes)-elephant`, `capi:ecb(aes)`).
 *
 * Keys: 16, 24 or 32 bytes for cbc, hctr2 and ecb; 32 or 64 bytes (key1 ‖ key2) for xts; 32 or 64 bytes
 * (data key ‖ elephant key, AES-128 or AES-256) for cbc-elephant; 32 for adiantum; 32, 40 or 48 (AES key ‖
 * 16-byte tweak key) for lrw; 48, 56 or 64 (AES key ‖ 16-byte IV seed ‖ 16-byte whitening) for cbc-tcw.
 *
 * @throws TypeError for arguments of the wrong type; RangeError for an unsupported spec, a key length the
 *   spec does not take, a bad sector size or an `ivOffset` that is not a whole number of sectors.
 * @example
 * ```ts
 * import { newSectorCipher } from '@x/dm-crypt';
 * const c = newSectorCipher('aes-xts-plain64', volumeKey, { sectorSize: 4096 });
 * c.decrypt(plain, disk, 0);            // every 4096-byte sector of `disk`, sectors 0, 1, …
 * c.encrypt(disk2, plain, 100n);        // the same data as sectors 100, 101, …
 * c.dispose();
 * ```
 */
export function newSectorCipher(spec: string, key: Uint8Array, options: SectorCipherOptions = {}): SectorCipher {
  const parsed = parseCipherSpec(spec);
  if (!(key instanceof Uint8Array)) throw new TypeError(`${PREFIX}: key must be a Uint8Array`);
  if (options === null || typeof options !== 'object') throw new TypeError(`${PREFIX}: options must be an object`);
  const sectorSize = options.sectorSize ?? 512;
  if (typeof sectorSize !== 'number') throw new TypeError(`${PREFIX}: sectorSize must be a number`);
  if (!SECTOR_SIZES.includes(sectorSize))
    throw new RangeError(`${PREFIX}: sector size ${sectorSize} is not 512, 1024, 2048 or 4096`);
  const lengths =
    parsed.chainMode === 'xts' || parsed.ivMode === 'elephant'
      ? [32, 64]
      : parsed.chainMode === 'adiantum'
        ? [32]
        : parsed.chainMode === 'lrw'
          ? [32, 40, 48]
          : parsed.ivMode === 'tcw'
            ? [48, 56, 64]
            : [16, 24, 32];
  if (!lengths.includes(key.length)) {
    throw new RangeError(
      `${PREFIX}: ${parsed.canonical} takes a key of ${lengths.join(' or ')} bytes, got ${key.length}`,
    );
  }
  const ivLargeSectors = options.ivLargeSectors ?? false;
  if (typeof ivLargeSectors !== 'boolean') throw new TypeError(`${PREFIX}: ivLargeSectors must be a boolean`);
  const rawOffset = options.ivOffset ?? 0;
  if (typeof rawOffset !== 'number' && typeof rawOffset !== 'bigint')
    throw new TypeError(`${PREFIX}: ivOffset must be a number or a bigint`);
  if (typeof rawOffset === 'number' && (!Number.isSafeInteger(rawOffset) || rawOffset < 0)) {
    throw new RangeError(`${PREFIX}: ivOffset ${rawOffset} is not a non-negative safe integer`);
  }
  const off = BigInt(rawOffset);
  const per = BigInt(sectorSize / 512);
  if (off < 0n || off % per !== 0n) {
    throw new RangeError(
      `${PREFIX}: ivOffset ${off} (512-byte units) is not a whole number of ${sectorSize}-byte sectors`,
    );
  }
  // dm-crypt adds iv_offset in 512-byte units, before iv_large_sectors divides by the sector size; for an
  // offset of whole sectors both come to the same: firstSector + ivOffset / (sectorSize / 512).
  const units = off / per;
  const ivOffset = units <= BigInt(TWO53) ? Number(units) : units;
  return new DmCryptSectorCipher(parsed, key, sectorSize, ivLargeSectors, ivOffset, options.kernel);
}
