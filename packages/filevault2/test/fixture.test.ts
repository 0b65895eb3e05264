// cryptsetup's FileVault 2 test image (tests/fvault2-images.tar.xz, passphrase "heslo123"): every fact
// cryptsetup's tests/fvault2-compat-test checks — the dump fields, the blkid UUID and the SHA-256 of the
// mapped device — and the volume key `cryptsetup fvault2Dump --dump-volume-key` prints, through a bytes
// source, a Blob and a file source; the whole logical volume on every AES kernel. PBKDF2 (204 222
// iterations) runs once in this file; the kernels then open with the volume key.
import { execFile } from 'node:child_process';
import { createDecipheriv, createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptsetupStatus, describeWithCryptsetup } from '@x/containers';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import {
  type ByteSource,
  deriveFileVault2VolumeKey,
  describeFileVault2,
  type FileVault2Header,
  type FileVault2Volume,
  fileVault2ToJson,
  isFileVault2,
  openFileVault2,
  readFileVault2Header,
} from '../src/index.js';
import { openFileSource } from '../src/file.js';
import { FACTS, fixtureImage, hfsPlusUuid, imagePrefix, nodeMetadata, toHex } from './helpers.js';

const LV_END = FACTS.logicalVolumeOffset + FACTS.logicalVolumeSize;

let path: string;
let file: ByteSource & { close(): Promise<void> };
let blob: Blob;
let bytes: Uint8Array; // the image up to the end of the logical volume (all that follows is zeros)
let volumeKey: Uint8Array;

beforeAll(async () => {
  path = fixtureImage();
  file = await openFileSource(path);
  blob = await openAsBlob(path);
  bytes = imagePrefix(LV_END);
  volumeKey = await deriveFileVault2VolumeKey(await readFileVault2Header(file), FACTS.passphrase);
});

afterAll(async () => {
  await file?.close();
});

const SOURCES = ['bytes', 'Blob', 'file source'] as const;
const inputOf = (s: (typeof SOURCES)[number]) => (s === 'bytes' ? bytes : s === 'Blob' ? blob : file);

/** SHA-256 of the whole logical volume, read in 4 MiB pieces. */
async function sha256Of(v: FileVault2Volume): Promise<string> {
  const hash = createHash('sha256');
  const buf = new Uint8Array(4 << 20);
  for (let s = 0; s * 512 < v.payloadSize; s += buf.length / 512) {
    const piece = buf.subarray(0, Math.min(buf.length, v.payloadSize - s * 512));
    await v.read(piece, s);
    hash.update(piece);
  }
  return hash.digest('hex');
}

function checkFacts(h: FileVault2Header): void {
  expect(h.physicalVolumeUuid).toBe(FACTS.physicalVolumeUuid);
  expect(h.familyUuid).toBe(FACTS.familyUuid);
  expect(h.logicalVolumeOffset).toBe(FACTS.logicalVolumeOffset);
  expect(h.logicalVolumeSize).toBe(FACTS.logicalVolumeSize);
  expect(h.pbkdf2.iterations).toBe(FACTS.pbkdf2Iterations);
  expect(toHex(h.pbkdf2.salt)).toBe(FACTS.pbkdf2Salt);
  expect(h.pbkdf2.hash).toBe('sha256');
  expect(h.cipher).toBe('aes-xts-plain64');
  expect(h.keySize).toBe(16);
  expect(h.blockSize).toBe(4096);
  expect(h.checksum).toBe('crc32c');
  expect(h.cryptoUsers).toHaveLength(1);
  expect(h.wrappedVolumeKeys.map((k) => k.blockAlgorithm)).toEqual(['AES-XTS']);
}

describe('the header', () => {
  for (const s of SOURCES) {
    it(`every fact cryptsetup shows, read from a ${s}`, async () => {
      checkFacts(await readFileVault2Header(inputOf(s)));
    });
  }

  it('the logical volume and group UUIDs, as a reading with node:crypto finds them', async () => {
    const h = await readFileVault2Header(bytes);
    const other = nodeMetadata(bytes);
    expect(h.logicalVolumeUuid).toBe(other.logicalVolumeUuid);
    expect(h.groupUuid).toBe(other.groupUuid);
    expect(other.xml).toContain(`<string ID="2">${FACTS.familyUuid.toUpperCase()}</string>`);
    expect(h.physicalVolumeSize).toBe(536829952); // the image's size: the header describes the whole image
    expect(file.size).toBe(h.physicalVolumeSize);
  });

  it('isFileVault2 on the first 512 bytes: the "CS" signature', () => {
    expect(isFileVault2(bytes.subarray(0, 512))).toBe(true);
    expect(isFileVault2(bytes.subarray(0, 4096))).toBe(true);
    expect(isFileVault2(bytes.subarray(0, 511))).toBe(false);
    // a damaged header is still one: readFileVault2Header says what is wrong with it (header.test.ts)
    const damaged = Uint8Array.from(bytes.subarray(0, 512));
    damaged[200] ^= 1;
    expect(isFileVault2(damaged)).toBe(true);
    damaged[88] ^= 1;
    expect(isFileVault2(damaged)).toBe(false);
    expect(isFileVault2(new Uint8Array(512))).toBe(false);
  });

  it('describeFileVault2 and fileVault2ToJson', async () => {
    const h = await readFileVault2Header(bytes);
    const text = describeFileVault2(h);
    expect(text).toContain(`Logical volume UUID:  \t${h.logicalVolumeUuid}`);
    expect(text).toContain('Volume key:           \t256 bits (XTS-AES-128)');
    const json = fileVault2ToJson(h) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(json.logicalVolumeOffset).toBe(FACTS.logicalVolumeOffset);
    expect(json.familyUuid).toBe(FACTS.familyUuid);
    expect((json.pbkdf2 as { salt: string }).salt).toBe(Buffer.from(FACTS.pbkdf2Salt, 'hex').toString('base64'));
    const serial = JSON.stringify(json);
    expect(serial).not.toContain('wrappedKek');
    expect(serial).not.toContain(Buffer.from(h.cryptoUsers[0].wrappedKek).toString('base64'));
  });
});

