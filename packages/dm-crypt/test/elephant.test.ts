// aes-cbc-elephant: BitLocker's AES-CBC + Elephant diffuser (Windows Vista and 7), dm-crypt's IV mode
// `elephant`. Checked on every AES kernel against a real BitLocker volume made by Windows 7, and with
// fast-check against test/reference.ts (the diffusers written out from Ferguson's pseudo-code, word by
// word, AES from node:crypto's aes-*-cbc and aes-*-ecb).
import { createHash, randomBytes } from 'node:crypto';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ElephantCore, newElephant } from '../src/elephant.js';
import { newSectorCipher, parseCipherSpec } from '../src/index.js';
import { refDiffuser, refElephantLayer, referenceCrypt } from './reference.js';

const SPEC = { chainMode: 'cbc', ivMode: 'elephant' } as const;

/**
 * The real known answer. Source: the cryptsetup project's tests/bitlk-images.tar.xz,
 * bitlk-aes-cbc-elephant-128.img, a BitLocker volume made by Windows 7 (password "anaconda"; images.conf
 * there: CIPHER=aes-cbc-elephant, UUID=3ECCF65ACCF60BC1). The ciphertext is the 512 bytes at byte offset
 * 0x2a2d000 = 44224512, the FVE volume header block: the volume's relocated NTFS boot sector, encrypted as
 * 512-byte sector 44224512 / 512 = 86376 (no iv_large_sectors). The key is what
 * `echo anaconda | cryptsetup bitlkDump <img> --dump-volume-key` prints, 32 bytes: the AES-128 CBC key ‖
 * the AES-128 elephant key.
 */
const BITLK_KEY = '9d2733e172dc85e13e3de5aaa0e0501bfd22a3f27966c51c94c8e3adce517b6e';
const BITLK_SECTOR = 44224512 / 512;
const BITLK_CIPHERTEXT = [
  '2175c8446934efd6c9602aeb990295e92143dfe7918377df463951b7e0d32116a2999ee8962ce8e07006e94d6c68fd4e',
  'cb7276654ca2768f6126db515c4dd868d49c07174237b9ff703d97580467ec7624f75fa4be17838e8ab51aedc49c9a6a',
  '80b188cfd52aa1616b0c147cab782503d7f437e276827d385c948601f8045dc362be605e9e6b2e4657842f43e75d0ea3',
  'efbe4b1b43936cc8256d4d7da06bc628ef1055309ebe575345464120c0d93ca0c7c09f1dc839a54a92ae074be5688149',
  'fd4b77b622b7b2042d6f07dd4d7a88e939feac607d871063165ad8e1e592b26d21e819f758d5a7191676bbb4e34be7ae',
  '57d04ef5008bc102f62080caca7e33de485bf6c03a949758ae4d763bd228042b5ef2983d48ab57ab8108026385144d79',
  '05027460b38b4ffdc55657975fd4a9f72205952e3690a500a589feb7f5e97fb2760b6822842b77161f434700f2dbae29',
  'e45f873cfc7657495c0bbc84bb687fa2c2467f2df8da9b3eacff1afb4a4bc3bbe2bc7115bd10f9772825b6643f25d47a',
  '447391b3c43adeb868fca7670a9e59194b1ca8be45bee55c5cb7b6a4cb68fe02386795eb8623f9f9c78e6ee964ed2d7d',
  'c14c3be6cd3fe6d92a5a26800751ac8c3019df834b5c2bcfd323b5149c8be75c01415482e84fd2216cd9781c18a1671f',
  'bbb1693bdca4391c58f8cdd67fe3e54cd414f7b67633cf927b31b4acb33dafbe',
].join('');
/** SHA-256 of the decrypted boot sector, pinned once the NTFS checks below passed on every kernel. */
const BITLK_PLAINTEXT_SHA256 = '9213805231509fcfe000e71dab8b13478e678ad1c06a7b59a72e3eca906d2197';

/**
 * Whether the diffusers `core` run with `kernel`: 'yes'; 'no' (a native kernel on a CPU without AVX2, for
 * 'avx2'); or 'other kernel' (the native cores with a kernel that has none, 'simd128' with another kernel
 * than `wasm-simd128`).
 */
