/**
 * Kernel-level conformance: every method of the AesKernel contract of @x/aes-keyschedule, checked against
 * node:crypto, on one kernel. It needs only node:assert, node:crypto, fast-check and @x/aes-keyschedule
 * and takes the runner's `describe`/`it`, so it runs under `node:test` with an arm64 Node in qemu
 * (scripts/test-arm64.mjs), where vitest cannot.
 *
 * Lengths are chosen around the kernel's batch of `parallelBlocks` (8): 0, the 1-7 tail alone, whole
 * batches, batches plus every tail length. Sectors too (encryptSectors interleaves 8 sectors: 0-20 of
 * them, so 0-2 interleaved groups and every remainder of 1-7 chains). XTS data units too, one or several per call, with tweaks that
 * reduce at every doubling (all ones) or at the first (bit 127 only).
 */
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expandKey, type AesKernel, type AesKeyedKernel } from '@x/aes-keyschedule';

/** The two functions of a test runner this suite needs. */
export interface Suite {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => unknown): void;
}

export interface KernelConformanceOptions {
  /** fast-check runs per property (default 100); fewer under emulation. */
  runs?: number;
  /** Native calls made so far, when the kernel can count them: checks one call per contract call. */
  callCount?: () => number;
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const same = (a: Uint8Array, b: Uint8Array) => assert.equal(Buffer.from(a).toString('hex'), Buffer.from(b).toString('hex'));

/** node:crypto's AES-ECB or AES-CBC without padding. */
function reference(mode: 'ecb' | 'cbc', encrypt: boolean, key: Uint8Array, data: Uint8Array, iv?: Uint8Array) {
  const name = `aes-${key.length * 8}-${mode}`;
  const c = encrypt ? createCipheriv(name, key, iv ?? null) : createDecipheriv(name, key, iv ?? null);
  c.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** `bytes` copied to `offset` bytes into a larger buffer with random bytes around it. */
function placed(bytes: Uint8Array, offset: number): Uint8Array {
  const backing = randomBytes(offset + bytes.length + 5);
  const view = new Uint8Array(backing.buffer, backing.byteOffset + offset, bytes.length);
  view.set(bytes);
  return view;
}

/** T = E_K2(i) or i = D_K2(T): the tweak encryption the mode does before an XTS call (IEEE 1619 §5.3.1). */
function ecb1(encrypt: boolean, key2: Uint8Array, block: Uint8Array): Uint8Array {
  return reference('ecb', encrypt, key2, block);
}

/** T·α (IEEE 1619 §5.2) on a copy, byte by byte: an independent statement of the doubling. */
function mulAlpha(t: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  let carry = 0;
  for (let i = 0; i < 16; i++) {
    out[i] = ((t[i] << 1) | carry) & 0xff;
    carry = t[i] >> 7;
  }
  if (carry) out[0] ^= 0x87;
  return out;
}

/**
 * What the kernel's encryptXTS/decryptXTS must give, unit by unit. For AES-128 and AES-256 it is
 * node:crypto's `aes-*-xts` with key1 ‖ key2 and the tweak i = D_K2(T) (so any T, chosen or random, is
 * the encryption of some i); for AES-192, which OpenSSL has no XTS for, the definition itself,
 * E_K1(P ^ T·α^j) ^ T·α^j, over node:crypto's ECB (checked against the first for the other two sizes).
 */
function expectedXTS(encrypt: boolean, key1: Uint8Array, key2: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array, byDefinition = false) {
  const out = new Uint8Array(src.length);
  for (let u = 0; u < src.length / unitSize; u++) {
    const unit = src.subarray(u * unitSize, (u + 1) * unitSize);
    const t0 = tweaks.subarray(16 * u, 16 * u + 16);
    if (key1.length !== 24 && !byDefinition) {
      const name = `aes-${key1.length * 8}-xts`;
      const key = Buffer.concat([key1, key2]), iv = ecb1(false, key2, t0);
      const c = encrypt ? createCipheriv(name, key, iv) : createDecipheriv(name, key, iv);
      out.set(Buffer.concat([c.update(unit), c.final()]), u * unitSize);
    } else {
      let t: Uint8Array = Uint8Array.from(t0);
      for (let j = 0; j < unitSize / 16; j++) {
        const x = Uint8Array.from(unit.subarray(16 * j, 16 * j + 16)); // a copy (Buffer#slice is a view)
        for (let b = 0; b < 16; b++) x[b] ^= t[b];
        const y = reference('ecb', encrypt, key1, x);
        for (let b = 0; b < 16; b++) y[b] ^= t[b];
        out.set(y, u * unitSize + 16 * j);
        t = mulAlpha(t);
      }
    }
  }
  return out;
}

/** Two different random keys of `n` bytes (OpenSSL refuses XTS keys with equal halves). */
function keyPair(n: number): [Uint8Array, Uint8Array] {
  const k1 = randomBytes(n);
  let k2 = randomBytes(n);
  while (k2.equals(k1)) k2 = randomBytes(n);
  return [k1, k2];
}

/** Block counts that reach every path of an 8-way kernel: empty, tails, whole batches, batch + tail. */
const COUNTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 24, 31, 33, 64, 71];

const KEY_BYTES = [16, 24, 32] as const;

type Method = 'encryptECB' | 'decryptECB' | 'encryptCBC' | 'decryptCBC';

/** What node:crypto says method `m` gives for `data`. */
function expected(m: Method, key: Uint8Array, data: Uint8Array, iv: Uint8Array) {
  const mode = m.endsWith('ECB') ? 'ecb' : 'cbc';
  return reference(mode, m.startsWith('encrypt'), key, data, mode === 'cbc' ? iv : undefined);
}

function call(k: AesKeyedKernel, m: Method, dst: Uint8Array, src: Uint8Array, iv: Uint8Array) {
  if (m === 'encryptCBC' || m === 'decryptCBC') k[m](dst, src, iv);
  else k[m](dst, src);
}

/** The whole suite for one kernel. */
export function kernelConformance(kernel: AesKernel, { describe, it }: Suite, options: KernelConformanceOptions = {}): void {
  const runs = options.runs ?? 100;
  const METHODS: Method[] = ['encryptECB', 'decryptECB', 'encryptCBC', 'decryptCBC'];

  describe(`kernel ${kernel.name}`, () => {
    it('is available and describes itself', () => {
      assert.equal(kernel.isAvailable(), true);
      assert.equal(typeof kernel.name, 'string');
      assert.ok(kernel.parallelBlocks >= 1);
      for (const n of KEY_BYTES) {
        const k = kernel.load(expandKey(new Uint8Array(n)));
        assert.equal(k.rounds, n / 4 + 6);
        k.dispose();
      }
    });

    it('FIPS 197 Appendix C.1-C.3, one block and a batch of 8 plus a tail of 3', () => {
      const pt = hex('00112233445566778899aabbccddeeff');
      const cases: [string, string][] = [
        ['000102030405060708090a0b0c0d0e0f', '69c4e0d86a7b0430d8cdb78070b4c55a'],
        ['000102030405060708090a0b0c0d0e0f1011121314151617', 'dda97ca4864cdfe06eaf70a0ec0d7191'],
        ['000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', '8ea2b7ca516745bfeafc49904b496089'],
      ];
      for (const [key, ct] of cases) {
        const k = kernel.load(expandKey(hex(key)));
        const out = new Uint8Array(16);
        k.encryptECB(out, pt);
        same(out, hex(ct));
        k.decryptECB(out, hex(ct));
        same(out, pt);
        // The same block 11 times: lanes 0-7 of one batch and the tail must all agree.
        const many = new Uint8Array(16 * 11);
        for (let i = 0; i < 11; i++) many.set(pt, 16 * i);
        const enc = new Uint8Array(many.length);
        k.encryptECB(enc, many);
        for (let i = 0; i < 11; i++) same(enc.subarray(16 * i, 16 * i + 16), hex(ct));
        k.decryptECB(enc, enc);
        same(enc, many);
        k.dispose();
      }
    });

    it('the key schedule may be wiped once the kernel is loaded', () => {
      const key = randomBytes(32), data = randomBytes(16 * 9), iv = randomBytes(16);
      const schedule = expandKey(key);
      const k = kernel.load(schedule);
      schedule.wipe();
      const out = new Uint8Array(data.length);
      k.decryptCBC(out, data, iv);
      same(out, reference('cbc', false, key, data, iv));
      k.dispose();
    });

    for (const n of KEY_BYTES) {
      for (const m of METHODS) {
        it(`${m}, AES-${n * 8}: every length around the batch of 8, separate buffers and in place`, () => {
          const key = randomBytes(n);
          const k = kernel.load(expandKey(key));
          for (const blocks of COUNTS) {
            const src = randomBytes(16 * blocks), iv = randomBytes(16);
            const want = expected(m, key, src, iv);
            const srcCopy = Uint8Array.from(src), ivCopy = Uint8Array.from(iv);
            const dst = new Uint8Array(src.length + 16).fill(0xa5);
            call(k, m, dst, src, iv);
            same(dst.subarray(0, src.length), want);
            assert.ok(dst.subarray(src.length).every((b) => b === 0xa5), 'wrote past src.length');
            same(src, srcCopy);
            same(iv, ivCopy);
            const inPlace = Uint8Array.from(src);
            call(k, m, inPlace, inPlace, iv);
            same(inPlace, want);
          }
          k.dispose();
        });
      }
    }

    it('random keys, lengths, odd byteOffsets and in place, against node:crypto', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...KEY_BYTES),
          fc.integer({ min: 0, max: 40 }),
          fc.constantFrom(...METHODS),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 15 }),
          fc.boolean(),
          (keyBytes, blocks, m, srcOff, dstOff, inPlace) => {
            const key = randomBytes(keyBytes), iv = placed(randomBytes(16), 3);
            const src = placed(randomBytes(16 * blocks), srcOff);
            const want = expected(m, key, src, iv);
            const k = kernel.load(expandKey(key));
            const dst = inPlace ? src : placed(new Uint8Array(16 * blocks), dstOff);
            call(k, m, dst, src, iv);
            k.dispose();
            same(dst, want);
          },
        ),
        { numRuns: runs },
      );
    });

    it('decryptSectors: many chains, one IV each, every sector size shape', () => {
      for (const n of KEY_BYTES) {
        const key = randomBytes(n);
        const k = kernel.load(expandKey(key));
        // 16 B: one block per sector (tail only); 48 B: 3 (tail only); 144 B: 9 (batch + 1);
        // 512 B and 4096 B: the disk sector sizes, whole batches.
        for (const [sectorSize, sectors] of [[16, 5], [48, 7], [144, 3], [512, 9], [4096, 3]]) {
          const src = placed(randomBytes(sectorSize * sectors), 1);
          const ivs = placed(randomBytes(16 * sectors), 7);
          const want = new Uint8Array(src.length);
          for (let s = 0; s < sectors; s++) {
            const c = src.subarray(s * sectorSize, (s + 1) * sectorSize);
            want.set(reference('cbc', false, key, c, ivs.subarray(16 * s, 16 * s + 16)), s * sectorSize);
          }
          const dst = placed(new Uint8Array(src.length), 5);
          k.decryptSectors(dst, src, sectorSize, ivs);
          same(dst, want);
          const inPlace = Uint8Array.from(src);
          k.decryptSectors(inPlace, inPlace, sectorSize, ivs);
          same(inPlace, want);
        }
        k.dispose();
      }
    });

    /** node:crypto's `aes-*-cbc`, sector by sector: what encryptSectors must give. */
    const expectedSectors = (key: Uint8Array, src: Uint8Array, sectorSize: number, ivs: Uint8Array) => {
      const want = new Uint8Array(src.length);
      for (let s = 0; s < src.length / sectorSize; s++) {
        const p = src.subarray(s * sectorSize, (s + 1) * sectorSize);
        want.set(reference('cbc', true, key, p, ivs.subarray(16 * s, 16 * s + 16)), s * sectorSize);
      }
      return want;
    };

    // Sector sizes from 1 block (the chain is a single AES call) to 4096 bytes; 0-20 sectors, so the
    // 8-sector interleave runs 0, 1 and 2 times with every remainder of 1-7 chains (7, 8, 9, 15, 16, 17).
    for (const n of KEY_BYTES) {
      it(`encryptSectors, AES-${n * 8}: sector sizes 16..4096, 0..20 sectors, separate and in place, against aes-${n * 8}-cbc`, () => {
        const key = randomBytes(n);
        const k = kernel.load(expandKey(key));
        for (const sectorSize of [16, 32, 48, 128, 144, 512, 4096]) {
          for (let sectors = 0; sectors <= 20; sectors++) {
            if (sectorSize === 4096 && ![0, 1, 7, 8, 9, 15, 16, 17, 20].includes(sectors)) continue;
            const src = randomBytes(sectorSize * sectors), ivs = randomBytes(16 * sectors);
            const want = expectedSectors(key, src, sectorSize, ivs);
            const srcCopy = Uint8Array.from(src), ivsCopy = Uint8Array.from(ivs);
            const dst = new Uint8Array(src.length + 16).fill(0xa5);
            k.encryptSectors(dst, src, sectorSize, ivs);
            same(dst.subarray(0, src.length), want);
            assert.ok(dst.subarray(src.length).every((b) => b === 0xa5), 'wrote past src.length');
            same(src, srcCopy);
            same(ivs, ivsCopy);
            const inPlace = Uint8Array.from(src);
            k.encryptSectors(inPlace, inPlace, sectorSize, ivs);
            same(inPlace, want);
            k.decryptSectors(inPlace, inPlace, sectorSize, ivs);
            same(inPlace, src);
          }
        }
        k.dispose();
      });
    }

    it('encryptSectors: identical sectors with identical IVs come out identical in every lane and in the remainder', () => {
      for (const n of KEY_BYTES) {
        const key = randomBytes(n);
        const k = kernel.load(expandKey(key));
        const sectorSize = 144, sectors = 19;
        const one = randomBytes(sectorSize), iv = randomBytes(16);
        const src = new Uint8Array(sectorSize * sectors), ivs = new Uint8Array(16 * sectors);
        for (let s = 0; s < sectors; s++) {
          src.set(one, s * sectorSize);
          ivs.set(iv, 16 * s);
        }
        const want = reference('cbc', true, key, one, iv);
        k.encryptSectors(src, src, sectorSize, ivs);
        for (let s = 0; s < sectors; s++) same(src.subarray(s * sectorSize, (s + 1) * sectorSize), want);
        k.dispose();
      }
    });

    it('encryptSectors: random keys, sector sizes and counts, odd byteOffsets, longer ivs, in place', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...KEY_BYTES),
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 0, max: 20 }),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 3 }),
          fc.boolean(),
          (keyBytes, blocks, sectors, srcOff, dstOff, ivOff, extraIvs, inPlace) => {
            const key = randomBytes(keyBytes);
            const sectorSize = 16 * blocks;
            const src = placed(randomBytes(sectorSize * sectors), srcOff);
            const ivs = placed(randomBytes(16 * (sectors + extraIvs)), ivOff);
            const want = expectedSectors(key, src, sectorSize, ivs);
            const k = kernel.load(expandKey(key));
            const dst = inPlace ? src : placed(new Uint8Array(src.length), dstOff);
            k.encryptSectors(dst, src, sectorSize, ivs);
            k.dispose();
            same(dst, want);
          },
        ),
        { numRuns: runs },
      );
    });

    it('encryptSectors of zero sectors writes nothing', () => {
      const k = kernel.load(expandKey(randomBytes(16)));
      const dst = new Uint8Array(32).fill(7);
      k.encryptSectors(dst, new Uint8Array(0), 512, new Uint8Array(0));
      assert.ok(dst.every((b) => b === 7));
      k.dispose();
    });

    it('XTS: the definition over ECB agrees with node:crypto aes-128-xts / aes-256-xts', () => {
      for (const n of [16, 32]) {
        const [k1, k2] = keyPair(n);
        const src = randomBytes(2 * 16 * 19), tweaks = randomBytes(32);
        tweaks.fill(0xff, 0, 16);
        for (const enc of [true, false]) {
          same(expectedXTS(enc, k1, k2, src, 16 * 19, tweaks, true), expectedXTS(enc, k1, k2, src, 16 * 19, tweaks));
        }
      }
    });

    for (const n of KEY_BYTES) {
      for (const m of ['encryptXTS', 'decryptXTS'] as const) {
        it(`${m}, AES-${n * 8}: units of every length around the batch of 8, 1-3 units, separate and in place`, () => {
          const [k1, k2] = keyPair(n);
          const k = kernel.load(expandKey(k1));
          const enc = m === 'encryptXTS';
          // Tweaks whose every doubling reduces (all ones), whose first does (only bit 127), and random ones.
          const special = [new Uint8Array(16).fill(0xff), Uint8Array.from({ length: 16 }, (_, i) => (i === 15 ? 0x80 : 0))];
          for (const blocks of COUNTS.filter((b) => b > 0).concat([32, 256])) {
            for (const units of [1, 2, 3]) {
              const unitSize = 16 * blocks;
              const src = randomBytes(unitSize * units);
              const tweaks = randomBytes(16 * units);
              if (units === 1) tweaks.set(special[blocks % 2]);
              else tweaks.set(special[0], 16);
              const want = expectedXTS(enc, k1, k2, src, unitSize, tweaks);
              const srcCopy = Uint8Array.from(src), tweaksCopy = Uint8Array.from(tweaks);
              const dst = new Uint8Array(src.length + 16).fill(0xa5);
              k[m](dst, src, unitSize, tweaks);
              same(dst.subarray(0, src.length), want);
              assert.ok(dst.subarray(src.length).every((b) => b === 0xa5), 'wrote past src.length');
              same(src, srcCopy);
              same(tweaks, tweaksCopy);
              const inPlace = Uint8Array.from(src);
              k[m](inPlace, inPlace, unitSize, tweaks);
              same(inPlace, want);
            }
          }
          k.dispose();
        });
      }
    }

    it('XTS: decryptXTS undoes encryptXTS, 512- and 4096-byte sectors, one call each', () => {
      for (const n of KEY_BYTES) {
        const [k1, k2] = keyPair(n);
        const k = kernel.load(expandKey(k1));
        for (const [unitSize, units] of [[512, 9], [4096, 3]]) {
          const plain = randomBytes(unitSize * units), tweaks = randomBytes(16 * units);
          const disk = new Uint8Array(plain.length);
          k.encryptXTS(disk, plain, unitSize, tweaks);
          same(disk, expectedXTS(true, k1, k2, plain, unitSize, tweaks));
          k.decryptXTS(disk, disk, unitSize, tweaks);
          same(disk, plain);
        }
        k.dispose();
      }
    });

    it('XTS: random keys, unit sizes and counts, odd byteOffsets and in place, against node:crypto', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...KEY_BYTES),
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 0, max: 4 }),
          fc.boolean(),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 0, max: 15 }),
          fc.boolean(),
          (keyBytes, blocks, units, enc, srcOff, dstOff, tweakOff, inPlace) => {
            const [k1, k2] = keyPair(keyBytes);
            const unitSize = 16 * blocks;
            const src = placed(randomBytes(unitSize * units), srcOff);
            const tweaks = placed(randomBytes(16 * units), tweakOff);
            const want = expectedXTS(enc, k1, k2, src, unitSize, tweaks);
            const k = kernel.load(expandKey(k1));
            const dst = inPlace ? src : placed(new Uint8Array(src.length), dstOff);
            if (enc) k.encryptXTS(dst, src, unitSize, tweaks);
            else k.decryptXTS(dst, src, unitSize, tweaks);
            k.dispose();
            same(dst, want);
          },
        ),
        { numRuns: runs },
      );
    });

    it('XTS: a tweak buffer longer than 16 bytes per unit is read only as far as needed; zero units write nothing', () => {
      const [k1, k2] = keyPair(32);
      const k = kernel.load(expandKey(k1));
      const src = randomBytes(512 * 2), tweaks = randomBytes(16 * 64);
      const dst = new Uint8Array(src.length);
      k.encryptXTS(dst, src, 512, tweaks);
      same(dst, expectedXTS(true, k1, k2, src, 512, tweaks.subarray(0, 32)));
      const untouched = new Uint8Array(32).fill(7);
      k.encryptXTS(untouched, new Uint8Array(0), 512, new Uint8Array(0));
      k.decryptXTS(untouched, new Uint8Array(0), 16, tweaks);
      assert.ok(untouched.every((b) => b === 7));
      k.dispose();
    });

    it('decryptSectors of zero sectors writes nothing', () => {
      const k = kernel.load(expandKey(randomBytes(16)));
      const dst = new Uint8Array(32).fill(7);
      k.decryptSectors(dst, new Uint8Array(0), 512, new Uint8Array(0));
      assert.ok(dst.every((b) => b === 7));
      k.dispose();
    });

    const count = options.callCount;
    if (count) {
      it('one decryptSectors call over 2048 sectors is one native call', () => {
        const key = randomBytes(16);
        const k = kernel.load(expandKey(key));
        const sectors = 2048, sectorSize = 512;
        const src = randomBytes(sectors * sectorSize), ivs = randomBytes(16 * sectors);
        const dst = new Uint8Array(src.length);
        const before = count();
        k.decryptSectors(dst, src, sectorSize, ivs);
        assert.equal(count() - before, 1);
        // And the answer is right: spot-check the first, a middle and the last sector.
        for (const s of [0, 1023, 2047]) {
          const c = src.subarray(s * sectorSize, (s + 1) * sectorSize);
          same(dst.subarray(s * sectorSize, (s + 1) * sectorSize), reference('cbc', false, key, c, ivs.subarray(16 * s, 16 * s + 16)));
        }
        const before2 = count();
        k.encryptCBC(dst, src, ivs.subarray(0, 16));
        k.decryptCBC(dst, src, ivs.subarray(0, 16));
        k.encryptECB(dst, src);
        k.decryptECB(dst, src);
        assert.equal(count() - before2, 4);
        k.dispose();
      });

      it('one encryptSectors call over 2048 sectors is one native call', () => {
        const key = randomBytes(32);
        const k = kernel.load(expandKey(key));
        const sectors = 2048, sectorSize = 512;
        const src = randomBytes(sectors * sectorSize), ivs = randomBytes(16 * sectors);
        const dst = new Uint8Array(src.length);
        const before = count();
        k.encryptSectors(dst, src, sectorSize, ivs);
        assert.equal(count() - before, 1);
        for (const s of [0, 1, 7, 8, 1023, 2047]) {
          const p = src.subarray(s * sectorSize, (s + 1) * sectorSize);
          same(dst.subarray(s * sectorSize, (s + 1) * sectorSize), reference('cbc', true, key, p, ivs.subarray(16 * s, 16 * s + 16)));
        }
        k.decryptSectors(dst, dst, sectorSize, ivs);
        same(dst, src);
        k.dispose();
      });

      it('one encryptXTS or decryptXTS call over 2048 sectors is one native call', () => {
        const [k1, k2] = keyPair(32);
        const k = kernel.load(expandKey(k1));
        const sectors = 2048, sectorSize = 512;
        const src = randomBytes(sectors * sectorSize), tweaks = randomBytes(16 * sectors);
        const dst = new Uint8Array(src.length);
        const before = count();
        k.encryptXTS(dst, src, sectorSize, tweaks);
        assert.equal(count() - before, 1);
        for (const s of [0, 1023, 2047]) {
          const range = [s * sectorSize, (s + 1) * sectorSize] as const;
          same(dst.subarray(...range), expectedXTS(true, k1, k2, src.subarray(...range), sectorSize, tweaks.subarray(16 * s, 16 * s + 16)));
        }
        const before2 = count();
        k.decryptXTS(dst, dst, sectorSize, tweaks);
        assert.equal(count() - before2, 1);
        same(dst, src);
        k.dispose();
      });
    }
  });
}