describe('the volume key', () => {
  it('is the one cryptsetup fvault2Dump --dump-volume-key prints', () => {
    expect(toHex(volumeKey)).toBe(FACTS.volumeKey);
  });
});

describe('the logical volume', () => {
  for (const kernel of testedKernels(kernels())) {
    it(`on ${kernel}: SHA-256 of the whole logical volume (file source) and the HFS+ UUID blkid reports`, async () => {
      const v = await openFileVault2(file, { volumeKey, kernel });
      try {
        expect(v.kernel).toBe(kernel);
        expect(v.cipher).toBe('aes-xts-plain64');
        expect(v.keySize).toBe(32);
        expect(v.sectorSize).toBe(512);
        expect(v.payloadOffset).toBe(FACTS.logicalVolumeOffset);
        expect(v.payloadSize).toBe(FACTS.logicalVolumeSize);
        expect(v.uuid).toBe(v.header.logicalVolumeUuid);
        checkFacts(v.header);
        const first = new Uint8Array(4096);
        await v.read(first, 0);
        expect(hfsPlusUuid(first)).toBe(FACTS.fileSystemUuid);
        expect(await sha256Of(v)).toBe(FACTS.sha256);
      } finally {
        v.close();
      }
    });
  }

  for (const s of ['bytes', 'Blob'] as const) {
    it(`SHA-256 of the whole logical volume from a ${s}`, async () => {
      const v = await openFileVault2(inputOf(s), { volumeKey });
      try {
        expect(await sha256Of(v)).toBe(FACTS.sha256);
      } finally {
        v.close();
      }
    });
  }

  it('any run of sectors equals node:crypto aes-128-xts with the sector number as the tweak', async () => {
    const v = await openFileVault2(bytes, { volumeKey });
    try {
      const sectors = FACTS.logicalVolumeSize / 512;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: sectors - 1 }), fc.integer({ min: 1, max: 24 }), async (s, n) => {
          n = Math.min(n, sectors - s);
          const got = new Uint8Array(512 * n);
          await v.read(got, s);
          for (let i = 0; i < n; i++) {
            const tweak = Buffer.alloc(16);
            tweak.writeBigUInt64LE(BigInt(s + i));
            const at = FACTS.logicalVolumeOffset + 512 * (s + i);
            const want = createDecipheriv('aes-128-xts', Buffer.from(volumeKey), tweak).update(
              bytes.subarray(at, at + 512),
            );
            expect(toHex(got.subarray(512 * i, 512 * (i + 1)))).toBe(want.toString('hex'));
          }
        }),
        { numRuns: 50 },
      );
    } finally {
      v.close();
    }
  });
});

/** Runs cryptsetup with `input` on standard input. */
function cryptsetup(args: string[], input = ''): Promise<string> {
  const bin = cryptsetupStatus().path!;
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(`cryptsetup ${args.join(' ')}: ${stderr}`, { cause: err })) : resolve(stdout),
    );
    child.stdin!.end(input);
  });
}

/** "Label:<spaces/tab>value" lines as a map, values with their trailing space cut (as fvault2-compat-test does). */
function fields(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const r = /^([A-Za-z0-9 ]+):\s*(.*?)\s*$/.exec(line);
    if (r && r[2] !== '') m.set(r[1], r[2]);
  }
  return m;
}

describeWithCryptsetup('against cryptsetup fvault2Dump', () => {
  it('every field cryptsetup fvault2Dump prints, equal in describeFileVault2', async () => {
    const theirs = fields(await cryptsetup(['fvault2Dump', path]));
    const ours = fields(describeFileVault2(await readFileVault2Header(file)));
    expect([...theirs.keys()]).toEqual([
      'Physical volume UUID',
      'Family UUID',
      'Logical volume offset',
      'Logical volume size',
      'Cipher',
      'Cipher mode',
      'PBKDF2 iterations',
      'PBKDF2 salt',
    ]);
    for (const [k, v] of theirs) expect(`${k}: ${ours.get(k)}`).toBe(`${k}: ${v}`);
    // and they are the facts of tests/fvault2-compat-test
    expect(theirs.get('Logical volume offset')).toBe(`${FACTS.logicalVolumeOffset} [bytes]`);
    expect(theirs.get('PBKDF2 salt')!.replace(/ /g, '')).toBe(FACTS.pbkdf2Salt);
  });

  it('--dump-volume-key (passphrase on standard input) prints the key deriveFileVault2VolumeKey derives', async () => {
    const out = await cryptsetup(['fvault2Dump', '--dump-volume-key', '--key-file', '-', path], FACTS.passphrase);
    const line = /^Volume key:\s*(.*)$/m.exec(out);
    expect(line).not.toBeNull();
    expect(line![1].replace(/\s+/g, '')).toBe(toHex(volumeKey));
  });
});
