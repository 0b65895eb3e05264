// The sector volume every format opens: the plaintext volume as runs (extents) of the image, decrypted by
// one dm-crypt sector cipher, zeros, or bytes copied as they are. LUKS and FileVault 2 are one run (the
// payload); BitLocker is many (its metadata areas read as zeros, its moved boot sector). `read` checks its
// arguments the same way for all (checkSectorRead), reads the ciphertext into `dst` and decrypts it in
// place; `close` wipes the cipher's keys, and reads after it are refused.
//
// The layout is plain data (no secret), so that another thread can open the same volume from it and the
// volume key, without the format's code, without the secret and without a key derivation: `share()`.
import { type ByteSource, checkSectorRead } from '@x/byte-source';

/**
 * A run of the plaintext volume, byte offsets `start … end` of it: `crypt` bytes decrypted from the image at
 * `from`, `plain` bytes copied from there, or `zero`s. All multiples of the sector size.
 *
 * @example
 * ```ts
 * const payload: Extent = { start: 0, end: payloadSize, kind: 'crypt', from: payloadOffset };
 * ```
 */
export interface Extent {
  readonly start: number;
  readonly end: number;
  readonly kind: 'zero' | 'crypt' | 'plain';
  /** Where the bytes come from in the image (crypt, plain). */
  readonly from: number;
}

/**
 * Everything but the key that makes a volume: the dm-crypt cipher and its options, and the runs.
 *
 * @example
 * ```ts
 * const layout: VolumeLayout = {
 *   cipher: 'aes-xts-plain64', sectorSize: 4096, ivOrigin: payloadOffset,
 *   extents: [{ start: 0, end: payloadSize, kind: 'crypt', from: payloadOffset }],
 * };
 * ```
 */
export interface VolumeLayout {
  /** The dm-crypt cipher spec, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  readonly sectorSize: number;
  /** dm-crypt's `iv_offset` (LUKS2 `iv_tweak`), 512-byte units. */
  readonly ivOffset?: number | bigint;
  /** dm-crypt's `iv_large_sectors` (BitLocker). */
  readonly ivLargeSectors?: boolean;
  /** The image offset of IV sector 0: a crypt byte at image offset `x` is in IV sector `(x − ivOrigin) / sectorSize`. */
  readonly ivOrigin: number;
  /** The runs, sorted, covering the volume exactly from 0. */
  readonly extents: readonly Extent[];
}

/**
 * What another thread needs to open the same volume: its layout and a copy of its volume key (which the
 * receiver wipes once its cipher is made), and the AES kernel in use.
 *
 * @example
 * ```ts
 * const shared = volume.share?.(); // undefined unless opened with { share: true }
 * ```
 */
export interface SharedVolume {
  readonly layout: VolumeLayout;
  readonly volumeKey: Uint8Array;
  readonly kernel: string;
}

/** The part of `@x/dm-crypt`'s SectorCipher a volume uses (a structural type: this package does not load it). */
export interface VolumeCipher {
  readonly kernel: string;
  decrypt(dst: Uint8Array, src: Uint8Array, firstSector: number): void;
  dispose(): void;
}

/**
 * An unlocked volume of any format: `read` decrypts whole sectors from `firstSector` (counted from the start
 * of the volume) into `dst`, `close` wipes the keys.
 *
 * @example
 * ```ts
 * const buf = new Uint8Array(volume.sectorSize * 8);
 * await volume.read(buf, 0);
 * volume.close();
 * ```
 */
export interface DiskVolume {
  /** 512 … 4096. */
  readonly sectorSize: number;
  /** The volume's bytes, a whole number of sectors. */
  readonly payloadSize: number;
  /** The AES kernel decrypting it. */
  readonly kernel: string;
  /**
   * Decrypts sectors `firstSector …` into `dst`, a whole number of sectors within the volume: the ciphertext
   * is read into `dst` and decrypted in place. On failure `dst` is zeroed.
   */
  read(dst: Uint8Array, firstSector: number): Promise<void>;
  /** Wipes the key material held (round keys, IV scratch); later reads throw. The source stays open. */
  close(): void;
  /** The layout and a copy of the key for another thread, once; undefined unless the volume was opened to share. */
  share?(): SharedVolume | undefined;
}

/**
 * A volume as a format package opens it: a {@link DiskVolume} that also says what it is.
 *
 * @example
 * ```ts
 * const v: FormatVolume = await openLuks(source, { passphrase });
 * console.log(v.uuid, v.cipher, v.keySize * 8, v.payloadOffset);
 * ```
 */
