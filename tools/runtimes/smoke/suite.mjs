// The smoke suite that `npm run test:runtimes` runs in every runtime (Node 20, 22, 24, Bun, Deno without
// --allow-env): the README examples, through the built packages (each package's dist/, found by its name
// in node_modules as a user's code finds it), checked against vectors.json, which node:crypto wrote
// (src/make-vectors.ts). Plain ESM with no node:crypto and no Buffer: only what every runtime has, plus
// node:fs to read the two fixture files (Deno: --allow-read for exactly those two).
//
// Prints one line per check, then `RESULT <json>` for the runner; exits 1 when a check fails.
import { readFile } from 'node:fs/promises';
import { newAdiantum } from '@x/adiantum';
import { kernels, newCipher } from '@x/cbc';
import { newCtr } from '@x/ctr';
import { newIvGenerator } from '@x/disk-iv';
import { newSectorCipher } from '@x/dm-crypt';
import { newGcm } from '@x/gcm';
import { newHctr2 } from '@x/hctr2';
import { createLuks, openLuks, WrongPassphraseError } from '@x/luks';
import { newXts } from '@x/xts';

const repo = new URL('../../../', import.meta.url);
const V = JSON.parse(await readFile(new URL('tools/runtimes/smoke/vectors.json', repo), 'utf8'));

const runtime =
  typeof globalThis.Deno !== 'undefined'
    ? `deno ${globalThis.Deno.version.deno}`
    : typeof globalThis.Bun !== 'undefined'
      ? `bun ${globalThis.Bun.version}`
      : `node ${process.versions.node}`;

