// Editing the JSON metadata of a LUKS2 image in place, both copies, with their checksums recomputed, for
// volumes that cryptsetup cannot make on a machine without device-mapper (e.g. an Adiantum segment).
//
// LUKS2 on-disk format (Broz, "LUKS2 On-Disk Format Specification", §2 "Binary header", §3 "JSON area";
// libluksde "Volume header - format version 2"): the primary copy is at 0 and the secondary at hdr_size;
// each is a 4096-byte binary header (magic "LUKS\xba\xbe" or "SKUL\xba\xbe", version 2 at 6, hdr_size at 8,
// seqid at 16, csum_alg at 72, hdr_offset at 256, csum at 0x1C0) followed by the JSON area, a NUL-terminated
// JSON text zero-padded to hdr_size − 4096 bytes. csum is the csum_alg hash over the copy's hdr_size bytes
// with the 64-byte csum field zeroed, zero-filled after the digest.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const BINARY_SIZE = 4096;
const CSUM_OFFSET = 0x1c0;
const CSUM_FIELD = 64;
const CSUM_ALG_OFFSET = 72;
const CSUM_ALG_FIELD = 32;
const MAGIC = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe]; // "LUKS\xba\xbe"
const MAGIC_SECONDARY = [0x53, 0x4b, 0x55, 0x4c, 0xba, 0xbe]; // "SKUL\xba\xbe"
// hdr_size: 16 KiB … 4 MiB, powers of two (the spec's list of allowed metadata sizes)
const HEADER_SIZES = [0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000];

/** What {@link editLuks2Json} rewrote. */
export interface Luks2JsonEdit {
  /** hdr_size: binary header + JSON area, bytes; the secondary copy starts here. */
  readonly headerSize: number;
  /** csum_alg of the copies, e.g. `sha256`. */
  readonly checksumAlgorithm: string;
  /** The new checksums, hex, primary then secondary. */
  readonly checksums: readonly [string, string];
}

function fail(path: string, msg: string): never {
  throw new Error(`@x/containers: ${path}: ${msg}`);
}

const u64 = (b: Uint8Array, at: number) => Number(Buffer.from(b.buffer, b.byteOffset + at, 8).readBigUInt64BE());

function cString(b: Uint8Array, at: number, length: number): string {
  const field = b.subarray(at, at + length);
  const end = field.indexOf(0);
  return Buffer.from(field.subarray(0, end < 0 ? length : end)).toString('latin1');
}

/** The csum of one copy: `alg` over its bytes with the csum field zeroed (the field is left zeroed). */
function checksum(copy: Uint8Array, alg: string): Buffer {
  copy.fill(0, CSUM_OFFSET, CSUM_OFFSET + CSUM_FIELD);
  return createHash(alg).update(copy).digest();
}

/**
 * Gives the LUKS2 header copy at `offset` of `image` (`size` bytes: its hdr_size) a fresh checksum in
 * place, `alg` over the copy with the csum field zeroed, whatever the copy holds: for tests that change a
 * header on purpose and need the JSON parser (ours, cryptsetup's) to be reached.
 *
 * @example
 * ```ts
 * image[4096 + 2] ^= 1;                   // a byte of the primary JSON area
 * resealLuks2Copy(image, 0, 16384);       // its checksum holds again
 * ```
 */
export function resealLuks2Copy(image: Uint8Array, offset: number, size: number, alg = 'sha256'): void {
  const copy = image.subarray(offset, offset + size);
  copy.set(checksum(copy, alg), CSUM_OFFSET);
}

/**
 * Checks one copy (magic, version 2, hdr_size, hdr_offset, its stored checksum) and returns its JSON;
 * a copy that is already damaged is refused rather than given a fresh checksum.
 */
function readJson(path: string, copy: Uint8Array, at: number, headerSize: number, alg: string): unknown {
  const which = at === 0 ? 'primary header' : `secondary header at ${at}`;
  const magic = at === 0 ? MAGIC : MAGIC_SECONDARY;
  if (!magic.every((x, i) => copy[i] === x)) fail(path, `${which}: no LUKS2 magic`);
  if (copy[6] !== 0 || copy[7] !== 2) fail(path, `${which}: not version 2`);
  if (u64(copy, 8) !== headerSize) fail(path, `${which}: hdr_size ${u64(copy, 8)} differs from the primary's`);
  if (u64(copy, 256) !== at) fail(path, `${which}: hdr_offset ${u64(copy, 256)} is not ${at}`);
  if (cString(copy, CSUM_ALG_OFFSET, CSUM_ALG_FIELD) !== alg)
    fail(path, `${which}: csum_alg differs from the primary's`);
  const stored = Buffer.from(copy.subarray(CSUM_OFFSET, CSUM_OFFSET + CSUM_FIELD));
  const computed = checksum(copy, alg);
  if (!stored.subarray(0, computed.length).equals(computed)) fail(path, `${which}: checksum mismatch (corrupt)`);
  const area = copy.subarray(BINARY_SIZE);
  const end = area.indexOf(0);
  if (end < 0) fail(path, `${which}: the JSON area has no terminating NUL`);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(area.subarray(0, end)));
  } catch (e) {
    fail(path, `${which}: the JSON area is not valid JSON (${(e as Error).message})`);
  }
}

