import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSectorCipher, parseCipherSpec } from '../src/index.js';
import { referenceCrypt } from './reference.js';

interface Case {
  spec: string;
  keys: number[];
}

const CASES: Case[] = [
  ...['plain', 'plain64', 'plain64be', 'benbi', 'null', 'essiv:sha256', 'essiv:md5', 'eboiv'].map((iv) => ({
    spec: `aes-cbc-${iv}`,
    keys: [16, 24, 32],
  })),
  { spec: 'capi:cbc(aes)-essiv:sha256', keys: [16, 32] },
  { spec: 'capi:cbc(aes)-plain64', keys: [32] },
  { spec: 'aes-cbc-elephant', keys: [32, 64] },
  { spec: 'capi:cbc(aes)-elephant', keys: [64] },
  { spec: 'aes-ecb', keys: [16, 32] },
  { spec: 'capi:ecb(aes)', keys: [32] },
  ...['plain64', 'plain', 'plain64be', 'benbi', 'null'].map((iv) => ({ spec: `aes-xts-${iv}`, keys: [32, 64] })),
  { spec: 'capi:xts(aes)-plain64', keys: [64] },
  ...['plain64', 'plain', 'plain64be', 'null'].map((iv) => ({ spec: `aes-hctr2-${iv}`, keys: [16, 24, 32] })),
  { spec: 'capi:hctr2(aes)-plain64', keys: [32] },
  ...['plain64', 'plain', 'plain64be', 'null'].map((iv) => ({ spec: `xchacha12,aes-adiantum-${iv}`, keys: [32] })),
  { spec: 'xchacha20,aes-adiantum-plain64', keys: [32] },
  { spec: 'capi:adiantum(xchacha12,aes)-plain64', keys: [32] },
  { spec: 'capi:adiantum(xchacha20,aes)-plain64', keys: [32] },
];

