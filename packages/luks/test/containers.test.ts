// The issue's matrix against cryptsetup (@x/containers' LUKS_MATRIX): containers with random contents and
// random passphrases, two keyslots each, opened by the library (every keyslot, the volume key, a wrong
// passphrase). The x-luks command decrypts the same matrix in @x/cli's tests (x-luks-volumes.test.ts).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithCryptsetup, MATRIX_CASES, makeMatrix, removeAllContainers } from '@x/containers';
import { openLuks, readHeader, WrongPassphraseError, WrongVolumeKeyError } from '../src/index.js';
import { openFileSource } from '../src/file.js';
import { expectContainer, sameBytes } from './helpers.js';

const pass = () => randomBytes(12).toString('base64url');

describeWithCryptsetup('containers made by cryptsetup', () => {
  let matrix: Awaited<ReturnType<typeof makeMatrix>>;
  beforeAll(async () => {
    matrix = await makeMatrix();
  });
  afterAll(removeAllContainers);

  const get = (cs: (typeof MATRIX_CASES)[number]) => matrix.get(cs);

  describe.each(MATRIX_CASES)('$label', (cs) => {
    it("opens with each keyslot's passphrase and decrypts the whole payload", async () => {
      const c = get(cs);
      const src = await openFileSource(c.path);
      try {
        const h = await readHeader(src);
        expect(h.version).toBe(cs.luks1 ? 1 : 2);
        for (const [slot, p] of c.passphrases.entries()) {
          const v = await openLuks(src, { passphrase: p });
          expect(v.keyslot).toBe(String(slot));
          expect(v.cipher).toBe(c.cipher);
          await expectContainer(v, c);
          // a read from the middle, in place over a smaller buffer
          const mid = new Uint8Array(3 * v.sectorSize);
          await v.read(mid, 5);
          expect(sameBytes(mid, c.original.subarray(5 * v.sectorSize, 8 * v.sectorSize))).toBe(true);
          v.close();
          await expect(v.read(mid, 0)).rejects.toThrow(/closed/);
        }
        // the keyslot asked for, and only that one
        await expect(openLuks(src, { passphrase: c.passphrases[0], keyslot: 1 })).rejects.toThrow(WrongPassphraseError);
        expect((await openLuks(src, { passphrase: c.passphrases[1], keyslot: 1 })).keyslot).toBe('1');
      } finally {
        await src.close();
      }
    });

    it('refuses a wrong passphrase and a wrong volume key; accepts the right volume key', async () => {
      const c = get(cs);
      const bytes = new Uint8Array(await readFile(c.path));
      await expect(openLuks(bytes, { passphrase: `not ${pass()}` })).rejects.toThrow(WrongPassphraseError);
      await expect(openLuks(bytes, { passphrase: 'x' })).rejects.toThrow(
        /^@x\/luks: no keyslot opens with this passphrase \(tried 0, 1\)$/,
      );
      const wrong = Uint8Array.from(c.volumeKey);
      wrong[0] ^= 1;
      await expect(openLuks(bytes, { volumeKey: wrong })).rejects.toThrow(WrongVolumeKeyError);
      const v = await openLuks(bytes, { volumeKey: c.volumeKey });
      expect(v.keyslot).toBeUndefined();
      await expectContainer(v, c);
    });
  });
});
