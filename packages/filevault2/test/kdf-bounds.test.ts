// Every PBKDF2 a FileVault 2 header asks for goes through @x/disk-format's KDF limits (maxIterations)
// before any work is done, on every path: openFileVault2 with a passphrase, deriveFileVault2VolumeKey (a
// header the caller holds), and the DiskFormat's open (x-disk, the web page), for every crypto user of the
// plist (there is no other secret: a personal recovery key is one more passphrase user). The derivations
// are counted through a logging src/kdf.js (kdf-work.ts), never timed.
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { crc32cWeak } from '../src/crc32c.js';
import { MAX_CRYPTO_USERS } from '../src/header.js';
import {
  type ByteSource,
  deriveFileVault2VolumeKey,
  type FileVault2Header,
  fileVault2Format,
  HeaderError,
  openFileVault2,
  readFileVault2Header,
  toSource,
  WrongPassphraseError,
} from '../src/index.js';
import {
  editXml,
  FACTS,
  HEADER_BYTES,
  imagePrefix,
  passphraseWrappedKek,
  rewrapKek,
  rewriteEncryptedBlock,
  toHex,
} from './helpers.js';
import { derivations, resetDerivations } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

const DEFAULT_MAX = 2 ** 26;
const U32 = 0xffffffff;
const pass = FACTS.passphrase;
const CHEAP = 1000;

let head: Uint8Array;
let original: Buffer; // the fixture's PassphraseWrappedKEKStruct
let cheap: Buffer; // the same user re-wrapped for 1000 iterations of the same passphrase

beforeAll(() => {
  head = imagePrefix(HEADER_BYTES);
  // encrypted metadata block 1 is the 0x0019 block: its XML read, nothing changed
  rewriteEncryptedBlock(
    head,
    1,
    (b) =>
      editXml(b, (xml) => {
        original = passphraseWrappedKek(xml).struct;
        return xml;
      }),
    crc32cWeak,
  );
  cheap = rewrapKek(original, pass, CHEAP);
});

beforeEach(() => resetDerivations());

/** The struct with another iteration count (its KEK wrapped as before: never derived in these tests). */
function costing(iterations: number): Buffer {
  const s = Buffer.from(original);
  s.writeUInt32LE(iterations, 168);
  return s;
}

/**
 * The fixture with crypto users whose PassphraseWrappedKEKStructs are `users`: the first in place of the
 * fixture's own user, the others added after it (with the same KeyEncryptingKeyIdent); then `repeats`
 * references to the first user's dict.
 */
function withUsers(users: Buffer[], repeats = 0): ByteSource {
  const bytes = rewriteEncryptedBlock(
    head,
    1,
    (b) =>
      editXml(b, (xml) => {
        xml = passphraseWrappedKek(xml).put(users[0]);
        const more =
          users
            .slice(1)
            .map(
              (s) =>
                `<dict><key>PassphraseWrappedKEKStruct</key><data>${s.toString('base64')}</data><key>KeyEncryptingKeyIdent</key><reference IDREF="9"/></dict>`,
            )
            .join('') + '<reference IDREF="3"/>'.repeat(repeats);
        return xml.replace('</dict></array><key>LastUpdateTime', `</dict>${more}</array><key>LastUpdateTime`);
      }),
    crc32cWeak,
  );
  // the logical volume is past the 9 MiB: a source as long as the image (a passphrase opens without reading it)
  const s = toSource(bytes);
  return {
    size: 536829952,
    read: async (o, d) => {
      d.fill(0);
      if (o < bytes.length) await s.read(o, d.subarray(0, Math.min(d.length, bytes.length - o)));
    },
  };
}

const notTried = (i: number, n: number, max = DEFAULT_MAX) =>
  `crypto user ${i}.pbkdf2.iterations ${n} is above maxIterations, ${max} (raise options.maxIterations to try it)`;

async function outcome(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      (v as { close?: () => void })?.close?.();
      (v as { volume?: { close: () => void } })?.volume?.close();
      return 'opened';
    },
    (e: unknown) => e,
  );
}

