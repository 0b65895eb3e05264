/**
 * Writes `smoke/vectors.json`: the expected bytes of every check of the smoke suite, computed here with
 * node:crypto (OpenSSL) only, never with the @x packages, so that every runtime is checked against the
 * same independent answers. HCTR2 and Adiantum are not in OpenSSL: their vectors are the published ones
 * (Linux crypto/testmgr.h, from the authors' generators) that the packages' own tests already hold.
 *
 * Every input is derived from a fixed label, so a rerun writes the same file; `test/vectors.test.ts` checks
 * that the committed file is what this makes now. Remake it with `npm run vectors -w @x/runtimes`.
 */
import { createCipheriv, createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const at = (p: string) => path.join(repo, p);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** `n` bytes named by `label`: SHA-256 of `label:i` for i = 0, 1, …, concatenated. */
function bytes(label: string, n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; parts.length * 32 < n; i++) parts.push(createHash('sha256').update(`${label}:${i}`).digest());
  return Buffer.concat(parts).subarray(0, n);
}

/** One OpenSSL cipher call without padding. */
function openssl(name: string, key: Uint8Array, iv: Uint8Array | null, data: Uint8Array): Buffer {
  const c = createCipheriv(name, key, iv);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(data), c.final()]);
}

/** dm-crypt's plain64 IV (or XTS tweak): le64(sector), zero padded to 16 bytes. */
function plain64(sector: bigint): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64LE(sector & 0xffff_ffff_ffff_ffffn);
  return iv;
}

/** dm-crypt's essiv:sha256 IV: AES_{SHA-256(key)}(le64(sector) ‖ 0⁸). */
function essivSha256(key: Uint8Array, sector: bigint): Buffer {
  const salt = createHash('sha256').update(key).digest();
  return openssl('aes-256-ecb', salt, null, plain64(sector));
}

/** Sectors of `plain` encrypted one by one with OpenSSL, sector i under `iv(i)`. */
function sectors(name: string, key: Uint8Array, plain: Buffer, size: number, iv: (i: number) => Buffer): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i * size < plain.length; i++)
    out.push(openssl(name, key, iv(i), plain.subarray(i * size, (i + 1) * size)));
  return Buffer.concat(out);
}

interface Published {
  source: string;
  vectors: { key: string; iv: string; ptext: string; ctext: string; klen: number; len: number }[];
}

/** The first published vector with this key and message length, with the file's statement of origin. */
function published(file: string, klen: number, len: number) {
  const set = JSON.parse(readFileSync(at(file), 'utf8')) as Published;
  const v = set.vectors.find((x) => x.klen === klen && x.len === len);
  if (!v) throw new Error(`@x/runtimes: no ${klen}-byte-key, ${len}-byte vector in ${file}`);
  return { source: `${file}: ${set.source.split(';')[0]}`, key: v.key, tweak: v.iv, plain: v.ptext, cipher: v.ctext };
}

