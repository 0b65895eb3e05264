// Human and JSON views of a header, for `x-luks dump` (the fields luksDump shows).
import type { ByteSource } from '@x/byte-source';
import { type DiskHeader, hex, jsonSafe } from '@x/disk-format';
import { type LuksHeader, readHeaderFrom } from './header.js';

/**
 * The header as JSON-safe data (`x-luks dump --json`): every parsed field, byte arrays in base64.
 *
 * @example
 * ```ts
 * import { headerToJson, readHeader } from '@x/luks';
 * console.log(JSON.stringify(headerToJson(await readHeader(bytes)), null, 2));
 * ```
 */
export function headerToJson(h: LuksHeader): Record<string, unknown> {
  // byte arrays in base64, as LUKS2 JSON stores them; the raw JSON text of a LUKS2 header left out
  return jsonSafe(h, (key) => key === 'json') as Record<string, unknown>;
}

const grouped = (b: Uint8Array) => hex(b, ' ');

/**
 * A text description of the header, in the spirit of `cryptsetup luksDump` (no secrets: salts and
 * digests are public header fields).
 *
 * @example
 * ```ts
 * import { describeHeader, readHeader } from '@x/luks';
 * console.log(describeHeader(await readHeader(bytes)));
 * ```
 */
export function describeHeader(h: LuksHeader): string {
  const lines: string[] = [];
  const add = (s: string) => lines.push(s);
  if (h.version === 1) {
    add('LUKS header information (version 1)');
    add(`UUID:            ${h.uuid}`);
    add(`Cipher:          ${h.cipher}`);
    add(`Hash spec:       ${h.hashSpec}`);
    add(`Payload offset:  ${h.payloadOffset} sectors (${h.payloadOffset * 512} bytes)`);
    add(`Volume key:      ${h.keyBytes * 8} bits`);
    add(`MK digest:       ${grouped(h.mkDigest)}`);
    add(`MK iterations:   ${h.mkDigestIterations}`);
    add('Keyslots:');
    for (const k of h.keyslots) {
      if (!k.active) {
        add(`  ${k.index}: disabled`);
        continue;
      }
      add(
        `  ${k.index}: enabled  pbkdf2-${h.hashSpec}, ${k.iterations} iterations, ${k.stripes} stripes, key material at sector ${k.keyMaterialOffset}`,
      );
    }
    return lines.join('\n');
  }
  add('LUKS header information (version 2)');
  add(`UUID:            ${h.uuid}`);
  add(`Label:           ${h.label || '(no label)'}`);
  add(`Subsystem:       ${h.subsystem || '(no subsystem)'}`);
  add(`Epoch (seqid):   ${h.seqid}`);
  add(`Metadata area:   ${h.headerSize} bytes, ${h.checksumAlgorithm} checksum, read from the ${h.copy} copy`);
  for (const p of h.problems) add(`  warning: ${p}`);
  add(`Keyslots area:   ${h.config.keyslotsSize} bytes`);
  if (h.config.flags.length) add(`Flags:           ${h.config.flags.join(' ')}`);
  if (h.config.requirements.length) add(`Requirements:    ${h.config.requirements.join(' ')}`);
  add('Data segments:');
  for (const s of h.segments) {
    add(`  ${s.id}: ${s.type}`);
    add(`     offset: ${s.offset} [bytes]`);
    add(`     length: ${s.size === 'dynamic' ? '(whole device)' : `${s.size} [bytes]`}`);
    add(`     cipher: ${s.encryption}`);
    add(`     sector: ${s.sectorSize} [bytes]`);
    if (s.ivTweak !== 0n) add(`     IV tweak: ${s.ivTweak}`);
  }
  add('Keyslots:');
  for (const k of h.keyslots) {
    add(`  ${k.id}: ${k.type}`);
    add(`     Key:        ${k.keySize * 8} bits`);
    add(`     Priority:   ${['ignored', 'normal', 'preferred'][k.priority] ?? k.priority}`);
    if (k.area) add(`     Cipher:     ${k.area.encryption} (${k.area.keySize * 8}-bit key)`);
    if (k.kdf?.type === 'pbkdf2') add(`     PBKDF:      pbkdf2-${k.kdf.hash}, ${k.kdf.iterations} iterations`);
    else if (k.kdf)
      add(`     PBKDF:      ${k.kdf.type}, time ${k.kdf.time}, memory ${k.kdf.memory} KiB, ${k.kdf.cpus} threads`);
    if (k.af) add(`     AF:         ${k.af.stripes} stripes, ${k.af.hash}`);
    if (k.area) add(`     Area:       ${k.area.offset} + ${k.area.size} [bytes]`);
  }
  add('Digests:');
  for (const d of h.digests) {
    add(`  ${d.id}: ${d.type}${d.type === 'pbkdf2' ? `-${d.hash}, ${d.iterations} iterations` : ''}`);
    add(`     keyslots ${d.keyslots.join(', ') || '-'}; segments ${d.segments.join(', ') || '-'}`);
    if (d.digest.length) add(`     digest: ${grouped(d.digest)}`);
  }
  const tokens = Object.keys(h.tokens);
  add(`Tokens:          ${tokens.length ? tokens.join(', ') : '(none)'}`);
  return lines.join('\n');
}

/** The header of `source` as a DiskHeader of `@x/disk-format`, what `x-luks dump` and `x-disk dump` print. */
export async function luksDiskHeader(source: ByteSource): Promise<DiskHeader> {
  const h = await readHeaderFrom(source);
  return { title: `LUKS${h.version}`, describe: () => describeHeader(h), toJson: () => headerToJson(h) };
}
