// TrueCrypt's legacy modes as dm-crypt runs them: aes-lrw-benbi (Linux lrw(aes), TrueCrypt 4.1–4.3) and
// aes-cbc-tcw (TrueCrypt 1.0–4.0's CBC with whitening), against a model written here from the Linux
// definitions, one sector at a time: bigint GF(2^128) for LRW, and for tcw the IV from the seed and the
// whitening with a table-driven CRC-32 checked against zlib's, AES from node:crypto.
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hex, placed, random, refCbc, refEcb, toHex } from '@x/testkit';
import { newSectorCipher, parseCipherSpec } from '../src/index.js';

const MASK64 = (1n << 64n) - 1n;

function le64(v: bigint): Uint8Array {
  const b = new Uint8Array(8);
  for (let i = 0; i < 8; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return b;
}

// ---- tcw (drivers/md/dm-crypt.c, crypt_iv_tcw_gen / crypt_iv_tcw_whitening)

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** Linux's "crc32" shash: crc32_le with seed 0 and no final XOR. */
function linuxCrc32(bytes: Uint8Array): number {
  let c = 0;
  for (const x of bytes) c = (CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8)) >>> 0;
  return c;
}

function refTcwSector(encrypt: boolean, key: Uint8Array, data: Uint8Array, sector: bigint): Uint8Array {
  const n = key.length;
  const aes = key.subarray(0, n - 32),
    seed = key.subarray(n - 32, n - 16),
    whitening = key.subarray(n - 16);
  const s = le64(sector & MASK64);
  const iv = seed.map((v, i) => v ^ s[i % 8]);
  const buf = whitening.map((v, i) => v ^ s[i % 8]);
  for (let i = 0; i < 4; i++) {
    const c = linuxCrc32(buf.slice(4 * i, 4 * i + 4));
    for (let j = 0; j < 4; j++) buf[4 * i + j] = (c >>> (8 * j)) & 0xff;
  }
  for (let j = 0; j < 4; j++) {
    buf[j] ^= buf[12 + j];
    buf[4 + j] ^= buf[8 + j];
  }
  const whiten = (x: Uint8Array) => x.map((v, i) => v ^ buf[i % 8]);
  return encrypt ? whiten(refCbc(true, aes, data, iv)) : refCbc(false, aes, whiten(data), iv);
}

// ---- lrw-benbi (crypto/lrw.c; benbi: be64((sector << 5) + 1), the 1-based index of the first block)

function gfMul(a: bigint, b: bigint): bigint {
  let p = 0n;
  for (let i = 0n; i < 128n; i++) if ((b >> i) & 1n) p ^= a << i;
  for (let i = 254n; i >= 128n; i--) if ((p >> i) & 1n) p ^= (1n << i) ^ (0x87n << (i - 128n));
  return p;
}

function refLrwBenbiSector(encrypt: boolean, key: Uint8Array, data: Uint8Array, sector: bigint): Uint8Array {
  const k1 = key.subarray(0, key.length - 16);
  const k2 = BigInt(`0x${toHex(key.subarray(key.length - 16))}`);
  const first = ((sector << 5n) & MASK64) + 1n;
  const out = new Uint8Array(data.length);
  for (let j = 0; 16 * j < data.length; j++) {
    const t = hex(
      gfMul(k2, first + BigInt(j))
        .toString(16)
        .padStart(32, '0'),
    );
    const y = refEcb(
      encrypt,
      k1,
      data.slice(16 * j, 16 * j + 16).map((v, i) => v ^ t[i]),
    );
    out.set(
      y.map((v, i) => v ^ t[i]),
      16 * j,
    );
  }
  return out;
}

type Ref = (encrypt: boolean, key: Uint8Array, data: Uint8Array, sector: bigint) => Uint8Array;
const MODES: [string, number[], Ref][] = [
  ['aes-cbc-tcw', [48, 56, 64], refTcwSector],
  ['aes-lrw-benbi', [32, 40, 48], refLrwBenbiSector],
];