function runsHere(kernel: string, core: ElephantCore): 'yes' | 'no' | 'other kernel' {
  if (core === 'js') return 'yes';
  if (core === 'simd128') return kernel === 'wasm-simd128' ? 'yes' : 'other kernel';
  if (!kernel.startsWith('native-')) return 'other kernel';
  const cores = (['avx2', 'c'] as const).filter((c) => {
    try {
      newElephant(new Uint8Array(16), 512, 9, { kernel, core: c }).dispose();
      return true;
    } catch {
      return false;
    }
  });
  if (cores.includes(core)) return 'yes';
  return core === 'avx2' && kernel === 'native-x64' ? 'no' : 'other kernel';
}

const hexBytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('aes-cbc-elephant: spec and key', () => {
  it('parses both forms', () => {
    const want = { cipher: 'aes', chainMode: 'cbc', ivMode: 'elephant', canonical: 'aes-cbc-elephant' };
    expect(parseCipherSpec('aes-cbc-elephant')).toEqual(want);
    expect(parseCipherSpec('capi:cbc(aes)-elephant')).toEqual(want);
  });

  it.each([
    ['aes-xts-elephant', /IV mode "elephant" is not supported with xts/],
    ['aes-hctr2-elephant', /IV mode "elephant" is not supported with hctr2/],
    ['xchacha12,aes-adiantum-elephant', /IV mode "elephant" is not supported with adiantum/],
    ['aes-ecb-elephant', /ecb takes no IV mode/],
    ['capi:xts(aes)-elephant', /IV mode "elephant" is not supported with xts/],
  ])('refuses %s', (spec, message) => {
    expect(() => parseCipherSpec(spec)).toThrow(RangeError);
    expect(() => parseCipherSpec(spec)).toThrow(message);
  });

  it.each([0, 16, 24, 48, 65])('refuses a %d-byte key', (length) => {
    for (const spec of ['aes-cbc-elephant', 'capi:cbc(aes)-elephant']) {
      expect(() => newSectorCipher(spec, new Uint8Array(length))).toThrow(RangeError);
      expect(() => newSectorCipher(spec, new Uint8Array(length))).toThrow(
        `@x/dm-crypt: aes-cbc-elephant takes a key of 32 or 64 bytes, got ${length}`,
      );
    }
  });

  it('the reference diffusers: each encryption direction undoes its decryption direction', () => {
    for (const n of [128, 1024]) {
      const words = Array.from({ length: n }, () => randomBytes(4).readUInt32LE(0));
      for (const which of ['A', 'B'] as const) {
        const d = [...words];
        refDiffuser(which, true, d);
        expect(d).not.toEqual(words);
        refDiffuser(which, false, d);
        expect(d).toEqual(words);
      }
    }
  });
});

