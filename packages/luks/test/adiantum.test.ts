// LUKS2 volumes whose data segment is Adiantum (issue 13). cryptsetup cannot make one on a machine
// without device-mapper (it has the kernel check the segment cipher), so each is built the way dm-crypt
// would hold one: a real container made by cryptsetup with a 32-byte volume key (aes-xts-plain64, 256
// bits), whose segment cipher is renamed in both header copies (checksums recomputed; keyslots untouched)
// and whose payload is encrypted again, sector by sector, with Adiantum under the same volume key. Then
// cryptsetup checks the header (luksDump validates checksums and JSON, and still unlocks the keyslot), and
// @x/luks must read back exactly the original data. @x/containers makes them (makeAdiantumImages), for the
// x-luks tests of @x/cli too.
import { copyFile, readFile, rm } from 'node:fs/promises';
import { newAdiantum } from '@x/adiantum/portable';
import {
  ADIANTUM,
  ADIANTUM_CASES as CASES,
  type AdiantumImage,
  type Container,
  describeWithCryptsetup,
  dumpWithVolumeKey,
  makeAdiantumImages,
  parseVolumeKey,
  removeAllContainers,
  runCryptsetup,
  setLuks2SegmentCipher,
  writeAt,
} from '@x/containers';
import { newSectorCipher } from '@x/dm-crypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileSource } from '../src/file.js';
import { openLuks, readHeader, WrongPassphraseError } from '../src/index.js';
import { expectContainer, sameBytes } from './helpers.js';

interface Image extends AdiantumImage {
  /** The payload computed sector by sector with the portable Adiantum and hand-made plain64 tweaks. */
  readonly expected: Uint8Array;
}

/** A copy of `path` (named `path.suffix`) with `bytes` written at each offset: a header copy wiped or damaged. */
async function damagedCopy(path: string, suffix: string, edits: [offset: number, bytes: Uint8Array][]) {
  const out = `${path}.${suffix}`;
  await copyFile(path, out);
  for (const [at, bytes] of edits) await writeAt(out, bytes, at);
  return out;
}

/** `cryptsetup luksDump` facts: segment 0's cipher and the keyslot ciphers (the lines after "Keyslots:"). */
function dumpCiphers(dump: string) {
  const [segments, keyslots = ''] = dump.split(/^Keyslots:$/m);
  return {
    segment: /^\s+cipher:\s+(\S+)$/m.exec(segments)?.[1],
    keyslots: [...keyslots.matchAll(/^\s+Cipher:\s+(\S+)$/gm)].map((m) => m[1]),
  };
}