describe('the tcw model', () => {
  it("Linux's crc32 (seed 0, no final XOR) is zlib's CRC-32 ⊕ zlib's CRC-32 of four zero bytes", () => {
    for (const x of [hex('00000000'), hex('01020304'), hex('ffffffff'), random(4)]) {
      expect(linuxCrc32(x)).toBe((crc32(x) ^ crc32(new Uint8Array(4))) >>> 0);
    }
  });
});

for (const [spec, keyLengths, ref] of MODES) {
  describe(spec, () => {
    it('matches the model: every key length, any sector, ivOffset, in place or not, both ways', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...keyLengths),
          fc.integer({ min: 0, max: 5 }),
          fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom(0xffff_fffe, 2 ** 53 - 6)),
          fc.nat(1000),
          fc.boolean(),
          fc.boolean(),
          fc.nat(15),
          (n, count, first, ivOffset, encrypt, inPlace, off) => {
            const key = random(n);
            const data = random(512 * count);
            const c = newSectorCipher(spec, key, { ivOffset });
            const src = placed(data, off);
            const dst = inPlace ? src : new Uint8Array(data.length);
            if (encrypt) c.encrypt(dst, src, first);
            else c.decrypt(dst, src, first);
            c.dispose();
            const want = new Uint8Array(data.length);
            for (let i = 0; i < count; i++) {
              const s = BigInt(first) + BigInt(ivOffset) + BigInt(i);
              want.set(ref(encrypt, key, data.subarray(512 * i, 512 * i + 512), s), 512 * i);
            }
            expect(toHex(dst.subarray(0, data.length))).toBe(toHex(want));
          },
        ),
        { numRuns: 40 },
      );
    });

    it('round-trips a bigint sector past 2^53, and its capi: form is the same cipher', () => {
      const key = random(keyLengths[2]);
      const data = random(1024);
      const first = 2n ** 60n + 3n;
      const ct = new Uint8Array(1024);
      newSectorCipher(spec, key).encrypt(ct, data, first);
      expect(toHex(ct.subarray(512))).toBe(toHex(ref(true, key, data.subarray(512), first + 1n)));
      const capi = spec === 'aes-cbc-tcw' ? 'capi:cbc(aes)-tcw' : 'capi:lrw(aes)-benbi';
      expect(parseCipherSpec(capi).canonical).toBe(spec);
      const back = new Uint8Array(1024);
      newSectorCipher(capi, key).decrypt(back, ct, first);
      expect(toHex(back)).toBe(toHex(data));
    });

    it('refuses other key lengths with the spec named, dst untouched', () => {
      expect(() => newSectorCipher(spec, random(keyLengths[0] - 8))).toThrow(
        new RegExp(`^@x/dm-crypt: ${spec} takes a key of ${keyLengths.join(' or ')} bytes`),
      );
      const c = newSectorCipher(spec, random(keyLengths[0]));
      const dst = random(512);
      const before = toHex(dst);
      expect(() => c.decrypt(dst, random(500), 0)).toThrow(/^@x\/dm-crypt: src is not a whole number/);
      expect(() => c.decrypt(dst, random(512), -1)).toThrow(RangeError);
      expect(toHex(dst)).toBe(before);
    });
  });
}

describe('aes-cbc-tcw', () => {
  it('takes 512-byte sectors only, as dm-crypt ("Unsupported sector size for TCW")', () => {
    expect(() => newSectorCipher('aes-cbc-tcw', random(64), { sectorSize: 4096 })).toThrow(
      /^@x\/dm-crypt: unsupported cipher spec "aes-cbc-tcw": @x\/disk-iv: tcw takes 512-byte sectors only/,
    );
  });

  it('is not aes-cbc-plain64 with the first 32 bytes: the seed and the whitening change every byte', () => {
    const key = random(64);
    const data = random(512);
    const tcw = new Uint8Array(512),
      plain = new Uint8Array(512);
    newSectorCipher('aes-cbc-tcw', key).encrypt(tcw, data, 7);
    newSectorCipher('aes-cbc-plain64', key.subarray(0, 32)).encrypt(plain, data, 7);
    let same = 0;
    for (let i = 0; i < 512; i++) same += tcw[i] === plain[i] ? 1 : 0;
    expect(same).toBeLessThan(20);
  });
});

