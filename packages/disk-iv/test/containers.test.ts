// Real containers: cryptsetup encrypts random data into LUKS2 containers (and LUKS1 conversions of the
// 512-byte-sector ones) for every IV mode, sector size and key size; @x/cbc + @x/disk-iv must decrypt
// every payload sector back to the data, and re-encrypting the data must give cryptsetup's ciphertext.
import { availableParallelism } from 'node:os';
import {
  describeWithCryptsetup,
  convertToLuks1,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  type Container,
} from '@x/containers';
import { newCipher } from '@x/cbc';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newIvGenerator } from '../src/index.js';
import { KERNELS, withKernel } from './kernels.js';

// every mode of the issue, plus the other essiv hashes that cryptsetup can make here (essiv:blake2b-256
// it cannot: its OpenSSL backend has no blake2b-256, see properties.test.ts for that one)
const MODES = [
  'plain',
  'plain64',
  'plain64be',
  'benbi',
  'null',
  'essiv:sha256',
  'eboiv',
  'essiv:md5',
  'essiv:sha3-256',
];
const SECTOR_SIZES = [512, 4096];
const KEY_BITS = [128, 256];
const DATA_BYTES = 128 * 1024; // 256 sectors of 512 bytes, 32 of 4096

describeWithCryptsetup('real LUKS containers made by cryptsetup', () => {
  const specs = MODES.flatMap((mode) =>
    SECTOR_SIZES.flatMap((sectorSize) => KEY_BITS.map((keySize) => ({ mode, sectorSize, keySize }))),
  );
  const made = new Map<string, { luks2: Container; luks1?: Container }>();
  const label = (s: { mode: string; sectorSize: number; keySize: number }) =>
    `${s.mode} ${s.sectorSize} AES-${s.keySize}`;

  beforeAll(async () => {
    const all = await mapLimit(specs, availableParallelism(), async (s) => {
      const luks2 = await makeLuks2Container({
        cipher: `aes-cbc-${s.mode}`,
        keySize: s.keySize,
        sectorSize: s.sectorSize,
        dataSize: DATA_BYTES,
      });
      const luks1 = s.sectorSize === 512 ? await convertToLuks1(luks2) : undefined;
      return { luks2, luks1 };
    });
    for (const [i, s] of specs.entries()) made.set(label(s), all[i]);
  });

  afterAll(removeAllContainers);

  it(`made ${specs.length} LUKS2 and ${specs.filter((s) => s.sectorSize === 512).length} LUKS1 containers`, () => {
    expect(made.size).toBe(specs.length);
  });

  for (const s of specs) {
    const formats: ('luks2' | 'luks1')[] = s.sectorSize === 512 ? ['luks2', 'luks1'] : ['luks2'];
    for (const format of formats) {
      it(`${format} aes-cbc-${label(s)}`, async () => {
        const c = made.get(label(s))![format]!;
        // the header says what was asked for, in dm-crypt's words
        expect(c.format).toBe(format);
        expect(c.cipher).toBe(`aes-cbc-${s.mode}`);
        expect(c.ivMode).toBe(s.mode);
        expect(c.sectorSize).toBe(s.sectorSize);
        expect(c.volumeKey.length).toBe(s.keySize / 8);
        expect(c.ivTweak).toBe(0n);
        if (format === 'luks1') expect(c.payloadOffset).toBe(made.get(label(s))!.luks2.payloadOffset);

        const payload = await c.readPayload();
        const n = payload.length / c.sectorSize;
        const gen = newIvGenerator(c.ivMode, c.volumeKey, { sectorSize: c.sectorSize });
        const ivs = new Uint8Array(16 * n);
        gen.generate(ivs, 0, n);

        for (const kernel of KERNELS) {
          // essiv/eboiv on this kernel too
          const own = new Uint8Array(16 * n);
          withKernel(kernel, () =>
            newIvGenerator(c.ivMode, c.volumeKey, { sectorSize: c.sectorSize }).generate(own, 0, n),
          );
          expect(Buffer.compare(own, ivs), `${kernel}: IVs differ`).toBe(0);
          const cbc = newCipher(c.volumeKey, { kernel });
          // every payload sector, in one decryptSectors call
          const plain = new Uint8Array(payload.length);
          cbc.decryptSectors(plain, payload, c.sectorSize, ivs);
          expect(Buffer.compare(plain, c.original), `${kernel}: decryption differs`).toBe(0);
          // and the other way: encrypting the data sector by sector reproduces cryptsetup's ciphertext
          const again = new Uint8Array(payload.length);
          for (let i = 0; i < n; i++) {
            const at = i * c.sectorSize;
            cbc.encrypt(
              again.subarray(at, at + c.sectorSize),
              c.original.subarray(at, at + c.sectorSize),
              ivs.subarray(16 * i, 16 * i + 16),
            );
          }
          expect(Buffer.compare(again, payload), `${kernel}: encryption differs`).toBe(0);
          cbc.dispose();
        }

        // a window that starts mid-payload decrypts the same (IV numbering by absolute sector)
        const from = Math.floor(n / 3);
        const count = n - from;
        const window = new Uint8Array(16 * count);
        gen.generate(window, from, count);
        const part = new Uint8Array(count * c.sectorSize);
        newCipher(c.volumeKey).decryptSectors(part, payload.subarray(from * c.sectorSize), c.sectorSize, window);
        expect(Buffer.compare(part, c.original.subarray(from * c.sectorSize))).toBe(0);
      });
    }
  }
});
