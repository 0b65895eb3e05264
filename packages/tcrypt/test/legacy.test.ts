// TrueCrypt's legacy AES modes beyond opening (open.test.ts opens every legacy AES image on every kernel):
// the dump as cryptsetup's tcryptDump prints it, the volume keys and IV offsets against the keys read by
// hand from the same headers in @x/dm-crypt's test/legacy.test.ts, the wrong-secret message on images of
// other ciphers and with wrong passwords, and forged legacy headers (a real header re-encrypted after one
// field was changed, its key CRC recomputed) that decrypt but are refused.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ripemd160, sha1 } from '@noble/hashes/legacy.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { newCipher } from '@x/cbc';
import { newSectorCipher } from '@x/dm-crypt';
import { afterAll, describe, expect, it } from 'vitest';
import {
  crc32,
  describeTcrypt,
  HeaderError,
  openTcrypt,
  TcryptError,
  tcryptToJson,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '../src/index.js';
import { extractImages, fatSerial, serialOf, HIDDEN_PASSWORD, PASSWORD } from './images.js';

const { dir, remove } = extractImages();
afterAll(remove);
const image = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('the dump shows the legacy modes as cryptsetup does', () => {
  it('LRW-AES (TrueCrypt 4.1–4.3)', async () => {
    const v = await openTcrypt(image('tc_2-ripemd160-lrw-aes'), { passphrase: PASSWORD, prf: 'ripemd160' });
    v.close();
    expect(describeTcrypt(v.header!).split('\n').slice(0, 11)).toEqual([
      'TCRYPT header information',
      'Version:       \t2',
      'Driver req.:\t4.10',
      'Flags:       \t0x0',
      'Sector size:\t512 [bytes]',
      'MK offset:\t512 [bytes]',
      'PBKDF:\t\tPBKDF2',
      'PBKDF2 hash:\tripemd160',
      'Cipher chain:\taes',
      'Cipher mode:\tlrw-benbi',
      'MK bits:       \t384',
    ]);
    expect(tcryptToJson(v.header!)).toMatchObject({ version: 2, mode: 'lrw-benbi', keyBits: 384, volumeSize: 0 });
  });
  it('CBC-AES with whitening (TrueCrypt 1.0–4.0), and a legacy hidden volume', async () => {
    const v = await openTcrypt(image('tc_1-sha1-cbc-aes'), { passphrase: PASSWORD, prf: 'sha1' });
    v.close();
    expect(describeTcrypt(v.header!).split('\n').slice(0, 11)).toEqual([
      'TCRYPT header information',
      'Version:       \t1',
      'Driver req.:\t1.0',
      'Flags:       \t0x0',
      'Sector size:\t512 [bytes]',
      'MK offset:\t512 [bytes]',
      'PBKDF:\t\tPBKDF2',
      'PBKDF2 hash:\tsha1',
      'Cipher chain:\taes',
      'Cipher mode:\tcbc-tcw',
      'MK bits:       \t512',
    ]);
    const h = await openTcrypt(image('tc_2-ripemd160-cbc-aes-hidden'), {
      passphrase: HIDDEN_PASSWORD,
      prf: 'ripemd160',
      hidden: true,
      veracrypt: false,
    });
    h.close();
    const lines = describeTcrypt(h.header!).split('\n');
    expect(lines.slice(5, 7)).toEqual(['MK offset:\t512 [bytes]', 'Hidden size:\t19456 [bytes]']);
    expect(lines).toContain('Header:      \thiddenOld at 39424 [bytes]');
    expect(lines).toContain('Cipher mode:\tcbc-tcw');
  });
});

describe('volume keys and IV offsets', () => {
  // The key areas' first 64 bytes, read by hand in @x/dm-crypt's test/legacy.test.ts (its fixtures README).
  const cbcArea = hex(
    '298b5803c9300acb63203ee7a2a06ab28c216278851039cee0f25843a42a9689' +
      '276038af631d03d895e8c3f07f98d5d888ee9c746424edddab250db8b730007d',
  );
  const lrwArea = hex(
    '418729d87f65b8c6605d8a75a2615d0dcda712d1017f5af4e679edcfac3ab24e' +
      '91dcd0bc0970af45b0002370fef285825de56e5f9acd3594ed213b26e86b47be',
  );
  it('CBC: AES key ‖ IV seed ‖ whitening, IV sectors from the master key offset (1)', async () => {
    const v = await openTcrypt(image('tc_1-sha1-cbc-aes'), { passphrase: PASSWORD, prf: 'sha1', share: true });
    const s = v.share()!;
    v.close();
    expect(s.layout).toMatchObject({ cipher: 'aes-cbc-tcw', ivOffset: 1, ivOrigin: 512 });
    expect(toHex(s.volumeKey)).toBe(toHex(cbcArea.subarray(32, 64)) + toHex(cbcArea.subarray(0, 32)));
  });
  it('LRW: K1 ‖ K2, benbi sectors from the start of the volume (0)', async () => {
    const v = await openTcrypt(image('tc_2-ripemd160-lrw-aes'), {
      passphrase: PASSWORD,
      prf: 'ripemd160',
      share: true,
    });
    const s = v.share()!;
    v.close();
    expect(s.layout).toMatchObject({ cipher: 'aes-lrw-benbi', ivOffset: 0, ivOrigin: 512 });
    expect(toHex(s.volumeKey)).toBe(toHex(lrwArea.subarray(32, 64)) + toHex(lrwArea.subarray(0, 16)));
  });
  it('a legacy outer volume (size 0 in its header) runs to the end of the image, the hidden one ends 1536 bytes before it', async () => {
    const img = image('tc_2-ripemd160-cbc-aes-hidden');
    const outer = await openTcrypt(img, { passphrase: PASSWORD, prf: 'ripemd160', veracrypt: false });
    const hidden = await openTcrypt(img, {
      passphrase: HIDDEN_PASSWORD,
      prf: 'ripemd160',
      veracrypt: false,
      hidden: true,
    });
    expect([outer.payloadOffset, outer.payloadSize]).toEqual([512, img.length - 512]);
    expect([hidden.payloadOffset, hidden.payloadSize]).toEqual([img.length - 1536 - 19456, 19456]);
    outer.close();
    hidden.close();
  });
});

describe('no AES mode decrypts the header: WrongPassphraseError saying both possibilities', () => {
  const both =
    'either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher this package does not open (Serpent, Twofish, Camellia, Kuznyechik, Blowfish, CAST5, Triple DES, or a cascade of ciphers (AES-Twofish, Serpent-Twofish-AES, …))';
  it.each([
    ['tc_1-sha1-cbc-blowfish', 'sha1', PASSWORD, 'pbkdf2-sha1 2000 iterations'],
    ['tc_1-sha1-cbc-des3_ede', 'sha1', PASSWORD, 'pbkdf2-sha1 2000 iterations'],
    [
      'tc_2-ripemd160-lrw-serpent',
      'ripemd160',
      PASSWORD,
      'pbkdf2-ripemd160 2000 iterations, pbkdf2-ripemd160 1000 iterations',
    ],
    [
      'tc_2-ripemd160-cbc-aes-twofish',
      'ripemd160',
      PASSWORD,
      'pbkdf2-ripemd160 2000 iterations, pbkdf2-ripemd160 1000 iterations',
    ],
    ['tc_1-sha1-cbc-aes', 'sha1', 'wrong', 'pbkdf2-sha1 2000 iterations'],
    [
      'tc_2-ripemd160-lrw-aes',
      'ripemd160',
      'aaaaaaaaaaab',
      'pbkdf2-ripemd160 2000 iterations, pbkdf2-ripemd160 1000 iterations',
    ],
  ])('%s (prf %s, password %s)', async (name, prf, passphrase, kdfs) => {
    const e = await openTcrypt(image(name), { passphrase, prf, veracrypt: false }).catch((x) => x);
    expect(e).toBeInstanceOf(WrongPassphraseError);
    expect(e).toBeInstanceOf(TcryptError);
    expect(e.message).toBe(
      `@x/tcrypt: no primary header decrypts: ${both} (tried ${kdfs}; aes-xts-plain64, aes-lrw-benbi, aes-cbc-tcw)`,
    );
  });
  it('the outer password on a legacy hidden header', async () => {
    const e = await openTcrypt(image('tc_2-ripemd160-lrw-aes-hidden'), {
      passphrase: PASSWORD,
      prf: 'ripemd160',
      hidden: true,
      veracrypt: false,
    }).catch((x) => x);
    expect(e).toBeInstanceOf(WrongPassphraseError);
    expect(e.message).toMatch(new RegExp(`^@x/tcrypt: no hiddenOld header decrypts: ${both.replace(/[()…]/g, '.')}`));
  });
});

/** tc_1-sha1-cbc-aes's header re-encrypted (whitening and CBC, as TrueCrypt 1.0–4.0) after `edit`, key CRC recomputed. */
function forgedCbc(edit: (view: DataView) => void): Uint8Array {
  const img = image('tc_1-sha1-cbc-aes');
  const key = pbkdf2(sha1, PASSWORD, img.subarray(0, 64), { c: 2000, dkLen: 64 });
  const enc = img.subarray(64, 512);
  const cbc = newCipher(key.subarray(32, 64));
  const white = (b: Uint8Array) => {
    for (let i = 0; i < b.length; i++) b[i] ^= key[8 + (i % 8)];
  };
  white(enc);
  cbc.decrypt(enc, enc, key.subarray(0, 16));
  expect(new TextDecoder().decode(enc.subarray(0, 4))).toBe('TRUE');
  const view = new DataView(enc.buffer, enc.byteOffset, enc.length);
  edit(view);
  view.setUint32(8, crc32(enc, 192, 448));
  cbc.encrypt(enc, enc, key.subarray(0, 16));
  white(enc);
  cbc.dispose();
  return img;
}

/**
 * tc_2-ripemd160-lrw-aes's header (or with `hidden` the hidden header of tc_2-ripemd160-lrw-aes-hidden, 1536
 * bytes before its end) re-encrypted with LRW (K1 = derived[32 .. 64), K2 = derived[0 .. 16), index 1)
 * after `edit`.
 */
function forgedLrw(edit: (view: DataView) => void, hidden = false): Uint8Array {
  const full = image(hidden ? 'tc_2-ripemd160-lrw-aes-hidden' : 'tc_2-ripemd160-lrw-aes');
  const img = hidden ? full.subarray(full.length - 1536, full.length - 1024) : full;
  const key = pbkdf2(ripemd160, hidden ? HIDDEN_PASSWORD : PASSWORD, img.subarray(0, 64), { c: 2000, dkLen: 64 });
  const k = new Uint8Array(48);
  k.set(key.subarray(32, 64));
  k.set(key.subarray(0, 16), 32);
  const lrw = newSectorCipher('aes-lrw-benbi', k);
  const sector = new Uint8Array(512);
  sector.set(img.subarray(64, 512));
  lrw.decrypt(sector, sector, 0);
  expect(new TextDecoder().decode(sector.subarray(0, 4))).toBe('TRUE');
  const view = new DataView(sector.buffer, 0, 448);
  edit(view);
  view.setUint32(8, crc32(sector, 192, 448));
  lrw.encrypt(sector, sector, 0);
  lrw.dispose();
  img.set(sector.subarray(0, 448), 64);
  return full;
}

describe('a legacy header that decrypts is still checked', () => {
  it('the forgeries open when nothing is changed', async () => {
    for (const [img, prf] of [
      [forgedCbc(() => {}), 'sha1'],
      [forgedLrw(() => {}), 'ripemd160'],
    ] as const) {
      const v = await openTcrypt(img, { passphrase: PASSWORD, prf, veracrypt: false });
      const boot = new Uint8Array(512);
      await v.read(boot, 0);
      v.close();
      expect(fatSerial(boot)).toBe('DEAD-BABE');
    }
  });
  it('a legacy hidden volume larger than the image, or reaching over its own header', async () => {
    const open = (img: Uint8Array) =>
      openTcrypt(img, { passphrase: HIDDEN_PASSWORD, prf: 'ripemd160', hidden: true, veracrypt: false });
    (await open(forgedLrw(() => {}, true))).close();
    const big = forgedLrw((v) => v.setBigUint64(28, 1n << 20n), true);
    await expect(open(big)).rejects.toThrow(HeaderError);
    await expect(open(big)).rejects.toThrow(/puts the encrypted area at -\d+, which is not a sector after the first/);
    await expect(open(forgedLrw((v) => v.setBigUint64(28, 0n), true))).rejects.toThrow(
      /the hiddenOld header has a hidden volume size of 0/,
    );
  });
  it.each([
    ['CBC, version 3', () => forgedCbc((v) => v.setUint16(4, 3)), 'sha1', /version 3, which never goes with cbc-tcw/],
    [
      'LRW, version 1',
      () => forgedLrw((v) => v.setUint16(4, 1)),
      'ripemd160',
      /version 1, which never goes with lrw-benbi/,
    ],
    [
      'LRW, a volume past the end',
      () => forgedLrw((v) => v.setBigUint64(36, 1n << 20n)),
      'ripemd160',
      /past the end of the image \(19456 bytes\): a truncated image/,
    ],
    [
      'CBC, a master key offset off the sectors',
      () => forgedCbc((v) => v.setBigUint64(44, 1000n)),
      'sha1',
      /master key offset 1000, not a whole number of 512-byte sectors/,
    ],
  ] as const)('%s', async (_n, make, prf, message) => {
    const img = make();
    await expect(openTcrypt(img, { passphrase: PASSWORD, prf, veracrypt: false })).rejects.toThrow(HeaderError);
    await expect(openTcrypt(img, { passphrase: PASSWORD, prf, veracrypt: false })).rejects.toThrow(message);
  });
});

describe('opening a legacy volume with its raw volume key', () => {
  /** The volume key of `name` (as cryptsetup's --dump-volume-key gives it), from opening it with the password. */
  async function keyOf(name: string, options: Parameters<typeof openTcrypt>[1]): Promise<Uint8Array> {
    const v = await openTcrypt(image(name), { ...options, share: true });
    const key = v.share()!.volumeKey;
    v.close();
    return key;
  }
  it('LRW by its 48-byte key alone, CBC with mode cbc-tcw; hidden ones at their offset', async () => {
    const lrw = await keyOf('tc_2-ripemd160-lrw-aes', { passphrase: PASSWORD, prf: 'ripemd160' });
    expect(await serialOf(image('tc_2-ripemd160-lrw-aes'), { volumeKey: lrw })).toBe('DEAD-BABE');
    const cbc = await keyOf('tc_1-sha1-cbc-aes', { passphrase: PASSWORD, prf: 'sha1' });
    expect(await serialOf(image('tc_1-sha1-cbc-aes'), { volumeKey: cbc, mode: 'cbc-tcw' })).toBe('DEAD-BABE');
    for (const name of ['tc_2-ripemd160-cbc-aes-hidden', 'tc_2-ripemd160-lrw-aes-hidden']) {
      const img = image(name);
      const key = await keyOf(name, { passphrase: HIDDEN_PASSWORD, prf: 'ripemd160', hidden: true, veracrypt: false });
      const offset = img.length - 1536 - 19456;
      const mode = name.includes('cbc') ? 'cbc-tcw' : 'lrw-benbi';
      expect(await serialOf(img, { volumeKey: key, mode, hidden: true, offset, size: 19456 })).toBe('CAFE-BABE');
    }
  });
  it('a wrong mode, length or key is a WrongVolumeKeyError; an unknown mode a RangeError', async () => {
    const img = image('tc_1-sha1-cbc-aes');
    const cbc = await keyOf('tc_1-sha1-cbc-aes', { passphrase: PASSWORD, prf: 'sha1' });
    // 64 bytes without a mode: XTS, over the default XTS area, which this small image does not have
    await expect(openTcrypt(img, { volumeKey: cbc, offset: 512, size: img.length - 512 })).rejects.toThrow(
      /^@x\/tcrypt: the volume key does not decrypt the area to a file system/,
    );
    await expect(openTcrypt(img, { volumeKey: cbc.subarray(0, 48), mode: 'cbc-tcw' })).rejects.toThrow(
      /^@x\/tcrypt: an aes-cbc-tcw volume key is 64 bytes, got 48$/,
    );
    await expect(openTcrypt(img, { volumeKey: cbc.subarray(0, 40) })).rejects.toThrow(
      /^@x\/tcrypt: a volume key is 64 \(XTS, or CBC with mode cbc-tcw\) or 48 \(LRW\) bytes, got 40$/,
    );
    const wrong = Uint8Array.from(cbc);
    wrong[0] ^= 1;
    await expect(openTcrypt(img, { volumeKey: wrong, mode: 'cbc-tcw' })).rejects.toThrow(WrongVolumeKeyError);
    await expect(openTcrypt(img, { volumeKey: cbc, mode: 'cbc-essiv' })).rejects.toThrow(RangeError);
  });
});