describe('PBKDF2 bounded before any work, on every path', () => {
  it('the re-wrapped user opens with the passphrase at 1000 iterations, one derivation', async () => {
    const src = withUsers([cheap]);
    const h = await readFileVault2Header(src);
    expect(h.cryptoUsers.map((u) => u.pbkdf2.iterations)).toEqual([CHEAP]);
    const key = await deriveFileVault2VolumeKey(h, pass);
    expect(toHex(key)).toBe(FACTS.volumeKey);
    expect(derivations).toEqual([CHEAP]);
  });

  it('a user above the bound is passed over before the first derivation, wherever it is in the list', async () => {
    for (const users of [
      [costing(U32), cheap],
      [cheap, costing(U32)],
      [costing(DEFAULT_MAX + 1), costing(U32), cheap],
    ]) {
      resetDerivations();
      expect(await outcome(openFileVault2(withUsers(users), { passphrase: pass }))).toBe('opened');
      expect(derivations).toEqual([CHEAP]);
    }
  });

  it('a wrong passphrase derives for the users within the bound only, and names the others', async () => {
    const e = await outcome(openFileVault2(withUsers([cheap, costing(U32)]), { passphrase: 'heslo124' }));
    expect(e).toEqual(
      new WrongPassphraseError(
        `@x/filevault2: the passphrase opens no crypto user of the volume (tried 1; not tried: ${notTried(1, U32)})`,
      ),
    );
    expect(e).toBeInstanceOf(WrongPassphraseError);
    expect(derivations).toEqual([CHEAP]);
  });

  it('no user within the bound: a HeaderError naming the bound, and no derivation, on every path', async () => {
    const src = withUsers([costing(U32), costing(DEFAULT_MAX + 1)]);
    const message = `@x/filevault2: ${notTried(0, U32)}`;
    const h = await readFileVault2Header(src);
    const secret = { kind: 'passphrase' as const, bytes: new TextEncoder().encode(pass) };
    for (const p of [
      openFileVault2(src, { passphrase: pass }),
      deriveFileVault2VolumeKey(h, pass),
      fileVault2Format.open(src, secret),
      fileVault2Format.open(src, secret, { kernel: undefined, share: true }),
    ]) {
      const e = await outcome(p);
      expect(e).toBeInstanceOf(HeaderError);
      expect((e as Error).message).toBe(message);
    }
    expect(derivations).toEqual([]);
  });

  it('options.maxIterations moves the bound, both ways', async () => {
    const src = withUsers([cheap]);
    const low = await outcome(openFileVault2(src, { passphrase: pass, maxIterations: CHEAP - 1 }));
    expect(low).toEqual(new HeaderError(`@x/filevault2: ${notTried(0, CHEAP, CHEAP - 1)}`));
    const h = await readFileVault2Header(src);
    const low2 = await outcome(deriveFileVault2VolumeKey(h, pass, { maxIterations: CHEAP - 1 }));
    expect(low2).toEqual(new HeaderError(`@x/filevault2: ${notTried(0, CHEAP, CHEAP - 1)}`));
    expect(derivations).toEqual([]);
    expect(await outcome(openFileVault2(src, { passphrase: pass, maxIterations: CHEAP }))).toBe('opened');
    expect(derivations).toEqual([CHEAP]);
    // raising it lets a header's larger count through (2^26 + 1 refused by default; its KEK is not this
    // passphrase's at that count, so the try ends as a wrong passphrase after one derivation)
    resetDerivations();
    const raised = await outcome(
      openFileVault2(withUsers([costing(2 ** 17)]), { passphrase: pass, maxIterations: 2 ** 17 }),
    );
    expect(raised).toBeInstanceOf(WrongPassphraseError);
    expect(derivations).toEqual([2 ** 17]);
  });

  it('iterations a header cannot hold (a header object the caller made) are refused before any work', async () => {
    const h = await readFileVault2Header(withUsers([cheap]));
    for (const n of [0, -1, 1.5, Number.NaN, 2 ** 32, 2 ** 53]) {
      const user = { ...h.cryptoUsers[0], pbkdf2: { ...h.cryptoUsers[0].pbkdf2, iterations: n } };
      const forged: FileVault2Header = { ...h, cryptoUsers: [user] };
      const e = await outcome(deriveFileVault2VolumeKey(forged, pass, { maxIterations: 2 ** 40 }));
      expect(e, String(n)).toBeInstanceOf(HeaderError);
      expect((e as Error).message).toMatch(/^@x\/filevault2: crypto user 0\.pbkdf2\.iterations /);
    }
    const many: FileVault2Header = { ...h, cryptoUsers: Array(MAX_CRYPTO_USERS + 1).fill(h.cryptoUsers[0]) };
    await expect(deriveFileVault2VolumeKey(many, pass)).rejects.toThrow(
      new HeaderError(
        `@x/filevault2: the header lists ${MAX_CRYPTO_USERS + 1} crypto users; at most ${MAX_CRYPTO_USERS} are tried`,
      ),
    );
    expect(derivations).toEqual([]);
    // a 0 in the image itself is refused when the header is read
    await expect(readFileVault2Header(withUsers([costing(0)]))).rejects.toThrow(
      new HeaderError('@x/filevault2: crypto user 0: PassphraseWrappedKEKStruct: 0 PBKDF2 iterations'),
    );
  });

  it(`a wrong passphrase costs at most ${MAX_CRYPTO_USERS} derivations, however the plist repeats a user`, async () => {
    const src = withUsers([cheap], MAX_CRYPTO_USERS - 1);
    const e = await outcome(openFileVault2(src, { passphrase: 'heslo124' }));
    expect(e).toBeInstanceOf(WrongPassphraseError);
    expect(derivations).toEqual(Array(MAX_CRYPTO_USERS).fill(CHEAP));
  });
});
