// `x-disk dump` for BitLocker: the header in the manner of `cryptsetup bitlkDump` (the same labels and
// order, so that what an examiner knows from cryptsetup reads the same here), plus what cryptsetup leaves
// out: the BitLocker type, the conversion state, how much of the volume is encrypted, and each metadata
// copy's state.
import type { ByteSource } from '@x/byte-source';
import { type DiskHeader, hex } from '@x/disk-format';
import { type BitlockerHeader, type Protection, readHeaderFrom } from './metadata.js';

const CRYPTSETUP_PROTECTION: Record<Protection, string> = {
  'clear key': 'VMK protected with clear key',
  TPM: 'VMK protected with TPM',
  'startup key': 'VMK protected with startup key',
  'TPM and PIN': 'VMK protected with TPM and PIN',
  'recovery password': 'VMK protected with recovery passphrase',
  'smart card': 'VMK protected with smart card',
  password: 'VMK protected with passphrase',
  unknown: 'VMK with unknown protection',
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');
/** C's ctime() layout, in UTC: "Thu Jul  4 06:37:58 2019". */
function ctime(d: Date): string {
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** The conversion states (dislocker's names; cryptsetup's BITLK_STATE_NORMAL for 4). */
const STATES: Record<number, string> = {
  0: 'none',
  1: 'decrypted',
  2: 'switching',
  3: 'encrypt-on-write activated',
  4: 'normal',
  5: 'paused',
};

/**
 * The header as text, in the manner of `cryptsetup bitlkDump` (cryptsetup's labels and order), with the
 * type, state, encrypted size and metadata copies added.
 *
 * @example
 * ```ts
 * import { describeBitlocker, readBitlockerHeader } from '@x/bitlocker';
 * console.log(describeBitlocker(await readBitlockerHeader(image)));
 * ```
 */
export function describeBitlocker(h: BitlockerHeader): string {
  const m = h.metadata;
  const [name, mode] = m.encryption.cipher.split(/-(.*)/);
  const size = h.imageSize - (h.imageSize % h.sectorSize);
  const encrypted = Math.min(m.encryptedSize, size);
  const state = (n: number) => STATES[n] ?? `unknown (${n})`;
  const lines = [
    `Info for BITLK${h.togo ? ' To Go' : ''} device.`,
    `Version:      \t${m.version}`,
    `GUID:         \t${m.guid}`,
    `Sector size:  \t${h.sectorSize} [bytes]`,
    `Volume size:  \t${m.encryptedSize} [bytes]`,
    `Created:      \t${ctime(m.created)}`,
    `Description:  \t${m.description}`,
    `Cipher name:  \t${name}`,
    `Cipher mode:  \t${mode}`,
    `Cipher key:   \t${m.encryption.keyBits} bits`,
    `Type:         \t${h.type}`,
    `State:        \t${state(m.state.current)}${m.state.next !== m.state.current ? `, next ${state(m.state.next)}` : ''}`,
    `Encrypted:    \t${encrypted} of ${size} [bytes] (${size === 0 ? 0 : ((100 * encrypted) / size).toFixed(1)}%)`,
    '',
    'Keyslots:',
  ];
  let n = 0;
  for (const p of m.protectors) {
    lines.push(` ${n++}: VMK`);
    if (p.name !== undefined) lines.push(`\tName:       \t${p.name}`);
    lines.push(`\tGUID:       \t${p.guid}`);
    lines.push(`\tProtection: \t${CRYPTSETUP_PROTECTION[p.protection]}`);
    lines.push(`\tSalt:       \t${p.salt ? hex(p.salt) : '0'.repeat(32)}`);
    if (p.clearKey) lines.push(`\tKey data size:\t${p.clearKey.length} [bytes]`);
    if (p.vmk) lines.push(`\tKey data size:\t${p.vmk.ciphertext.length} [bytes]`);
  }
  lines.push(` ${n}: FVEK`, `\tKey data size:\t${m.fvek.ciphertext.length} [bytes]`, '', 'Metadata segments:');
  m.metadataOffsets.forEach((o, i) => {
    const copy = h.copies[i];
    lines.push(` ${i}: FVE metadata area`, `\tOffset: \t${o} [bytes]`, `\tSize:   \t65536 [bytes]`);
    lines.push(`\tState:  \t${i === m.index ? 'in use' : copy?.problem ? `damaged: ${copy.problem}` : 'valid'}`);
  });
  lines.push(
    ` 3: Volume header`,
    `\tOffset: \t${m.volumeHeader.offset} [bytes]`,
    `\tSize:   \t${m.volumeHeader.size} [bytes]`,
    `\tCipher: \t${m.encryption.cipher}`,
  );
  return lines.join('\n');
}

/**
 * The header as plain JSON data (bytes as hex, dates as ISO strings), for `x-disk dump --json`.
 *
 * @example
 * ```ts
 * JSON.stringify(bitlockerToJson(await readBitlockerHeader(image)), null, 2);
 * ```
 */
export function bitlockerToJson(h: BitlockerHeader): unknown {
  const m = h.metadata;
  const size = h.imageSize - (h.imageSize % h.sectorSize);
  return {
    format: h.togo ? 'BitLocker To Go' : 'BitLocker',
    type: h.type,
    identifier: h.identifier,
    version: m.version,
    guid: m.guid,
    sectorSize: h.sectorSize,
    volumeSize: size,
    encryptedSize: Math.min(m.encryptedSize, size),
    state: m.state,
    created: m.created.toISOString(),
    description: m.description,
    encryption: {
      method: `0x${m.encryption.method.toString(16)}`,
      cipher: m.encryption.cipher,
      keyBits: m.encryption.keyBits,
      aesBits: m.encryption.aesBits,
    },
    protectors: m.protectors.map((p) => ({
      guid: p.guid,
      name: p.name,
      protection: p.protection,
      protectionType: `0x${p.protectionType.toString(16).padStart(4, '0')}`,
      modified: p.modified.toISOString(),
      salt: p.salt ? hex(p.salt) : undefined,
    })),
    metadata: h.copies.map((c, i) => ({ offset: c.offset, size: 65536, inUse: i === m.index, problem: c.problem })),
    volumeHeader: m.volumeHeader,
  };
}

/** The header of `source` as a DiskHeader of `@x/disk-format`, what `x-disk dump` prints. */
export async function bitlockerDiskHeader(source: ByteSource): Promise<DiskHeader> {
  const h = await readHeaderFrom(source);
  return { title: 'BitLocker', describe: () => describeBitlocker(h), toJson: () => bitlockerToJson(h) };
}