describe('parseCipherSpec', () => {
  it('reads both forms', () => {
    expect(parseCipherSpec('aes-cbc-essiv:sha256')).toEqual({
      cipher: 'aes',
      chainMode: 'cbc',
      ivMode: 'essiv:sha256',
      canonical: 'aes-cbc-essiv:sha256',
    });
    expect(parseCipherSpec('capi:xts(aes)-plain64')).toEqual({
      cipher: 'aes',
      chainMode: 'xts',
      ivMode: 'plain64',
      canonical: 'aes-xts-plain64',
    });
    expect(parseCipherSpec('capi:ecb(aes)').canonical).toBe('aes-ecb');
    expect(parseCipherSpec('aes-hctr2-plain64')).toEqual({
      cipher: 'aes',
      chainMode: 'hctr2',
      ivMode: 'plain64',
      canonical: 'aes-hctr2-plain64',
    });
    expect(parseCipherSpec('capi:hctr2(aes)-plain64').canonical).toBe('aes-hctr2-plain64');
    expect(parseCipherSpec('xchacha12,aes-adiantum-plain64')).toEqual({
      cipher: 'xchacha12,aes',
      chainMode: 'adiantum',
      ivMode: 'plain64',
      canonical: 'xchacha12,aes-adiantum-plain64',
    });
    expect(parseCipherSpec('capi:adiantum(xchacha20,aes)-plain64').canonical).toBe('xchacha20,aes-adiantum-plain64');
  });

  it.each([
    ['serpent-xts-plain64', /cipher "serpent" is not supported/],
    ['aes-ctr-plain64', /chaining mode "ctr"/],
    ['aes-cbc', /cbc needs an IV mode/],
    ['aes-ecb-plain', /ecb takes no IV mode/],
    ['aes-xts-essiv:sha256', /IV mode "essiv:sha256" is not supported with xts/],
    ['aes-hctr2', /hctr2 needs an IV mode/],
    ['aes-hctr2-essiv:sha256', /IV mode "essiv:sha256" is not supported with hctr2/],
    ['aes-hctr2-benbi', /IV mode "benbi" is not supported with hctr2/],
    ['serpent-hctr2-plain64', /cipher "serpent" is not supported/],
    ['xchacha12,aes-adiantum', /adiantum needs an IV mode/],
    ['xchacha12,aes-adiantum-essiv:sha256', /IV mode "essiv:sha256" is not supported with adiantum/],
    ['xchacha12,aes-adiantum-benbi', /IV mode "benbi" is not supported with adiantum/],
    ['xchacha8,aes-adiantum-plain64', /cipher "xchacha8,aes" is not supported with adiantum/],
    ['aes-adiantum-plain64', /cipher "aes" is not supported with adiantum/],
    ['xchacha12,aes-xts-plain64', /cipher "xchacha12,aes" is not supported \(only aes/],
    ['aes-cbc-lmk', /IV mode "lmk"/],
    ['aes:64-cbc-lmk', /expected <cipher>-<mode>/],
    ['capi:xts(aes', /expected capi:/],
    ['', /expected/],
  ])('refuses %s', (spec, message) => {
    expect(() => parseCipherSpec(spec)).toThrow(RangeError);
    expect(() => parseCipherSpec(spec)).toThrow(message);
    expect(() => parseCipherSpec(spec)).toThrow(/^@x\/dm-crypt: unsupported cipher spec/);
  });
});

describe('newSectorCipher against node:crypto, one sector at a time', () => {
  for (const { spec, keys } of CASES) {
    const { chainMode, ivMode, cipher } = parseCipherSpec(spec);
    for (const keyLength of keys) {
      for (const sectorSize of [512, 4096]) {
        it(`${spec}, ${keyLength}-byte key, ${sectorSize}-byte sectors`, () => {
          let key = new Uint8Array(randomBytes(keyLength));
          const count = 5;
          const data = new Uint8Array(randomBytes(count * sectorSize));
          const c = newSectorCipher(spec, key, { sectorSize });
          for (const first of [0, 7, 0xfffffffe, 2 ** 40 + 3]) {
            const want = referenceCrypt('encrypt', { chainMode, ivMode, cipher }, key, data, BigInt(first), sectorSize);
            const enc = new Uint8Array(data.length);
            c.encrypt(enc, data, first);
            expect(Buffer.from(enc).equals(Buffer.from(want))).toBe(true);
            const dec = new Uint8Array(data.length);
            c.decrypt(dec, enc, BigInt(first));
            expect(Buffer.from(dec).equals(Buffer.from(data))).toBe(true);
            c.decrypt(enc, enc, first); // in place
            expect(Buffer.from(enc).equals(Buffer.from(data))).toBe(true);
          }
          c.dispose();
          key = new Uint8Array(0);
        });
      }
    }
  }
});

describe('IV numbering options', () => {
  it.each([
    ['aes-cbc-essiv:sha256', 512, false, 3n],
    ['aes-cbc-plain64', 4096, false, 16n],
    ['aes-cbc-plain64', 4096, true, 0n],
    ['aes-cbc-eboiv', 4096, true, 8n],
    ['aes-cbc-benbi', 2048, true, 4n],
    ['aes-cbc-elephant', 4096, true, 8n],
    ['aes-cbc-elephant', 4096, false, 16n],
    ['aes-cbc-elephant', 512, false, 3n],
    ['aes-hctr2-plain64', 4096, false, 16n],
    ['aes-hctr2-plain64be', 4096, true, 8n],
    ['xchacha12,aes-adiantum-plain64', 4096, false, 16n],
    ['xchacha20,aes-adiantum-plain64', 4096, true, 8n],
  ] as const)('%s, %d-byte sectors, ivLargeSectors %s, ivOffset %d', (spec, sectorSize, ivLargeSectors, ivOffset) => {
    const key = new Uint8Array(randomBytes(32));
    const data = new Uint8Array(randomBytes(3 * sectorSize));
    const { chainMode, ivMode, cipher } = parseCipherSpec(spec);
    const want = referenceCrypt('encrypt', { chainMode, ivMode, cipher }, key, data, 11n, sectorSize, {
      ivLargeSectors,
      ivOffset,
    });
    const c = newSectorCipher(spec, key, { sectorSize, ivLargeSectors, ivOffset });
    const enc = new Uint8Array(data.length);
    c.encrypt(enc, data, 11);
    expect(Buffer.from(enc).equals(Buffer.from(want))).toBe(true);
    const dec = new Uint8Array(data.length);
    c.decrypt(dec, enc, 11n);
    expect(Buffer.from(dec).equals(Buffer.from(data))).toBe(true);
  });

  it.each(['aes-cbc-essiv:sha256', 'aes-hctr2-plain64', 'xchacha12,aes-adiantum-plain64', 'aes-cbc-elephant'])(
    '%s: many sectors in one call equal the same sectors one by one',
    (spec) => {
      const key = new Uint8Array(randomBytes(32));
      const c = newSectorCipher(spec, key);
      const data = new Uint8Array(randomBytes(300 * 512));
      const enc = new Uint8Array(data.length);
      c.encrypt(enc, data, 1000);
      const one = new Uint8Array(512);
      for (let i = 0; i < 300; i += 37) {
        c.encrypt(one, data.subarray(512 * i, 512 * i + 512), 1000 + i);
        expect(Buffer.from(one).equals(Buffer.from(enc.subarray(512 * i, 512 * i + 512)))).toBe(true);
      }
      const dec = new Uint8Array(data.length);
      c.decrypt(dec, enc, 1000);
      expect(Buffer.from(dec).equals(Buffer.from(data))).toBe(true);
    },
  );
});

describe('errors, and nothing written', () => {
  const key = new Uint8Array(32).fill(7);
  it('refuses bad options and keys', () => {
    expect(() => newSectorCipher('aes-cbc-plain64', key, { sectorSize: 520 })).toThrow(
      /^@x\/dm-crypt: sector size 520/,
    );
    expect(() => newSectorCipher('aes-cbc-plain64', new Uint8Array(64))).toThrow(
      /takes a key of 16 or 24 or 32 bytes, got 64/,
    );
    expect(() => newSectorCipher('xchacha12,aes-adiantum-plain64', new Uint8Array(64))).toThrow(
      /xchacha12,aes-adiantum-plain64 takes a key of 32 bytes, got 64/,
    );
    expect(() => newSectorCipher('aes-xts-plain64', new Uint8Array(16))).toThrow(
      /takes a key of 32 or 64 bytes, got 16/,
    );
    expect(() => newSectorCipher('aes-hctr2-plain64', new Uint8Array(64))).toThrow(
      /aes-hctr2-plain64 takes a key of 16 or 24 or 32 bytes, got 64/,
    );
    expect(() => newSectorCipher('aes-cbc-plain64', key, { sectorSize: 4096, ivOffset: 3 })).toThrow(
      /ivOffset 3 .* not a whole number of 4096-byte sectors/,
    );
    expect(() => newSectorCipher('aes-cbc-essiv:sha1', key)).toThrow(
      /^@x\/dm-crypt: unsupported cipher spec "aes-cbc-essiv:sha1"/,
    );
    expect(() => newSectorCipher('aes-cbc-plain64', 'key' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('checks calls before writing', () => {
    const c = newSectorCipher('aes-cbc-plain64', key);
    const dst = new Uint8Array(1024).fill(0xaa);
    expect(() => c.decrypt(dst, new Uint8Array(500), 0)).toThrow(
      /^@x\/dm-crypt: src is not a whole number of 512-byte sectors/,
    );
    expect(() => c.decrypt(dst.subarray(0, 512), new Uint8Array(1024), 0)).toThrow(/dst is shorter than src/);
    expect(() => c.decrypt(dst, new Uint8Array(1024), -1)).toThrow(/firstSector -1/);
    expect(() => c.decrypt(dst, new Uint8Array(1024), 1.5)).toThrow(RangeError);
    expect(() => c.decrypt(dst, new Uint8Array(1024), '0' as unknown as number)).toThrow(TypeError);
    const buf = new Uint8Array(2048);
    expect(() => c.decrypt(buf.subarray(16, 1040), buf.subarray(0, 1024), 0)).toThrow(/overlap/);
    expect(() => c.decrypt(dst, new Uint8Array(1024), (1n << 64n) - 1n)).toThrow(/64 bits/);
    expect(dst.every((b) => b === 0xaa)).toBe(true);
    c.dispose();
    expect(() => c.decrypt(dst, new Uint8Array(512), 0)).toThrow(/disposed/);
  });
});
