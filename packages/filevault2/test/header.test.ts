// What readFileVault2Header refuses, and how it says so: truncated images in every region, damaged
// checksums (physical volume header, metadata block, encrypted metadata), non-Core Storage input, and
// metadata rewritten with valid checksums that breaks one rule at a time. No passphrase is needed for any
// of it: the header is refused before any key derivation.
import { beforeAll, describe, expect, it } from 'vitest';
import { crc32cWeak } from '../src/crc32c.js';
import { HeaderError, openFileVault2, readFileVault2Header, toSource } from '../src/index.js';
import { Plist } from '../src/plist.js';
import { FACTS, fixChecksum, HEADER_BYTES, imagePrefix, replaceText, rewriteEncryptedBlock } from './helpers.js';

let image: Uint8Array; // the first 9 MiB: everything the header needs

beforeAll(() => {
  image = imagePrefix(HEADER_BYTES);
});

async function refused(input: Uint8Array, message: string | RegExp): Promise<void> {
  const e = await readFileVault2Header(input).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(HeaderError);
  if (typeof message === 'string') expect((e as Error).message).toBe(message);
  else expect((e as Error).message).toMatch(message);
}

/** A copy with the physical volume header changed by `edit` and its checksum made valid again. */
function editVolumeHeader(edit: (v: DataView) => void): Uint8Array {
  const out = Uint8Array.from(image);
  edit(new DataView(out.buffer, 0, 512));
  fixChecksum(out.subarray(0, 512), crc32cWeak);
  return out;
}

const rewrite = (index: number, edit: (b: Buffer) => void) => rewriteEncryptedBlock(image, index, edit, crc32cWeak);

describe('CRC-32C (weak: no final XOR)', () => {
  it('gives the complement of the CRC-32C check value for "123456789" (RFC 3720 B.4: 0xe3069283)', () => {
    expect(crc32cWeak(new TextEncoder().encode('123456789'), 0xffffffff)).toBe(~0xe3069283 >>> 0);
  });
  it("matches the fixture's stored checksums (header, metadata block)", () => {
    const v = new DataView(image.buffer);
    expect(crc32cWeak(image.subarray(8, 512), 0xffffffff)).toBe(v.getUint32(0, true));
    expect(crc32cWeak(image.subarray(4096 + 8, 4096 + 8192), 0xffffffff)).toBe(v.getUint32(4096, true));
  });
});