const fromHex = (h) => Uint8Array.from(h.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
const toHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const sha256 = async (b) => toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', b)));

function expectHex(what, got, want) {
  const g = toHex(got);
  if (g !== want) {
    const at = [...g].findIndex((c, i) => c !== want[i]);
    throw new Error(`${what}: differs from the vector at byte ${Math.floor(at / 2)} (got ${g.length / 2} bytes)`);
  }
}

function expectEqual(what, got, want) {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}

const results = [];
async function check(name, f) {
  try {
    await f();
    results.push({ name, ok: true });
    console.log(`ok   ${name}`);
  } catch (error) {
    const message = `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`;
    results.push({ name, ok: false, error: message });
    console.log(`FAIL ${name}: ${message}`);
  }
}

// The default choice (no option, X_AES_KERNEL unset or unreadable), then every kernel this runtime has.
let defaultKernel = '?';
await check('kernels() and the default kernel', () => {
  const list = kernels();
  if (!list.includes('portable') || !list.includes('wasm-simd128')) throw new Error(`kernels() is ${list}`);
  const c = newCipher(fromHex(V.ecb128.key));
  defaultKernel = c.kernel;
  c.dispose();
  expectEqual('newCipher(key).kernel', defaultKernel, list[0]);
});

for (const kernel of kernels()) {
  const o = { kernel };
  await check(`[${kernel}] AES-128 and AES-256 ECB (@x/cbc encryptECB, decryptECB)`, () => {
    for (const v of [V.ecb128, V.ecb256]) {
      const c = newCipher(fromHex(v.key), o);
      const out = new Uint8Array(v.plain.length / 2);
      c.encryptECB(out, fromHex(v.plain));
      expectHex('encryptECB', out, v.cipher);
      c.decryptECB(out, out);
      expectHex('decryptECB', out, v.plain);
      c.dispose();
    }
  });

  await check(`[${kernel}] AES-192 CBC, one chain (@x/cbc encrypt, decrypt)`, () => {
    const v = V.cbc;
    const c = newCipher(fromHex(v.key), o);
    const out = new Uint8Array(v.plain.length / 2);
    c.encrypt(out, fromHex(v.plain), fromHex(v.iv));
    expectHex('encrypt', out, v.cipher);
    c.decrypt(out, out, fromHex(v.iv));
    expectHex('decrypt', out, v.plain);
    c.dispose();
  });

  await check(`[${kernel}] CBC decryptSectors with essiv:sha256 IVs (@x/disk-iv README)`, () => {
    const v = V.cbcEssivSectors;
    const key = fromHex(v.key);
    const n = v.plain.length / 2 / v.sectorSize;
    const ivs = new Uint8Array(16 * n);
    const gen = newIvGenerator('essiv:sha256', key, { sectorSize: v.sectorSize });
    gen.generate(ivs, v.firstSector, n);
    gen.dispose();
    expectHex('essiv:sha256 IVs', ivs, v.ivs);
    const cbc = newCipher(key, o);
    const plain = new Uint8Array(n * v.sectorSize);
    cbc.decryptSectors(plain, fromHex(v.cipher), v.sectorSize, ivs);
    expectHex('decryptSectors', plain, v.plain);
    const disk = new Uint8Array(plain.length);
    cbc.encryptSectors(disk, plain, v.sectorSize, ivs);
    expectHex('encryptSectors', disk, v.cipher);
    cbc.dispose();
  });

  await check(`[${kernel}] XTS-AES-256 decryptSectors, plain64 tweaks (root README)`, () => {
    const v = V.xts;
    const n = v.plain.length / 2 / v.sectorSize;
    const xts = newXts(fromHex(v.key), o);
    const tweaks = new Uint8Array(16 * n);
    newIvGenerator('plain64', fromHex(v.key)).generate(tweaks, v.firstSector, n);
    const plain = new Uint8Array(n * v.sectorSize);
    xts.decryptSectors(plain, fromHex(v.cipher), v.sectorSize, tweaks);
    expectHex('decryptSectors', plain, v.plain);
    xts.encryptSectors(plain, plain, v.sectorSize, tweaks);
    expectHex('encryptSectors', plain, v.cipher);
    xts.dispose();
  });

  await check(`[${kernel}] AES-128 CTR, counter wrapping past 2^128 (@x/ctr xorKeyStream)`, () => {
    const v = V.ctr;
    const out = new Uint8Array(v.plain.length / 2);
    newCtr(fromHex(v.key), o).xorKeyStream(out, fromHex(v.plain), fromHex(v.iv));
    expectHex('xorKeyStream', out, v.cipher);
  });

  await check(`[${kernel}] AES-256 GCM seal, open, a flipped tag bit refused (@x/gcm)`, () => {
    const v = V.gcm;
    const gcm = newGcm(fromHex(v.key), o);
    const sealed = new Uint8Array(v.sealed.length / 2);
    gcm.seal(sealed, fromHex(v.nonce), fromHex(v.plain), fromHex(v.aad));
    expectHex('seal', sealed, v.sealed);
    const plain = new Uint8Array(sealed.length - 16);
    gcm.open(plain, fromHex(v.nonce), sealed, fromHex(v.aad));
    expectHex('open', plain, v.plain);
    sealed[sealed.length - 1] ^= 1;
    plain.fill(0xee);
    let refused = '';
    try {
      gcm.open(plain, fromHex(v.nonce), sealed, fromHex(v.aad));
    } catch (error) {
      refused = error.message;
    }
    expectEqual('open of a bad tag', refused, '@x/gcm: authentication failed');
    if (plain.some((b) => b !== 0xee)) throw new Error('open of a bad tag wrote to dst');
  });

  await check(`[${kernel}] HCTR2 (Linux testmgr vector, @x/hctr2)`, () => {
    const v = V.hctr2;
    const out = new Uint8Array(v.plain.length / 2);
    const h = newHctr2(fromHex(v.key), o);
    h.encrypt(out, fromHex(v.plain), fromHex(v.tweak));
    expectHex('encrypt', out, v.cipher);
    h.decrypt(out, out, fromHex(v.tweak));
    expectHex('decrypt', out, v.plain);
  });
}

await check('plain64 IVs across 2^32 (@x/disk-iv, bigint sector)', () => {
  const v = V.plain64;
  const ivs = new Uint8Array(v.ivs.length / 2);
  newIvGenerator('plain64', fromHex(v.key)).generate(ivs, BigInt(v.firstSector), ivs.length / 16);
  expectHex('plain64', ivs, v.ivs);
});

await check('Adiantum-XChaCha12 (Linux testmgr vector, @x/adiantum)', () => {
  const v = V.adiantum;
  const out = new Uint8Array(v.plain.length / 2);
  const a = newAdiantum(fromHex(v.key));
  a.encrypt(out, fromHex(v.plain), fromHex(v.tweak));
  expectHex('encrypt', out, v.cipher);
  a.decrypt(out, out, fromHex(v.tweak));
  expectHex('decrypt', out, v.plain);
});

await check('dm-crypt aes-xts-plain64, 4096-byte sectors (@x/dm-crypt README)', () => {
  const v = V.dmCryptXts4096;
  const c = newSectorCipher(v.spec, fromHex(v.key), { sectorSize: v.sectorSize });
  const out = new Uint8Array(v.plain.length / 2);
  c.decrypt(out, fromHex(v.cipher), v.firstSector);
  expectHex('decrypt', out, v.plain);
  c.encrypt(out, out, BigInt(v.firstSector));
  expectHex('encrypt', out, v.cipher);
  c.dispose();
});

await check('openLuks of the sample LUKS2 image from its bytes, volume.read (root README)', async () => {
  const v = V.sampleLuks2;
  const image = new Uint8Array(await readFile(new URL(v.image, repo)));
  expectEqual('the image', await sha256(image), v.imageSha256);
  let wrong = '';
  try {
    await openLuks(image, { passphrase: `${v.passphrase}!` });
  } catch (error) {
    wrong = error instanceof WrongPassphraseError ? 'WrongPassphraseError' : String(error);
  }
  expectEqual('a wrong passphrase', wrong, 'WrongPassphraseError');
  const volume = await openLuks(image, { passphrase: v.passphrase });
  expectEqual('cipher', volume.cipher, v.cipher);
  expectEqual('sectorSize', volume.sectorSize, v.sectorSize);
  expectEqual('payloadOffset', volume.payloadOffset, v.payloadOffset);
  const buf = new Uint8Array(v.payloadSize);
  await volume.read(buf, 0);
  volume.close();
  expectEqual('SHA-256 of the payload', await sha256(buf), v.payloadSha256);
});

await check('createLuks with a given volume key, then openLuks of what it wrote', async () => {
  const v = V.createLuks;
  const chunks = [];
  const sink = { write: async (offset, bytes) => void chunks.push([offset, bytes.slice()]) };
  const plain = fromHex(v.plain);
  const header = await createLuks(plain, sink, {
    passphrase: 'smoke',
    volumeKey: fromHex(v.volumeKey),
    sectorSize: 512,
    pbkdf: 'argon2id',
    iterations: 4,
    memory: 64,
    parallelism: 1,
  });
  const size = Math.max(...chunks.map(([o, b]) => o + b.length));
  const image = new Uint8Array(size);
  for (const [o, b] of chunks) image.set(b, o);
  const payloadOffset = Number(header.segments[0].offset);
  expectHex('the payload area', image.subarray(payloadOffset, payloadOffset + plain.length), v.payloadCipher);
  const volume = await openLuks(image, { passphrase: 'smoke' });
  const back = new Uint8Array(plain.length);
  await volume.read(back, 0);
  volume.close();
  expectHex('read back', back, v.plain);
});

const failed = results.filter((r) => !r.ok).length;
console.log(`RESULT ${JSON.stringify({ runtime, kernels: kernels(), defaultKernel, results })}`);
if (failed > 0) process.exitCode = 1;
