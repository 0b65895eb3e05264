/**
 * `@x/toy-format`: TOY, a disk format made up for the tests (no security: one SHA-256 for a "KDF"), whole
 * in one file to show what a format package is: errors that subclass `@x/disk-format`'s, detection, a
 * header read and described, a passphrase and a raw volume key, and a SectorVolume. x-disk and the web page
 * open it when it is in their list of formats: `[...FORMATS, toyFormat]`.
 *
 * The image: a 512-byte header, then the payload, `aes-xts-plain64` in 512-byte sectors.
 *
 *   0   8  "XTOYDISK"            24  8  payload size, bytes (u64le)
 *   8   4  version, 1 (u32le)    32 32  salt
 *   12  4  sector size, 512      64 32  SHA-256(volume key ‖ "check"): tells a wrong key
 *   16  8  payload offset, bytes 96 32  label, UTF-8, NUL-padded
 *
 * The volume key (32 bytes: AES-128-XTS) is SHA-256(salt ‖ passphrase).
 *
 * @example
 * ```ts
 * import { FORMATS } from '@x/disk';
 * import { makeToyImage, toyFormat } from '@x/toy-format';
 * const image = makeToyImage(plaintext, 'toy passphrase');
 * await main(['dump', 'toy.img'], process, [...FORMATS, toyFormat]); // @x/cli/x-disk
 * ```
 *
 * @packageDocumentation
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { type ByteSource, readBytes } from '@x/byte-source';
import {
  type DiskError,
  type DiskFormat,
  equalBytes,
  formatErrors,
  type HeaderError,
  payloadLayout,
  SectorVolume,
  sizeText,
  u32le,
  u64le,
  type WrongPassphraseError,
  type WrongVolumeKeyError,
} from '@x/disk-format';
import { newSectorCipher } from '@x/dm-crypt';

const MAGIC = 'XTOYDISK';
const HEADER = 512;
const SECTOR = 512;
const CIPHER = 'aes-xts-plain64';

/** Every error of this package (made by @x/disk-format, as every format's are). */
const errors = formatErrors('toy', 'ToyError');
export const ToyError = errors.FormatError;
export type ToyError = DiskError;
export const ToyHeaderError = errors.HeaderError;
export type ToyHeaderError = HeaderError;
export const ToyWrongPassphraseError = errors.WrongPassphraseError;
export type ToyWrongPassphraseError = WrongPassphraseError;
export const ToyWrongVolumeKeyError = errors.WrongVolumeKeyError;
export type ToyWrongVolumeKeyError = WrongVolumeKeyError;

/** A TOY header. */
export interface ToyHeader {
  readonly version: number;
  readonly sectorSize: number;
  readonly payloadOffset: number;
  readonly payloadSize: number;
  readonly salt: Uint8Array;
  readonly check: Uint8Array;
  readonly label: string;
}

const utf8 = new TextEncoder();
const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};
const keyOf = (salt: Uint8Array, passphrase: Uint8Array) => sha256(concat(salt, passphrase));
const checkOf = (key: Uint8Array) => sha256(concat(key, utf8.encode('check')));
const isToy = (first: Uint8Array) => first.length >= HEADER && new TextDecoder().decode(first.subarray(0, 8)) === MAGIC;

/** Reads and checks the header. */
export async function readToyHeader(source: ByteSource): Promise<ToyHeader> {
  if (source.size < HEADER) throw new ToyHeaderError(`@x/toy: the image is ${source.size} bytes, too short`);
  const b = await readBytes(source, 0, HEADER);
  if (!isToy(b)) throw new ToyHeaderError('@x/toy: not a TOY volume (no "XTOYDISK" at 0)');
  const tooLarge = (v: bigint) => new ToyHeaderError(`@x/toy: ${v} is too large`);
  const h: ToyHeader = {
    version: u32le(b, 8),
    sectorSize: u32le(b, 12),
    payloadOffset: u64le(b, 16, tooLarge),
    payloadSize: u64le(b, 24, tooLarge),
    salt: b.slice(32, 64),
    check: b.slice(64, 96),
    label: new TextDecoder().decode(b.subarray(96, 128)).replace(/\0+$/, ''),
  };
  if (h.version !== 1 || h.sectorSize !== SECTOR) throw new ToyHeaderError(`@x/toy: version ${h.version} is not 1`);
  if (h.payloadOffset + h.payloadSize > source.size) throw new ToyHeaderError('@x/toy: the image is truncated');
  return h;
}