for (const kernel of testedKernels(kernels())) {
  describe(`aes-cbc-elephant on ${kernel}`, () => {
    it('decrypts the relocated NTFS boot sector of a BitLocker volume made by Windows 7', () => {
      const c = newSectorCipher('aes-cbc-elephant', hexBytes(BITLK_KEY), { kernel });
      expect(c.kernel).toBe(kernel);
      const ct = hexBytes(BITLK_CIPHERTEXT);
      const plain = new Uint8Array(512);
      c.decrypt(plain, ct, BITLK_SECTOR);
      const p = Buffer.from(plain);
      expect(p.subarray(3, 11).toString('latin1')).toBe('NTFS    '); // OEM ID
      expect(p.subarray(510, 512).toString('hex')).toBe('55aa'); // boot signature
      expect(p.readUInt16LE(11)).toBe(512); // bytes per sector
      // the NTFS volume serial number (u64 at 0x48), the UUID cryptsetup's images.conf gives
      expect(p.readBigUInt64LE(0x48).toString(16).toUpperCase().padStart(16, '0')).toBe('3ECCF65ACCF60BC1');
      expect(createHash('sha256').update(p).digest('hex')).toBe(BITLK_PLAINTEXT_SHA256);
      // and back: encryption gives Windows' ciphertext, in place too
      const back = new Uint8Array(512);
      c.encrypt(back, plain, BigInt(BITLK_SECTOR));
      expect(same(back, ct)).toBe(true);
      c.encrypt(plain, plain, BITLK_SECTOR);
      expect(same(plain, ct)).toBe(true);
      // the same sector as a bigint and with the IV offset carrying the sector number
      const o = newSectorCipher('aes-cbc-elephant', hexBytes(BITLK_KEY), { kernel, ivOffset: BITLK_SECTOR - 6 });
      o.decrypt(plain, ct, 6n);
      expect(createHash('sha256').update(plain).digest('hex')).toBe(BITLK_PLAINTEXT_SHA256);
      c.dispose();
      o.dispose();
    });

    it('equals the reference (random sectors, keys, geometry, IV offsets, buffer placement)', () => {
      const arb = fc
        .record({
          keyLength: fc.constantFrom(32, 64),
          sectorSize: fc.constantFrom(512, 4096),
          ivLargeSectors: fc.boolean(),
          offsetSectors: fc.oneof(fc.constant(0), fc.nat(1000), fc.constant(2 ** 40 + 5)),
          first: fc.oneof(
            fc.nat(2 ** 40),
            fc.bigInt({ min: 0n, max: 1n << 60n }),
            fc.constantFrom(0, 0xfffffffe, 0xffffffff, 2 ** 53 - 2 ** 41),
          ),
          count: fc.integer({ min: 1, max: 3 }),
          dstOffset: fc.nat(7), // 0, 4: word views; 1–3, 5–7: the byte-by-byte path
          inPlace: fc.boolean(),
          seed: fc.nat(),
        })
        .filter(({ first, offsetSectors }) => typeof first === 'bigint' || first + offsetSectors <= 2 ** 53 - 1);
      fc.assert(
        fc.property(arb, (t) => {
          const { sectorSize, ivLargeSectors, count, dstOffset } = t;
          const key = new Uint8Array(randomBytes(t.keyLength));
          const ivOffset = BigInt(t.offsetSectors) * BigInt(sectorSize / 512);
          const c = newSectorCipher('aes-cbc-elephant', key, { sectorSize, ivLargeSectors, ivOffset, kernel });
          const opts = { ivLargeSectors, ivOffset };
          const data = new Uint8Array(randomBytes(count * sectorSize));
          const bytes = data.length;
          const first = BigInt(t.first);
          const buf = new Uint8Array(bytes + 16);
          const dst = buf.subarray(dstOffset, dstOffset + bytes + (t.seed % 2) * 4); // sometimes longer than src
          const run = (dir: 'encrypt' | 'decrypt', src: Uint8Array) => {
            if (t.inPlace) {
              dst.set(src);
              c[dir](dst, dst.subarray(0, bytes), t.first);
            } else c[dir](dst, src, t.first);
            return dst.slice(0, bytes);
          };
          const enc = run('encrypt', data);
          expect(same(enc, referenceCrypt('encrypt', SPEC, key, data, first, sectorSize, opts))).toBe(true);
          expect(same(run('decrypt', enc), data)).toBe(true);
          // decryption of bytes that were never encrypted: the decryption direction on its own
          const noise = new Uint8Array(randomBytes(bytes));
          expect(
            same(run('decrypt', noise), referenceCrypt('decrypt', SPEC, key, noise, first, sectorSize, opts)),
          ).toBe(true);
          c.dispose();
        }),
        { numRuns: 40 },
      );
    });

    // Where the diffusers run: natively ('avx2' where this CPU has it, 'c' the addon's portable C) with a
    // native kernel, in WebAssembly ('simd128') with the wasm-simd128 kernel, else here ('js'); every one
    // this kernel can run, against the reference, with sector counts around the native groups of eight
    // and the WebAssembly groups of four.
    for (const core of ['avx2', 'c', 'simd128', 'js'] as const satisfies readonly ElephantCore[]) {
      const runs = runsHere(kernel, core);
      if (runs === 'other kernel') continue;
      it(`the ${core} diffusers equal the reference (1 to 20 sectors of 512 to 4096 bytes, any placement)${runs === 'no' ? ': skipped, this CPU has no AVX2' : ''}`, ({
        skip,
      }) => {
        if (runs === 'no') skip();
        const arb = fc.record({
          keyLength: fc.constantFrom(16, 32),
          sectorSize: fc.constantFrom(512, 1024, 2048, 4096),
          shift: fc.constantFrom(9, 12),
          first: fc.nat(2 ** 40),
          count: fc.integer({ min: 1, max: 20 }),
          offset: fc.nat(7),
        });
        fc.assert(
          fc.property(arb, ({ keyLength, sectorSize, shift, first, count, offset }) => {
            const key = new Uint8Array(randomBytes(keyLength));
            const el = newElephant(key, sectorSize, shift, { kernel, core });
            expect(el.core).toBe(core);
            const bytes = count * sectorSize;
            const data = new Uint8Array(randomBytes(bytes));
            const dst = new Uint8Array(bytes + 8).subarray(offset, offset + bytes);
            el.sectorKeys(first, count);
            const enc = el.encrypt(dst, data, count).slice();
            expect(same(enc, refElephantLayer(false, key, data, first, sectorSize, shift))).toBe(true);
            el.sectorKeys(first, count);
            el.decrypt(dst, count);
            expect(same(dst, data)).toBe(true);
            // decryption of bytes never encrypted: the decryption direction on its own
            const noise = new Uint8Array(randomBytes(bytes));
            dst.set(noise);
            el.sectorKeys(first, count);
            el.decrypt(dst, count);
            expect(same(dst, refElephantLayer(true, key, noise, first, sectorSize, shift))).toBe(true);
            el.dispose();
          }),
          { numRuns: 25 },
        );
      });
    }

    it('word views and the byte-by-byte path (a big-endian host) give the same bytes', () => {
      for (const sectorSize of [512, 4096]) {
        const key = new Uint8Array(randomBytes(32));
        const data = new Uint8Array(randomBytes(3 * sectorSize));
        const out: Uint8Array[] = [];
        for (const wordViews of [true, false]) {
          const el = newElephant(key.subarray(16), sectorSize, 9, { kernel, core: 'js', wordViews });
          const dst = new Uint8Array(data.length);
          el.sectorKeys(77, 3);
          el.encrypt(dst, data, 3);
          const back = dst.slice();
          el.sectorKeys(77, 3);
          el.decrypt(back, 3);
          expect(same(back, data)).toBe(true);
          out.push(dst);
          el.dispose();
        }
        expect(same(out[0], out[1])).toBe(true);
      }
    });

    it('round trip of many sectors in one call, in place', () => {
      for (const [keyLength, sectorSize] of [
        [32, 512],
        [64, 4096],
      ]) {
        const c = newSectorCipher('aes-cbc-elephant', new Uint8Array(randomBytes(keyLength)), { sectorSize, kernel });
        const data = new Uint8Array(randomBytes(64 * sectorSize));
        const buf = data.slice();
        c.encrypt(buf, buf, 12345);
        expect(same(buf, data)).toBe(false);
        c.decrypt(buf, buf, 12345);
        expect(same(buf, data)).toBe(true);
        c.dispose();
      }
    });

    it('one flipped ciphertext bit changes the whole decrypted sector, and that sector alone', () => {
      for (const sectorSize of [512, 4096]) {
        const key = new Uint8Array(randomBytes(32));
        const c = newSectorCipher('aes-cbc-elephant', key, { sectorSize, kernel });
        const cbc = newSectorCipher('aes-cbc-eboiv', key.subarray(0, 16), { sectorSize, kernel });
        const data = new Uint8Array(randomBytes(3 * sectorSize));
        const enc = new Uint8Array(data.length);
        c.encrypt(enc, data, 500);
        const encCbc = new Uint8Array(data.length);
        cbc.encrypt(encCbc, data, 500);
        for (const at of [0, 17, sectorSize / 2 + 5, sectorSize - 1]) {
          for (const bit of [0, 7]) {
            const dec = new Uint8Array(data.length);
            const bad = enc.slice();
            bad[sectorSize + at] ^= 1 << bit; // the middle sector
            c.decrypt(dec, bad, 500);
            expect(same(dec.subarray(0, sectorSize), data.subarray(0, sectorSize))).toBe(true);
            expect(same(dec.subarray(2 * sectorSize), data.subarray(2 * sectorSize))).toBe(true);
            const got = new DataView(dec.buffer, sectorSize, sectorSize);
            const was = new DataView(data.buffer, sectorSize, sectorSize);
            for (let w = 0; w < sectorSize; w += 4) expect(got.getUint32(w)).not.toBe(was.getUint32(w));
            // plain CBC, for contrast: one block scrambled and one bit flipped, at most 17 bytes
            const badCbc = encCbc.slice();
            badCbc[sectorSize + at] ^= 1 << bit;
            cbc.decrypt(dec, badCbc, 500);
            let changed = 0;
            for (let i = 0; i < data.length; i++) if (dec[i] !== data[i]) changed++;
            expect(changed).toBeLessThanOrEqual(17);
          }
        }
        c.dispose();
        cbc.dispose();
      }
    });

    it('checks before writing, and throws after dispose', () => {
      const c = newSectorCipher('aes-cbc-elephant', new Uint8Array(64).fill(3), { kernel });
      const dst = new Uint8Array(1024).fill(0xaa);
      expect(() => c.decrypt(dst, new Uint8Array(1024), (1n << 64n) - 1n)).toThrow(/64 bits/);
      expect(() => c.encrypt(dst, new Uint8Array(1024), (1n << 64n) - 1n)).toThrow(/64 bits/);
      expect(() => c.encrypt(dst, new Uint8Array(1000), 0)).toThrow(/not a whole number of 512-byte sectors/);
      expect(dst.every((b) => b === 0xaa)).toBe(true);
      c.decrypt(dst.subarray(0, 512), new Uint8Array(512), (1n << 64n) - 1n); // the last sector there is
      c.dispose();
      expect(() => c.decrypt(dst, new Uint8Array(512), 0)).toThrow(/disposed/);
    });
  });
}

