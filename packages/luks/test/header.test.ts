// Damaged and truncated headers, on containers made by cryptsetup: the LUKS2 secondary copy takes over
// from a damaged primary; anything unusable is a HeaderError with a message that says what is wrong.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWithCryptsetup,
  convertToLuks1,
  makeLuks2Container,
  removeAllContainers,
  type Container,
  resealLuks2Copy,
} from '@x/containers';
import { HeaderError, openLuks, readHeader, type Luks2Header } from '../src/index.js';
import { sameBytes } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests rewrite arbitrary fields of the header's JSON
type Json = any;

describeWithCryptsetup('damaged and truncated headers', () => {
  let c2: Container;
  let c1: Container;
  let image2: Uint8Array;
  let image1: Uint8Array;
  const passphrase = randomBytes(9).toString('hex');

  beforeAll(async () => {
    c2 = await makeLuks2Container({
      cipher: 'aes-cbc-essiv:sha256',
      keySize: 256,
      sectorSize: 512,
      dataSize: 64 * 1024,
      passphrases: [passphrase],
    });
    c1 = await convertToLuks1(c2);
    image2 = new Uint8Array(await readFile(c2.path));
    image1 = new Uint8Array(await readFile(c1.path));
  });
  afterAll(removeAllContainers);

  async function opensTo(image: Uint8Array, c: Container) {
    const v = await openLuks(image, { passphrase });
    const plain = new Uint8Array(v.payloadSize);
    await v.read(plain, 0);
    expect(sameBytes(plain, c.original)).toBe(true);
  }

  it('reads the primary copy of an intact header', async () => {
    const h = (await readHeader(image2)) as Luks2Header;
    expect(h.copy).toBe('primary');
    expect(h.problems).toEqual([]);
    expect(h.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['a byte of the JSON area', 4096 + 200],
    ['a byte of the binary header (label)', 30],
    ['the magic', 0],
    ['the checksum', 448],
  ])('opens from the secondary copy when the primary has %s changed', async (_what, offset) => {
    const copy = Uint8Array.from(image2);
    copy[offset] ^= 0x5a;
    const h = (await readHeader(copy)) as Luks2Header;
    expect(h.copy).toBe('secondary');
    expect(h.problems.join(' ')).toMatch(/primary header: (checksum mismatch|no magic)/);
    await opensTo(copy, c2);
  });

  it('opens from the secondary copy when the whole primary is zeroed', async () => {
    const copy = Uint8Array.from(image2);
    copy.fill(0, 0, 16384);
    expect(((await readHeader(copy)) as Luks2Header).copy).toBe('secondary');
    await opensTo(copy, c2);
  });

  it('uses the primary when the secondary is damaged, and says so', async () => {
    const copy = Uint8Array.from(image2);
    copy[16384 + 4096 + 10] ^= 1;
    const h = (await readHeader(copy)) as Luks2Header;
    expect(h.copy).toBe('primary');
    expect(h.problems).toEqual(['secondary header at 16384: checksum mismatch (corrupt)']);
    await opensTo(copy, c2);
  });

  it('refuses an image whose two copies are both damaged', async () => {
    const copy = Uint8Array.from(image2);
    copy[4096 + 10] ^= 1;
    copy[16384 + 4096 + 10] ^= 1;
    await expect(readHeader(copy)).rejects.toThrow(HeaderError);
    await expect(readHeader(copy)).rejects.toThrow(
      /^@x\/luks: no usable LUKS2 header: primary header: checksum mismatch \(corrupt\); secondary header at 16384: checksum mismatch/,
    );
    await expect(openLuks(copy, { passphrase })).rejects.toThrow(HeaderError);
  });

  it.each([
    ['LUKS2', 'nothing', 0, /too short for a LUKS header/],
    ['LUKS2', 'the binary header', 300, /too short for a LUKS header/],
    ['LUKS2', 'the JSON area', 10_000, /no usable LUKS2 header: primary header: the image is truncated/],
    [
      'LUKS2',
      'the keyslot area',
      40_000,
      /the image \(40000 bytes\) ends before the payload offset \d+ \(truncated\?\)/,
    ],
    ['LUKS2', 'the start of the payload', -1, /ends before the payload offset/],
    ['LUKS1', 'the phdr', 500, /too short for a LUKS header/],
    [
      'LUKS1',
      'the key material',
      5000,
      /the image \(5000 bytes\) is too small: its LUKS1 header and keyslots need at least \d+ bytes \(truncated\?\)/,
    ],
    ['LUKS1', 'the start of the payload', -1, /ends before the payload offset/],
  ])('refuses a %s image truncated in %s', async (version, _where, at, message) => {
    const image = version === 'LUKS2' ? image2 : image1;
    const c = version === 'LUKS2' ? c2 : c1;
    const cut = image.subarray(0, at === -1 ? c.payloadOffset - 512 : at);
    const err = await openLuks(cut, { passphrase }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeaderError);
    expect((err as Error).message).toMatch(/^@x\/luks: /);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses what is not LUKS', async () => {
    await expect(readHeader(new Uint8Array(1 << 20))).rejects.toThrow(/^@x\/luks: not a LUKS volume/);
    const v9 = Uint8Array.from(image1.subarray(0, 4096));
    v9[7] = 9;
    await expect(readHeader(v9)).rejects.toThrow(/LUKS version 9 is not supported/);
  });

  /** A copy of the LUKS2 image with both JSON areas rewritten by `mutate` and both checksums recomputed. */
  function rewriteJson(mutate: (json: Json) => void): Uint8Array {
    const copy = Uint8Array.from(image2);
    const size = Number(Buffer.from(copy.buffer).readBigUInt64BE(8));
    for (const off of [0, size]) {
      const area = copy.subarray(off + 4096, off + size);
      const json = JSON.parse(Buffer.from(area.subarray(0, area.indexOf(0))).toString());
      mutate(json);
      area.fill(0);
      area.set(Buffer.from(JSON.stringify(json)));
      resealLuks2Copy(copy, off, size);
    }
    return copy;
  }

  it('honours keyslot priority 0 (tried only when asked for)', async () => {
    const img = rewriteJson((j) => {
      j.keyslots['0'].priority = 0;
    });
    await expect(openLuks(img, { passphrase })).rejects.toThrow(/no active keyslot/);
    expect((await openLuks(img, { passphrase, keyslot: 0 })).keyslot).toBe('0');
  });

  it('opens a header that names its ciphers in the capi: form', async () => {
    // cryptsetup writes capi: names for kernel-only ciphers; it cannot make such a container without
    // device-mapper, so the real container's names are rewritten to the equivalent capi: form.
    const img = rewriteJson((j) => {
      j.segments['0'].encryption = 'capi:cbc(aes)-essiv:sha256';
      j.keyslots['0'].area.encryption = 'capi:cbc(aes)-essiv:sha256';
    });
    const v = await openLuks(img, { passphrase });
    expect(v.cipher).toBe('capi:cbc(aes)-essiv:sha256');
    const plain = new Uint8Array(v.payloadSize);
    await v.read(plain, 0);
    expect(sameBytes(plain, c2.original)).toBe(true);
  });

  it.each([
    [
      'a mandatory requirement it does not know (cryptsetup luksDump shows it, open refuses)',
      (j: Json) => {
        j.config.requirements = { mandatory: ['x-future-feature'] };
      },
      /requirements this package does not meet: x-future-feature/,
    ],
    [
      'an integrity segment',
      (j: Json) => {
        j.segments['0'].integrity = { type: 'hmac(sha256)', journal_encryption: 'none', journal_integrity: 'none' };
      },
      /authenticated encryption/,
    ],
    [
      'an unknown digest type',
      (j: Json) => {
        j.digests['0'].type = 'sha3';
      },
      /digest type "sha3" is not supported/,
    ],
    [
      'an absurd argon2 cost',
      (j: Json) => {
        j.keyslots['0'].kdf = { type: 'argon2id', time: 4, memory: 1 << 30, cpus: 1, salt: j.keyslots['0'].kdf.salt };
      },
      /argon2 cost out of range/,
    ],
    [
      'an unknown kdf',
      (j: Json) => {
        j.keyslots['0'].kdf.type = 'scrypt';
      },
      /kdf.type "scrypt" is not supported/,
    ],
    [
      'a non-numeric offset',
      (j: Json) => {
        j.segments['0'].offset = 'far';
      },
      /segment 0.offset is not a non-negative integer/,
    ],
    [
      'payload offset 0 (a detached header)',
      (j: Json) => {
        j.segments['0'].offset = '0';
      },
      /payload offset is 0: a detached header/,
    ],
    [
      'an unsupported cipher',
      (j: Json) => {
        j.segments['0'].encryption = 'serpent-xts-plain64';
      },
      /payload: @x\/dm-crypt: unsupported cipher spec "serpent-xts-plain64"/,
    ],
  ])('refuses %s with a HeaderError', async (_what, mutate, message) => {
    const err = await openLuks(rewriteJson(mutate), { passphrase }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeaderError);
    expect((err as Error).message).toMatch(message);
  });

  it('read() checks its arguments, and zeroes dst when the source fails', async () => {
    const v = await openLuks(image2, { passphrase });
    await expect(v.read(new Uint8Array(100), 0)).rejects.toThrow(
      /^@x\/luks: dst is not a whole number of 512-byte sectors/,
    );
    await expect(v.read(new Uint8Array(1024), v.payloadSize / 512 - 1)).rejects.toThrow(/past the payload/);
    await expect(v.read(new Uint8Array(512), -1)).rejects.toThrow(RangeError);
    let broken = false;
    const flaky = {
      size: image2.length,
      async read(offset: number, dst: Uint8Array) {
        dst.set(image2.subarray(offset, offset + dst.length));
        if (broken) throw new Error('disk on fire'); // after filling dst part way, as a failing disk may
      },
    };
    const w = await openLuks(flaky, { passphrase });
    broken = true;
    const dst = new Uint8Array(4096).fill(0xee);
    await expect(w.read(dst, 0)).rejects.toThrow('disk on fire');
    expect(dst.every((b) => b === 0)).toBe(true);
  });

  it('reads LUKS1 headers', async () => {
    const h = await readHeader(new Blob([Uint8Array.from(image1)]));
    if (h.version !== 1) throw new Error('expected LUKS1');
    expect(h.cipher).toBe('aes-cbc-essiv:sha256');
    expect(h.hashSpec).toBe('sha256');
    expect(h.payloadOffset * 512).toBe(c1.payloadOffset);
    expect(h.keyslots.filter((k) => k.active).map((k) => k.index)).toEqual([0]);
    await opensTo(image1, c1);
  });
});