/** The volume, once its key is checked. */
function openVolume(source: ByteSource, h: ToyHeader, key: Uint8Array, kernel?: string, share?: boolean) {
  return new SectorVolume({
    source,
    layout: payloadLayout(CIPHER, SECTOR, h.payloadOffset, h.payloadSize),
    cipher: newSectorCipher(CIPHER, key, { sectorSize: SECTOR, kernel }),
    shareKey: share ? Uint8Array.from(key) : undefined,
    prefix: '@x/toy',
    what: 'the payload',
    error: ToyError,
  });
}

/** TOY as a DiskFormat: detected by its magic, opened with a passphrase or its volume key. */
export const toyFormat: DiskFormat = {
  type: 'toy',
  name: 'TOY',
  secrets: ['passphrase'],
  clearKey: false,
  keyslots: false,
  detect: isToy,
  async readHeader(source) {
    const h = await readToyHeader(source);
    return {
      title: `TOY${h.version}`,
      describe: () =>
        `TOY header information\nLabel:          ${h.label}\nPayload:        ${h.payloadSize} bytes at ${h.payloadOffset}`,
      toJson: () => ({
        version: h.version,
        label: h.label,
        payloadOffset: h.payloadOffset,
        payloadSize: h.payloadSize,
      }),
    };
  },
  async open(source, secret, options = {}) {
    if (secret?.kind !== 'passphrase') throw new TypeError('@x/toy: a TOY volume opens with a passphrase');
    const h = await readToyHeader(source);
    const key = keyOf(h.salt, secret.bytes);
    try {
      if (!equalBytes(checkOf(key), h.check)) throw new ToyWrongPassphraseError('@x/toy: wrong passphrase');
      const volume = openVolume(source, h, key, options.kernel, options.share);
      return { volume, summary: `TOY ${CIPHER}, ${sizeText(h.payloadSize)}, passphrase, kernel ${volume.kernel}` };
    } finally {
      key.fill(0);
    }
  },
  async openWithVolumeKey(source, key, options = {}) {
    const h = await readToyHeader(source);
    if (!equalBytes(checkOf(key), h.check)) throw new ToyWrongVolumeKeyError('@x/toy: wrong volume key');
    const volume = openVolume(source, h, key, options.kernel, options.share);
    return { volume, summary: `TOY ${CIPHER}, ${sizeText(h.payloadSize)}, volume key given, kernel ${volume.kernel}` };
  },
};

/**
 * A TOY image of `plaintext` (zero-padded to whole sectors) under `passphrase`; and its volume key, for
 * the tests of `--volume-key-file`.
 */
export function makeToyImage(
  plaintext: Uint8Array,
  passphrase: string,
  label = 'toy volume',
): { image: Uint8Array<ArrayBuffer>; volumeKey: Uint8Array } {
  const size = Math.ceil(plaintext.length / SECTOR) * SECTOR;
  const image = new Uint8Array(HEADER + size);
  const salt = sha256(utf8.encode(`salt of ${label}`));
  const volumeKey = keyOf(salt, utf8.encode(passphrase));
  const v = new DataView(image.buffer);
  image.set(utf8.encode(MAGIC), 0);
  v.setUint32(8, 1, true);
  v.setUint32(12, SECTOR, true);
  v.setBigUint64(16, BigInt(HEADER), true);
  v.setBigUint64(24, BigInt(size), true);
  image.set(salt, 32);
  image.set(checkOf(volumeKey), 64);
  image.set(utf8.encode(label).subarray(0, 32), 96);
  const payload = image.subarray(HEADER);
  payload.set(plaintext);
  const c = newSectorCipher(CIPHER, volumeKey, { sectorSize: SECTOR });
  c.encrypt(payload, payload, 0);
  c.dispose();
  return { image, volumeKey };
}
