// What a user gets wrong, and what a damaged, truncated or tampered image looks like: each is a clear
// error of a stable class, and a damaged metadata copy gives way to the next one, as Windows does.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../src/bytes.js';
import {
  BitlockerError,
  HeaderError,
  openBitlocker,
  readBitlockerHeader,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '../src/index.js';
import { bitlockerImages, startupKeyFiles } from '@x/testkit/disk-images';
import { volumeSha256 } from './open-suite.js';

const { dir, images } = bitlockerImages();
const byName = (n: string) => images.find((i) => i.name === n)!;
const load = async (n: string) => new Uint8Array(await readFile(byName(n).path));
const CLEAR = 'bitlk-aes-xts-128-clearkey-only'; // opens without a secret: no key stretching in these tests

/** The copy `i` of the FVE metadata block in `img`, and its size (the CRC-32 covers [0, size)). */
function block(img: Uint8Array, i: number): { at: number; size: number } {
  const at = new DataView(img.buffer, img.byteOffset).getBigUint64(160 + 16 + 8 * i, true);
  const size = (img[Number(at) + 8] | (img[Number(at) + 9] << 8)) * 16;
  return { at: Number(at), size };
}
/** Changes a byte of the description in copy `i`; with `crc`, recomputes the CRC-32 so that only the
 * authentication (the VMK-encrypted SHA-256) can tell. */
function tamper(img: Uint8Array, i: number, crc: boolean): void {
  const { at, size } = block(img, i);
  img[at + 112 + 8 + 2] ^= 0x20; // inside the first entry (the description string)
  if (crc) new DataView(img.buffer, img.byteOffset).setUint32(at + size + 4, crc32(img.subarray(at, at + size)), true);
}

describe('wrong secrets', () => {
  const cbc = byName('bitlk-aes-cbc-128');

  it('a wrong password is WrongPassphraseError', async () => {
    await expect(openBitlocker(await load(cbc.name), { passphrase: 'anacondA' })).rejects.toThrow(
      new WrongPassphraseError('@x/bitlocker: wrong password'),
    );
  });

  it('a well-formed but wrong recovery password is WrongPassphraseError', async () => {
    const other = byName('bitlk-aes-xts-128').recoveryPassword;
    await expect(openBitlocker(await load(cbc.name), { recoveryPassword: other })).rejects.toThrow(
      new WrongPassphraseError('@x/bitlocker: wrong recovery password'),
    );
  });

  it('a password or recovery password whose stretch (2^20 SHA-256 rounds) is above maxIterations is refused before it: HeaderError', async () => {
    const img = await load(cbc.name);
    for (const secret of [{ passphrase: 'anaconda' }, { recoveryPassword: cbc.recoveryPassword }]) {
      await expect(openBitlocker(img, { ...secret, maxIterations: 2 ** 20 - 1 })).rejects.toThrow(
        /^@x\/bitlocker: protector \{?[0-9a-f-]+\}?\.stretch\.iterations 1048576 is above maxIterations, 1048575 \(raise options\.maxIterations to try it\)$/i,
      );
      await expect(openBitlocker(img, { ...secret, maxIterations: 2 ** 20 - 1 })).rejects.toThrow(HeaderError);
    }
    await expect(openBitlocker(img, { passphrase: 'anaconda', maxIterations: 0 })).rejects.toThrow(
      new RangeError('@x/bitlocker: options.maxIterations must be a positive whole number, got 0'),
    );
  });

  it.each([
    ['a group not divisible by 11', cbc.recoveryPassword.replace(/^\d{6}/, '000001')],
    ['too few digits', '042647-302313'],
  ])('a recovery password with %s is WrongPassphraseError before any hashing', async (_why, rp) => {
    await expect(openBitlocker(await load(cbc.name), { recoveryPassword: rp })).rejects.toThrow(
      /^@x\/bitlocker: not a recovery password: 48 digits in 8 groups of 6/,
    );
  });

  it('a .BEK made for another volume is WrongPassphraseError; a damaged .BEK is a BitlockerError', async () => {
    const img = await load('bitlk-aes-xts-128-startup-key');
    const other = new Uint8Array(await readFile(startupKeyFiles(dir).other));
    const err = await openBitlocker(img, { startupKey: other }).catch((e) => e);
    expect(err).toBeInstanceOf(WrongPassphraseError);
    expect(err.message).toMatch(/^@x\/bitlocker: the startup key is for volume /);
    const good = new Uint8Array(await readFile(startupKeyFiles(dir).good));
    for (const bad of [
      good.subarray(0, 100),
      new Uint8Array(200),
      Uint8Array.from(good, (b, i) => (i === 4 ? 2 : b)),
    ]) {
      const e = await openBitlocker(img, { startupKey: bad }).catch((x) => x);
      expect(e).toBeInstanceOf(BitlockerError);
      expect(e).not.toBeInstanceOf(WrongPassphraseError);
      expect(e.message).toMatch(/^@x\/bitlocker: the startup key file is not a BitLocker \.BEK file: /);
    }
  });

  it('a secret the volume has no protector for says which protectors it has', async () => {
    await expect(openBitlocker(await load(CLEAR), { passphrase: 'x' })).rejects.toThrow(
      '@x/bitlocker: the volume has no password protector (it has: clear key)',
    );
    await expect(openBitlocker(await load(cbc.name))).rejects.toThrow(
      /^@x\/bitlocker: the volume has no clear key: give a password, recovery password, startup key or FVEK \(it has: password, recovery password\)$/,
    );
  });

  it('a wrong FVEK is WrongVolumeKeyError, whatever its length', async () => {
    const img = await load(cbc.name);
    for (const fvek of [new Uint8Array(16).fill(7), new Uint8Array(32)]) {
      await expect(openBitlocker(img, { fvek })).rejects.toBeInstanceOf(WrongVolumeKeyError);
    }
  });
});

describe('damaged, truncated and tampered images', () => {
  it('a metadata copy whose CRC-32 fails gives way to the next, which opens the same volume', async () => {
    const img = await load(CLEAR);
    const want = await volumeSha256(await openBitlocker(img));
    tamper(img, 0, false);
    const h = await readBitlockerHeader(img);
    expect(h.copies[0].problem).toBe('CRC-32 mismatch');
    expect(h.metadata.index).toBe(1);
    const v = await openBitlocker(img);
    expect(await volumeSha256(v)).toBe(want);
    tamper(img, 1, false);
    expect((await readBitlockerHeader(img)).metadata.index).toBe(2);
    tamper(img, 2, false);
    await expect(readBitlockerHeader(img)).rejects.toThrow(
      /^@x\/bitlocker: no usable FVE metadata block: block 0 at \d+: CRC-32 mismatch; block 1 at \d+: CRC-32 mismatch; block 2 at \d+: CRC-32 mismatch$/,
    );
  });

  it('a copy changed with a right CRC-32 fails its authentication and the next copy is used', async () => {
    const img = await load(CLEAR);
    tamper(img, 0, true);
    const h = await readBitlockerHeader(img);
    expect(h.metadata.index).toBe(0); // the CRC-32 cannot tell
    const v = await openBitlocker(img);
    expect((v as unknown as { metadata: { index: number } }).metadata.index).toBe(1);
    tamper(img, 1, true);
    tamper(img, 2, true);
    await expect(openBitlocker(img)).rejects.toThrow(
      new HeaderError('@x/bitlocker: the FVE metadata fails its authentication with the VMK (tampered or damaged)'),
    );
  });

  it('a truncated image is a HeaderError that says so', async () => {
    const img = await load(CLEAR);
    await expect(openBitlocker(img.subarray(0, 40 << 20))).rejects.toThrow(
      /^@x\/bitlocker: the image \(41943040 bytes\) is shorter than the encrypted volume \(104857600 bytes\): truncated$/,
    );
    await expect(readBitlockerHeader(img.subarray(0, 1000))).rejects.toThrow(
      /^@x\/bitlocker: no usable FVE metadata block: block 0 at \d+: offset \d+ is not inside the image \(truncated\?\)/,
    );
    await expect(readBitlockerHeader(img.subarray(0, 100))).rejects.toThrow(/too short for a BitLocker volume/);
  });

  it('what is not BitLocker is a HeaderError', async () => {
    const img = await load(CLEAR);
    await expect(readBitlockerHeader(new Uint8Array(4096))).rejects.toThrow(/^@x\/bitlocker: not a BitLocker volume/);
    const vista = img.slice(0, 1 << 20);
    vista[1] = 0x52;
    await expect(readBitlockerHeader(vista)).rejects.toThrow(
      /Windows Vista's BitLocker \(boot code EB 52 90\) is not supported/,
    );
    const fat = img.slice(0, 1 << 20);
    fat.set(new TextEncoder().encode('MSWIN4.1'), 3);
    await expect(readBitlockerHeader(fat)).rejects.toThrow(
      '@x/bitlocker: a FAT volume without the BitLocker To Go identifier',
    );
  });
});

describe('input rules', () => {
  it('refuses two secrets, and secrets of the wrong type', async () => {
    const img = await load(CLEAR);
    await expect(openBitlocker(img, { passphrase: 'a', recoveryPassword: 'b' })).rejects.toThrow(
      new TypeError('@x/bitlocker: give one secret, not passphrase and recoveryPassword'),
    );
    await expect(openBitlocker(img, { passphrase: 5 as never })).rejects.toThrow(TypeError);
    await expect(openBitlocker(img, { startupKey: 'x.BEK' as never })).rejects.toThrow(TypeError);
    await expect(openBitlocker(img, { fvek: [1, 2] as never })).rejects.toThrow(TypeError);
    await expect(openBitlocker('disk.img' as never)).rejects.toThrow(TypeError);
  });

  it('reads whole sectors inside the volume, zeroes dst on failure, and refuses reads once closed', async () => {
    const img = await load(CLEAR);
    const v = await openBitlocker(img);
    await expect(v.read(new Uint8Array(100), 0)).rejects.toThrow(RangeError);
    await expect(v.read(new Uint8Array(512), v.payloadSize / 512)).rejects.toThrow(RangeError);
    await expect(v.read(new Uint8Array(512), -1)).rejects.toThrow(RangeError);
    let gone = false;
    const failing = await openBitlocker({
      size: img.length,
      read: async (o, d) => {
        if (gone && o > 1 << 20) throw new Error('disk gone');
        d.set(img.subarray(o, o + d.length));
      },
    });
    gone = true;
    const dst = new Uint8Array(4 << 20).fill(1);
    await expect(failing.read(dst, 0)).rejects.toThrow('disk gone');
    expect(dst.every((b) => b === 0)).toBe(true);
    v.close();
    await expect(v.read(new Uint8Array(512), 0)).rejects.toThrow(
      new BitlockerError('@x/bitlocker: the volume is closed'),
    );
  });

  it('the extents cover the volume exactly, in order, with the metadata and the moved header as zeros', async () => {
    const img = await load(CLEAR);
    const v = await openBitlocker(img);
    let at = 0;
    for (const x of v.extents) {
      expect(x.start).toBe(at);
      at = x.end;
    }
    expect(at).toBe(v.payloadSize);
    const zeros = v.extents.filter((x) => x.kind === 'zero').map((x) => [x.start, x.end - x.start]);
    const h = v.header.metadata;
    expect(zeros).toEqual(
      [...h.metadataOffsets.map((o) => [o, 65536]), [h.volumeHeader.offset, h.volumeHeader.size]].sort(
        (a, b) => a[0] - b[0],
      ),
    );
  });
});
