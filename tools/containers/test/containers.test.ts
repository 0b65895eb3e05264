import { assertBytes, refXts } from '@x/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  convertToLuks1,
  cryptsetupRequirement,
  dumpVolumeKey,
  makeLuks2Container,
  parseVolumeKey,
  removeAllContainers,
  runCryptsetup,
} from '../src/index.js';

describe('parseVolumeKey', () => {
  it('reads cryptsetup 2.6 "MK dump:" output', () => {
    const dump =
      'MK bits:       \t256\nMK dump:\t2b aa 6f e2 b8 f5 58 c6 9d c2 f9 31 7e 67 28 de \n\t\tee 0c 08 5e e4 08 ea 7f 8c 37 83 9d 9f 30 64 14 \n';
    expect(Buffer.from(parseVolumeKey(dump)).toString('hex')).toBe(
      '2baa6fe2b8f558c69dc2f9317e6728deee0c085ee408ea7f8c37839d9f306414',
    );
  });
  it('reads later "Volume key:" output', () => {
    expect(
      Buffer.from(parseVolumeKey('Volume key:\t00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff\n')).toString('hex'),
    ).toBe('00112233445566778899aabbccddeeff');
  });
  it('fails loudly without a key', () => expect(() => parseVolumeKey('nothing here')).toThrow(/no volume key/));
});

describe('cryptsetupRequirement', () => {
  const req = cryptsetupRequirement({ CI: 'true' });
  it('never skips silently under CI', () => expect(req.run || req.failure !== undefined).toBe(true));
});

const req = cryptsetupRequirement();
if (req.failure !== undefined) {
  it('cryptsetup is installed (required under CI)', () => {
    throw new Error(req.failure);
  });
}
if (req.skipNotice !== undefined) it.skip(`containers: ${req.skipNotice}`, () => {});

describe.runIf(req.run)('containers', () => {
  afterAll(removeAllContainers);

  it('LUKS2 aes-xts-plain64, 512-bit key, 4096-byte sectors, argon2id, three keyslots', async () => {
    const c = await makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 512,
      sectorSize: 4096,
      dataSize: 64 * 1024,
      pbkdf: { type: 'argon2id' },
      passphrases: ['first', 'second', new Uint8Array([0, 1, 2, 255])],
    });
    expect(c).toMatchObject({
      format: 'luks2',
      cipher: 'aes-xts-plain64',
      cipherName: 'aes',
      chainMode: 'xts',
      ivMode: 'plain64',
      sectorSize: 4096,
    });
    expect(c.volumeKey.length).toBe(64);
    expect(c.dump).toMatch(/argon2id/);
    // every passphrase opens a keyslot holding the same volume key
    for (let i = 1; i < 3; i++) {
      const keyFile = c.path.replace(/\.luks2\.img$/, `.key${i}`);
      expect(Buffer.from(await dumpVolumeKey(c.path, keyFile)).equals(Buffer.from(c.volumeKey))).toBe(true);
    }
    // sector 3 (IV sector 24 in 512-byte units, plain64) decrypts with node:crypto
    const payload = await c.readPayload();
    const iv = Buffer.alloc(16);
    iv.writeUInt32LE(24, 0);
    assertBytes(
      refXts(false, c.volumeKey, payload.subarray(3 * 4096, 4 * 4096), iv),
      c.original.subarray(3 * 4096, 4 * 4096),
    );
    await c.remove();
  });

  it('LUKS2 → LUKS1 keeps the payload, offset and volume key', async () => {
    const v2 = await makeLuks2Container({ cipher: 'aes-cbc-essiv:sha256', keySize: 256, dataSize: 32 * 1024 });
    const v1 = await convertToLuks1(v2);
    expect(v1.format).toBe('luks1');
    expect(v1.dump).toMatch(/Version:\s+1/);
    expect(v1.payloadOffset).toBe(v2.payloadOffset);
    expect(Buffer.from(v1.volumeKey).equals(Buffer.from(v2.volumeKey))).toBe(true);
    expect(Buffer.from(await v1.readPayload()).equals(Buffer.from(await v2.readPayload()))).toBe(true);
    await Promise.all([v1.remove(), v2.remove()]);
  });

  it('reports cryptsetup failures with the command and its message', async () => {
    await expect(runCryptsetup(['luksDump', '/nonexistent.img'])).rejects.toThrow(
      /cryptsetup luksDump \/nonexistent\.img failed/,
    );
  });
});