describe('readFileVault2Header', () => {
  it('reads the first 9 MiB alone (the logical volume is not needed for the header)', async () => {
    const h = await readFileVault2Header(image);
    expect(h.familyUuid).toBe(FACTS.familyUuid);
    expect(h.encryptedMetadata).toEqual({ offset: 2049 * 4096, blocks: 6144, blockTypes: [0x305, 0x19, 0x1a, 0x1a] });
  });

  it('refuses images that are not Core Storage', async () => {
    await refused(
      new Uint8Array(4096),
      '@x/filevault2: not a Core Storage volume (no "CS" signature at offset 88 of the first sector)',
    );
    const luks = new Uint8Array(4096);
    luks.set([0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe, 0, 2]);
    await refused(luks, /not a Core Storage volume/);
  });

  it('refuses truncated images, saying where', async () => {
    for (const n of [0, 100, 511]) {
      await refused(
        image.subarray(0, n),
        `@x/filevault2: the image is ${n} bytes, too short for a Core Storage volume header (truncated?)`,
      );
    }
    await refused(
      image.subarray(0, 512),
      '@x/filevault2: the image is truncated: the metadata block (bytes 4096..12288) is past its end (512 bytes)',
    );
    await refused(
      image.subarray(0, 4096 + 8192 + 20),
      '@x/filevault2: the image is truncated: the volume groups descriptor (bytes 12288..12336) is past its end (12308 bytes)',
    );
    const md = 2049 * 4096;
    await refused(
      image.subarray(0, md + 100),
      `@x/filevault2: the image is truncated: encrypted metadata block 0 (at ${md}) is past its end (${md + 100} bytes)`,
    );
    await refused(
      image.subarray(0, md + 2 * 8192 + 5000),
      `@x/filevault2: the image is truncated: encrypted metadata block 2 (at ${md + 2 * 8192}) is past its end (${md + 2 * 8192 + 5000} bytes)`,
    );
  });

  it('refuses a damaged physical volume header (a byte changed, the checksum, its initial value)', async () => {
    for (const at of [0, 3, 12, 100, 180, 310, 511]) {
      const bad = Uint8Array.from(image);
      bad[at] ^= 0x10;
      await refused(
        bad,
        /^@x\/filevault2: the physical volume header is damaged: its checksum does not match \(stored 0x/,
      );
    }
    const seed = Uint8Array.from(image);
    seed[4] = 0;
    await refused(
      seed,
      '@x/filevault2: the physical volume header is damaged: its checksum initial value is 0xffffff00, not 0xffffffff',
    );
  });

  it('refuses a damaged metadata block and damaged encrypted metadata', async () => {
    const label = Uint8Array.from(image);
    label[4096 + 300] ^= 1;
    await refused(label, /^@x\/filevault2: the metadata block at 4096 is damaged: its checksum does not match/);
    for (const block of [0, 1, 2, 3]) {
      const enc = Uint8Array.from(image);
      enc[2049 * 4096 + block * 8192 + 1234] ^= 1;
      await refused(
        enc,
        new RegExp(`^@x/filevault2: encrypted metadata block ${block} is damaged: its checksum does not match`),
      );
    }
  });

  it('refuses header fields it does not support, checksums valid', async () => {
    await refused(
      editVolumeHeader((v) => v.setUint16(8, 2, true)),
      '@x/filevault2: Core Storage version 2 is not supported (1)',
    );
    await refused(
      editVolumeHeader((v) => v.setUint32(172, 1, true)),
      '@x/filevault2: encryption method 1 is not supported (2: AES-XTS)',
    );
    await refused(
      editVolumeHeader((v) => v.setUint32(168, 32, true)),
      '@x/filevault2: key data size 32 is not supported (16: AES-128)',
    );
    await refused(
      editVolumeHeader((v) => v.setUint32(96, 1000, true)),
      '@x/filevault2: block size 1000 is not a power of two from 512 to 1 MiB',
    );
    const algo = Uint8Array.from(image);
    new DataView(algo.buffer).setUint32(90, 2, true);
    await refused(algo, '@x/filevault2: checksum algorithm 2 is not supported (1: CRC-32C)');
    // the key data is the metadata key: another one decrypts the metadata to blocks whose checksums fail
    await refused(
      editVolumeHeader((v) => v.setUint8(176, v.getUint8(176) ^ 1)),
      /^@x\/filevault2: encrypted metadata block 0 is damaged: its checksum /,
    );
  });

  it('refuses encrypted metadata that breaks the format, checksums valid', async () => {
    await refused(
      rewrite(1, (b) => replaceText(b, 'PassphraseWrappedKEKStruct', 'PassphraseWrappedKEKStrucX')),
      /^@x\/filevault2: the logical volume has no passphrase-protected user \(no PassphraseWrappedKEKStruct\)/,
    );
    await refused(
      rewrite(1, (b) => b.writeUInt32LE(b.readUInt32LE(64 + 44) - 100, 64 + 40)),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): the XML is compressed (2880 of 2980 bytes), not supported',
    );
    await refused(
      rewrite(1, (b) => b.writeUInt32LE(b.readUInt32LE(64 + 52) + 100, 64 + 44)),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): the XML is compressed (2980 of 3080 bytes), not supported',
    );
    await refused(
      rewrite(1, (b) => {
        b.writeUInt32LE(3080, 64 + 40);
        b.writeUInt32LE(3080, 64 + 44);
      }),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): the XML continues in other blocks (2980 of 3080 bytes here), not supported',
    );
    await refused(
      rewrite(1, (b) => b.writeUInt32LE(8000, 64 + 48)),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): the XML (2980 bytes at 8000) is outside its 8192-byte block',
    );
    await refused(
      rewrite(1, (b) => replaceText(b, '</dict></array><key>LastUpdateTime', '</dicx></array><key>LastUpdateTime')),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): malformed XML: </dicx> where a <key> belongs',
    );
    await refused(
      rewrite(1, (b) => replaceText(b, '33A76CAA-1481-4BC5-8D04-1AC1707C19C0', '33A76CAA-1481-4BC5-8D04-1AC1707C19C1')),
      `@x/filevault2: the encryption context is for family 33a76caa-1481-4bc5-8d04-1ac1707c19c1, the logical volume is in family ${FACTS.familyUuid}`,
    );
    await refused(
      rewrite(0, (b) => b.writeUInt32LE(2, 64)),
      '@x/filevault2: the logical volume has 2 extents (metadata block 0); only one is supported',
    );
    await refused(
      rewrite(1, (b) => b.writeUInt16LE(0x1b, 10)),
      '@x/filevault2: the encrypted metadata has no block of type 0x0019 (encryption context)',
    );
    let both = rewrite(2, (b) => b.writeUInt16LE(0x1b, 10));
    both = rewriteEncryptedBlock(both, 3, (b) => b.writeUInt16LE(0x1b, 10), crc32cWeak);
    await refused(both, '@x/filevault2: the encrypted metadata has no block of type 0x001a (logical volume)');
    await refused(
      rewrite(3, (b) => replaceText(b, 'E82EC3B4-6FA6', 'E82EC3B4-6FA7')),
      /^@x\/filevault2: the volume group has 2 logical volumes \(e82ec3b4-6fa6-.*, e82ec3b4-6fa7-.*\); only one is supported$/,
    );
    await refused(
      rewrite(3, (b) => replaceText(b, '0xa000000<', '0xa000001<')),
      '@x/filevault2: the logical volume size 167772161 is not a whole number of 512-byte sectors',
    );
    await refused(
      rewrite(1, (b) => replaceText(b, 'AwAAABAAAAAsJJ7b', 'AwAAABAAAAAsJJ7*')),
      '@x/filevault2: crypto user 0: PassphraseWrappedKEKStruct is not base64',
    );
  });

  it('takes the newest record of the logical volume (the highest sequence)', async () => {
    // block 3 has sequence 3, block 2 sequence 2: a name changed only in block 2 is not the one read
    const older = rewrite(2, (b) => replaceText(b, 'Untitled', 'Untitles'));
    expect((await readFileVault2Header(older)).logicalVolumeName).toBe('Untitled');
    const newer = rewrite(3, (b) => replaceText(b, 'Untitled', 'Untitles'));
    expect((await readFileVault2Header(newer)).logicalVolumeName).toBe('Untitles');
  });

  it('open refuses a volume that is not fully encrypted, and one without an AES-XTS key, before any PBKDF2', async () => {
    const pending = rewrite(1, (b) => replaceText(b, '>Complete</string>', '>Pending</string> '));
    expect((await readFileVault2Header(pending)).conversionStatus).toBe('Pending');
    // the logical volume is past the 9 MiB, so give a source that says it is there (nothing reads it)
    const big = (bytes: Uint8Array) => {
      const s = toSource(bytes);
      return { size: 1 << 30, read: (o: number, d: Uint8Array) => s.read(o, d) };
    };
    await expect(openFileVault2(big(pending), { passphrase: 'x' })).rejects.toThrow(
      new HeaderError(
        '@x/filevault2: the logical volume is not fully encrypted (ConversionStatus Pending), not supported',
      ),
    );
    const none = rewrite(1, (b) => replaceText(b, '>AES-XTS<', '>AES-XTX<'));
    await expect(openFileVault2(big(none), { passphrase: 'x' })).rejects.toThrow(
      new HeaderError('@x/filevault2: the encryption context has no AES-XTS wrapped volume key'),
    );
  });
});