export function makeVectors() {
  const ecb128 = { key: bytes('ecb128 key', 16), plain: bytes('ecb128 plain', 64) };
  const ecb256 = { key: bytes('ecb256 key', 32), plain: bytes('ecb256 plain', 64) };
  const cbc = { key: bytes('cbc key', 24), iv: bytes('cbc iv', 16), plain: bytes('cbc plain', 1024) };

  // @x/cbc decryptSectors with @x/disk-iv's essiv:sha256, as @x/disk-iv's README example: 8 sectors of 512
  // bytes from sector 5.
  const essivKey = bytes('essiv key', 32);
  const essivPlain = bytes('essiv plain', 8 * 512);
  const essivIvs = Buffer.concat(Array.from({ length: 8 }, (_, i) => essivSha256(essivKey, BigInt(5 + i))));

  // plain64 IVs across 2^32 (where `plain` would wrap and plain64 must not).
  const plain64First = 2n ** 32n - 2n;
  const plain64Ivs = Buffer.concat(Array.from({ length: 4 }, (_, i) => plain64(plain64First + BigInt(i))));

  // @x/xts, the root README's example: aes-xts-plain64 with AES-256, 8 sectors of 512 bytes from sector 1000.
  const xtsKey = bytes('xts key', 64);
  const xtsPlain = bytes('xts plain', 8 * 512);

  // @x/ctr: a counter that wraps past 2^128 − 1, a length that is not whole blocks.
  const ctr = {
    key: bytes('ctr key', 16),
    iv: Buffer.from('fffffffffffffffffffffffffffffffe', 'hex'),
    plain: bytes('ctr plain', 1000),
  };

  const gcm = {
    key: bytes('gcm key', 32),
    nonce: bytes('gcm nonce', 12),
    aad: bytes('gcm aad', 20),
    plain: bytes('gcm plain', 100),
  };
  const g = createCipheriv('aes-256-gcm', gcm.key, gcm.nonce);
  g.setAAD(gcm.aad);
  const gcmSealed = Buffer.concat([g.update(gcm.plain), g.final(), g.getAuthTag()]);

  // @x/dm-crypt aes-xts-plain64 (AES-128) with 4096-byte sectors: sector n has IV sector 8n (dm-crypt counts 512-byte units).
  const dmKey = bytes('dm-crypt key', 32);
  const dmPlain = bytes('dm-crypt plain', 2 * 4096);

  // The sample LUKS2 volume (packages/luks/test/fixtures/README.md): its payload is sample.txt, then zeros to 64 KiB.
  const image = readFileSync(at('packages/luks/test/fixtures/sample-luks2.img'));
  const payload = Buffer.alloc(65536);
  readFileSync(at('packages/luks/test/fixtures/sample.txt')).copy(payload);

  // createLuks with a given volume key: its payload area is aes-xts-plain64 of the plaintext, 512-byte sectors.
  const createKey = bytes('createLuks volume key', 64);
  const createPlain = bytes('createLuks plain', 4 * 512);

  return {
    about:
      'Expected results of tools/runtimes/smoke/suite.mjs, written by tools/runtimes/src/make-vectors.ts with node:crypto (Node 20, OpenSSL); HCTR2 and Adiantum from published vectors',
    ecb128: {
      key: hex(ecb128.key),
      plain: hex(ecb128.plain),
      cipher: hex(openssl('aes-128-ecb', ecb128.key, null, ecb128.plain)),
    },
    ecb256: {
      key: hex(ecb256.key),
      plain: hex(ecb256.plain),
      cipher: hex(openssl('aes-256-ecb', ecb256.key, null, ecb256.plain)),
    },
    cbc: {
      key: hex(cbc.key),
      iv: hex(cbc.iv),
      plain: hex(cbc.plain),
      cipher: hex(openssl('aes-192-cbc', cbc.key, cbc.iv, cbc.plain)),
    },
    cbcEssivSectors: {
      key: hex(essivKey),
      firstSector: 5,
      sectorSize: 512,
      ivs: hex(essivIvs),
      plain: hex(essivPlain),
      cipher: hex(sectors('aes-256-cbc', essivKey, essivPlain, 512, (i) => essivIvs.subarray(16 * i, 16 * i + 16))),
    },
    plain64: { key: hex(essivKey), firstSector: plain64First.toString(), ivs: hex(plain64Ivs) },
    xts: {
      key: hex(xtsKey),
      firstSector: 1000,
      sectorSize: 512,
      plain: hex(xtsPlain),
      cipher: hex(sectors('aes-256-xts', xtsKey, xtsPlain, 512, (i) => plain64(BigInt(1000 + i)))),
    },
    ctr: {
      key: hex(ctr.key),
      iv: hex(ctr.iv),
      plain: hex(ctr.plain),
      cipher: hex(openssl('aes-128-ctr', ctr.key, ctr.iv, ctr.plain)),
    },
    gcm: { key: hex(gcm.key), nonce: hex(gcm.nonce), aad: hex(gcm.aad), plain: hex(gcm.plain), sealed: hex(gcmSealed) },
    hctr2: published('packages/hctr2/test/vectors/linux_testmgr_hctr2_aes.json', 32, 255),
    adiantum: published('packages/adiantum/test/vectors/linux_testmgr_adiantum_xchacha12_aes.json', 32, 1536),
    dmCryptXts4096: {
      spec: 'aes-xts-plain64',
      key: hex(dmKey),
      firstSector: 3,
      sectorSize: 4096,
      plain: hex(dmPlain),
      cipher: hex(sectors('aes-128-xts', dmKey, dmPlain, 4096, (i) => plain64(BigInt(8 * (3 + i))))),
    },
    sampleLuks2: {
      image: 'packages/luks/test/fixtures/sample-luks2.img',
      imageSha256: createHash('sha256').update(image).digest('hex'),
      passphrase: readFileSync(at('packages/luks/test/fixtures/sample.passphrase'), 'utf8'),
      cipher: 'aes-xts-plain64',
      sectorSize: 4096,
      payloadOffset: 524288,
      payloadSize: payload.length,
      payloadSha256: createHash('sha256').update(payload).digest('hex'),
    },
    createLuks: {
      volumeKey: hex(createKey),
      plain: hex(createPlain),
      payloadCipher: hex(sectors('aes-256-xts', createKey, createPlain, 512, (i) => plain64(BigInt(i)))),
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = at('tools/runtimes/smoke/vectors.json');
  writeFileSync(file, `${JSON.stringify(makeVectors(), null, 2)}\n`);
  console.log(`wrote ${path.relative(repo, file)}`);
}
