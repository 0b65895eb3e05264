// Human and JSON views of a decrypted header: the lines of `cryptsetup tcryptDump` (lib/tcrypt/tcrypt.c,
// TCRYPT_dump), label for label and tab for tab, then what else this package reads. No secrets: the key
// area is never shown.
import { jsonSafe } from '@x/disk-format';
import type { TcryptHeader } from './header.js';

/**
 * The header as JSON-safe data (for `--json`).
 *
 * @example
 * ```ts
 * JSON.stringify(tcryptToJson(volume.header!));
 * ```
 */
export function tcryptToJson(h: TcryptHeader): unknown {
  return jsonSafe(h);
}

/**
 * The header as text: cryptsetup's tcryptDump lines first, then the header's location, the derivation's
 * cost and the CRCs.
 *
 * @example
 * ```ts
 * console.log(describeTcrypt(volume.header!));
 * ```
 */
export function describeTcrypt(h: TcryptHeader): string {
  const lines: string[] = [];
  const add = (s: string) => lines.push(s);
  add(`${h.magic === 'TRUE' ? 'TCRYPT' : 'VERACRYPT'} header information`);
  add(`Version:       \t${h.version}`);
  add(`Driver req.:\t${(h.requiredVersion >> 8).toString(16)}.${(h.requiredVersion & 0xff).toString(16)}`);
  add(`Flags:       \t0x${h.flags.toString(16)}`);
  add(`Sector size:\t${h.sectorSize} [bytes]`);
  add(`MK offset:\t${h.mkOffset} [bytes]`);
  if (h.volumeSize) add(`Volume size:\t${h.volumeSize} [bytes]`);
  if (h.hiddenVolumeSize) add(`Hidden size:\t${h.hiddenVolumeSize} [bytes]`);
  if (h.kdf.prf === 'argon2id') add('PBKDF:\t\tArgon2id');
  else {
    add('PBKDF:\t\tPBKDF2');
    add(`PBKDF2 hash:\t${h.kdf.prf}`);
  }
  add(`Cipher chain:\t${h.cipher}`);
  add(`Cipher mode:\t${h.mode}`);
  add(`MK bits:       \t${h.keyBits}`);
  add(`Header:      \t${h.location} at ${h.headerOffset} [bytes]`);
  add(
    h.kdf.prf === 'argon2id'
      ? `Argon2id:    \t${h.kdf.iterations} passes, ${h.kdf.memory} KiB, ${h.kdf.parallelism} lane${h.kdf.pim === undefined ? '' : `, PIM ${h.kdf.pim}`}`
      : `Iterations:  \t${h.kdf.iterations}${h.kdf.pim === undefined ? '' : ` (PIM ${h.kdf.pim})`}${h.kdf.boot ? ' (system)' : ''}`,
  );
  add(`MK scope size:\t${h.mkSize} [bytes]`);
  add(`Keys CRC32:  \t0x${h.keysCrc32.toString(16).padStart(8, '0')}`);
  if (h.version > 3) add(`Header CRC32:\t0x${h.headerCrc32.toString(16).padStart(8, '0')}`);
  return lines.join('\n');
}
