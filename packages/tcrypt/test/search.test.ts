// The search without a PRF hint (the derivations side by side, stopping at the first that decrypts), its
// progress and cancellation, the backup headers at the end of the image, and the pieces with published
// answers (CRC-32's check value, the keyfile pool).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32, kdfCandidates, openTcrypt, tcryptPassword, WrongPassphraseError } from '../src/index.js';
import { kdfThreadState } from '../src/kdf-threads.js';
import { extractImages, serialOf, PASSWORD } from './images.js';
import { useSourceThreads } from './threads.js';

useSourceThreads(); // the derivations WebCrypto lacks in worker threads, as users run them
const { dir, remove } = extractImages();
afterAll(remove);
const image = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

describe('without a PRF hint', () => {
  it('opens VeraCrypt SHA-512 and TrueCrypt RIPEMD-160 and Whirlpool volumes, telling each derivation as it starts', async () => {
    for (const [name, prf] of [
      ['vc_1-sha512-xts-aes', 'sha512'],
      ['tc_4-ripemd160-xts-aes', 'ripemd160'],
      ['tc_5-whirlpool-xts-aes', 'whirlpool'],
    ]) {
      const seen: string[] = [];
      const v = await openTcrypt(image(name), { passphrase: PASSWORD, onProgress: (k) => seen.push(k.prf) });
      expect(v.header?.kdf.prf).toBe(prf);
      expect(seen).toContain(prf);
      expect(seen).not.toContain('argon2id'); // found before the costly derivations start
      v.close();
    }
  });
  it('stops when cancelled', async () => {
    const ac = new AbortController();
    const p = openTcrypt(image('vc_1-sha512-xts-camellia'), {
      passphrase: PASSWORD,
      signal: ac.signal,
      onProgress: (k) => {
        if (k.prf === 'blake2s-256') ac.abort(new Error('cancelled by the test'));
      },
    });
    await expect(p).rejects.toThrow('cancelled by the test');
    expect(kdfThreadState.live).toBe(0); // every key derivation thread ended
  });
  it('tries the TrueCrypt counts and VeraCrypt counts as cryptsetup does, boot counts only for system encryption', () => {
    const names = (s: Parameters<typeof kdfCandidates>[0]) => kdfCandidates(s).map((c) => `${c.prf}:${c.iterations}`);
    expect(names({})).toEqual([
      'ripemd160:2000',
      'ripemd160:1000',
      'sha512:1000',
      'whirlpool:1000',
      'sha1:2000',
      'sha512:500000',
      'whirlpool:500000',
      'sha256:500000',
      'argon2id:6',
      'blake2s-256:500000',
      'ripemd160:655331',
      'stribog512:500000',
    ]);
    expect(names({ system: true, prf: 'sha256' })).toEqual(['sha256:500000', 'sha256:200000']);
    expect(names({ pim: 10, system: true, prf: 'ripemd160' })).toEqual(['ripemd160:25000', 'ripemd160:20480']);
    expect(names({ veracrypt: false })).toEqual([
      'ripemd160:2000',
      'ripemd160:1000',
      'sha512:1000',
      'whirlpool:1000',
      'sha1:2000',
    ]);
  });
  it('a VeraCrypt volume does not open with VeraCrypt turned off', async () => {
    await expect(openTcrypt(image('vc_1-sha512-xts-aes'), { passphrase: PASSWORD, veracrypt: false })).rejects.toThrow(
      WrongPassphraseError,
    );
  });
});

describe('backup headers', () => {
  it('the outer and the hidden volume open from the backups at the end', async () => {
    for (const name of ['vc_1-sha512-xts-aes-hidden', 'tc_5-sha512-xts-aes-hidden']) {
      const img = image(name);
      expect(await serialOf(img, { passphrase: PASSWORD, prf: 'sha512', backup: true })).toBe('DEAD-BABE');
      expect(await serialOf(img, { passphrase: 'bbbbbbbbbbbb', prf: 'sha512', backup: true, hidden: true })).toBe(
        'CAFE-BABE',
      );
    }
  });
  it('the backup is used alone: a wiped primary header does not matter, a wiped backup does', async () => {
    const img = image('vc_1-sha512-xts-aes');
    img.fill(0, 0, 512);
    expect(await serialOf(img, { passphrase: PASSWORD, prf: 'sha512', backup: true })).toBe('DEAD-BABE');
    await expect(openTcrypt(img, { passphrase: PASSWORD, prf: 'sha512' })).rejects.toThrow(WrongPassphraseError);
  });
});

describe('known answers', () => {
  it('CRC-32 of "123456789" is 0xcbf43926', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
  it('the keyfile pool: 64 bytes (128 past a 64-byte VeraCrypt password), the password added to its start', async () => {
    const one = Uint8Array.of(0x61);
    // CRC register after the byte 'a' from 0xffffffff (no final inversion): ~crc32('a') = ~0xe8b7be43
    const pool = await tcryptPassword(new Uint8Array(0), [one], true);
    expect(pool.length).toBe(64);
    expect(Array.from(pool.subarray(0, 5))).toEqual([0x17, 0x48, 0x41, 0xbc, 0]);
    const withPass = await tcryptPassword(Uint8Array.of(1, 2), [one], true);
    expect(Array.from(withPass.subarray(0, 3))).toEqual([0x18, 0x4a, 0x41]);
    expect((await tcryptPassword(new Uint8Array(65), [one], true)).length).toBe(128);
    expect(Array.from(await tcryptPassword(Uint8Array.of(7), [], true))).toEqual([7]);
  });
});
