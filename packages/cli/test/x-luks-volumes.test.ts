// x-luks on the volumes @x/luks's own tests open with the library, made here by the same helpers of
// @x/containers: the matrix of cryptsetup containers (decrypted byte for byte with the second
// keyslot's passphrase), LUKS2 volumes whose segment is Adiantum (dump, decrypt, a wrong passphrase), headers
// that break a bound (exit 1 in one line, before any key derivation), and cryptsetup's malformed LUKS1
// headers (exit 1 with the library's message in one line).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADIANTUM,
  ADIANTUM_CASES,
  type AdiantumImage,
  type Container,
  describeWithCryptsetup,
  editLuks2Json,
  MATRIX_CASES,
  makeAdiantumImages,
  makeLuks2Container,
  makeMatrix,
  removeAllContainers,
} from '@x/containers';
import { newSectorCipher } from '@x/dm-crypt';
import { readHeader } from '@x/luks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture, runCli, sameBytes } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-luks-volumes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await removeAllContainers();
});

describeWithCryptsetup('x-luks on the containers of the matrix', () => {
  let matrix: Awaited<ReturnType<typeof makeMatrix>>;
  beforeAll(async () => {
    matrix = await makeMatrix();
  });

  it.each(MATRIX_CASES)(
    "$label: x-luks decrypt writes the original data, byte for byte (second keyslot's passphrase)",
    async (cs) => {
      const c = matrix.get(cs);
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
    },
  );
});

describeWithCryptsetup('x-luks on LUKS2 volumes whose segment cipher is Adiantum', () => {
  let images: AdiantumImage[];
  let control: string;
  beforeAll(async () => {
    ({ images, control } = await makeAdiantumImages(newSectorCipher));
  });

  it.each(ADIANTUM_CASES.map((c, i) => ({ ...c, i })))(
    '$label: x-luks dump shows the cipher, x-luks decrypt writes the original, a wrong passphrase exits 2',
    async (cs) => {
      const img = images[cs.i];
      const out = `${img.path}.out`;
      const badOut = `${img.path}.bad-out`;
      try {
        const [dump, dec, bad] = await Promise.all([
          runCli(['dump', img.path]),
          runCli(['decrypt', img.path, out, '--passphrase-file', `${img.base.path}.pass`]),
          runCli(['decrypt', img.path, badOut, '--passphrase-file', `${img.base.path}.wrong-pass`]),
        ]);
        expect(dump.code).toBe(0);
        expect(dump.stdout.toString()).toContain(`     cipher: ${cs.spec}\n`);
        expect(dec.stderr).toMatch(/decrypted .* MB\/s/);
        expect(dec.code).toBe(0);
        expect(sameBytes(new Uint8Array(await readFile(out)), img.base.original)).toBe(true);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toMatch(/^x-luks: no keyslot opens with this passphrase/);
        await expect(readFile(badOut)).rejects.toThrow(/ENOENT/);
      } finally {
        await Promise.all([rm(out, { force: true }), rm(badOut, { force: true })]);
      }
    },
  );

  it('negative control: an Adiantum header over the AES-XTS payload does not decrypt to the original', async () => {
    const c = images[0].base;
    const out = `${control}.out`;
    try {
      const r = await runCli(['decrypt', control, out, '--passphrase-file', `${c.path}.pass`]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`LUKS2 ${ADIANTUM[0].spec}, `);
      expect(sameBytes(new Uint8Array(await readFile(out)), c.original)).toBe(false);
    } finally {
      await rm(out, { force: true });
    }
  });
});

describeWithCryptsetup('x-luks on headers that break a bound', () => {
  let base: Container;
  const pass = 'bounded passphrase';
  beforeAll(async () => {
    base = await makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 256,
      dataSize: 64 * 1024,
      sectorSize: 512,
      pbkdf: { type: 'pbkdf2' },
      passphrases: [pass],
    });
  });

  /** A copy of the base container with its JSON changed by `edit` (both copies, checksums recomputed). */
  async function edited(name: string, edit: (json: Record<string, Record<string, Record<string, unknown>>>) => void) {
    const path = join(dir, name);
    await writeFile(path, await readFile(base.path));
    await editLuks2Json(path, edit as (json: unknown) => void);
    return path;
  }

  it('x-luks dump and decrypt refuse with exit status 1 and one line', async () => {
    const seg = await edited('segment-inside-keyslots.img', (j) => {
      j.segments['0'].offset = '65536';
    });
    const dump = await runCli(['dump', seg]);
    expect(dump.code).toBe(1);
    expect(dump.stderr.trim().split('\n')).toHaveLength(1);
    expect(dump.stderr).toMatch(/segment 0\.offset 65536 is inside the LUKS2 header and keyslots area/);

    const dig = await edited('digest-2-32.img', (j) => {
      j.digests['0'].iterations = 2 ** 32;
    });
    const keyFile = join(dir, 'pass.txt');
    await writeFile(keyFile, pass);
    // refused by the header rule, as the message says (a derivation of 2^32 iterations would instead run
    // for hours, until the test's hang guard stopped it)
    const dec = await runCli(['decrypt', dig, join(dir, 'out.bin'), '--passphrase-file', keyFile]);
    expect(dec.code).toBe(1);
    expect(dec.stderr.trim().split('\n')).toHaveLength(1);
    expect(dec.stderr).toMatch(/digest 0\.iterations 4294967296 is above 2\^32 − 1/);
  });
});

describe("x-luks on cryptsetup's malformed LUKS1 headers (tests/evil_hdr-*)", () => {
  it('x-luks dump refuses each of them with exit status 1 and the message', async () => {
    const fixtures = luksFixture('cryptsetup');
    const evil = (await readdir(fixtures)).filter((f) => f.startsWith('evil_hdr-') && f.endsWith('.xz'));
    expect(evil).toHaveLength(5);
    for (const xz of evil) {
      const path = join(dir, xz.replace(/\.xz$/, ''));
      await writeFile(path, execFileSync('xz', ['-dc', join(fixtures, xz)], { maxBuffer: 64 << 20 }));
      const r = await runCli(['dump', path]);
      expect(r.code, xz).toBe(1);
      expect(r.stdout.length, xz).toBe(0);
      // the library's line, with the command's name for the package's prefix
      const message = await readHeader(new Uint8Array(await readFile(path))).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(message, xz).toMatch(/^@x\/luks: /);
      expect(r.stderr, xz).toBe(`${message.replace(/^@x\/luks: /, 'x-luks: ')}\n`);
    }
  });
});
