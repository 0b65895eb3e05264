// Which LUKS version an image holds, and its header (LUKS1 spec §3.1–3.2: magic, then version; LUKS2
// keeps the same magic and version field in its binary header).
import { HeaderError, LuksError } from './errors.js';
import { LUKS1_PHDR_SIZE, LUKS_MAGIC, parseLuks1, type Luks1Header } from './luks1.js';
import { readLuks2, type Luks2Header } from './luks2.js';
import { ImageError } from '@x/byte-source';
import { u16be } from '@x/disk-format';
import { readBytes, toSource, type ByteSource, type LuksInput } from './source.js';

/**
 * A LUKS1 or LUKS2 header; `version` tells which.
 *
 * @example
 * ```ts
 * const h: LuksHeader = await readHeader(bytes);
 * const cipher = h.version === 1 ? h.cipher : h.segments[0].encryption;
 * ```
 */
export type LuksHeader = Luks1Header | Luks2Header;

/** Reads the header from a source (used by {@link readHeader} and `openLuks`). */
export async function readHeaderFrom(source: ByteSource): Promise<LuksHeader> {
  if (source.size < LUKS1_PHDR_SIZE) {
    throw new HeaderError(`@x/luks: the image is ${source.size} bytes, too short for a LUKS header (truncated?)`);
  }
  let start: Uint8Array;
  try {
    start = await readBytes(source, 0, LUKS1_PHDR_SIZE);
  } catch (e) {
    if (e instanceof ImageError || (e instanceof LuksError && !(e instanceof HeaderError)))
      throw new HeaderError(e.message.replace(/^@x\/byte-source: /, '@x/luks: '), { cause: e });
    throw e;
  }
  const magic = LUKS_MAGIC.every((x, i) => start[i] === x);
  const version = u16be(start, 6);
  if (magic && version === 1) return parseLuks1(start, source.size);
  // cryptsetup reads version 0 (or no magic) as a damaged LUKS2 primary, whose secondary may still be there
  // (LUKS2_hdr_version_unlocked, _crypt_load_luks); a version above 2 is one it does not know
  if (magic && version > 2) throw new HeaderError(`@x/luks: LUKS version ${version} is not supported (1, 2)`);
  try {
    return await readLuks2(source);
  } catch (e) {
    if (!magic && e instanceof HeaderError) {
      throw new HeaderError(`@x/luks: not a LUKS volume (no LUKS magic at offset 0, no LUKS2 secondary header)`, {
        cause: e,
      });
    }
    throw e;
  }
}

/**
 * Reads the LUKS1 or LUKS2 header of an image given as bytes, a Blob/File or a {@link ByteSource}. For
 * LUKS2 the checksums are verified and the secondary copy is used when the primary is damaged.
 *
 * @throws HeaderError for anything that is not a readable LUKS header.
 * @example
 * ```ts
 * import { readHeader } from '@x/luks';
 * const h = await readHeader(imageBytes);
 * if (h.version === 2) console.log(h.segments[0].encryption, h.keyslots.length);
 * else console.log(h.cipher, h.keyslots.filter((k) => k.active).length);
 * ```
 */
export async function readHeader(input: LuksInput): Promise<LuksHeader> {
  return readHeaderFrom(toSource(input));
}
