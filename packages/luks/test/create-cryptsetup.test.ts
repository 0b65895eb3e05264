// createLuks images checked by cryptsetup 2.6 itself, for every cipher spec that @x/dm-crypt runs and this
// cryptsetup can use without device-mapper (its luksFormat refuses the rest here: elephant, hctr2, adiantum,
// ecb, capi: forms), in LUKS1 (512-byte sectors) and LUKS2 (512 and 4096): `luksDump` accepts the image and
// shows its cipher, sector size and label; `open --test-passphrase` takes the passphrase and refuses another;
// `luksDump --dump-volume-key` gives the volume key; and cryptsetup's own offline decryption of the payload
// gives PLAIN back (the payload alone under a detached header with the same volume key, `reencrypt --decrypt
// --force-offline-reencrypt`: see @x/containers' makeDetachedHeader). A LUKS1 image also has the layout of
// cryptsetup's own `luksFormat --type luks1` with the same cipher and key size: payload and key material
// offsets.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWithCryptsetup,
  dumpVolumeKey,
  makeDetachedHeader,
  reencryptDecryptArgs,
  runCryptsetup,
} from '@x/containers';
import { type CreateOptions, createLuks, openLuks } from '../src/index.js';
import { sameBytes } from './helpers.js';

const SPECS = [
  'aes-xts-plain64',
  'aes-xts-plain',
  'aes-xts-plain64be',
  'aes-xts-benbi',
  'aes-xts-null',
  'aes-cbc-essiv:sha256',
  'aes-cbc-plain',
  'aes-cbc-plain64',
  'aes-cbc-plain64be',
  'aes-cbc-benbi',
  'aes-cbc-null',
  'aes-cbc-eboiv',
];
const KDFS: Partial<CreateOptions>[] = [
  { pbkdf: 'pbkdf2', iterations: 1000 },
  { pbkdf: 'argon2id', iterations: 4, memory: 64, parallelism: 2 },
  { pbkdf: 'argon2i', iterations: 4, memory: 32, parallelism: 1 },
];
// key sizes vary over the specs: XTS 256 and 512 bits, CBC 128, 192 and 256
const keyBitsOf = (spec: string, i: number) => (spec.includes('-xts-') ? [512, 256][i % 2] : [256, 128, 192][i % 3]);

interface Case {
  name: string;
  spec: string;
  type: 'luks1' | 'luks2';
  sector: number;
  keyBits: number;
  kdf: Partial<CreateOptions>;
}
const CASES: Case[] = SPECS.flatMap((spec, i) =>
  (
    [
      ['luks1', 512],
      ['luks2', 512],
      ['luks2', 4096],
    ] as const
  ).map(([type, sector], j) => ({
    name: `${type}, ${spec}, ${keyBitsOf(spec, i + j)}-bit, ${sector}-byte sectors`,
    spec,
    type,
    sector,
    keyBits: keyBitsOf(spec, i + j),
    kdf: type === 'luks1' ? KDFS[0] : KDFS[(i + j) % 3],
  })),
);

/** "Payload offset" and the key material offsets of a LUKS1 luksDump. */
function luks1Layout(dump: string): { payload: string; slots: string[] } {
  return {
    payload: /^Payload offset:\s*(\d+)/m.exec(dump)?.[1] ?? '?',
    slots: [...dump.matchAll(/Key material offset:\s*(\d+)/g)].map((m) => m[1]),
  };
}

