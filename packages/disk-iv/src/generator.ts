// Per-sector IVs of dm-crypt's IV modes (drivers/md/dm-crypt.c, "Different IV generation algorithms"),
// for AES (16-byte IVs). Sector numbers are unsigned 64-bit, kept as two 32-bit halves so the hot loop
// needs neither bigint nor allocation; essiv and eboiv encrypt their blocks in batches through @x/cbc.
import { newCipher, type Cipher } from '@x/cbc';
import { ESSIV_HASHES } from './essiv-hashes.js';

/** Options of {@link newIvGenerator}. */
export interface IvGeneratorOptions {
  /** Encryption sector size in bytes: 512 (default), 1024, 2048 or 4096. */
  sectorSize?: number;
  /**
   * dm-crypt's `iv_large_sectors`: IV sector numbers count `sectorSize` units instead of 512-byte units.
   * Default false (LUKS1/LUKS2 volumes); BitLocker volumes with 4096-byte sectors set it.
   */
  ivLargeSectors?: boolean;
}

/** Makes the 16-byte IVs of one IV mode, for one volume key and sector size. */
export interface IvGenerator {
  /** The mode name as given to {@link newIvGenerator}, e.g. `"essiv:sha256"`. */
  readonly mode: string;
  /**
   * Writes `count` 16-byte IVs to `ivs[0 .. 16 × count)`, for the sectors `firstSector … firstSector +
   * count − 1` counted in units of `sectorSize`. Sector numbers are 64-bit: pass a bigint past 2^53 − 1.
   * Throws (and writes nothing) on a negative, fractional or too large sector, a bad count, or `ivs`
   * shorter than `16 × count`.
   */
  generate(ivs: Uint8Array, firstSector: number | bigint, count: number): void;
  /**
   * Wipes the AES round keys that essiv and eboiv hold (and their scratch). Later calls to
   * {@link generate} throw. Not in dm-crypt's terms, but this project's rule: keys are wiped on dispose.
   */
  dispose(): void;
}

