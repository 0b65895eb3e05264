// Human and JSON views of a header (for a dump command): the fields `cryptsetup fvault2Dump` shows, in its
// layout, then what else this package reads.
import type { ByteSource } from '@x/byte-source';
import { type DiskHeader, hex, jsonSafe } from '@x/disk-format';
import { type FileVault2Header, readHeaderFrom } from './header.js';

/** Keys left out of the JSON: the wrapped keys, which with the salts are all a passphrase guesser needs. */
const SECRET_KEYS = new Set(['wrappedKek', 'wrappedKey']);

/**
 * The header as JSON-safe data (for `--json`): every parsed field, byte arrays (salts) in base64, absent
 * optional fields left out. The RFC 3394-wrapped keys are left out: with the salts and iteration counts
 * they are exactly what an offline passphrase search needs, and a dump is often pasted somewhere.
 *
 * @example
 * ```ts
 * import { fileVault2ToJson, readFileVault2Header } from '@x/filevault2';
 * console.log(JSON.stringify(fileVault2ToJson(await readFileVault2Header(bytes)), null, 2));
 * ```
 */
export function fileVault2ToJson(h: FileVault2Header): unknown {
  return jsonSafe(h, (key, value) => SECRET_KEYS.has(key) || value === undefined);
}

/** Bytes as cryptsetup prints them here: `%02x ` each, so with a space after the last. */
const grouped = (b: Uint8Array) => `${hex(b, ' ')} `;

/**
 * A text description of the header. Its first lines are those of `cryptsetup fvault2Dump` (cryptsetup
 * lib/fvault2/fvault2.c, FVAULT2_dump), label for label and tab for tab, so that the two can be compared
 * field by field; the lines after them are what cryptsetup does not show. No secrets.
 *
 * @example
 * ```ts
 * import { describeFileVault2, readFileVault2Header } from '@x/filevault2';
 * console.log(describeFileVault2(await readFileVault2Header(bytes)));
 * ```
 */
export function describeFileVault2(h: FileVault2Header): string {
  const lines: string[] = [];
  const add = (s: string) => lines.push(s);
  add('Header information for FVAULT2 (FileVault 2, Core Storage) device.');
  add(`Physical volume UUID: \t${h.physicalVolumeUuid}`);
  add(`Family UUID:          \t${h.familyUuid}`);
  add(`Logical volume offset:\t${h.logicalVolumeOffset} [bytes]`);
  add(`Logical volume size:  \t${h.logicalVolumeSize} [bytes]`);
  add('Cipher:               \taes');
  add('Cipher mode:          \txts-plain64');
  add(`PBKDF2 iterations:    \t${h.pbkdf2.iterations}`);
  add(`PBKDF2 salt:          \t${grouped(h.pbkdf2.salt)}`);
  add(`Logical volume UUID:  \t${h.logicalVolumeUuid}`);
  add(`Logical volume name:  \t${h.logicalVolumeName ?? '(none)'}`);
  add(`Content hint:         \t${h.contentHint ?? '(none)'}`);
  add(`Volume group UUID:    \t${h.groupUuid}`);
  add(`Physical volume size: \t${h.physicalVolumeSize} [bytes]`);
  add(`Block size:           \t${h.blockSize} [bytes]`);
  add(`Metadata blocks:      \t${h.metadataBlocks.join(', ')} (${h.metadataSize} bytes each)`);
  add(
    `Encrypted metadata:   \t${h.encryptedMetadata.offset} [bytes], block types ${h.encryptedMetadata.blockTypes.map((t) => `0x${t.toString(16).padStart(4, '0')}`).join(' ')}`,
  );
  add(`Checksum:             \tCRC-32C`);
  add(`Volume key:           \t${h.keySize * 2 * 8} bits (XTS-AES-${h.keySize * 8})`);
  if (h.conversionStatus !== undefined) add(`Conversion status:    \t${h.conversionStatus}`);
  add('Crypto users:');
  for (const u of h.cryptoUsers) {
    add(
      `  ${u.index}: ${u.userIdent ?? '(no ident)'}${u.userType === undefined ? '' : `, type 0x${u.userType.toString(16)}`}`,
    );
    add(`     PBKDF2:     pbkdf2-sha256, ${u.pbkdf2.iterations} iterations`);
    add(`     Salt:       ${grouped(u.pbkdf2.salt).trimEnd()}`);
    if (u.kekIdent !== undefined) add(`     KEK:        ${u.kekIdent}`);
    if (u.passphraseHint !== undefined) add(`     Hint:       ${u.passphraseHint}`);
  }
  add('Wrapped volume keys:');
  for (const k of h.wrappedVolumeKeys) {
    add(`  ${k.index}: ${k.blockAlgorithm}${k.volumeKeyIdent === undefined ? '' : `, ${k.volumeKeyIdent}`}`);
    if (k.kekIdent !== undefined) add(`     KEK:        ${k.kekIdent}`);
  }
  return lines.join('\n');
}

/** The header of `source` as a DiskHeader of `@x/disk-format`, what `x-disk dump` prints. */
export async function fileVault2DiskHeader(source: ByteSource): Promise<DiskHeader> {
  const h = await readHeaderFrom(source);
  return { title: 'FileVault 2', describe: () => describeFileVault2(h), toJson: () => fileVault2ToJson(h) };
}