describeWithCryptsetup('LUKS2 volumes whose segment cipher is Adiantum', () => {
  const bases: Container[] = [];
  const images: Image[] = [];
  const passFiles: string[] = [];
  let control = '';

  beforeAll(async () => {
    const made = await makeAdiantumImages(newSectorCipher);
    bases.push(...made.bases);
    control = made.control;
    for (const c of bases) {
      expect(c.volumeKey.length).toBe(32);
      expect(c.ivTweak).toBe(0n);
      passFiles.push(`${c.path}.pass`);
    }
    for (const [i, cs] of CASES.entries()) {
      const img = made.images[i];
      const base = img.base;
      // the same, one sector at a time, from @x/adiantum's portable core and tweaks made here: Linux
      // adiantum's IV is 32 bytes (crypto/adiantum.c TWEAK_SIZE), plain64 fills the first 8 with the
      // sector number little-endian, the rest zero (dm-crypt.c crypt_iv_plain64_gen); that number counts
      // 512-byte units whatever the sector size, as LUKS2 volumes never set dm-crypt's iv_large_sectors
      // (dm-crypt.rst), so sector s of 4096 bytes has IV 8·s; iv_tweak (dm-crypt's iv_offset) is added to it
      const per = BigInt(base.sectorSize / 512);
      const a = newAdiantum(base.volumeKey, { rounds: cs.rounds });
      const expected = new Uint8Array(base.payloadSize);
      const tweak = new Uint8Array(32);
      for (let s = 0; s * base.sectorSize < base.payloadSize; s++) {
        new DataView(tweak.buffer).setBigUint64(0, BigInt(s) * per + cs.ivTweak, true);
        const at = s * base.sectorSize;
        a.encrypt(expected.subarray(at, at + base.sectorSize), base.original.subarray(at, at + base.sectorSize), tweak);
      }
      a.dispose();
      images.push({ ...img, expected });
    }
  });
  afterAll(removeAllContainers);

  describe.each(CASES.map((c, i) => ({ ...c, i })))('$label', (cs) => {
    it('the payload is Adiantum as Linux computes it, sector by sector with a plain64 tweak', async () => {
      const img = images[cs.i];
      expect(img.previous).toBe('aes-xts-plain64');
      expect(sameBytes(img.ciphertext, img.expected)).toBe(true);
      expect(sameBytes(img.ciphertext, img.base.original)).toBe(false);
      const onDisk = new Uint8Array(await readFile(img.path)).subarray(img.base.payloadOffset);
      expect(onDisk.length).toBe(img.base.payloadSize);
      expect(sameBytes(onDisk, img.ciphertext)).toBe(true);
      expect(sameBytes(onDisk, await img.base.readPayload())).toBe(false); // not cryptsetup's AES-XTS
    });

    it('cryptsetup luksDump accepts each header copy, shows the Adiantum cipher and still unlocks the keyslot', async () => {
      const img = images[cs.i];
      const hs = 16384; // hdr_size that cryptsetup writes by default (checked below)
      const zeros = new Uint8Array(4096);
      // each copy alone: the other one's binary header wiped, so cryptsetup must read (and verify) this one
      const onlySecondary = await damagedCopy(img.path, 'no-primary', [[0, zeros]]);
      const onlyPrimary = await damagedCopy(img.path, 'no-secondary', [[hs, zeros]]);
      try {
        for (const p of [img.path, onlyPrimary, onlySecondary]) {
          const { stdout } = await runCryptsetup(['luksDump', '--disable-locks', p]);
          expect(stdout).toMatch(/^Metadata area:\s+16384 \[bytes\]$/m);
          const ciphers = dumpCiphers(stdout);
          expect(ciphers.segment, p).toBe(cs.spec);
          expect(ciphers.keyslots).toEqual(['aes-xts-plain64']); // the keyslot area keeps cryptsetup's cipher
        }
      } finally {
        await Promise.all([rm(onlyPrimary), rm(onlySecondary)]);
      }
      // the JSON differs from cryptsetup's in segment 0's cipher only
      const json = async (p: string) =>
        JSON.parse((await runCryptsetup(['luksDump', '--dump-json-metadata', '--disable-locks', p])).stdout);
      const [before, after] = await Promise.all([json(img.base.path), json(img.path)]);
      expect(after.segments['0'].encryption).toBe(cs.spec);
      expect(after.segments['0'].iv_tweak).toBe(String(cs.ivTweak));
      after.segments['0'].encryption = before.segments['0'].encryption;
      after.segments['0'].iv_tweak = before.segments['0'].iv_tweak;
      expect(after).toEqual(before);
      // the keyslot still gives the same volume key
      const stdout = await dumpWithVolumeKey(img.path, passFiles[cs.base]);
      // cryptsetup's LUKS1-style lines split the spec: "xchacha12,aes" + "adiantum-plain64", or
      // "capi:adiantum(xchacha12,aes)" + "plain64"
      const name = /^Cipher name:\s+(\S+)$/m.exec(stdout)?.[1];
      const mode = /^Cipher mode:\s+(\S+)$/m.exec(stdout)?.[1];
      expect(`${name}-${mode}`).toBe(cs.spec);
      expect(Buffer.from(parseVolumeKey(stdout)).toString('hex')).toBe(Buffer.from(img.base.volumeKey).toString('hex'));
    });

    it('@x/luks reads back exactly the original, every sector (passphrase and volume key)', async () => {
      const img = images[cs.i];
      const c = img.base;
      const src = await openFileSource(img.path);
      try {
        const h = await readHeader(src);
        if (h.version !== 2) throw new Error('expected LUKS2');
        expect(h.copy).toBe('primary');
        expect(h.problems).toEqual([]); // both checksums hold, same seqid
        expect(h.segments[0].encryption).toBe(cs.spec);
        expect(h.segments[0].ivTweak).toBe(cs.ivTweak);
        const v = await openLuks(src, { passphrase: c.passphrases[0] });
        expect(v.keyslot).toBe('0');
        expect(v.cipher).toBe(cs.spec);
        expect(v.keySize).toBe(32);
        await expectContainer(v, c);
        // every sector on its own
        const one = new Uint8Array(v.sectorSize);
        for (let s = 0; s * v.sectorSize < v.payloadSize; s++) {
          await v.read(one, s);
          const at = s * v.sectorSize;
          if (!sameBytes(one, c.original.subarray(at, at + v.sectorSize))) throw new Error(`sector ${s} differs`);
        }
        v.close();
        const byKey = await openLuks(src, { volumeKey: c.volumeKey });
        const again = new Uint8Array(v.payloadSize);
        await byKey.read(again, 0);
        byKey.close();
        expect(sameBytes(again, c.original)).toBe(true);
        await expect(openLuks(src, { passphrase: `${Buffer.from(c.passphrases[0]).toString()}!` })).rejects.toThrow(
          WrongPassphraseError,
        );
      } finally {
        await src.close();
      }
    });
  });

  it('negative control: an Adiantum header over the AES-XTS payload does not decrypt to the original', async () => {
    const c = bases[0];
    expect(dumpCiphers((await runCryptsetup(['luksDump', '--disable-locks', control])).stdout).segment).toBe(
      ADIANTUM[0].spec,
    );
    const v = await openLuks(new Uint8Array(await readFile(control)), { passphrase: c.passphrases[0] });
    expect(v.cipher).toBe(ADIANTUM[0].spec);
    const plain = new Uint8Array(v.payloadSize);
    await v.read(plain, 0);
    v.close();
    expect(sameBytes(plain, c.original)).toBe(false);
    // no sector survives (each one is a full wide-block decryption of the wrong ciphertext)
    for (let at = 0; at < plain.length; at += c.sectorSize) {
      expect(sameBytes(plain.subarray(at, at + c.sectorSize), c.original.subarray(at, at + c.sectorSize))).toBe(false);
    }
  });

  it('cryptsetup and @x/luks refuse the rewritten header once a JSON byte changes under its checksums', async () => {
    // proves that cryptsetup's acceptance above rests on checksums over the JSON area that we recomputed
    const img = images[0];
    const hs = 16384;
    const flipped = await damagedCopy(img.path, 'flipped', [
      [hs - 1, Uint8Array.of(0x20)], // last byte of the primary JSON area's zero padding
      [2 * hs - 1, Uint8Array.of(0x20)], // the same in the secondary
    ]);
    try {
      await expect(runCryptsetup(['luksDump', '--disable-locks', flipped])).rejects.toThrow(/not a valid LUKS device/);
      await expect(readHeader(new Uint8Array(await readFile(flipped)))).rejects.toThrow(/checksum mismatch/);
    } finally {
      await rm(flipped, { force: true });
    }
  });

  it('setLuks2SegmentCipher refuses a damaged header copy and writes nothing', async () => {
    const damaged = await damagedCopy(bases[1].path, 'damaged', [[4096 + 100, Uint8Array.of(0x41)]]);
    try {
      const before = await readFile(damaged);
      await expect(setLuks2SegmentCipher(damaged, ADIANTUM[0].spec)).rejects.toThrow(
        /primary header: checksum mismatch \(corrupt\)$/,
      );
      expect((await readFile(damaged)).equals(before)).toBe(true);
      await expect(setLuks2SegmentCipher(control, ADIANTUM[0].spec, '7')).rejects.toThrow(/no crypt segment 7$/);
    } finally {
      await rm(damaged, { force: true });
    }
  });
});
