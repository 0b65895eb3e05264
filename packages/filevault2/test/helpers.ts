// Shared by the tests: the fixture (cryptsetup's tests/fvault2-images.tar.xz, kept by @x/testkit: see
// tools/testkit/fixtures/README.md), unpacked once per test file, the facts cryptsetup gives about it, and
// helpers that read and rewrite its metadata.
import { createCipheriv, createDecipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import { openSync, readSync, closeSync } from 'node:fs';
import { FILEVAULT2_FACTS, fileVault2Image } from '@x/testkit/disk-images';

/** The facts cryptsetup gives about the image (@x/testkit/disk-images). */
export const FACTS = FILEVAULT2_FACTS;

/** The path of fvault2-images/small, unpacked on first use; the directory goes after the file's tests. */
export const fixtureImage = fileVault2Image;

/** The first `length` bytes of the image (a copy in memory). */
export function imagePrefix(length: number): Uint8Array {
  const fd = openSync(fixtureImage(), 'r');
  try {
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, out, done, length - done, done);
      if (n === 0) throw new Error(`the image is shorter than ${length} bytes`);
      done += n;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** The bytes the header needs: the physical volume header, the metadata and the encrypted metadata (< 9 MiB). */
export const HEADER_BYTES = 9 << 20;

/**
 * The UUID blkid (libblkid, probe_hfsplus) and macOS report for an HFS+ file system: a version 3 (MD5)
 * UUID of the 64-bit identifier in the volume header's finderInfo[6..7] (offset 0x68 of the header at
 * 1024), in the name space b3e20f39-f292-11d6-97a4-00306543ecac (Apple's kFSUUIDNamespaceSHA1).
 */
export function hfsPlusUuid(volume: Uint8Array): string {
  const header = volume.subarray(1024, 1024 + 512);
  const id = header.subarray(0x68, 0x70);
  const u = createHash('md5').update(Buffer.from('b3e20f39f29211d697a400306543ecac', 'hex')).update(id).digest();
  u[6] = 0x30 | (u[6] & 0x0f);
  u[8] = 0x80 | (u[8] & 0x3f);
  const h = u.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');

/**
 * A second reading of the fixture's metadata, independent of this package's code: fixed offsets from
 * libfvde's document, node:crypto's aes-128-xts for the encrypted metadata (key data ‖ physical volume
 * UUID, tweak = block index), and regular expressions over the XML. For the facts cryptsetup does not print.
 */
export function nodeMetadata(image: Uint8Array): { logicalVolumeUuid: string; groupUuid: string; xml: string } {
  const b = Buffer.from(image.buffer, image.byteOffset, image.length);
  const blockSize = b.readUInt32LE(96);
  const label = Number(b.readBigUInt64LE(104)) * blockSize;
  const descriptor = label + b.readUInt32LE(label + 64 + 156);
  const start = Number(b.readBigUInt64LE(descriptor + 32)) * blockSize;
  const key = Buffer.concat([b.subarray(176, 192), b.subarray(304, 320)]);
  let xml = '';
  for (let i = 0; ; i++) {
    const block = b.subarray(start + 8192 * i, start + 8192 * (i + 1));
    if (block.every((x) => x === 0)) break;
    const tweak = Buffer.alloc(16);
    tweak.writeBigUInt64LE(BigInt(i));
    xml += createDecipheriv('aes-128-xts', key, tweak).update(block).toString('latin1');
  }
  const lv = /<key>com\.apple\.corestorage\.lv\.uuid<\/key><string[^>]*>([^<]+)<\/string>/.exec(xml);
  const g = b.subarray(320, 336).toString('hex');
  return {
    logicalVolumeUuid: lv![1].toLowerCase(),
    groupUuid: `${g.slice(0, 8)}-${g.slice(8, 12)}-${g.slice(12, 16)}-${g.slice(16, 20)}-${g.slice(20)}`,
    xml,
  };
}

const ENCRYPTED_METADATA = 2049 * 4096; // the fixture's: block 2049 of the volume groups descriptor, 4096-byte blocks

/** The fixture's XTS key of the encrypted metadata: key data (header 176…192) ‖ physical volume UUID (304…320). */
function metadataKey(image: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(image.subarray(176, 192)), Buffer.from(image.subarray(304, 320))]);
}

/** Stores a block's weak CRC-32C (bytes 0…3) over bytes 8… from its initial value (bytes 4…7). */
export function fixChecksum(block: Uint8Array, crc: (data: Uint8Array, seed: number) => number): void {
  const v = new DataView(block.buffer, block.byteOffset, block.length);
  v.setUint32(0, crc(block.subarray(8), v.getUint32(4, true)), true);
}

/**
 * A copy of `image` whose encrypted metadata block `index` was decrypted (node:crypto aes-128-xts), changed
 * by `edit`, given a valid checksum again and encrypted back: metadata that breaks a rule with nothing
 * else wrong.
 */
export function rewriteEncryptedBlock(
  image: Uint8Array,
  index: number,
  edit: (block: Buffer) => void,
  crc: (data: Uint8Array, seed: number) => number,
): Uint8Array {
  const out = Uint8Array.from(image);
  const at = ENCRYPTED_METADATA + 8192 * index;
  const tweak = Buffer.alloc(16);
  tweak.writeBigUInt64LE(BigInt(index));
  const block = createDecipheriv('aes-128-xts', metadataKey(image), tweak).update(out.subarray(at, at + 8192));
  edit(block);
  fixChecksum(block, crc);
  out.set(createCipheriv('aes-128-xts', metadataKey(image), tweak).update(block), at);
  return out;
}

/** Replaces `from` by `to` (the same length) in the block's XML text; fails when `from` is not there. */
export function replaceText(block: Buffer, from: string, to: string): void {
  if (from.length !== to.length) throw new Error('replaceText keeps lengths');
  const at = block.indexOf(from, 0, 'latin1');
  if (at < 0) throw new Error(`"${from}" is not in the block`);
  block.write(to, at, 'latin1');
}

/** Where the XML of a decrypted encrypted metadata block is: [offset field, size field] (0x0019, else 0x001a). */
function xmlFields(block: Buffer): { offsetAt: number; sizeAt: number; type: number } {
  const type = block.readUInt16LE(10);
  return type === 0x0019 ? { offsetAt: 64 + 48, sizeAt: 64 + 52, type } : { offsetAt: 64 + 64, sizeAt: 64 + 68, type };
}

/**
 * Rewrites the XML of a decrypted 0x0019 or 0x001a block in place with `edit` (any length that fits in the
 * block): the text, its NUL and the size fields (and, for 0x0019, the compressed and uncompressed sizes).
 */
export function editXml(block: Buffer, edit: (xml: string) => string): void {
  const { offsetAt, sizeAt, type } = xmlFields(block);
  const offset = block.readUInt32LE(offsetAt),
    size = block.readUInt32LE(sizeAt);
  const old = block.subarray(offset, offset + size);
  const nul = old.indexOf(0);
  const text = old.subarray(0, nul < 0 ? old.length : nul).toString('latin1');
  const next = Buffer.from(edit(text), 'latin1');
  const newSize = next.length + (size - text.length);
  if (offset + Math.max(size, newSize) > block.length) throw new Error('editXml: the XML does not fit in the block');
  block.fill(0, offset, offset + Math.max(size, newSize));
  next.copy(block, offset);
  block.writeUInt32LE(newSize, sizeAt);
  if (type === 0x0019) {
    block.writeUInt32LE(newSize, 64 + 40);
    block.writeUInt32LE(newSize, 64 + 44);
  }
}

/** The `n`-th (from 0) PassphraseWrappedKEKStruct <data> of the XML, decoded, and a function that puts a struct back in its place. */
export function passphraseWrappedKek(xml: string, n = 0): { struct: Buffer; put(s: Buffer): string } {
  const re = /<key>PassphraseWrappedKEKStruct<\/key><data[^>]*>([^<]+)<\/data>/g;
  let m: RegExpExecArray | null = null;
  for (let i = 0; i <= n; i++) m = re.exec(xml);
  if (!m) throw new Error(`no PassphraseWrappedKEKStruct ${n}`);
  const at = m.index + m[0].indexOf('>', m[0].indexOf('<data')) + 1;
  return {
    struct: Buffer.from(m[1], 'base64'),
    put: (s) => xml.slice(0, at) + s.toString('base64') + xml.slice(at + m![1].length),
  };
}

/**
 * The passphrase-wrapped KEK of a PassphraseWrappedKEKStruct re-wrapped (node:crypto's id-aes128-wrap,
 * RFC 3394) for `iterations` PBKDF2-HMAC-SHA256 iterations of `passphrase`, with the same salt: a user
 * that the same passphrase opens at another cost. Throws if `passphrase` does not open it now.
 */
export function rewrapKek(struct: Buffer, passphrase: string, iterations: number): Buffer {
  const out = Buffer.from(struct);
  const salt = struct.subarray(8, 24);
  const now = pbkdf2Sync(passphrase, salt, struct.readUInt32LE(168), 16, 'sha256');
  const kek = createDecipheriv('id-aes128-wrap', now, Buffer.from('A6A6A6A6A6A6A6A6', 'hex')).update(
    struct.subarray(32, 56),
  );
  const next = pbkdf2Sync(passphrase, salt, iterations, 16, 'sha256');
  createCipheriv('id-aes128-wrap', next, Buffer.from('A6A6A6A6A6A6A6A6', 'hex')).update(kek).copy(out, 32);
  out.writeUInt32LE(iterations, 168);
  return out;
}
