// createLuks and afSplit: AF split against an independent merge (node:crypto), images opened by openLuks
// (random data round trip, both header copies, the layout cryptsetup 2.6's luksFormat writes), bad options
// refused before a byte is written, and the KDF benchmark (on a clock that only the derivations advance,
// kdf-work.ts: what it measures, and so the cost it chooses, is then exact whatever the machine's load).
// What cryptsetup itself says of the images is ./create-cryptsetup.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { afMerge } from '../src/af.js';
import {
  afSplit,
  createLuks,
  type CreateOptions,
  type Luks2Header,
  openLuks,
  readHeader,
  WrongPassphraseError,
} from '../src/index.js';
import { sameBytes } from './helpers.js';
import { derivations, resetDerivations, virtualClock } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

const MiB = 1 << 20;
const DATA_OFFSET = 16 * MiB;

/** An in-memory sink: the image grows to the last byte written. */
function memorySink() {
  let image = new Uint8Array(0);
  let writes = 0;
  return {
    get image() {
      return image;
    },
    get writes() {
      return writes;
    },
    async write(offset: number, bytes: Uint8Array) {
      writes++;
      if (offset + bytes.length > image.length) {
        const grown = new Uint8Array(offset + bytes.length);
        grown.set(image);
        image = grown;
      }
      image.set(bytes, offset);
    },
  };
}

async function make(plain: Uint8Array, options: CreateOptions & { type?: 'luks2' }) {
  const sink = memorySink();
  const header = await createLuks(plain, sink, options);
  return { header, image: sink.image };
}

async function decryptAll(image: Uint8Array, opts: { passphrase?: string; volumeKey?: Uint8Array }) {
  const v = await openLuks(image, opts);
  const out = new Uint8Array(v.payloadSize);
  await v.read(out, 0);
  v.close();
  return { out, volume: v };
}

const padded = (plain: Uint8Array, sector: number) => {
  const p = new Uint8Array(Math.ceil(plain.length / sector) * sector);
  p.set(plain);
  return p;
};

const fastPbkdf2 = { pbkdf: 'pbkdf2', iterations: 1000 } as const;
const smallArgon = { pbkdf: 'argon2id', iterations: 4, memory: 64, parallelism: 1 } as const;

