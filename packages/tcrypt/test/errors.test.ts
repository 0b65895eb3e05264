// What does not open, and why: a wrong password, a missing keyfile, a wrong PIM, and an image whose cipher is not AES (the message says both possibilities) are WrongPassphraseError;
// a header that decrypts but whose fields break the format or the image is HeaderError (made by
// re-encrypting a real header after changing one field and its CRCs); bad options are TypeError/RangeError.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha512 } from '@noble/hashes/sha2.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { newXts } from '@x/xts';
import { afterAll, describe, expect, it } from 'vitest';
import {
  crc32,
  describeTcrypt,
  HeaderError,
  openTcrypt,
  TcryptError,
  tcryptFormatWith,
  tcryptToJson,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '../src/index.js';
import { extractImages, PASSWORD, PIM_PASSWORD } from './images.js';

const { dir, remove } = extractImages();
afterAll(remove);
const image = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const keyfile = (n: number) => new Uint8Array(readFileSync(join(dir, `keyfile${n}`)));

describe('wrong secrets', () => {
  it('a wrong password: WrongPassphraseError naming both possibilities', async () => {
    const e = await openTcrypt(image('vc_1-sha512-xts-aes'), { passphrase: 'wrong', prf: 'sha512' }).catch((x) => x);
    expect(e).toBeInstanceOf(WrongPassphraseError);
    expect(e).toBeInstanceOf(TcryptError);
    expect(e.message).toMatch(
      /^@x\/tcrypt: no primary header decrypts: either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher this package does not open \(Serpent, Twofish, Camellia, Kuznyechik, Blowfish, CAST5, Triple DES/,
    );
  });
  it('a missing keyfile, one twice, none; both in either order open (each keyfile adds into the pool from its start)', async () => {
    const img = image('vck_1-sha512-xts-aes');
    for (const keyfiles of [[keyfile(1)], [keyfile(2), keyfile(2)], []])
      await expect(openTcrypt(img, { passphrase: PASSWORD, keyfiles, prf: 'sha512' })).rejects.toThrow(
        WrongPassphraseError,
      );
    for (const keyfiles of [
      [keyfile(1), keyfile(2)],
      [keyfile(2), keyfile(1)],
    ])
      (await openTcrypt(img, { passphrase: PASSWORD, keyfiles, prf: 'sha512' })).close();
  });
  it('a wrong PIM, and no PIM', async () => {
    const img = image('vcpim_1_1234-sha256-xts-aes');
    await expect(openTcrypt(img, { passphrase: PIM_PASSWORD, pim: 1233, prf: 'sha256' })).rejects.toThrow(
      WrongPassphraseError,
    );
    await expect(openTcrypt(img, { passphrase: PIM_PASSWORD, prf: 'sha256' })).rejects.toThrow(WrongPassphraseError);
  });
  it('the hidden password on the outer header, and the outer one on the hidden header', async () => {
    const img = image('tc_5-sha512-xts-aes-hidden');
    await expect(openTcrypt(img, { passphrase: 'bbbbbbbbbbbb', prf: 'sha512' })).rejects.toThrow(WrongPassphraseError);
    await expect(openTcrypt(img, { passphrase: PASSWORD, prf: 'sha512', hidden: true })).rejects.toThrow(
      /no hidden or hiddenOld header decrypts/,
    );
  });
  it('an image of another cipher (Serpent, a cascade, Camellia): the same error, right password or not', async () => {
    for (const [name, prf] of [
      ['tc_5-sha512-xts-serpent', 'sha512'],
      ['vc_1-sha512-xts-aes-twofish-serpent', 'sha512'],
      ['vc_1-sha512-xts-camellia', 'sha512'],
      ['vc_1-stribog512-xts-camellia', 'stribog512'],
    ])
      await expect(openTcrypt(image(name), { passphrase: PASSWORD, prf })).rejects.toThrow(
        /either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher this package does not open/,
      );
  });
});

describe('options', () => {
  it('are checked before any work', async () => {
    const img = image('tc_5-sha512-xts-aes');
    await expect(openTcrypt(img, { passphrase: PASSWORD, prf: 'md5' })).rejects.toThrow(RangeError);
    await expect(openTcrypt(img, { passphrase: PASSWORD, pim: -1 })).rejects.toThrow(RangeError);
    await expect(openTcrypt(img, { passphrase: PASSWORD, hidden: 'yes' as never })).rejects.toThrow(TypeError);
    await expect(openTcrypt(img, { passphrase: PASSWORD, system: true, hidden: true })).rejects.toThrow(TypeError);
    await expect(openTcrypt(img, { passphrase: 'x'.repeat(129) })).rejects.toThrow(/VeraCrypt takes at most 128/);
    await expect(openTcrypt(img, { passphrase: 'x'.repeat(65), veracrypt: false })).rejects.toThrow(
      /TrueCrypt takes at most 64/,
    );
  });
  it('a PIM whose count is above maxIterations is refused at once, with the bound to raise', async () => {
    await expect(
      openTcrypt(image('vcpim_1_1234-sha256-xts-aes'), { passphrase: PIM_PASSWORD, pim: 2_000_000, prf: 'sha256' }),
    ).rejects.toThrow(/above maxIterations, 67108864 \(raise options\.maxIterations/);
  });
  it('an image too short for the header', async () => {
    await expect(openTcrypt(new Uint8Array(100), { passphrase: 'x' })).rejects.toThrow(HeaderError);
    await expect(openTcrypt(new Uint8Array(1000), { passphrase: 'x', backup: true })).rejects.toThrow(/too short/);
  });
});

/** Re-encrypts header 0 of tc_5-sha512-xts-aes (TrueCrypt's 1000-iteration SHA-512) after `edit`, CRCs recomputed. */
function forged(edit: (dec: Uint8Array, view: DataView) => void): Uint8Array {
  const img = image('tc_5-sha512-xts-aes');
  const key = pbkdf2(sha512, PASSWORD, img.subarray(0, 64), { c: 1000, dkLen: 64 });
  const xts = newXts(key);
  const dec = img.subarray(64, 512);
  xts.decrypt(dec, dec, new Uint8Array(16));
  const view = new DataView(dec.buffer, dec.byteOffset, dec.length);
  edit(dec, view);
  view.setUint32(8, crc32(dec, 192, 448));
  view.setUint32(188, crc32(dec, 0, 188));
  xts.encrypt(dec, dec, new Uint8Array(16));
  xts.dispose();
  return img;
}

describe('a header that decrypts is still checked', () => {
  const open = (img: Uint8Array) => openTcrypt(img, { passphrase: PASSWORD, prf: 'sha512' });
  it('the forgery itself opens when nothing is changed', async () => {
    (await open(forged(() => {}))).close();
  });
  it.each([
    [
      'a volume past the end',
      (_d: Uint8Array, v: DataView) => v.setBigUint64(36, 1n << 30n),
      /past the end of the image/,
    ],
    ['a volume size of 0', (_d: Uint8Array, v: DataView) => v.setBigUint64(36, 0n), /volume size of 0/],
    [
      'an odd master key offset',
      (_d: Uint8Array, v: DataView) => v.setBigUint64(44, 1000n),
      /not a whole number of 512-byte sectors/,
    ],
    ['a sector size of 3000', (_d: Uint8Array, v: DataView) => v.setUint32(64, 3000), /sector size 3000/],
    ['version 9', (_d: Uint8Array, v: DataView) => v.setUint16(4, 9), /version 9/],
    ['version 2 with XTS', (_d: Uint8Array, v: DataView) => v.setUint16(4, 2), /never goes with xts-plain64/],
    ['a size past 2^53', (_d: Uint8Array, v: DataView) => v.setBigUint64(36, 1n << 60n), /too large/],
    ['equal XTS key halves', (d: Uint8Array) => d.copyWithin(192 + 32, 192, 192 + 32), /two equal XTS halves/],
  ] as const)('%s', async (_n, edit, message) => {
    await expect(open(forged(edit))).rejects.toThrow(HeaderError);
    await expect(open(forged(edit))).rejects.toThrow(message);
  });
  it('a header CRC that does not match', async () => {
    const img = forged((_d, v) => v.setUint32(60, 0));
    // break the header CRC alone: flip a reserved byte after the CRCs were made
    const key = pbkdf2(sha512, PASSWORD, img.subarray(0, 64), { c: 1000, dkLen: 64 });
    const xts = newXts(key);
    const dec = img.subarray(64, 512);
    xts.decrypt(dec, dec, new Uint8Array(16));
    dec[100] ^= 1;
    xts.encrypt(dec, dec, new Uint8Array(16));
    xts.dispose();
    await expect(open(img)).rejects.toThrow(/do not match their CRC-32/);
  });
});

describe('dump and volume key', () => {
  it('describes the header as tcryptDump does, and as JSON', async () => {
    const v = await openTcrypt(image('vc_1-sha512-xts-aes-hidden'), { passphrase: PASSWORD, prf: 'sha512' });
    v.close();
    const text = describeTcrypt(v.header!);
    expect(text.split('\n').slice(0, 12)).toEqual([
      'VERACRYPT header information',
      'Version:       \t5',
      `Driver req.:\t${(v.header!.requiredVersion >> 8).toString(16)}.${(v.header!.requiredVersion & 0xff).toString(16)}`,
      'Flags:       \t0x0',
      'Sector size:\t512 [bytes]',
      'MK offset:\t131072 [bytes]',
      'Volume size:\t86016 [bytes]',
      'PBKDF:\t\tPBKDF2',
      'PBKDF2 hash:\tsha512',
      'Cipher chain:\taes',
      'Cipher mode:\txts-plain64',
      'MK bits:       \t512',
    ]);
    expect(tcryptToJson(v.header!)).toMatchObject({ magic: 'VERA', kdf: { prf: 'sha512', iterations: 500000 } });
    expect(JSON.stringify(tcryptToJson(v.header!))).not.toMatch(/keys"/);
  });
  it('the DiskFormat reads the header only with a secret, and opens with the volume key', async () => {
    const img = image('tc_5-sha512-xts-aes');
    const { bytesSource } = await import('@x/byte-source');
    const src = bytesSource(img);
    await expect(tcryptFormatWith().readHeader(src)).rejects.toThrow(/needs the passphrase/);
    const h = await tcryptFormatWith({ passphrase: PASSWORD, prf: 'sha512' }).readHeader(src);
    expect(h.title).toBe('TrueCrypt');
    expect(h.describe()).toMatch(/^TCRYPT header information\nVersion: {7}\t5/);
    // the volume key: from the header decrypted by hand (the key area's first 64 bytes)
    const key = pbkdf2(sha512, PASSWORD, img.subarray(0, 64), { c: 1000, dkLen: 64 });
    const xts = newXts(key);
    const dec = Uint8Array.from(img.subarray(64, 512));
    xts.decrypt(dec, dec, new Uint8Array(16));
    xts.dispose();
    const vk = dec.slice(192, 256);
    const { volume, summary } = await tcryptFormatWith().openWithVolumeKey!(src, vk);
    expect(summary).toMatch(/^TrueCrypt\/VeraCrypt aes-xts-plain64, 512-byte sectors, .* volume key given/);
    const boot = new Uint8Array(512);
    await volume.read(boot, 0);
    expect(boot[38]).toBe(0x29); // FAT extended boot signature
    volume.close();
    vk[0] ^= 1;
    await expect(tcryptFormatWith().openWithVolumeKey!(src, vk)).rejects.toThrow(WrongVolumeKeyError);
  });
});
