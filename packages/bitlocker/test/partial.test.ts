// BitLocker metadata rewritten the way Windows writes it (CRC-32 and the VMK-authenticated SHA-256 made
// anew), from the clear-key image:
// - a partially encrypted volume, which cryptsetup refuses: the metadata's "encrypted volume size" says how
//   many bytes from the start are encrypted (a conversion paused half way, or a decryption under way); the
//   rest is on the image as it is;
// - metadata without the volume header entry, as later Windows 10 builds write it.
import { readFile } from 'node:fs/promises';
import { newCcm } from '@x/ccm';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../src/bytes.js';
import { describeBitlocker, openBitlocker, readBitlockerHeader } from '../src/index.js';
import { unlockVmk } from '../src/keys.js';
import { bitlockerImages } from '@x/testkit/disk-images';
import { volumeSha256 } from './open-suite.js';

const { images } = bitlockerImages();
const clear = images.find((i) => i.name === 'bitlk-aes-xts-128-clearkey-only')!;
const partial = images.find((i) => i.name === 'bitlk-partially-encrypted-aes-cbc-128')!;

/**
 * Edits every metadata copy of `img` (a copy is returned) with `edit(image, blockOffset, blockSize)`, then
 * makes its CRC-32 and its authentication (the SHA-256 of the block, AES-CCM encrypted with the VMK) anew,
 * as Windows writes them.
 */
async function rewriteMetadata(
  img: Uint8Array,
  edit: (out: Uint8Array, at: number, size: number) => void,
): Promise<Uint8Array> {
  const out = Uint8Array.from(img);
  const h = await readBitlockerHeader(img);
  const { vmk } = unlockVmk(h.metadata, {}, undefined);
  const view = new DataView(out.buffer);
  for (const at of h.metadata.metadataOffsets) {
    const size = view.getUint16(at + 8, true) * 16;
    edit(out, at, size);
    view.setUint32(at + size + 4, crc32(out.subarray(at, at + size)), true);
    // the validation datum: 8-byte header, nonce 12, tag 16, ciphertext (a 12-byte header + the SHA-256)
    const datum = at + size + 8 + 8;
    const nonce = out.slice(datum, datum + 12);
    const ccm = newCcm(vmk);
    const plain = new Uint8Array(44);
    ccm.openDetached(plain, nonce, out.subarray(datum + 28, datum + 28 + 44), out.subarray(datum + 12, datum + 28));
    plain.set(sha256(out.subarray(at, at + size)), 12);
    ccm.sealDetached(out.subarray(datum + 28, datum + 28 + 44), out.subarray(datum + 12, datum + 28), nonce, plain);
    ccm.dispose();
  }
  return out;
}

/** The encrypted volume size of every metadata copy set to `encrypted`. */
const withEncryptedSize = (img: Uint8Array, encrypted: number) =>
  rewriteMetadata(img, (out, at) => new DataView(out.buffer).setBigUint64(at + 16, BigInt(encrypted), true));

describe('a partially encrypted volume', () => {
  it('the fixture reports its encrypted size (all of it) and its encrypt-on-write type', async () => {
    const h = await readBitlockerHeader(await readFile(partial.path));
    expect(h.type).toBe('encrypt-on-write');
    expect(h.metadata.encryptedSize).toBe(104857600);
    const text = describeBitlocker(h);
    expect(text).toMatch(/^Encrypted: {4}\t104857600 of 104857600 \[bytes\] \(100\.0%\)$/m);
    expect(text).toMatch(/^Type: {9}\tencrypt-on-write$/m);
  });

  it('the fixture decrypts, with its password (cryptsetup refuses it)', async () => {
    const v = await openBitlocker(await readFile(partial.path), { passphrase: partial.password });
    const boot = new Uint8Array(512);
    await v.read(boot, 0);
    expect(new TextDecoder().decode(boot.subarray(3, 11))).toBe('NTFS    ');
    expect(v.encryptedSize).toBe(v.payloadSize);
  });

  it('gives the encrypted part decrypted and the rest as it is on the image', async () => {
    const img = new Uint8Array(await readFile(clear.path));
    const full = await openBitlocker(img);
    const half = 50 << 20;
    const crafted = await withEncryptedSize(img, half);
    const h = await readBitlockerHeader(crafted);
    expect(describeBitlocker(h)).toMatch(/^Encrypted: {4}\t52428800 of 104857600 \[bytes\] \(50\.0%\)$/m);
    const v = await openBitlocker(crafted);
    expect(v.encryptedSize).toBe(half);
    expect((v as unknown as { metadata: { index: number } }).metadata.index).toBe(0); // it authenticates
    const a = new Uint8Array(v.payloadSize);
    const b = new Uint8Array(v.payloadSize);
    await v.read(a, 0);
    await full.read(b, 0);
    expect(Buffer.compare(a.subarray(0, half), b.subarray(0, half))).toBe(0);
    // past the encrypted size: the image's own bytes, but for the metadata area there, shown as zeros
    const third = h.metadata.metadataOffsets[2];
    expect(third).toBeGreaterThan(half);
    expect(Buffer.compare(a.subarray(half, third), img.subarray(half, third))).toBe(0);
    expect(a.subarray(third, third + 65536).every((x) => x === 0)).toBe(true);
    expect(Buffer.compare(a.subarray(third + 65536), img.subarray(third + 65536, v.payloadSize))).toBe(0);
    expect(v.extents.filter((x) => x.kind === 'plain').map((x) => x.start)).toEqual([half, third + 65536]);
    expect(await volumeSha256(v)).not.toBe(await volumeSha256(full));
  });

  it('an encrypted size changed without the VMK fails its authentication', async () => {
    const img = new Uint8Array(await readFile(clear.path));
    const view = new DataView(img.buffer);
    const h = await readBitlockerHeader(img);
    for (const at of h.metadata.metadataOffsets) {
      const size = view.getUint16(at + 8, true) * 16;
      view.setBigUint64(at + 16, 1n << 20n, true);
      view.setUint32(at + size + 4, crc32(img.subarray(at, at + size)), true);
    }
    await expect(openBitlocker(img)).rejects.toThrow(/fails its authentication with the VMK/);
  });
});

describe('metadata without a volume header entry (later Windows 10 builds)', () => {
  it('takes the moved boot sectors from the block header, to the same bytes', async () => {
    const img = new Uint8Array(await readFile(clear.path));
    const want = await volumeSha256(await openBitlocker(img));
    // the entry type of the volume header block (0x000f) changed to one this package does not know
    let changed = 0;
    const edited = await rewriteMetadata(img, (out, at) => {
      const view = new DataView(out.buffer);
      for (let o = at + 112; o < at + 64 + view.getUint32(at + 64, true); ) {
        const size = view.getUint16(o, true);
        if (size === 0) break;
        if (view.getUint16(o + 2, true) === 0x000f) {
          view.setUint16(o + 2, 0x00ff, true);
          changed++;
        }
        o += size;
      }
    });
    expect(changed).toBe(3);
    const h = await readBitlockerHeader(edited);
    expect(h.metadata.volumeHeader).toEqual((await readBitlockerHeader(img)).metadata.volumeHeader);
    expect(await volumeSha256(await openBitlocker(edited))).toBe(want);
  });
});