const Kind = { Null: 0, Plain: 1, Plain64: 2, Plain64Be: 3, Benbi: 4, Essiv: 5, Eboiv: 6, Tcw: 7 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/** Blocks per encryptECB call for essiv/eboiv: 1 KiB of scratch, enough for every kernel's batch width. */
const BATCH = 64;
const TWO32 = 0x1_0000_0000;
const U64_END = 1n << 64n;

// AES-CBC key lengths (essiv hands the key to cbc(aes); eboiv encrypts with it); the modes that do not use
// the key also take AES-XTS keys (32, 48 or 64 bytes) and LRW-AES keys (K1 ‖ the 16-byte K2: 32, 40 or 48),
// so one generator serves aes-xts-plain64 and aes-lrw-benbi too. tcw's key is dm-crypt's whole key for
// aes-cbc-tcw: the AES key ‖ the 16-byte IV seed ‖ the 16-byte whitening (48, 56 or 64 bytes).
const CBC_KEY_LENGTHS = [16, 24, 32];
const ANY_AES_VOLUME_KEY_LENGTHS = [16, 24, 32, 40, 48, 56, 64];
const TCW_KEY_LENGTHS = [48, 56, 64];

function fail(Err: typeof TypeError | typeof RangeError, msg: string): never {
  throw new Err(`@x/disk-iv: ${msg}`);
}

class DmCryptIvGenerator implements IvGenerator {
  readonly mode: string;
  readonly #kind: Kind;
  /** log2 of the 512-byte units per sector when IV sectors count 512-byte units, else 0. */
  readonly #ivShift: number;
  /** log2(sectorSize), for eboiv's byte offset. */
  readonly #sectorShift: number;
  readonly #cipher: Cipher | undefined;
  readonly #in: Uint8Array;
  // views of the first 16·n bytes of the scratch, n = 1 … BATCH, made once so generate() allocates nothing
  readonly #inViews: Uint8Array[] = [];
  readonly #outViews: Uint8Array[] = [];
  /** tcw: the IV seed (16 bytes of the key, wiped on dispose). */
  readonly #seed: Uint8Array;
  #disposed = false;

  constructor(
    mode: string,
    kind: Kind,
    sectorSize: number,
    ivLargeSectors: boolean,
    cipher?: Cipher,
    seed: Uint8Array = new Uint8Array(0),
  ) {
    this.mode = mode;
    this.#seed = seed;
    this.#kind = kind;
    this.#sectorShift = Math.log2(sectorSize);
    this.#ivShift = ivLargeSectors ? 0 : this.#sectorShift - 9;
    this.#cipher = cipher;
    this.#in = new Uint8Array(cipher ? 16 * BATCH : 0);
    if (cipher) {
      const out = new Uint8Array(16 * BATCH);
      for (let n = 0; n <= BATCH; n++) {
        this.#inViews.push(this.#in.subarray(0, 16 * n));
        this.#outViews.push(out.subarray(0, 16 * n));
      }
    }
    Object.freeze(this);
  }

  dispose(): void {
    this.#cipher?.dispose();
    this.#in.fill(0);
    this.#outViews[BATCH]?.fill(0);
    this.#seed.fill(0);
    this.#disposed = true;
  }

  generate(ivs: Uint8Array, firstSector: number | bigint, count: number): void {
    if (this.#disposed) throw new Error('@x/disk-iv: generator was disposed');
    if (!(ivs instanceof Uint8Array)) fail(TypeError, 'ivs must be a Uint8Array');
    if (typeof count !== 'number') fail(TypeError, 'count must be a number');
    if (!Number.isSafeInteger(count) || count < 0) fail(RangeError, `count ${count} is not a non-negative integer`);
    if (ivs.length < 16 * count) fail(RangeError, `ivs holds ${ivs.length} bytes, ${count} IVs need ${16 * count}`);

    // IV sector number of firstSector (dm-crypt's iv_sector), as 32-bit halves
    const shift = this.#ivShift;
    let lo: number;
    let hi: number;
    if (typeof firstSector === 'number') {
      if (!Number.isInteger(firstSector) || firstSector < 0) {
        fail(RangeError, `sector ${firstSector} is not a non-negative integer`);
      }
      if (firstSector > Number.MAX_SAFE_INTEGER) {
        fail(RangeError, `sector ${firstSector} is past 2^53 - 1; pass it as a bigint`);
      }
      // firstSector < 2^53 and shift <= 3: at most 2^56, but split before shifting to stay exact
      const fHi = Math.floor(firstSector / TWO32);
      const scaledLo = (firstSector - fHi * TWO32) * 2 ** shift;
      const carry = Math.floor(scaledLo / TWO32);
      lo = scaledLo - carry * TWO32;
      hi = fHi * 2 ** shift + carry;
    } else if (typeof firstSector === 'bigint') {
      if (firstSector < 0n) fail(RangeError, `sector ${firstSector} is negative`);
      // the last sector's IV sector number must fit in 64 bits, as dm-crypt's sector_t does
      const last = firstSector + BigInt(Math.max(count, 1) - 1);
      if (last << BigInt(shift) >= U64_END) {
        fail(RangeError, `sector ${last}: its IV sector number does not fit in 64 bits`);
      }
      const s = firstSector << BigInt(shift);
      lo = Number(s & 0xffff_ffffn);
      hi = Number(s >> 32n);
    } else {
      fail(TypeError, 'firstSector must be a number or a bigint');
    }

    const step = 1 << shift;
    switch (this.#kind) {
      case Kind.Null: // null: all zero
        ivs.fill(0, 0, 16 * count);
        return;
      case Kind.Plain: // plain: le32(sector mod 2^32), zero padded
      case Kind.Plain64: // plain64: le64(sector), zero padded
      case Kind.Plain64Be: // plain64be: be64(sector) in the last 8 bytes
      case Kind.Benbi: // benbi: be64((sector << 5) + 1) in the last 8 bytes: 1-based count of 16-byte blocks
      case Kind.Tcw: // tcw: seed ⊕ (le64(sector) ‖ le64(sector))
        this.#counters(ivs, count, lo, hi, step);
        return;
      default: // essiv, eboiv
        this.#encrypted(ivs, count, lo, hi, step);
    }
  }

  #counters(ivs: Uint8Array, count: number, lo: number, hi: number, step: number): void {
    const kind = this.#kind;
    ivs.fill(0, 0, 16 * count);
    for (let o = 0; o < 16 * count; o += 16) {
      if (kind === Kind.Plain || kind === Kind.Plain64) {
        putLe32(ivs, o, lo);
        if (kind === Kind.Plain64) putLe32(ivs, o + 4, hi);
      } else if (kind === Kind.Plain64Be) {
        putBe32(ivs, o + 8, hi);
        putBe32(ivs, o + 12, lo);
      } else if (kind === Kind.Tcw) {
        // dm-crypt's crypt_iv_tcw_gen: iv = iv_seed, both 8-byte halves ⊕ le64(sector)
        const seed = this.#seed;
        for (let h = 0; h < 16; h += 8) {
          putLe32(ivs, o + h, lo);
          putLe32(ivs, o + h + 4, hi);
        }
        for (let x = 0; x < 16; x++) ivs[o + x] ^= seed[x];
      } else {
        // benbi shift = 9 - log2(16) = 5; the low 5 bits are then 0, so "+ 1" cannot carry
        putBe32(ivs, o + 8, ((hi << 5) | (lo >>> 27)) >>> 0);
        putBe32(ivs, o + 12, ((lo << 5) | 1) >>> 0);
      }
      lo += step;
      if (lo >= TWO32) {
        lo -= TWO32;
        hi = (hi + 1) >>> 0;
      }
    }
  }

  // essiv: E_salt(le64(sector)), salt = hash(volume key) — the essiv(cbc(aes),hash) template.
  // eboiv: E_K(le64(sector × sectorSize)), the byte offset encrypted with the volume key itself.
  #encrypted(ivs: Uint8Array, count: number, lo: number, hi: number, step: number): void {
    const cipher = this.#cipher!;
    const src = this.#in;
    const k = this.#kind === Kind.Eboiv ? this.#sectorShift : 0;
    // bytes 8..15 of every scratch block stay zero from construction on. The run is cut into equal
    // batches of at most BATCH blocks (65 → 33 + 32, not 64 + 1), so no call is short when count >= 8.
    let batches = Math.ceil(count / BATCH);
    for (let done = 0; done < count; batches--) {
      const n = Math.ceil((count - done) / batches);
      for (let o = 0; o < 16 * n; o += 16) {
        if (k === 0) {
          putLe32(src, o, lo);
          putLe32(src, o + 4, hi);
        } else {
          putLe32(src, o, (lo << k) >>> 0);
          putLe32(src, o + 4, ((hi << k) | (lo >>> (32 - k))) >>> 0);
        }
        lo += step;
        if (lo >= TWO32) {
          lo -= TWO32;
          hi = (hi + 1) >>> 0;
        }
      }
      cipher.encryptECB(this.#outViews[n], this.#inViews[n]);
      ivs.set(this.#outViews[n], 16 * done);
      done += n;
    }
  }
}

function putLe32(b: Uint8Array, o: number, v: number): void {
  b[o] = v;
  b[o + 1] = v >>> 8;
  b[o + 2] = v >>> 16;
  b[o + 3] = v >>> 24;
}

function putBe32(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = v >>> 16;
  b[o + 2] = v >>> 8;
  b[o + 3] = v;
}

/**
 * Makes an IV generator for one of dm-crypt's IV modes, byte-identical to Linux dm-crypt and cryptsetup:
 * `plain`, `plain64`, `plain64be`, `benbi`, `null`, `essiv:<hash>` (hash `sha256`, `md5`, `sha3-256` or
 * `blake2b-256`), `eboiv` and `tcw`. The volume key is the AES key of the data (16, 24 or 32 bytes; the modes
 * that do not use it also take AES-XTS keys of 32, 48 or 64 bytes and LRW-AES keys of 32, 40 or 48, and 56).
 * `tcw` (TrueCrypt 1.0–4.0's CBC, dm-crypt's `aes-cbc-tcw`) takes dm-crypt's whole key, the AES key ‖ the
 * 16-byte IV seed ‖ the 16-byte whitening (48, 56 or 64 bytes), 512-byte sectors only, and gives
 * seed ⊕ (le64(sector) ‖ le64(sector)); the whitening of the data is `@x/dm-crypt`'s. essiv hashes the key
 * once here; the generator keeps no copy of the key, only the AES key schedule that essiv and eboiv need and
 * tcw's 16-byte seed (wiped by `dispose`).
 *
 * @example
 * ```ts
 * import { newIvGenerator } from '@x/disk-iv';
 * const gen = newIvGenerator('essiv:sha256', volumeKey);      // a LUKS aes-cbc-essiv:sha256 volume
 * const ivs = new Uint8Array(16 * 8);
 * gen.generate(ivs, 0, 8);                                    // IVs of sectors 0..7
 * const big = newIvGenerator('plain64', volumeKey, { sectorSize: 4096 });
 * big.generate(ivs, 2n ** 60n, 8);                            // 64-bit sector numbers as bigint
 * ```
 */
export function newIvGenerator(mode: string, volumeKey: Uint8Array, options?: IvGeneratorOptions): IvGenerator {
  if (typeof mode !== 'string') fail(TypeError, 'mode must be a string');
  if (!(volumeKey instanceof Uint8Array)) fail(TypeError, 'volumeKey must be a Uint8Array');
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    fail(TypeError, 'options must be an object');
  }
  const sectorSize = options?.sectorSize ?? 512;
  if (typeof sectorSize !== 'number') fail(TypeError, 'sectorSize must be a number');
  if (sectorSize !== 512 && sectorSize !== 1024 && sectorSize !== 2048 && sectorSize !== 4096) {
    fail(RangeError, `sector size ${sectorSize} is not a power of two from 512 to 4096`);
  }
  const ivLargeSectors = options?.ivLargeSectors ?? false;
  if (typeof ivLargeSectors !== 'boolean') fail(TypeError, 'ivLargeSectors must be a boolean');

  const keyLengths = (lengths: number[]) => {
    if (!lengths.includes(volumeKey.length)) {
      fail(RangeError, `${mode} takes a ${lengths.join(', ')}-byte volume key, not ${volumeKey.length} bytes`);
    }
  };
  const make = (kind: Kind, cipher?: Cipher) => new DmCryptIvGenerator(mode, kind, sectorSize, ivLargeSectors, cipher);

  switch (mode) {
    case 'null':
      keyLengths(ANY_AES_VOLUME_KEY_LENGTHS);
      return make(Kind.Null);
    case 'plain':
      keyLengths(ANY_AES_VOLUME_KEY_LENGTHS);
      return make(Kind.Plain);
    case 'plain64':
      keyLengths(ANY_AES_VOLUME_KEY_LENGTHS);
      return make(Kind.Plain64);
    case 'plain64be':
      keyLengths(ANY_AES_VOLUME_KEY_LENGTHS);
      return make(Kind.Plain64Be);
    case 'benbi':
      keyLengths(ANY_AES_VOLUME_KEY_LENGTHS);
      return make(Kind.Benbi);
    case 'eboiv':
      keyLengths(CBC_KEY_LENGTHS);
      return make(Kind.Eboiv, newCipher(volumeKey));
    case 'tcw':
      // dm-crypt: "Unsupported sector size for TCW" unless 512; the seed is key[len − 32 .. len − 16)
      keyLengths(TCW_KEY_LENGTHS);
      if (sectorSize !== 512) fail(RangeError, `tcw takes 512-byte sectors only, not ${sectorSize}`);
      return new DmCryptIvGenerator(
        mode,
        Kind.Tcw,
        sectorSize,
        ivLargeSectors,
        undefined,
        volumeKey.slice(volumeKey.length - 32, volumeKey.length - 16),
      );
  }
  if (mode.startsWith('essiv:')) {
    const hashName = mode.slice('essiv:'.length);
    const hash = ESSIV_HASHES.get(hashName);
    if (!hash) {
      fail(RangeError, `essiv hash "${hashName}" is not supported (supported: ${[...ESSIV_HASHES.keys()].join(', ')})`);
    }
    keyLengths(CBC_KEY_LENGTHS);
    const salt = hash(volumeKey);
    try {
      return make(Kind.Essiv, newCipher(salt));
    } finally {
      salt.fill(0);
    }
  }
  if (mode === 'essiv') fail(RangeError, 'essiv needs a hash: essiv:<hash>, e.g. essiv:sha256');
  fail(
    RangeError,
    `unknown IV mode "${mode}" (known: plain, plain64, plain64be, benbi, null, essiv:<hash>, eboiv, tcw)`,
  );
}