export interface FormatVolume extends DiskVolume {
  /** The volume's UUID (LUKS), GUID (BitLocker) or logical volume UUID (FileVault 2). */
  readonly uuid: string;
  /** Its dm-crypt cipher spec, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  /** Its volume key's length in bytes (for XTS both halves). */
  readonly keySize: number;
  /** Where its first byte is in the image (BitLocker: 0, the plaintext volume starts where the image does). */
  readonly payloadOffset: number;
  /** Opened with `share: true`: its layout and volume key for another thread, once. */
  share(): SharedVolume | undefined;
}

/** How a format makes its {@link SectorVolume}. */
export interface SectorVolumeInit {
  readonly source: ByteSource;
  readonly layout: VolumeLayout;
  /** The cipher made from the volume key with the layout's options; the volume owns it (close disposes it). */
  readonly cipher: VolumeCipher;
  /** A copy of the volume key to hand to {@link SectorVolume.share} (the volume owns and wipes it); none: no sharing. */
  readonly shareKey?: Uint8Array;
  /** The prefix of its messages, e.g. `@x/luks`. */
  readonly prefix: string;
  /** What its messages call the volume, e.g. `the payload`. */
  readonly what: string;
  /** The error class of a read after close (the format's base class). */
  readonly error: new (
    message: string,
  ) => Error;
}

/**
 * The volume of {@link DiskVolume}, over the runs of a {@link VolumeLayout}. Format packages extend it with
 * their own fields (header, uuid, …).
 *
 * @example
 * ```ts
 * const volume = new SectorVolume({ source, layout, cipher: newSectorCipher(layout.cipher, key, { sectorSize: 512 }),
 *   prefix: '@x/toy', what: 'the volume', error: Error });
 * ```
 */
export class SectorVolume implements DiskVolume {
  readonly sectorSize: number;
  readonly payloadSize: number;
  readonly kernel: string;
  readonly layout: VolumeLayout;
  #cipher: VolumeCipher | undefined;
  #shareKey: Uint8Array | undefined;
  readonly #init: SectorVolumeInit;

  constructor(init: SectorVolumeInit) {
    const { layout } = init;
    this.#init = init;
    this.layout = layout;
    this.sectorSize = layout.sectorSize;
    this.payloadSize = layout.extents.length === 0 ? 0 : layout.extents[layout.extents.length - 1].end;
    this.kernel = init.cipher.kernel;
    this.#cipher = init.cipher;
    this.#shareKey = init.shareKey;
  }

  /**
   * Decrypts sectors `firstSector …` into `dst`, a whole number of sectors within the volume: the ciphertext
   * is read into `dst` and decrypted in place (one cipher call per run). On failure `dst` is zeroed.
   */
  async read(dst: Uint8Array, firstSector: number): Promise<void> {
    const { prefix, what, error: Err, source } = this.#init;
    const c = this.#cipher;
    if (!c) throw new Err(`${prefix}: the volume is closed`);
    const s = this.sectorSize;
    const start = checkSectorRead(prefix, dst, firstSector, s, this.payloadSize, what);
    const end = start + dst.length;
    try {
      for (const x of this.layout.extents) {
        if (x.end <= start) continue;
        if (x.start >= end) break;
        const a = Math.max(x.start, start);
        const part = dst.subarray(a - start, Math.min(x.end, end) - start);
        if (x.kind === 'zero') {
          part.fill(0);
          continue;
        }
        const from = x.from + (a - x.start);
        await source.read(from, part);
        if (x.kind === 'crypt') {
          if (this.#cipher !== c) throw new Err(`${prefix}: the volume was closed during a read`);
          c.decrypt(part, part, (from - this.layout.ivOrigin) / s);
        }
      }
    } catch (e) {
      dst.fill(0);
      throw e;
    }
  }

  /** The layout and the volume key for another thread, once (the key is then the caller's to wipe). */
  share(): SharedVolume | undefined {
    const key = this.#shareKey;
    this.#shareKey = undefined;
    if (!key || !this.#cipher) return undefined;
    return { layout: this.layout, volumeKey: key, kernel: this.kernel };
  }

  /** Wipes the keys held (round keys, IV scratch, a key kept to share); later reads throw. The source stays open. */
  close(): void {
    this.#cipher?.dispose();
    this.#cipher = undefined;
    this.#shareKey?.fill(0);
    this.#shareKey = undefined;
  }
}

/**
 * The layout of a volume that is one encrypted run: `size` bytes at `offset` of the image (LUKS, FileVault 2).
 *
 * @example
 * ```ts
 * const layout = payloadLayout('aes-xts-plain64', 4096, payloadOffset, payloadSize);
 * ```
 */
export function payloadLayout(
  cipher: string,
  sectorSize: number,
  offset: number,
  size: number,
  options: { readonly ivOffset?: number | bigint } = {},
): VolumeLayout {
  return {
    cipher,
    sectorSize,
    ivOffset: options.ivOffset,
    ivOrigin: offset,
    extents: size > 0 ? [{ start: 0, end: size, kind: 'crypt', from: offset }] : [],
  };
}