// The WebAssembly SIMD128 diffusers (four sectors side by side) against this package's JavaScript ones, on
// the same sector keys: every sector size, 1 to 9 sectors (every remainder of the groups of four, and
// more than two groups), both directions, out of place and in place; nothing outside the call's sectors
// in dst, and nothing of src, is written.
describe.skipIf(!testedKernels(kernels()).includes('wasm-simd128'))('the simd128 Elephant core', () => {
  it('is the default with the wasm-simd128 kernel', () => {
    const el = newElephant(new Uint8Array(16), 512, 9, { kernel: 'wasm-simd128' });
    expect(el.core).toBe('simd128');
    el.dispose();
    expect(() => newElephant(new Uint8Array(16), 512, 9, { kernel: 'portable', core: 'simd128' })).toThrow(
      /the Elephant core "simd128" does not run with kernel portable/,
    );
  });

  it('equals the js core (random data, every sector size, 1 to 9 sectors, both directions, any placement)', () => {
    const arb = fc.record({
      keyLength: fc.constantFrom(16, 32),
      sectorSize: fc.constantFrom(512, 1024, 2048, 4096),
      first: fc.nat(2 ** 40),
      count: fc.integer({ min: 1, max: 9 }),
      offset: fc.nat(7),
      inPlace: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ keyLength, sectorSize, first, count, offset, inPlace }) => {
        const key = new Uint8Array(randomBytes(keyLength));
        const bytes = count * sectorSize;
        const data = new Uint8Array(randomBytes(bytes));
        const out = (['simd128', 'js'] as const).map((core) => {
          const el = newElephant(key, sectorSize, 12, { kernel: 'wasm-simd128', core });
          expect(el.core).toBe(core);
          // dst inside a larger buffer of known bytes, longer than the call's sectors
          const backing = new Uint8Array(randomBytes(bytes + 2 * sectorSize + 16));
          const before = backing.slice();
          const dst = backing.subarray(offset, offset + bytes + sectorSize);
          const src = inPlace ? dst.subarray(0, bytes) : data.slice();
          if (inPlace) src.set(data);
          el.sectorKeys(first, count);
          const enc = el.encrypt(dst, src, count).slice();
          if (!inPlace) expect(same(src, data)).toBe(true);
          const outside = () =>
            same(backing.subarray(0, offset), before.subarray(0, offset)) &&
            same(backing.subarray(offset + bytes), before.subarray(offset + bytes));
          expect(outside()).toBe(true);
          // decryption in place, of the encryption and of bytes never encrypted
          el.sectorKeys(first, count);
          el.decrypt(dst, count);
          expect(same(dst.subarray(0, bytes), data)).toBe(true);
          dst.set(enc.map((b) => b ^ 0x5a));
          el.sectorKeys(first, count);
          el.decrypt(dst, count);
          const dec = dst.slice(0, bytes);
          expect(outside()).toBe(true);
          el.dispose();
          return [enc, dec];
        });
        expect(same(out[0][0], out[1][0])).toBe(true);
        expect(same(out[0][1], out[1][1])).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