describe('aes-cbc-tcw on a real TrueCrypt 1.x volume (test/fixtures/README.md)', () => {
  // The header's key area (first 64 bytes) of tc_1-sha1-cbc-aes, password aaaaaaaaaaaa.
  const area = hex(
    '298b5803c9300acb63203ee7a2a06ab28c216278851039cee0f25843a42a9689' +
      '276038af631d03d895e8c3f07f98d5d888ee9c746424edddab250db8b730007d',
  );
  const key = new Uint8Array(64);
  key.set(area.subarray(32, 64)); // AES-256 key
  key.set(area.subarray(0, 32), 32); // seed ‖ whitening
  const disk = new Uint8Array(readFileSync(new URL('./fixtures/tc_1-sha1-cbc-aes.sector1.bin', import.meta.url)));

  it('sector 1 of the image decrypts to the FAT boot sector with serial DEAD-BABE, and encrypts back', () => {
    const c = newSectorCipher('aes-cbc-tcw', key);
    const plain = new Uint8Array(512);
    c.decrypt(plain, disk, 1);
    expect(new TextDecoder().decode(plain.subarray(3, 11))).toBe('MSDOS5.0');
    expect(toHex(plain.subarray(39, 43))).toBe('bebaadde'); // le32 0xDEADBABE
    expect(toHex(plain.subarray(510, 512))).toBe('55aa');
    expect(toHex(plain)).toBe(toHex(refTcwSector(false, key, disk, 1n)));
    const again = new Uint8Array(512);
    c.encrypt(again, plain, 1);
    expect(toHex(again)).toBe(toHex(disk));
    // the same with the volume's own sector numbers and ivOffset 1, as a format package would open it
    const viaOffset = new Uint8Array(512);
    newSectorCipher('aes-cbc-tcw', key, { ivOffset: 1 }).decrypt(viaOffset, disk, 0);
    expect(toHex(viaOffset)).toBe(toHex(plain));
  });
});

describe('aes-lrw-benbi on a real TrueCrypt 4.x volume (test/fixtures/README.md)', () => {
  // The header's key area (first 64 bytes) of tc_2-ripemd160-lrw-aes, password aaaaaaaaaaaa.
  const area = hex(
    '418729d87f65b8c6605d8a75a2615d0dcda712d1017f5af4e679edcfac3ab24e' +
      '91dcd0bc0970af45b0002370fef285825de56e5f9acd3594ed213b26e86b47be',
  );
  const key = new Uint8Array(48);
  key.set(area.subarray(32, 64)); // K1, AES-256
  key.set(area.subarray(0, 16), 32); // K2
  const disk = new Uint8Array(readFileSync(new URL('./fixtures/tc_2-ripemd160-lrw-aes.sector1.bin', import.meta.url)));

  it('volume sector 0 decrypts to the FAT boot sector with serial DEAD-BABE, and encrypts back', () => {
    const c = newSectorCipher('aes-lrw-benbi', key);
    const plain = new Uint8Array(512);
    c.decrypt(plain, disk, 0);
    expect(new TextDecoder().decode(plain.subarray(3, 11))).toBe('MSDOS5.0');
    expect(toHex(plain.subarray(39, 43))).toBe('bebaadde'); // le32 0xDEADBABE
    expect(toHex(plain.subarray(510, 512))).toBe('55aa');
    expect(toHex(plain)).toBe(toHex(refLrwBenbiSector(false, key, disk, 0n)));
    const again = new Uint8Array(512);
    c.encrypt(again, plain, 0);
    expect(toHex(again)).toBe(toHex(disk));
  });
});