describe('the plist parser', () => {
  const parse = (s: string) => new Plist(s, 'test');
  it('reads values, IDs and references, entities, a plist wrapper', () => {
    const p = parse(
      '<?xml version="1.0"?><!DOCTYPE plist><plist version="1.0"><dict ID="0"><key>a</key><string ID="1">x &amp; &lt;y&gt; &#x41;&#66;</string>' +
        '<key>b</key><integer size="32" ID="2">0x10</integer><key>c</key><reference IDREF="1"/><key>d</key><array><true/><false/><data>AQI=</data></array>' +
        '<key>e</key><dict/><!-- comment --></dict></plist>',
    );
    expect(p.string(p.root, 'a')).toBe('x & <y> AB');
    expect(p.integer(p.root, 'b')).toBe(16n);
    expect(p.string(p.root, 'c')).toBe('x & <y> AB');
    const d = p.array(p.root, 'd');
    expect(d.slice(0, 2)).toEqual([true, false]);
    expect(p.get(p.root, 'e')).toEqual(new Map());
    expect(p.string(p.root, 'missing')).toBeUndefined();
  });
  it('refuses malformed text with a HeaderError', () => {
    for (const bad of [
      '<dict><key>a</key></dict>',
      '<dict><key>a</key><string>x</dict>',
      '<dict><string>x</string></dict>',
      '<dict><key>a</key><integer>zz</integer></dict>',
      '<dict><key>a</key><reference/></dict>',
      '<dict><key>a</key><blob/></dict>',
      '<dict>text</dict>',
      '<dict></dict><dict></dict>',
      `${'<array>'.repeat(40)}${'</array>'.repeat(40)}`,
      '<dict><key>a</key><string>&#xFFFFFF;</string></dict>',
      '<dict',
      '',
    ]) {
      expect(() => parse(bad), bad).toThrow(HeaderError);
    }
    const p = parse('<dict><key>a</key><reference IDREF="9"/><key>b</key><integer>1</integer></dict>');
    expect(() => p.string(p.root, 'a')).toThrow(
      new HeaderError('@x/filevault2: test: malformed XML: <reference IDREF="9"/> to no value'),
    );
    expect(() => p.string(p.root, 'b')).toThrow(HeaderError);
  });
});