describeWithCryptsetup('createLuks images in cryptsetup 2.6', () => {
  let dir: string;
  let pass: string, other: string;
  const passphrase = randomBytes(12).toString('base64url');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-luks-create-'));
    pass = join(dir, 'pass');
    other = join(dir, 'other');
    await writeFile(pass, passphrase);
    await writeFile(other, 'another passphrase');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    const plain = randomBytes(64 * 1024 + 700); // the last sector padded with zeros
    const volumeKey = randomBytes(c.keyBits / 8);
    const img = join(dir, `img${i}`),
      data = join(dir, `data${i}`),
      hdr = join(dir, `hdr${i}`);
    const fh = await open(img, 'wx');
    let payloadOffset: number;
    try {
      const header = await createLuks(
        plain,
        { write: async (o, b) => void (await fh.write(b, 0, b.length, o)) },
        {
          passphrase,
          volumeKey,
          type: c.type,
          cipher: c.spec,
          keySize: c.keyBits,
          sectorSize: c.sector,
          ...(c.type === 'luks2' ? { label: `case ${i}` } : {}),
          ...c.kdf,
        },
      );
      payloadOffset = header.version === 1 ? header.payloadOffset * 512 : Number(header.segments[0].offset);
    } finally {
      await fh.close();
    }

    const { stdout } = await runCryptsetup(['luksDump', '--disable-locks', img]);
    if (c.type === 'luks2') {
      expect(stdout).toMatch(/^Version:\s+2$/m);
      expect(stdout).toContain(`cipher: ${c.spec}\n`);
      expect(stdout).toMatch(new RegExp(`sector: ${c.sector} \\[bytes\\]`));
      expect(stdout).toMatch(new RegExp(`Label:\\s+case ${i}$`, 'm'));
    } else {
      expect(stdout).toMatch(/^Version:\s+1$/m);
      const dash = c.spec.indexOf('-');
      expect(stdout).toMatch(new RegExp(`^Cipher name:\\s+${c.spec.slice(0, dash)}$`, 'm'));
      expect(stdout).toContain(`${c.spec.slice(dash + 1)}\n`);
      expect(stdout).toMatch(new RegExp(`^MK bits:\\s+${c.keyBits}$`, 'm'));
      // the layout of cryptsetup's own LUKS1 luksFormat with this cipher and key size
      const ref = join(dir, `ref${i}`);
      await writeFile(ref, '');
      await truncate(ref, 4 << 20);
      await runCryptsetup([
        'luksFormat',
        '--type',
        'luks1',
        '--cipher',
        c.spec,
        '--key-size',
        String(c.keyBits),
        '--pbkdf-force-iterations',
        '1000',
        '--key-file',
        pass,
        '--batch-mode',
        '--disable-locks',
        ref,
      ]);
      const { stdout: refDump } = await runCryptsetup(['luksDump', '--disable-locks', ref]);
      expect(luks1Layout(stdout)).toEqual(luks1Layout(refDump));
      expect(String(payloadOffset / 512)).toBe(luks1Layout(stdout).payload);
    }
    await runCryptsetup(['open', '--test-passphrase', '--disable-locks', '--key-file', pass, img]);
    await expect(
      runCryptsetup(['open', '--test-passphrase', '--disable-locks', '--key-file', other, img]),
    ).rejects.toThrow(/exit 2/);
    expect(sameBytes(await dumpVolumeKey(img, pass), volumeKey)).toBe(true);

    // cryptsetup decrypts the payload itself
    await writeFile(data, (await readFile(img)).subarray(payloadOffset));
    await makeDetachedHeader({ header: hdr, data, volumeKey, cipher: c.spec, sectorSize: c.sector, keyFile: pass });
    await runCryptsetup(reencryptDecryptArgs(hdr, data, pass, ['--resilience', 'none']));
    const want = new Uint8Array(Math.ceil(plain.length / c.sector) * c.sector);
    want.set(plain);
    expect(sameBytes((await readFile(data)).subarray(0, want.length), want)).toBe(true);
    await Promise.all([rm(img), rm(data), rm(hdr)]);
  });

  it('a random volume key: the one cryptsetup dumps opens the image in openLuks; cryptsetup repair finds nothing to fix', async () => {
    for (const type of ['luks2', 'luks1'] as const) {
      const img = join(dir, `random-${type}`);
      const plain = randomBytes(32 * 1024);
      const fh = await open(img, 'wx');
      try {
        await createLuks(
          plain,
          { write: async (o, b) => void (await fh.write(b, 0, b.length, o)) },
          { passphrase, type, pbkdf: 'pbkdf2', iterations: 1000 },
        );
      } finally {
        await fh.close();
      }
      const key = await dumpVolumeKey(img, pass);
      expect(key.length).toBe(64);
      const v = await openLuks(new Uint8Array(await readFile(img)), { volumeKey: key });
      const out = new Uint8Array(v.payloadSize);
      await v.read(out, 0);
      v.close();
      expect(sameBytes(out, plain)).toBe(true);
      await copyFile(img, `${img}.copy`); // cryptsetup's repair would write: check on a copy that it finds nothing to fix
      await runCryptsetup(['repair', '--batch-mode', '--disable-locks', `${img}.copy`]);
      expect(sameBytes(await readFile(`${img}.copy`), await readFile(img))).toBe(true);
    }
  });
});