/**
 * Rewrites the JSON metadata of the LUKS2 image at `path` in place: each header copy's JSON is parsed,
 * handed to `edit` (which changes it in place), serialized again into the same JSON area (NUL-terminated,
 * zero-padded to its size, which does not change) and the copy's checksum recomputed. Everything else
 * (binary header fields, seqid, keyslot areas, payload) stays as it was. Both copies must be intact and
 * the new JSON must fit; otherwise nothing is written.
 *
 * It exists for tests that need a LUKS2 volume cryptsetup cannot make here; the result is checked by
 * `cryptsetup luksDump`, which verifies both checksums and the JSON.
 *
 * @throws Error naming the file and the problem (not LUKS2, a damaged copy, JSON too large).
 * @example
 * ```ts
 * await editLuks2Json('/tmp/volume.img', (json) => {
 *   (json as { segments: Record<string, { iv_tweak: string }> }).segments['0'].iv_tweak = '8';
 * });
 * ```
 */
export async function editLuks2Json(path: string, edit: (json: unknown) => void): Promise<Luks2JsonEdit> {
  const fh = await open(path, 'r+');
  try {
    const first = new Uint8Array(BINARY_SIZE);
    if ((await fh.read(first, 0, BINARY_SIZE, 0)).bytesRead !== BINARY_SIZE) fail(path, 'too short for LUKS2');
    const headerSize = u64(first, 8);
    if (!HEADER_SIZES.includes(headerSize)) fail(path, `hdr_size ${headerSize} is not one LUKS2 allows`);
    const alg = cString(first, CSUM_ALG_OFFSET, CSUM_ALG_FIELD);
    let digestLength: number;
    try {
      digestLength = createHash(alg).digest().length;
    } catch {
      fail(path, `checksum algorithm "${alg}" is not known to node:crypto`);
    }
    if (digestLength > CSUM_FIELD) fail(path, `checksum algorithm "${alg}" is longer than the csum field`);

    // read and check both copies before writing anything
    const copies = [0, headerSize].map((at) => ({ at, bytes: new Uint8Array(headerSize) }));
    for (const c of copies) {
      if ((await fh.read(c.bytes, 0, headerSize, c.at)).bytesRead !== headerSize)
        fail(path, `the header copy at ${c.at} is truncated`);
    }
    const encoded = copies.map((c) => {
      const json = readJson(path, c.bytes, c.at, headerSize, alg);
      edit(json);
      const text = Buffer.from(JSON.stringify(json), 'utf8');
      if (text.length + 1 > headerSize - BINARY_SIZE)
        fail(
          path,
          `the edited JSON (${text.length} bytes) does not fit the ${headerSize - BINARY_SIZE}-byte JSON area`,
        );
      return text;
    });

    const sums: string[] = [];
    for (const [i, c] of copies.entries()) {
      // JSON area: the text, then zeros to its end (the NUL terminator included)
      c.bytes.fill(0, BINARY_SIZE);
      c.bytes.set(encoded[i], BINARY_SIZE);
      const sum = checksum(c.bytes, alg);
      c.bytes.set(sum, CSUM_OFFSET);
      sums.push(sum.toString('hex'));
    }
    for (const c of copies) await fh.write(c.bytes, 0, headerSize, c.at);
    await fh.sync();
    return { headerSize, checksumAlgorithm: alg, checksums: [sums[0], sums[1]] };
  } finally {
    await fh.close();
  }
}

/**
 * Sets the dm-crypt cipher (`encryption`) of a LUKS2 crypt segment, in both header copies, through
 * {@link editLuks2Json}; keyslots, digests and payload are untouched, so the payload must then be
 * (re)encrypted with the new cipher by the caller. Returns the cipher it replaced.
 *
 * What it is for: cryptsetup needs device-mapper to make a volume with a cipher the kernel must check
 * (e.g. `xchacha12,aes-adiantum-plain64`); a test makes an ordinary container with a key of the right
 * size, renames its cipher with this function, writes the payload itself, and has `cryptsetup luksDump`
 * confirm that the header is valid.
 *
 * @throws Error when segment `segment` is missing or is not a crypt segment, or as {@link editLuks2Json}.
 * @example
 * ```ts
 * const c = await makeLuks2Container({ cipher: 'aes-xts-plain64', keySize: 256 });
 * const before = await setLuks2SegmentCipher(c.path, 'xchacha12,aes-adiantum-plain64');
 * // before === 'aes-xts-plain64'; now encrypt c.original with Adiantum into the payload
 * ```
 */
export async function setLuks2SegmentCipher(path: string, cipher: string, segment = '0'): Promise<string> {
  if (typeof cipher !== 'string' || cipher === '')
    throw new TypeError('@x/containers: cipher must be a non-empty string');
  const previous: string[] = [];
  await editLuks2Json(path, (json) => {
    const segs = (json as { segments?: Record<string, { type?: unknown; encryption?: unknown }> }).segments;
    const s = segs?.[segment];
    if (s?.type !== 'crypt' || typeof s.encryption !== 'string') fail(path, `no crypt segment ${segment}`);
    // called for the primary, then the secondary, before anything is written
    if (previous.length > 0 && previous[0] !== s.encryption)
      fail(path, `the two header copies disagree on segment ${segment}'s cipher`);
    previous.push(s.encryption);
    s.encryption = cipher;
  });
  return previous[0];
}
