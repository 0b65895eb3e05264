// What readFileVault2Header refuses, and how it says so: truncated images in every region, damaged
// checksums (physical volume header, metadata block, encrypted metadata), non-Core Storage input, and
// metadata rewritten with valid checksums that breaks one rule at a time. No passphrase is needed for any
// of it: the header is refused before any key derivation.
import { detectFormat, undetectedReason } from '@x/disk-format';
import { beforeAll, describe, expect, it } from 'vitest';
import { crc32cWeak } from '../src/crc32c.js';
import {
  fileVault2Format,
  HeaderError,
  isFileVault2,
  openFileVault2,
  readFileVault2Header,
  toSource,
} from '../src/index.js';
import { MAX_CRYPTO_USERS, MAX_METADATA_OFFSET } from '../src/header.js';
import { Plist, PLIST_LIMITS } from '../src/plist.js';
import {
  editXml,
  FACTS,
  fixChecksum,
  HEADER_BYTES,
  imagePrefix,
  replaceText,
  rewriteEncryptedBlock,
} from './helpers.js';

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
    // cryptsetup fvault2Dump refuses this too (it searches for a non-empty KEKWrappedVolumeKeyStruct)
    await refused(
      rewrite(1, (b) => editXml(b, (xml) => xml.replaceAll('KEKWrappedVolumeKeyStruct', 'KEKWrappedVolumeKeyStrucX'))),
      '@x/filevault2: encrypted metadata block 1 (type 0x0019): the encryption context has no wrapped volume key (no KEKWrappedVolumeKeyStruct)',
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

describe('detection by the "CS" signature: a Core Storage header that is damaged or unsupported says what is wrong', () => {
  // Before: isFileVault2 also asked for version 1, CRC-32C and a matching checksum, so each of these was
  // "no known signature" in x-disk and the web page; now it is detected, and readHeader/open name the fault.
  const cases: [string, () => Uint8Array, string | RegExp][] = [
    [
      'another checksum algorithm (its CRC-32C valid)',
      () => editVolumeHeader((v) => v.setUint32(90, 2, true)),
      '@x/filevault2: checksum algorithm 2 is not supported (1: CRC-32C)',
    ],
    [
      'another checksum algorithm (the checksum as it was)',
      () => {
        const b = Uint8Array.from(image);
        new DataView(b.buffer).setUint32(90, 0x100, true);
        return b;
      },
      '@x/filevault2: checksum algorithm 256 is not supported (1: CRC-32C)',
    ],
    [
      'another version',
      () => editVolumeHeader((v) => v.setUint16(8, 2, true)),
      '@x/filevault2: Core Storage version 2 is not supported (1)',
    ],
    [
      'a checksum that does not match',
      () => {
        const b = Uint8Array.from(image);
        b[200] ^= 1;
        return b;
      },
      /^@x\/filevault2: the physical volume header is damaged: its checksum does not match \(stored 0x/,
    ],
    [
      'another checksum initial value',
      () => {
        const b = Uint8Array.from(image);
        b[7] = 0;
        return b;
      },
      '@x/filevault2: the physical volume header is damaged: its checksum initial value is 0xffffff, not 0xffffffff',
    ],
  ];
  for (const [name, make, message] of cases) {
    it(name, async () => {
      const b = make();
      expect(isFileVault2(b.subarray(0, 512))).toBe(true);
      expect(await detectFormat(toSource(b), [fileVault2Format])).toBe(fileVault2Format);
      const header = await fileVault2Format.readHeader(toSource(b)).catch((e: unknown) => e);
      expect(header).toBeInstanceOf(HeaderError);
      expect((header as Error).message).toMatch(message);
      const secret = { kind: 'passphrase' as const, bytes: new TextEncoder().encode(FACTS.passphrase) };
      const opened = await fileVault2Format.open(toSource(b), secret).catch((e: unknown) => e);
      expect(opened).toBeInstanceOf(HeaderError);
      expect((opened as Error).message).toBe((header as Error).message);
    });
  }

  it('without the signature it is not detected: no known signature', async () => {
    const b = Uint8Array.from(image);
    b[89] = 0x54; // "CT"
    expect(isFileVault2(b.subarray(0, 512))).toBe(false);
    expect(await detectFormat(toSource(b), [fileVault2Format])).toBeUndefined();
    expect(undetectedReason(toSource(b))).toBe('no known signature');
    expect(isFileVault2(b.subarray(0, 511))).toBe(false);
  });
});

describe('bounds on what a header makes this package read', () => {
  it('metadata past 1 GiB is refused (cryptsetup FVAULT2_MAX_OFF), before it is read', async () => {
    // a source that says it is 2 GiB long and fails any read past the 9 MiB it has
    const huge = (bytes: Uint8Array) => ({
      size: 2 * MAX_METADATA_OFFSET,
      read: async (o: number, d: Uint8Array) => {
        if (o + d.length > bytes.length) throw new Error(`read at ${o}: should not happen`);
        d.set(bytes.subarray(o, o + d.length));
      },
    });
    // the metadata block number (header offset 104, 4096-byte blocks)
    const label = editVolumeHeader((v) => v.setBigUint64(104, BigInt(MAX_METADATA_OFFSET / 4096 + 1), true));
    await expect(readFileVault2Header(huge(label))).rejects.toThrow(
      new HeaderError(
        `@x/filevault2: the metadata block would start at ${MAX_METADATA_OFFSET + 4096}, past 1 GiB, where Core Storage metadata is not read (as cryptsetup)`,
      ),
    );
    // the volume groups descriptor (metadata block offset 64 + 156), the checksum of the block made valid
    const descriptor = Uint8Array.from(image);
    const block = descriptor.subarray(4096, 4096 + 8192);
    new DataView(block.buffer, block.byteOffset).setUint32(64 + 156, 0xffffffff, true);
    fixChecksum(block, crc32cWeak);
    await expect(readFileVault2Header(huge(descriptor))).rejects.toThrow(
      new HeaderError(
        `@x/filevault2: the volume groups descriptor would start at ${4096 + 0xffffffff}, past 1 GiB, where Core Storage metadata is not read (as cryptsetup)`,
      ),
    );
    // the encrypted metadata's block number (descriptor offset 32)
    const encrypted = Uint8Array.from(image);
    const at = 4096 + new DataView(image.buffer).getUint32(4096 + 64 + 156, true);
    new DataView(encrypted.buffer).setBigUint64(at + 32, BigInt(MAX_METADATA_OFFSET / 4096 + 1), true);
    await expect(readFileVault2Header(huge(encrypted))).rejects.toThrow(
      new HeaderError(
        `@x/filevault2: the encrypted metadata would start at ${MAX_METADATA_OFFSET + 4096}, past 1 GiB, where Core Storage metadata is not read (as cryptsetup)`,
      ),
    );
  });

  it('encrypted metadata that runs past 1 GiB with no block of zeros is refused at the first block past it', async () => {
    // encrypted metadata starting 2 blocks before 1 GiB, its 4 blocks there, a source with nothing else
    const start = MAX_METADATA_OFFSET - 8192;
    const md = 2049 * 4096;
    const moved = Uint8Array.from(image);
    const at = 4096 + new DataView(image.buffer).getUint32(4096 + 64 + 156, true);
    new DataView(moved.buffer).setBigUint64(at + 32, BigInt(start / 4096), true);
    let furthest = 0;
    const source = {
      size: 2 * MAX_METADATA_OFFSET,
      read: async (o: number, d: Uint8Array) => {
        furthest = Math.max(furthest, o + d.length);
        d.fill(0);
        for (let i = 0; i < d.length; i++) {
          const x = o + i;
          // the first 9 MiB as they are; the 4 encrypted blocks moved to start (their tweaks are their index)
          if (x < md) d[i] = moved[x];
          else if (x >= start && x < start + 4 * 8192) d[i] = moved[md + x - start];
        }
      },
    };
    await expect(readFileVault2Header(source)).rejects.toThrow(
      new HeaderError(
        `@x/filevault2: encrypted metadata block 2 would start at ${MAX_METADATA_OFFSET + 8192}, past 1 GiB, where Core Storage metadata is not read (as cryptsetup)`,
      ),
    );
    expect(furthest).toBeLessThanOrEqual(MAX_METADATA_OFFSET + 8192);
  });

  it(`more than ${MAX_CRYPTO_USERS} passphrase-protected users are refused (each is a PBKDF2 to try)`, async () => {
    // one user written once and referenced MAX_CRYPTO_USERS times more: short text, many users
    const many = rewrite(1, (b) =>
      editXml(b, (xml) =>
        xml.replace(
          '</dict></array><key>LastUpdateTime',
          `</dict>${'<reference IDREF="3"/>'.repeat(MAX_CRYPTO_USERS)}</array><key>LastUpdateTime`,
        ),
      ),
    );
    await refused(
      many,
      `@x/filevault2: encrypted metadata block 1 (type 0x0019): the encryption context lists more than ${MAX_CRYPTO_USERS} passphrase-protected crypto users (at most ${MAX_CRYPTO_USERS} are read)`,
    );
    const enough = rewrite(1, (b) =>
      editXml(b, (xml) =>
        xml.replace(
          '</dict></array><key>LastUpdateTime',
          `</dict>${'<reference IDREF="3"/>'.repeat(MAX_CRYPTO_USERS - 1)}</array><key>LastUpdateTime`,
        ),
      ),
    );
    expect((await readFileVault2Header(enough)).cryptoUsers).toHaveLength(MAX_CRYPTO_USERS);
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
  it('bounds the text, the depth and the number of values', () => {
    const fail = (xml: string, why: string) =>
      expect(() => parse(xml)).toThrow(new HeaderError(`@x/filevault2: test: malformed XML: ${why}`));
    const deep = (n: number) => `${'<array>'.repeat(n)}${'</array>'.repeat(n)}`;
    expect(() => parse(deep(PLIST_LIMITS.maxDepth + 1))).not.toThrow();
    fail(deep(PLIST_LIMITS.maxDepth + 2), `nested more than ${PLIST_LIMITS.maxDepth} deep`);
    const values = (n: number) => `<array>${'<true/>'.repeat(n - 1)}</array>`;
    expect(parse(values(PLIST_LIMITS.maxValues)).root).toHaveLength(PLIST_LIMITS.maxValues - 1);
    fail(values(PLIST_LIMITS.maxValues + 1), `more than ${PLIST_LIMITS.maxValues} values`);
    const long = `<string>${'x'.repeat(PLIST_LIMITS.maxLength)}</string>`;
    fail(long, `${long.length} characters, more than ${PLIST_LIMITS.maxLength}`);
    // a million-level nesting is refused at the bound, without a stack overflow
    fail(deep(1 << 20).slice(0, PLIST_LIMITS.maxLength), `nested more than ${PLIST_LIMITS.maxDepth} deep`);
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