describe('afSplit', () => {
  it('afMerge undoes it (sha1, sha256, sha512; key lengths 16 … 64; 1 … 40 stripes)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('sha1', 'sha256', 'sha512'),
        (key, stripes, hash) => {
          const m = afSplit(key, stripes, hash);
          expect(m.length).toBe(key.length * stripes);
          expect(sameBytes(afMerge(m, key.length, stripes, hash), key)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('matches LUKS1 §2.4 computed independently with node:crypto (H1 over 32-byte pieces)', () => {
    // the random stripes are given, so the last stripe is fully determined: d_k = H1(d_{k−1} ⊕ s_k)
    const key = randomBytes(64);
    const stripes = 5;
    let fill = 0;
    const m = afSplit(key, stripes, 'sha256', (b) => {
      for (let i = 0; i < b.length; i++) b[i] = (fill++ * 7) & 0xff;
    });
    const h1 = (d: Uint8Array) => {
      const out = new Uint8Array(d.length);
      for (let i = 0; i * 32 < d.length; i++) {
        const piece = d.subarray(i * 32, Math.min(d.length, i * 32 + 32));
        const ctr = Buffer.alloc(4);
        ctr.writeUInt32BE(i);
        out.set(createHash('sha256').update(ctr).update(piece).digest().subarray(0, piece.length), i * 32);
      }
      return out;
    };
    let d = new Uint8Array(64);
    for (let k = 0; k < stripes - 1; k++) {
      for (let i = 0; i < 64; i++) {
        expect(m[k * 64 + i]).toBe(((k * 64 + i) * 7) & 0xff);
        d[i] ^= m[k * 64 + i];
      }
      d = h1(d);
    }
    const last = m.subarray((stripes - 1) * 64);
    for (let i = 0; i < 64; i++) expect(last[i]).toBe(d[i] ^ key[i]);
  });

  it('refuses bad arguments', () => {
    expect(() => afSplit(new Uint8Array(0), 4000, 'sha256')).toThrow(TypeError);
    expect(() => afSplit(new Uint8Array(32), 0, 'sha256')).toThrow(RangeError);
    expect(() => afSplit(new Uint8Array(32), 10, 'md5')).toThrow(/hash "md5" is not supported/);
  });
});

describe('createLuks', () => {
  it('lays the image out as cryptsetup 2.6 luksFormat does (defaults, 512-bit XTS, pbkdf2 forced)', async () => {
    const plain = randomBytes(64 * 1024);
    const { header, image } = await make(plain, { passphrase: 'pw', ...fastPbkdf2, label: 'my label' });
    expect(image.length).toBe(DATA_OFFSET + plain.length);
    const h = (await readHeader(image)) as Luks2Header;
    expect(h.version).toBe(2);
    expect(h.json).toEqual(header.json);
    expect(h.copy).toBe('primary');
    expect(h.problems).toEqual([]);
    expect(h.headerSize).toBe(16384);
    expect(h.seqid).toBe(1);
    expect(h.label).toBe('my label');
    expect(h.checksumAlgorithm).toBe('sha256');
    expect(h.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const json = h.json as Record<string, Record<string, Record<string, unknown>>>;
    expect(json.keyslots['0']).toMatchObject({
      type: 'luks2',
      key_size: 64,
      af: { type: 'luks1', stripes: 4000, hash: 'sha256' },
      area: { type: 'raw', offset: '32768', size: '258048', encryption: 'aes-xts-plain64', key_size: 64 },
      kdf: { type: 'pbkdf2', hash: 'sha256', iterations: 1000 },
    });
    expect(json.segments['0']).toEqual({
      type: 'crypt',
      offset: '16777216',
      size: 'dynamic',
      iv_tweak: '0',
      encryption: 'aes-xts-plain64',
      sector_size: 4096, // 64 KiB of plaintext: a whole number of 4096-byte sectors
    });
    expect(json.digests['0']).toMatchObject({ type: 'pbkdf2', keyslots: ['0'], segments: ['0'], hash: 'sha256' });
    expect(h.digests[0].iterations).toBe(1000); // forced keyslot cost: the digest gets cryptsetup's minimum
    expect(h.digests[0].digest.length).toBe(32);
    expect(h.keyslots[0].kdf?.salt.length).toBe(32);
    expect(h.config).toMatchObject({ jsonSize: 12288, keyslotsSize: 16744448 });
    // the secondary copy alone is a good header too (primary wiped), with the same JSON and its own salt
    const damaged = image.slice();
    damaged.fill(0, 0, 4096);
    const s = (await readHeader(damaged)) as Luks2Header;
    expect(s.copy).toBe('secondary');
    expect(s.json).toEqual(h.json);
    expect(sameBytes(image.subarray(104, 168), image.subarray(16384 + 104, 16384 + 168))).toBe(false);
    // the keyslots area past the key material is random, not zeros (cryptsetup wipes it with random bytes)
    const tail = image.subarray(32768 + 258048, DATA_OFFSET);
    expect(tail.filter((b) => b === 0).length).toBeLessThan(tail.length / 100);
    const { out } = await decryptAll(image, { passphrase: 'pw' });
    expect(sameBytes(out, plain)).toBe(true);
  });

  const CASES: {
    name: string;
    options: Partial<CreateOptions> & { type?: 'luks2' };
    size: number;
    sector: number;
    keyBytes: number;
  }[] = [
    {
      name: 'aes-xts-plain64, 512-byte sectors, pbkdf2',
      options: { sectorSize: 512, ...fastPbkdf2 },
      size: 300_032,
      sector: 512,
      keyBytes: 64,
    },
    {
      name: 'aes-xts-plain64, 4096, argon2id, 256-bit key',
      options: { keySize: 256, sectorSize: 4096, ...smallArgon },
      size: 5 * MiB + 4096,
      sector: 4096,
      keyBytes: 32,
    },
    {
      name: 'aes-cbc-essiv:sha256, 512, argon2i, default 256-bit key',
      options: { cipher: 'aes-cbc-essiv:sha256', ...smallArgon, pbkdf: 'argon2i' },
      size: 70_000,
      sector: 512,
      keyBytes: 32,
    },
    {
      name: 'aes-cbc-plain64, 4096 (padded), pbkdf2-sha512',
      options: { cipher: 'aes-cbc-plain64', sectorSize: 4096, ...fastPbkdf2, hash: 'sha512' },
      size: 9000,
      sector: 4096,
      keyBytes: 32,
    },
  ];
  for (const c of CASES) {
    it(`round trip through openLuks: ${c.name}`, async () => {
      const plain = randomBytes(c.size);
      const volumeKey = randomBytes(c.keyBytes);
      const progress: number[] = [];
      const { header, image } = await make(plain, {
        passphrase: 'pässphrase',
        volumeKey,
        onProgress: (done, total) => {
          expect(total).toBe(plain.length);
          progress.push(done);
        },
        ...c.options,
      });
      expect(progress.at(-1)).toBe(plain.length);
      expect(header.segments[0].sectorSize).toBe(c.sector);
      expect(header.keyslots[0].keySize).toBe(c.keyBytes);
      expect(image.length).toBe(DATA_OFFSET + padded(plain, c.sector).length);
      const { out, volume } = await decryptAll(image, { passphrase: 'pässphrase' });
      expect(volume.sectorSize).toBe(c.sector);
      expect(sameBytes(out, padded(plain, c.sector))).toBe(true);
      const byKey = await decryptAll(image, { volumeKey });
      expect(sameBytes(byKey.out, out)).toBe(true);
      await expect(openLuks(image, { passphrase: 'wrong' })).rejects.toThrow(WrongPassphraseError);
    });
  }

  it('takes a Blob and a byte passphrase; random volume keys differ', async () => {
    const plain = randomBytes(8192);
    const pass = Uint8Array.from([0, 1, 2, 255, 10]);
    const a = await make(plain, { passphrase: pass, ...fastPbkdf2 });
    const b = await make(plain, { passphrase: pass, ...fastPbkdf2 });
    expect(pass).toEqual(Uint8Array.from([0, 1, 2, 255, 10])); // the caller's passphrase is not wiped
    expect(sameBytes(a.image.subarray(DATA_OFFSET), b.image.subarray(DATA_OFFSET))).toBe(false);
    const { out } = await decryptAll(a.image, { passphrase: pass as unknown as string });
    expect(sameBytes(out, plain)).toBe(true);
    const fromBlob = await createLuks(new Blob([plain]), memorySink(), { passphrase: 'x', ...fastPbkdf2 });
    expect(fromBlob.segments[0].sectorSize).toBe(4096);
  });

  it('refuses bad options before writing anything', async () => {
    const plain = randomBytes(4096);
    const bad: [Partial<CreateOptions>, RegExp][] = [
      [{ cipher: 'twofish-xts-plain64' }, /unsupported cipher spec/],
      [{ keySize: 384 }, /key/i],
      [{ cipher: 'aes-cbc-essiv:sha256', keySize: 512 }, /key/i],
      [{ sectorSize: 1000 }, /sectorSize 1000/],
      [{ pbkdf: 'scrypt' as 'pbkdf2' }, /pbkdf "scrypt"/],
      [{ pbkdf: 'pbkdf2', iterations: 999 }, /iterations 999/],
      [{ pbkdf: 'argon2id', iterations: 3 }, /iterations 3/],
      [{ memory: 16 }, /memory 16/],
      [{ parallelism: 5 }, /parallelism 5/],
      [{ hash: 'md5' }, /hash "md5"/],
      [{ label: 'x'.repeat(48) }, /label/],
      [{ uuid: 'not-a-uuid' }, /uuid/],
      [{ volumeKey: new Uint8Array(32) }, /volumeKey is 256 bits, keySize is 512/],
      [{ type: 'luks3' as 'luks1' }, /type "luks3" is not luks2 or luks1/],
      [{ type: 'luks1', sectorSize: 4096 }, /LUKS1 has 512-byte sectors only, not 4096/],
      [{ type: 'luks1', label: 'x' }, /LUKS1 has no label/],
      [{ type: 'luks1', pbkdf: 'argon2id' }, /LUKS1 keyslots use pbkdf2 only, not argon2id/],
      [{ type: 'luks1', cipher: 'capi:xts(aes)-plain64' }, /LUKS1 writes a cipher as name-mode/],
    ];
    for (const [options, message] of bad) {
      const sink = memorySink();
      await expect(createLuks(plain, sink, { passphrase: 'p', ...options })).rejects.toThrow(message);
      expect(sink.writes).toBe(0);
    }
    await expect(createLuks(new Uint8Array(0), memorySink(), { passphrase: 'p' })).rejects.toThrow(/empty/);
    await expect(createLuks(plain, {} as never, { passphrase: 'p' })).rejects.toThrow(TypeError);
  });

  it('benchmarks the KDF for iterTime (pbkdf2 and argon2id), as cryptsetup --iter-time', async () => {
    // On the virtual clock a PBKDF2 iteration costs 1 µs and an Argon2 pass over a KiB 1 µs: the cost
    // chosen is the one that takes iterTime at that rate, and the unlock then derives exactly that cost.
    const rates = { pbkdf2: 0.001, argon2: 0.001 };
    const plain = randomBytes(4096);
    const p = await virtualClock(rates, () => make(plain, { passphrase: 'pw', pbkdf: 'pbkdf2', iterTime: 200 }));
    const kdf = p.header.keyslots[0].kdf!;
    expect(kdf).toMatchObject({ type: 'pbkdf2', iterations: 200 / rates.pbkdf2 }); // 200 ms of work
    expect(p.header.digests[0].iterations).toBe(125 / rates.pbkdf2); // the digest benchmarked for 125 ms
    resetDerivations();
    await decryptAll(p.image, { passphrase: 'pw' });
    // the unlock costs what was benchmarked: the keyslot's 200 ms of work, then the digest's 125 ms
    expect(derivations).toEqual([
      { type: 'pbkdf2', hash: 'sha256', iterations: 200_000 },
      { type: 'pbkdf2', hash: 'sha256', iterations: 125_000 },
    ]);

    // Argon2, cryptsetup's rule: time ≥ 4 at the asked memory, the time that takes iterTime there ...
    const options = { passphrase: 'pw', pbkdf: 'argon2id', iterTime: 300, memory: 8192, parallelism: 1 } as const;
    const a = await virtualClock(rates, () => make(plain, options));
    const time = Math.floor(300 / (rates.argon2 * 8192)); // 36 passes over 8 MiB: 295 ms of work
    expect(a.header.keyslots[0].kdf).toMatchObject({ type: 'argon2id', time, memory: 8192, cpus: 1 });
    resetDerivations();
    await decryptAll(a.image, { passphrase: 'pw' });
    expect(derivations[0]).toEqual({ type: 'argon2id', time, memory: 8192, cpus: 1 });
    expect(derivations.slice(1)).toEqual([
      { type: 'pbkdf2', hash: 'sha256', iterations: a.header.digests[0].iterations },
    ]);

    // ... or, when time 4 at that memory already takes longer than iterTime (a slow machine), time 4 with
    // the memory that takes iterTime
    const slow = { pbkdf2: 0.001, argon2: 0.02 }; // time 4 over 8 MiB: 655 ms
    const b = await virtualClock(slow, () => make(plain, options));
    const memory = Math.floor(300 / (slow.argon2 * 4)); // 3750 KiB
    expect(memory).toBeLessThan(8192);
    expect(b.header.keyslots[0].kdf).toMatchObject({ type: 'argon2id', time: 4, memory, cpus: 1 });
    expect((await decryptAll(b.image, { passphrase: 'pw' })).out.length).toBe(4096);
  });
});

describe('createLuks, type luks1', () => {
  it('writes the LUKS1 layout: phdr, eight key material areas on 4 KiB, the payload on 1 MiB; openLuks reads it back', async () => {
    for (const [cipher, keyBits, slot1, payloadSectors] of [
      ['aes-xts-plain64', 512, 512, 4096],
      ['aes-cbc-essiv:sha256', 256, 264, 4096],
      ['aes-cbc-plain64', 192, 200, 2048],
      ['aes-cbc-plain64', 128, 136, 2048],
    ] as const) {
      const plain = randomBytes(5000);
      const volumeKey = randomBytes(keyBits / 8);
      const sink = memorySink();
      const h = await createLuks(plain, sink, {
        type: 'luks1',
        passphrase: 'pw',
        volumeKey,
        cipher,
        keySize: keyBits,
        ...fastPbkdf2,
        hash: 'sha512',
      });
      expect(h).toMatchObject({ version: 1, cipher, hashSpec: 'sha512', keyBytes: keyBits / 8 });
      expect(h.payloadOffset).toBe(payloadSectors);
      expect(h.keyslots.map((k) => k.keyMaterialOffset)).toEqual(
        Array.from({ length: 8 }, (_, i) => 8 + i * (slot1 - 8)),
      );
      expect(h.keyslots.map((k) => k.active)).toEqual([true, false, false, false, false, false, false, false]);
      expect(h.keyslots.map((k) => k.state)).toEqual([0xac71f3, ...Array(7).fill(0xdead)]);
      expect(h.keyslots[0].iterations).toBe(1000);
      expect(h.mkDigestIterations).toBe(1000);
      const image = sink.image;
      expect(image.length).toBe(payloadSectors * 512 + 5120);
      expect(image.subarray(592, 4096).every((b) => b === 0)).toBe(true);
      // an unused area holds random bytes, as cryptsetup leaves it
      const unused = image.subarray(slot1 * 512, slot1 * 512 + 4096);
      expect(unused.some((b) => b !== 0)).toBe(true);
      expect(await readHeader(image)).toEqual(h);
      const { out, volume } = await decryptAll(image, { passphrase: 'pw' });
      expect(volume.version).toBe(1);
      expect(volume.keyslot).toBe('0');
      expect(sameBytes(out, padded(plain, 512))).toBe(true);
      expect(sameBytes((await decryptAll(image, { volumeKey })).out, out)).toBe(true);
      await expect(openLuks(image, { passphrase: 'wrong' })).rejects.toThrow(WrongPassphraseError);
    }
  });

  it('benchmarks PBKDF2 when the cost is not forced; the default is pbkdf2-sha256', async () => {
    const sink = memorySink();
    // on a clock that only the derivations advance, 1 µs per iteration (kdf-work.ts)
    const h = await virtualClock({ pbkdf2: 0.001, argon2: 0.001 }, () =>
      createLuks(randomBytes(512), sink, { type: 'luks1', passphrase: 'pw', iterTime: 100 }),
    );
    expect(h.hashSpec).toBe('sha256');
    expect(h.cipher).toBe('aes-xts-plain64');
    expect(h.keyBytes).toBe(64);
    expect(h.keyslots[0].iterations).toBe(100_000); // 100 ms of work
    expect(h.mkDigestIterations).toBe(125_000); // 125 ms, cryptsetup's LUKS_MKD_ITERATIONS_MS
  });
});
