// The matrix against cryptsetup: containers with random contents and random passphrases, two
// keyslots each, opened by the library (every keyslot, the volume key, a wrong passphrase) and decrypted
// by the x-luks command as a child process, byte for byte.
import { randomBytes } from 'node:crypto';
import { rm, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeWithCryptsetup,
  convertToLuks1,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  type Container,
  type ContainerSpec,
} from '@x/containers';
import { openLuks, readHeader, WrongPassphraseError, WrongVolumeKeyError } from '../src/index.js';
import { openFileSource } from '../src/file.js';
import { runCli, sameBytes } from './helpers.js';

interface Made {
  name: string;
  spec: ContainerSpec;
  luks1?: boolean;
}

const pass = () => randomBytes(12).toString('base64url');
const argon = { type: 'argon2id', memoryKiB: 32, iterations: 4, parallel: 1 } as const;

// LUKS2 pbkdf2 (sha1, sha256, sha512), argon2id and argon2i; the 512-byte pbkdf2 ones are also converted to LUKS1.
const MATRIX: Made[] = [
  {
    name: 'aes-cbc-essiv:sha256, 512, pbkdf2-sha1',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 256, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha1' } },
    luks1: true,
  },
  {
    name: 'aes-cbc-essiv:sha256, 4096, pbkdf2-sha256',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 128, sectorSize: 4096, pbkdf: { type: 'pbkdf2', hash: 'sha256' } },
  },
  {
    name: 'aes-cbc-plain64, 512, pbkdf2-sha512',
    spec: { cipher: 'aes-cbc-plain64', keySize: 256, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha512' } },
    luks1: true,
  },
  {
    name: 'aes-cbc-plain64, 4096, argon2i',
    spec: {
      cipher: 'aes-cbc-plain64',
      keySize: 256,
      sectorSize: 4096,
      pbkdf: { ...argon, type: 'argon2i', memoryKiB: 64 },
    },
  },
  {
    name: 'aes-xts-plain64, 512, pbkdf2-sha256',
    spec: { cipher: 'aes-xts-plain64', keySize: 512, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha256' } },
    luks1: true,
  },
  {
    name: 'aes-xts-plain64, 4096, argon2id',
    spec: { cipher: 'aes-xts-plain64', keySize: 512, sectorSize: 4096, pbkdf: argon },
  },
  {
    name: 'aes-xts-plain64, 4096, pbkdf2-sha512, 256-bit key',
    spec: { cipher: 'aes-xts-plain64', keySize: 256, sectorSize: 4096, pbkdf: { type: 'pbkdf2', hash: 'sha512' } },
  },
  {
    name: 'aes-cbc-essiv:sha256, 512, argon2id',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 256, sectorSize: 512, pbkdf: argon },
  },
];

// Every LUKS2 container, then the LUKS1 conversions.
const CASES = [
  ...MATRIX.map((m, i) => ({ label: `LUKS2 ${m.name}`, index: i, luks1: false })),
  ...MATRIX.flatMap((m, i) => (m.luks1 ? [{ label: `LUKS1 ${m.name}`, index: i, luks1: true }] : [])),
];

describeWithCryptsetup('containers made by cryptsetup', () => {
  const v2: Container[] = [];
  const v1 = new Map<number, Container>();

  beforeAll(async () => {
    const made = await mapLimit(MATRIX, availableParallelism(), (m) =>
      makeLuks2Container({ ...m.spec, dataSize: 192 * 1024, passphrases: [pass(), pass()] }),
    );
    v2.push(...made);
    const conv = await mapLimit(
      MATRIX.map((m, i) => [m, i] as const).filter(([m]) => m.luks1),
      availableParallelism(),
      async ([, i]) => [i, await convertToLuks1(made[i])] as const,
    );
    for (const [i, c] of conv) v1.set(i, c);
  });
  afterAll(removeAllContainers);

  const get = (c: { index: number; luks1: boolean }) => (c.luks1 ? v1.get(c.index)! : v2[c.index]);

  describe.each(CASES)('$label', (cs) => {
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
          expect(v.sectorSize).toBe(c.sectorSize);
          expect(v.payloadOffset).toBe(c.payloadOffset);
          expect(v.payloadSize).toBe(c.payloadSize);
          const plain = new Uint8Array(v.payloadSize);
          await v.read(plain, 0);
          expect(sameBytes(plain, c.original)).toBe(true);
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
      const plain = new Uint8Array(v.payloadSize);
      await v.read(plain, 0);
      expect(sameBytes(plain, c.original)).toBe(true);
    });

    it("x-luks decrypt writes the original data, byte for byte (second keyslot's passphrase)", async () => {
      const c = get(cs);
      const out = `${c.path}.out`;
      const pf = `${c.path}.pass1`;
      await writeFile(pf, c.passphrases[1]);
      try {
        const r = await runCli(['decrypt', c.path, out, '--passphrase-file', pf]);
        expect(r.stderr).toMatch(/decrypted .* MB\/s/);
        expect(r.code).toBe(0);
        expect(sameBytes(new Uint8Array(await readFile(out)), c.original)).toBe(true);
      } finally {
        await rm(out, { force: true });
      }
    });
  });
});
