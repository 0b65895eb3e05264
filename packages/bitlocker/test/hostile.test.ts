// Metadata that only a holder of the VMK could write (CRC-32 and authentication made anew, ./reseal.ts),
// and boot sectors changed where the authentication does not reach: what opens, and what is refused by
// name (issue 25, items 7–11).
import { readFile } from 'node:fs/promises';
import { newCcm } from '@x/ccm';
import { bitlockerImages } from '@x/testkit/disk-images';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../src/bytes.js';
import { bitlockerFormat, detectBitlocker } from '../src/format.js';
import {
  describeBitlocker,
  HeaderError,
  openBitlocker,
  readBitlockerHeader,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '../src/index.js';
import { unlockVmk, unsealFvek } from '../src/keys.js';
import { blockSize, copyOffsets, find, rewriteMetadata } from './reseal.js';
import { volumeSha256 } from './open-suite.js';

const { images } = bitlockerImages();
const byName = (n: string) => images.find((i) => i.name === n)!;
const load = async (n: string) => new Uint8Array(await readFile(byName(n).path));
const CLEAR = 'bitlk-aes-xts-128-clearkey-only'; // opens without a secret: no key stretching
const le = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** The VMK of the clear-key image (from its clear key). */
async function clearVmk(img: Uint8Array): Promise<Uint8Array> {
  return unlockVmk((await readBitlockerHeader(img)).metadata, {}, undefined).vmk;
}

describe('the conversion state (item 7)', () => {
  /** The clear-key image with every copy's state set to current → next (and the encrypted size, if given). */
  async function withState(current: number, next: number, encrypted?: number) {
    const img = await load(CLEAR);
    return rewriteMetadata(img, await clearVmk(img), (out, at) => {
      le(out).setUint16(at + 12, current, true);
      le(out).setUint16(at + 14, next, true);
      if (encrypted !== undefined) le(out).setBigUint64(at + 16, BigInt(encrypted), true);
    });
  }

  it.each([
    [0, 0, /state 0 \(none\), next 0 \(none\), is not supported: the state is not one this package knows$/],
    [1, 4, /state 1 \(decrypted\), next 4 \(encrypted\), is not supported: the volume is decrypted/],
    [2, 4, /state 2 \(switching\), next 4 \(encrypted\), is not supported: the volume was being encrypted when/],
    [2, 1, /state 2 \(switching\), next 1 \(decrypted\), is not supported: the volume was being decrypted when/],
    [3, 4, /state 3 \(encrypt-on-write activated\), next 4 \(encrypted\), is not supported: encrypt-on-write/],
    [4, 1, /state 4 \(encrypted\), next 1 \(decrypted\), is not supported: the next state/],
    [5, 2, /state 5 \(paused\), next 2 \(switching\), is not supported: the next state/],
    [7, 4, /state 7, next 4 \(encrypted\), is not supported: the state is not one this package knows$/],
  ])('state %i, next %i: refused by name (HeaderError), though the metadata authenticates', async (c, n, message) => {
    const img = await withState(c, n);
    const h = await readBitlockerHeader(img); // dump shows it
    expect(h.metadata.state).toEqual({ current: c, next: n });
    const e = await openBitlocker(img).catch((x) => x);
    expect(e).toBeInstanceOf(HeaderError);
    expect(e.message).toMatch(/^@x\/bitlocker: the conversion state /);
    expect(e.message).toMatch(message);
  });

  it.each([
    [4, 'encryption'],
    [1, 'decryption'],
  ])('state 5 (paused), next %i (%s): the encrypted part decrypted, the rest as it is on the image', async (next) => {
    const base = await load(CLEAR);
    const full = await openBitlocker(base);
    const half = 50 << 20;
    const img = await withState(5, next, half);
    expect(describeBitlocker(await readBitlockerHeader(img))).toMatch(/^State: +\tpaused, next (normal|decrypted)$/m);
    const v = await openBitlocker(img);
    expect(v.encryptedSize).toBe(half);
    const a = new Uint8Array(half);
    const b = new Uint8Array(half);
    await v.read(a, 0);
    await full.read(b, 0);
    expect(Buffer.compare(a, b)).toBe(0);
    const past = new Uint8Array(1 << 20);
    await v.read(past, half / 512);
    expect(Buffer.compare(past, base.subarray(half, half + past.length))).toBe(0);
  });

  it('state 4, next 4 (every image of the suite) opens', async () => {
    const v = await openBitlocker(await withState(4, 4));
    expect(await volumeSha256(v)).toBe(await volumeSha256(await openBitlocker(await load(CLEAR))));
  });
});

describe('the BitLocker identifier (items 8 and 10)', () => {
  it('an unknown identifier is shown by dump and refused for opening, with a secret or with the FVEK', async () => {
    const img = await load(CLEAR);
    const fvek = unsealFvek((await readBitlockerHeader(img)).metadata, await clearVmk(img), undefined);
    img[160] ^= 1; // the identifier GUID (the boot sector is not authenticated)
    const h = await readBitlockerHeader(img);
    expect(h.type).toBe('unknown');
    expect(describeBitlocker(h)).toMatch(/^Type: +\tunknown$/m);
    for (const secret of [{}, { fvek }]) {
      await expect(openBitlocker(img, secret)).rejects.toThrow(
        new HeaderError(
          `@x/bitlocker: the BitLocker identifier ${h.identifier} is not one this package knows (normal 4967d63b-…, encrypt-on-write 92a84d3b-…): the volume is not opened`,
        ),
      );
    }
  });

  it('a To Go volume with a changed identifier is detected by its FVE metadata, and readHeader names the identifier', async () => {
    const togo = byName('bitlk-togo-aes-cbc-128');
    const img = await load(togo.name);
    img[424] ^= 0x40;
    const first = img.subarray(0, 512);
    const source = { size: img.length, read: async (o: number, d: Uint8Array) => d.set(img.subarray(o, o + d.length)) };
    expect(await detectBitlocker(first, source)).toBe(true);
    expect(await bitlockerFormat.detect!(first, source)).toBe(true);
    const h = await readBitlockerHeader(img);
    expect([h.togo, h.type]).toEqual([true, 'unknown']);
    await expect(openBitlocker(img, { passphrase: togo.password })).rejects.toThrow(
      /^@x\/bitlocker: the BitLocker identifier [0-9a-f-]+ is not one this package knows/,
    );
    // a plain FAT32 boot sector is still not BitLocker: boot code where the offsets would be
    const fat = Uint8Array.from(img.subarray(0, 1 << 20));
    fat.fill(0x90, 424, 510);
    expect(
      await detectBitlocker(fat.subarray(0, 512), {
        size: fat.length,
        read: async (o, d) => d.set(fat.subarray(o, o + d.length)),
      }),
    ).toBe(false);
    await expect(readBitlockerHeader(fat)).rejects.toThrow(
      '@x/bitlocker: a FAT volume without the BitLocker To Go identifier',
    );
  });
});

describe('the VMK from a backup metadata copy (item 9)', () => {
  it("copy 0's password VMK entry damaged (its CRC-32 right): the right password opens through copy 1", async () => {
    const image = byName('bitlk-aes-xts-128');
    const img = await load(image.name);
    const h = await readBitlockerHeader(img);
    const tag = h.metadata.protectors.find((p) => p.protection === 'password')!.vmk!.tag;
    const at = copyOffsets(img)[0];
    const size = blockSize(img, at);
    const where = find(img, tag, at, at + size);
    expect(where).toBeGreaterThan(at);
    img[where] ^= 1;
    le(img).setUint32(at + size + 4, crc32(img.subarray(at, at + size)), true);
    expect((await readBitlockerHeader(img)).metadata.index).toBe(0); // copy 0 is still the one in use
    const v = await openBitlocker(img, { passphrase: image.password });
    expect(v.protector).toBe('password');
    expect(await volumeSha256(v)).toBe(image.sha256);
    // the same damage in every copy: the password opens none
    for (const i of [1, 2]) {
      const o = copyOffsets(img)[i];
      const w = find(img, tag, o, o + size);
      img[w] ^= 1;
      le(img).setUint32(o + size + 4, crc32(img.subarray(o, o + size)), true);
    }
    await expect(openBitlocker(img, { passphrase: image.password })).rejects.toThrow(
      new WrongPassphraseError('@x/bitlocker: wrong password'),
    );
  });
});

describe('an FVEK with two equal XTS halves (item 10)', () => {
  it('in the metadata (sealed with the VMK): a BitLocker HeaderError that names the FVEK', async () => {
    const img = await load(CLEAR);
    const vmk = await clearVmk(img);
    const { fvek } = (await readBitlockerHeader(img)).metadata;
    const forged = rewriteMetadata(img, vmk, (out, at, size) => {
      const w = find(out, fvek.tag, at, at + size);
      const nonce = out.slice(w - 12, w);
      const body = out.subarray(w + 16, w + 16 + fvek.ciphertext.length);
      const ccm = newCcm(vmk);
      const plain = new Uint8Array(body.length);
      ccm.openDetached(plain, nonce, body, out.subarray(w, w + 16));
      plain.copyWithin(12 + 16, 12, 12 + 16); // key2 = key1 (the key follows the 12-byte container header)
      ccm.sealDetached(body, out.subarray(w, w + 16), nonce, plain);
      ccm.dispose();
    });
    const e = await openBitlocker(forged).catch((x) => x);
    expect(e).toBeInstanceOf(HeaderError);
    expect(e.message).toBe(
      '@x/bitlocker: the FVEK in the metadata has two equal XTS halves (key1 = key2), which XTS refuses: damaged or forged metadata',
    );
  });

  it('given by the user: WrongVolumeKeyError that names the FVEK', async () => {
    await expect(openBitlocker(await load(CLEAR), { fvek: new Uint8Array(32).fill(7) })).rejects.toThrow(
      new WrongVolumeKeyError(
        '@x/bitlocker: the FVEK is not a valid key for aes-xts-plain64: its two halves are equal (XTS takes two different AES keys)',
      ),
    );
  });
});

describe("the boot sector's bytes per sector against the metadata (item 11)", () => {
  it.each([
    [CLEAR, 4096, 512], // Windows 11: the volume header entry states the sector size
    ['bitlk-aes-cbc-elephant-128', 4096, 512], // Windows 7: the entry's size over the block header's count
    ['bitlk-aes-xts-128-4k', 512, 4096],
    ['bitlk-togo-aes-cbc-128', 4096, 512],
  ])('%s with %i bytes per sector (the metadata says %i): refused by name', async (name, bps, metadata) => {
    const img = await load(name);
    le(img).setUint16(11, bps, true);
    await expect(readBitlockerHeader(img)).rejects.toThrow(
      new HeaderError(
        `@x/bitlocker: the boot sector says ${bps} bytes per sector, the FVE metadata ${metadata}: the boot sector is damaged or changed (the metadata's authentication does not cover it)`,
      ),
    );
    await expect(openBitlocker(img, { fvek: new Uint8Array(64) })).rejects.toBeInstanceOf(HeaderError);
  });

  it('a metadata copy that disagrees gives way to one that agrees', async () => {
    const img = await load(CLEAR);
    const forged = rewriteMetadata(
      img,
      await clearVmk(img),
      (out, at, size) => {
        // the volume header entry's two sector sizes (at 44 and 48 of its data) set to 4096
        const vh = find(out, Uint8Array.of(0x0f, 0x00, 0x0f, 0x00), at + 112, at + size) - 2;
        le(out).setUint32(vh + 8 + 44, 4096, true);
        le(out).setUint32(vh + 8 + 48, 4096, true);
      },
      [0],
    );
    const h = await readBitlockerHeader(forged);
    expect(h.metadata.index).toBe(1);
    expect(h.copies[0].problem).toBe('the boot sector says 512 bytes per sector, this copy 4096');
    expect(await volumeSha256(await openBitlocker(forged))).toBe(await volumeSha256(await openBitlocker(img)));
  });
});

describe('what the fuzz suite found cryptsetup refusing', () => {
  it('a boot code other than EB 58 90 (the boot sector is not authenticated)', async () => {
    const img = await load(CLEAR);
    img[2] = 0x91;
    await expect(readBitlockerHeader(img)).rejects.toThrow(
      new HeaderError("@x/bitlocker: the boot code EB 58 91 is not BitLocker's (EB 58 90)"),
    );
  });

  it('a password protector with a property it does not know (sealed with the VMK): HeaderError', async () => {
    const togo = byName('bitlk-togo-aes-cbc-128');
    const img = await load(togo.name);
    const h = await readBitlockerHeader(img);
    const { vmk } = unlockVmk(h.metadata, { passphrase: togo.password }, undefined);
    const salt = h.metadata.protectors.find((p) => p.protection === 'password')!.salt!;
    const forged = rewriteMetadata(img, vmk, (out, at, size) => {
      const stretch = find(out, salt, at, at + size) - 12; // the stretch key property: 8-byte header, method
      le(out).setUint16(stretch + 4, 0x0033, true); // its value type made unknown
    });
    await expect(openBitlocker(forged, { passphrase: togo.password })).rejects.toThrow(
      /^@x\/bitlocker: no usable FVE metadata block: block 0 at \d+: VMK [0-9a-f-]+: a property of value type 0x33, unknown here;/,
    );
  });
});
