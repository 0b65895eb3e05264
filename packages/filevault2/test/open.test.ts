// openFileVault2 on the fixture: the passphrase (one PBKDF2 that succeeds, one with a wrong passphrase,
// one through a damaged wrapped volume key), wrong volume keys, a truncated image, the input rules of
// openFileVault2, deriveFileVault2VolumeKey and read().
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32cWeak } from '../src/crc32c.js';
import {
  type ByteSource,
  deriveFileVault2VolumeKey,
  FileVault2Error,
  HeaderError,
  openFileVault2,
  readFileVault2Header,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '../src/index.js';
import { openFileSource } from '../src/file.js';
import {
  FACTS,
  fixtureImage,
  HEADER_BYTES,
  imagePrefix,
  replaceText,
  rewriteEncryptedBlock,
  toHex,
} from './helpers.js';

const KEY = new Uint8Array(Buffer.from(FACTS.volumeKey, 'hex'));
const LV_END = FACTS.logicalVolumeOffset + FACTS.logicalVolumeSize;

let file: ByteSource & { close(): Promise<void> };

beforeAll(async () => {
  file = await openFileSource(fixtureImage());
});

afterAll(async () => {
  await file?.close();
});

/** A source over the file whose first `HEADER_BYTES` come from `head` (rewritten metadata), the rest from the file. */
function withHead(head: Uint8Array): ByteSource {
  return {
    size: file.size,
    async read(offset, dst) {
      await file.read(offset, dst);
      if (offset < head.length) dst.set(head.subarray(offset, Math.min(head.length, offset + dst.length)));
    },
  };
}

describe('openFileVault2 with a passphrase', () => {
  it('opens, and reads what the volume key reads', async () => {
    const v = await openFileVault2(file, { passphrase: FACTS.passphrase });
    const k = await openFileVault2(file, { volumeKey: KEY });
    try {
      const a = new Uint8Array(512 * 64),
        b = new Uint8Array(512 * 64);
      for (const s of [0, 1, 12345, FACTS.logicalVolumeSize / 512 - 64]) {
        await v.read(a, s);
        await k.read(b, s);
        expect(toHex(a)).toBe(toHex(b));
      }
      await v.read(a.subarray(0, 4096), 0);
      expect(String.fromCharCode(a[1024], a[1025])).toBe('H+');
    } finally {
      v.close();
      k.close();
    }
  });

  it('a wrong passphrase is WrongPassphraseError (the RFC 3394 check of the wrapped KEK fails)', async () => {
    await expect(openFileVault2(file, { passphrase: new TextEncoder().encode('heslo124') })).rejects.toThrow(
      new WrongPassphraseError('@x/filevault2: the passphrase opens no crypto user of the volume (tried 1)'),
    );
  });

  it('a crypto user whose PBKDF2 is above maxIterations is not tried: a HeaderError that names the bound', async () => {
    const h = await readFileVault2Header(file);
    const n = h.cryptoUsers[0].pbkdf2.iterations; // 204,222 on the fixture
    const message = `@x/filevault2: crypto user ${h.cryptoUsers[0].index}.pbkdf2.iterations ${n} is above maxIterations, ${n - 1} (raise options.maxIterations to try it)`;
    await expect(openFileVault2(file, { passphrase: FACTS.passphrase, maxIterations: n - 1 })).rejects.toThrow(
      new HeaderError(message),
    );
    await expect(deriveFileVault2VolumeKey(h, FACTS.passphrase, { maxIterations: n - 1 })).rejects.toThrow(
      new HeaderError(message),
    );
    const key = await deriveFileVault2VolumeKey(h, FACTS.passphrase, { maxIterations: n });
    expect(toHex(key)).toBe(FACTS.volumeKey);
    key.fill(0);
    await expect(openFileVault2(file, { volumeKey: KEY, maxIterations: 0 })).rejects.toThrow(
      new RangeError('@x/filevault2: options.maxIterations must be a positive whole number, got 0'),
    );
  });

  it('a damaged wrapped volume key (valid checksums) is a HeaderError once the passphrase opened the KEK', async () => {
    const head = imagePrefix(HEADER_BYTES);
    // a base64 character inside the wrapped key of the KEKWrappedVolumeKeyStruct ("AgAAABgAAACrnwEZ…")
    const bad = rewriteEncryptedBlock(
      head,
      1,
      (b) => replaceText(b, 'AgAAABgAAACrnwEZ', 'AgAAABgAAACrnwEa'),
      crc32cWeak,
    );
    await expect(openFileVault2(withHead(bad), { passphrase: FACTS.passphrase })).rejects.toThrow(
      new HeaderError(
        '@x/filevault2: the passphrase opens crypto user 0, but its key-encrypting key unwraps no AES-XTS volume key (damaged metadata)',
      ),
    );
  });
});

describe('openFileVault2 with a volume key', () => {
  it('refuses a key of the wrong length', async () => {
    await expect(openFileVault2(file, { volumeKey: KEY.subarray(0, 16) })).rejects.toThrow(
      new WrongVolumeKeyError('@x/filevault2: the volume key must be 32 bytes, got 16'),
    );
  });

  it('refuses a key whose tweak half is not derived from its first half', async () => {
    const tweakBit = Uint8Array.from(KEY);
    tweakBit[20] ^= 1;
    const dataBit = Uint8Array.from(KEY);
    dataBit[3] ^= 1;
    for (const k of [new Uint8Array(randomBytes(32)), tweakBit, dataBit]) {
      await expect(openFileVault2(file, { volumeKey: k })).rejects.toThrow(
        new WrongVolumeKeyError(
          "@x/filevault2: the volume key's second half is not the tweak key of its first half for this volume's family UUID",
        ),
      );
    }
  });

  it('refuses a well-formed key that does not decrypt the volume to a known file system', async () => {
    // key1 of another volume, key2 derived from it as Core Storage does: only the file system check is left
    const key1 = randomBytes(16);
    const key2 = createHash('sha256')
      .update(key1)
      .update(Buffer.from(FACTS.familyUuid.replace(/-/g, ''), 'hex'))
      .digest()
      .subarray(0, 16);
    await expect(openFileVault2(file, { volumeKey: new Uint8Array(Buffer.concat([key1, key2])) })).rejects.toThrow(
      new WrongVolumeKeyError(
        '@x/filevault2: the volume key does not decrypt the logical volume to a known file system (no HFS+/HFSX header at 1024, no APFS superblock at 0)',
      ),
    );
  });

  it('and so refuses the right key on a logical volume whose first block is not HFS+ or APFS (the documented limit)', async () => {
    const scrambled: ByteSource = {
      size: file.size,
      async read(offset, dst) {
        await file.read(offset, dst);
        const hfs = FACTS.logicalVolumeOffset + 1024;
        if (offset <= hfs && hfs < offset + dst.length) dst[hfs - offset] ^= 1; // one ciphertext bit of the HFS+ header's sector
      },
    };
    await expect(openFileVault2(scrambled, { volumeKey: KEY })).rejects.toThrow(WrongVolumeKeyError);
  });
});

describe('openFileVault2: the image', () => {
  it('a truncated image is a HeaderError that says so, before any PBKDF2', async () => {
    for (const size of [LV_END - 512, FACTS.logicalVolumeOffset + 4096, FACTS.logicalVolumeOffset]) {
      const short: ByteSource = { size, read: (o, d) => file.read(o, d) };
      await expect(openFileVault2(short, { passphrase: 'not even tried' })).rejects.toThrow(
        new HeaderError(
          `@x/filevault2: the image is truncated: the logical volume (${FACTS.logicalVolumeSize} bytes at ${FACTS.logicalVolumeOffset}) ends past the end of the image (${size} bytes)`,
        ),
      );
    }
    await expect(openFileVault2(imagePrefix(600), { volumeKey: KEY })).rejects.toThrow(HeaderError);
  });

  it('a source that fails is reported as it failed', async () => {
    const failing: ByteSource = {
      size: file.size,
      async read() {
        throw new Error('EIO');
      },
    };
    await expect(openFileVault2(failing, { volumeKey: KEY })).rejects.toThrow('EIO');
  });
});

describe('input rules', () => {
  it('openFileVault2 refuses bad options with TypeError/RangeError, before reading', async () => {
    const o = (x: unknown) => openFileVault2(file, x as Parameters<typeof openFileVault2>[1]);
    await expect(o(undefined)).rejects.toThrow(new TypeError('@x/filevault2: options must be an object'));
    await expect(o({})).rejects.toThrow(
      new TypeError('@x/filevault2: give either options.passphrase or options.volumeKey'),
    );
    await expect(o({ passphrase: 'a', volumeKey: KEY })).rejects.toThrow(TypeError);
    await expect(o({ volumeKey: Array.from(KEY) })).rejects.toThrow(
      new TypeError('@x/filevault2: volumeKey must be a Uint8Array'),
    );
    await expect(o({ passphrase: 42 })).rejects.toThrow(
      new TypeError('@x/filevault2: passphrase must be a string or a Uint8Array'),
    );
    await expect(o({ volumeKey: KEY, kernel: 7 })).rejects.toThrow(
      new TypeError('@x/filevault2: kernel must be a string'),
    );
    await expect(o({ volumeKey: KEY, kernel: 'no-such-kernel' })).rejects.toThrow(
      /^@x\/filevault2: kernel "no-such-kernel" is not available here \(/,
    );
    await expect(openFileVault2('disk.img' as unknown as Uint8Array, { volumeKey: KEY })).rejects.toThrow(TypeError);
  });

  it('deriveFileVault2VolumeKey refuses bad arguments', async () => {
    const h = await readFileVault2Header(file);
    await expect(deriveFileVault2VolumeKey({} as typeof h, 'x')).rejects.toThrow(
      new TypeError('@x/filevault2: header must be a FileVault2Header'),
    );
    await expect(deriveFileVault2VolumeKey(h, 5 as unknown as string)).rejects.toThrow(TypeError);
    await expect(deriveFileVault2VolumeKey(h, 'x', { kernel: 'nope' })).rejects.toThrow(RangeError);
  });

  it('read() takes whole sectors inside the volume, writes nothing on bad arguments, throws once closed', async () => {
    const v = await openFileVault2(file, { volumeKey: KEY });
    const last = FACTS.logicalVolumeSize / 512 - 1;
    const dst = new Uint8Array(1024).fill(7);
    await expect(v.read([] as unknown as Uint8Array, 0)).rejects.toThrow(
      new TypeError('@x/filevault2: dst must be a Uint8Array'),
    );
    await expect(v.read(dst.subarray(0, 100), 0)).rejects.toThrow(
      new RangeError('@x/filevault2: dst is not a whole number of 512-byte sectors (100 bytes)'),
    );
    for (const s of [-1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(v.read(dst, s)).rejects.toThrow(
        new RangeError(`@x/filevault2: firstSector ${s} is not a non-negative integer`),
      );
    }
    await expect(v.read(dst, last)).rejects.toThrow(
      new RangeError(`@x/filevault2: sectors ${last} … past the logical volume (${last + 1} sectors)`),
    );
    expect(dst.every((x) => x === 7)).toBe(true);
    await v.read(dst.subarray(0, 512), last);
    await v.read(new Uint8Array(0), last + 1);
    v.close();
    v.close();
    await expect(v.read(dst, 0)).rejects.toThrow(new FileVault2Error('@x/filevault2: the volume is closed'));
  });

  it('read() zeroes dst when the source fails, and when the volume is closed during the read', async () => {
    let fail = false;
    let onRead: (() => void) | undefined;
    const flaky: ByteSource = {
      size: file.size,
      async read(offset, dst) {
        await file.read(offset, dst);
        onRead?.();
        if (fail) throw new Error('EIO');
      },
    };
    const v = await openFileVault2(flaky, { volumeKey: KEY });
    const dst = new Uint8Array(4096);
    fail = true;
    await expect(v.read(dst, 100)).rejects.toThrow('EIO');
    expect(dst.every((x) => x === 0)).toBe(true);
    fail = false;
    onRead = () => v.close();
    await expect(v.read(dst, 100)).rejects.toThrow(
      new FileVault2Error('@x/filevault2: the volume was closed during a read'),
    );
    expect(dst.every((x) => x === 0)).toBe(true);
  });
});
