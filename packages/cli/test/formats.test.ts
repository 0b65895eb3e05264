// x-disk's format table, in this process: detection (LUKS magic and secondary header, BitLocker's boot
// sector signatures, FileVault 2 through its package), and the BitLocker and FileVault 2 adapters run
// against stand-ins of `@x/bitlocker` and `@x/filevault2` with the APIs those packages publish: which
// option becomes which secret, exit status 2 for their WrongPassphraseError / WrongVolumeKeyError, 1 for
// their other errors, the summary line, and that x-disk loads only the package of the format it opens.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { bytesSource, readBytes, type ByteSource } from '@x/byte-source';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitlockerApi, type BitlockerSecret, bitlockerEntry, isBitlocker } from '../src/format-bitlk.js';
import { type FileVault2Api, type FileVault2Secret, fileVault2Entry } from '../src/format-fvault2.js';
import { isLuks, luksEntry } from '../src/format-luks.js';
import { type Format, pickFormat } from '../src/formats.js';
import { main } from '../src/x-disk-main.js';
import { luksFixture, sameBytes } from './helpers.js';

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const TO_GO_GUID = [0x3b, 0xd6, 0x67, 0x49, 0x29, 0x2e, 0xd8, 0x4a, 0x83, 0x99, 0xf6, 0xa3, 0x39, 0xe3, 0xd0, 0x01];

/** A 64 KiB image whose boot sector says `oem` at byte 3, with the To Go GUID at 424 if asked, byte 11 a flag. */
function image(oem: string, opts: { toGo?: boolean; clearKey?: boolean; coreStorage?: boolean } = {}): Uint8Array {
  const b = new Uint8Array(64 * 1024);
  for (let i = 512; i < b.length; i++) b[i] = (i * 31 + (i >> 9)) & 0xff;
  b.set(ascii(oem), 3);
  if (opts.toGo) b.set(TO_GO_GUID, 424);
  b[11] = opts.clearKey ? 1 : 0;
  if (opts.coreStorage) b.set(ascii('CS'), 88);
  return b;
}

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

/** What the stand-ins' volumes give back: the image, every byte XORed with 0x5a. */
const plaintextOf = (img: Uint8Array) => img.map((x) => x ^ 0x5a);

function standInVolume(src: ByteSource, extra: { cipher: string; protector: string }) {
  return {
    sectorSize: 512,
    payloadSize: src.size,
    kernel: 'stand-in',
    ...extra,
    async read(dst: Uint8Array, firstSector: number) {
      await src.read(firstSector * 512, dst);
      for (let i = 0; i < dst.length; i++) dst[i] ^= 0x5a;
    },
    close() {},
  };
}

const RECOVERY = '111111-222222-333333-444444-555555-666666-777777-888888';
const FVEK = new Uint8Array(64).fill(7);

/** A stand-in of `@x/bitlocker` (its published API), recording the secrets it is given. */
function standInBitlocker(seen: BitlockerSecret[]): BitlockerApi<{ oem: string; size: number }> {
  return {
    async readBitlockerHeader(src) {
      const b = await readBytes(src, 0, 512);
      if (!isBitlocker(b)) throw named('HeaderError', '@x/bitlocker: not a BitLocker volume');
      return { oem: new TextDecoder().decode(b.subarray(3, 11)), size: src.size };
    },
    describeBitlocker: (h) => `BitLocker stand-in: ${h.oem}, ${h.size} bytes`,
    bitlockerToJson: (h) => ({ oem: h.oem, size: h.size }),
    async openBitlocker(src, secret = {}) {
      seen.push(
        Object.fromEntries(
          Object.entries(secret).map(([k, v]) => [k, v instanceof Uint8Array ? Uint8Array.from(v) : v]),
        ),
      );
      let protector: string;
      if (secret.recoveryPassword !== undefined) {
        if (secret.recoveryPassword !== RECOVERY)
          throw named('WrongPassphraseError', '@x/bitlocker: wrong recovery password');
        protector = 'recovery password';
      } else if (secret.startupKey !== undefined) {
        if (!sameBytes(secret.startupKey.subarray(0, 3), ascii('BEK')))
          throw named('BitlockerError', '@x/bitlocker: not a startup key (.BEK) file');
        if (secret.startupKey[3] !== 0x42)
          throw named('WrongPassphraseError', '@x/bitlocker: the startup key does not open this volume');
        protector = 'startup key';
      } else if (secret.fvek !== undefined) {
        if (!sameBytes(secret.fvek, FVEK))
          throw named('WrongVolumeKeyError', '@x/bitlocker: the FVEK does not decrypt the boot sector');
        protector = 'FVEK';
      } else if (secret.passphrase !== undefined) {
        if (new TextDecoder().decode(secret.passphrase as Uint8Array) !== 'anaconda')
          throw named('WrongPassphraseError', '@x/bitlocker: wrong password');
        protector = 'password';
      } else {
        if ((await readBytes(src, 11, 1))[0] !== 1)
          throw named('BitlockerError', '@x/bitlocker: the volume has no clear key');
        protector = 'clear key';
      }
      return standInVolume(src, { cipher: 'aes-xts-plain64', protector });
    },
  };
}

/** A stand-in of `@x/filevault2`: "CS" at byte 88 marks it; passphrase `open sesame` or the volume key FVEK. */
function standInFileVault2(seen: FileVault2Secret[]): FileVault2Api<{ size: number }> {
  return {
    isFileVault2: (first) => first[88] === 0x43 && first[89] === 0x53,
    readFileVault2Header: async (src) => ({ size: src.size }),
    describeFileVault2: (h) => `FileVault 2 stand-in: ${h.size} bytes`,
    fileVault2ToJson: (h) => h,
    async openFileVault2(src, secret) {
      seen.push({ ...secret });
      if (secret.volumeKey && !sameBytes(secret.volumeKey, FVEK))
        throw named('WrongVolumeKeyError', '@x/filevault2: wrong volume key');
      if (secret.passphrase && new TextDecoder().decode(secret.passphrase as Uint8Array) !== 'open sesame')
        throw named('WrongPassphraseError', '@x/filevault2: wrong passphrase');
      return standInVolume(src, { cipher: 'aes-xts-plain64', protector: '' });
    },
  };
}

/** Streams in memory for `main`. */
function memoryIo(stdin = '') {
  const out: Buffer[] = [];
  let err = '';
  return {
    io: {
      stdin: Readable.from([Buffer.from(stdin)]),
      stdout: new Writable({
        write(c, _e, cb) {
          out.push(Buffer.from(c));
          cb();
        },
      }),
      stderr: new Writable({
        write(c, _e, cb) {
          err += c.toString();
          cb();
        },
      }),
    },
    stdout: () => Buffer.concat(out),
    stderr: () => err,
  };
}

describe('detection', () => {
  it('BitLocker: -FVE-FS-, or MSWIN4.1 with the To Go GUID; not a plain FAT32 or NTFS boot sector', () => {
    expect(isBitlocker(image('-FVE-FS-'))).toBe(true);
    expect(isBitlocker(image('MSWIN4.1', { toGo: true }))).toBe(true);
    expect(isBitlocker(image('MSWIN4.1'))).toBe(false);
    expect(isBitlocker(image('NTFS    '))).toBe(false);
    expect(isBitlocker(image('-FVE-FS-').subarray(0, 10))).toBe(false); // too short for the signature
    expect(isBitlocker(image('MSWIN4.1', { toGo: true }).subarray(0, 430))).toBe(false);
  });

  it('LUKS: the magic at 0, or a LUKS2 secondary header at one of its offsets', async () => {
    const sample = new Uint8Array(await readFile(luksFixture('sample-luks2.img')));
    expect(await isLuks(sample.subarray(0, 512), bytesSource(sample))).toBe(true);
    const noMagic = Uint8Array.from(sample);
    noMagic.fill(0, 0, 6);
    expect(await isLuks(noMagic.subarray(0, 512), bytesSource(noMagic))).toBe(true); // "SKUL\xba\xbe" at 16 KiB
    noMagic.fill(0, 0x4000, 0x4006);
    expect(await isLuks(noMagic.subarray(0, 512), bytesSource(noMagic))).toBe(false);
    const bitlk = image('-FVE-FS-');
    expect(await isLuks(bitlk.subarray(0, 512), bytesSource(bitlk))).toBe(false);
  });

  it('pickFormat: the first entry that matches, or the one --type names', async () => {
    const formats: Format[] = [luksEntry(() => import('@x/luks')), bitlockerEntry(async () => standInBitlocker([]))];
    const src = bytesSource(image('-FVE-FS-'));
    expect((await pickFormat(src, formats, undefined, 'x.img')).type).toBe('bitlk');
    expect((await pickFormat(src, formats, 'luks', 'x.img')).type).toBe('luks');
    const sample = bytesSource(new Uint8Array(await readFile(luksFixture('sample-luks2.img'))));
    expect((await pickFormat(sample, formats, undefined, 's.img')).type).toBe('luks');
    await expect(pickFormat(bytesSource(image('MSWIN4.1')), formats, undefined, 'fat.img')).rejects.toThrow(
      'fat.img is not a LUKS or BitLocker volume that x-disk recognizes (no known signature); --type names the format',
    );
  });
});

describe('x-disk with BitLocker and FileVault 2 stand-ins', () => {
  let dir: string;
  const loads: string[] = [];
  const bitlkSeen: BitlockerSecret[] = [];
  const fvSeen: FileVault2Secret[] = [];
  const formats: Format[] = [
    luksEntry(async () => {
      loads.push('luks');
      return import('@x/luks');
    }),
    bitlockerEntry(async () => {
      loads.push('bitlk');
      return standInBitlocker(bitlkSeen);
    }),
    fileVault2Entry(async () => {
      loads.push('fvault2');
      return standInFileVault2(fvSeen);
    }),
  ];
  const bitlk = image('-FVE-FS-');
  const toGoClear = image('MSWIN4.1', { toGo: true, clearKey: true });
  const fv = image('\0\0\0\0\0\0\0\0', { coreStorage: true });
  const files: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-disk-formats-'));
    const write = async (name: string, bytes: Uint8Array | string) => {
      files[name] = join(dir, name);
      await writeFile(files[name], bytes);
    };
    await Promise.all([
      write('bitlk.img', bitlk),
      write('togo.img', toGoClear),
      write('fv.img', fv),
      write('password', 'anaconda'),
      write('wrong-password', 'anaconda\n'),
      write('fv-pass', 'open sesame'),
      write('good.bek', Uint8Array.from([...ascii('BEK'), 0x42, 1, 2, 3])),
      write('wrong.bek', Uint8Array.from([...ascii('BEK'), 0x41, 1, 2, 3])),
      write('not.bek', ascii('hello')),
      write('fvek', FVEK),
      write('wrong-fvek', new Uint8Array(64).fill(8)),
    ]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const x = async (args: string[], stdin = '') => {
    const m = memoryIo(stdin);
    loads.length = 0;
    const code = await main(args, m.io, formats);
    return { code, stdout: m.stdout(), stderr: m.stderr(), loads: [...loads] };
  };

  it('dump: the format package describes its header; only that package is loaded', async () => {
    const d = await x(['dump', files['bitlk.img']]);
    expect(d).toMatchObject({ code: 0, stderr: '', loads: ['bitlk'] });
    expect(d.stdout.toString()).toBe('BitLocker stand-in: -FVE-FS-, 65536 bytes\n');
    const j = await x(['dump', files['togo.img'], '--json']);
    expect(JSON.parse(j.stdout.toString())).toEqual({ oem: 'MSWIN4.1', size: 65536 });
    const f = await x(['dump', files['fv.img']]);
    expect(f.stdout.toString()).toBe('FileVault 2 stand-in: 65536 bytes\n');
    const l = await x(['dump', luksFixture('sample-luks2.img')]);
    expect(l.code).toBe(0);
    expect(l.loads).toEqual(['luks']); // LUKS is told by its magic: no other package is loaded
    const t = await x(['dump', files['bitlk.img'], '--type', 'luks']);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/^x-disk: not a LUKS volume/);
  });

  it('each option reaches openBitlocker as its secret, and the plaintext is written', async () => {
    const want = plaintextOf(bitlk);
    const cases: [string[], BitlockerSecret, string][] = [
      [['--recovery-password', RECOVERY], { recoveryPassword: RECOVERY }, 'recovery password'],
      [
        ['--startup-key', files['good.bek']],
        { startupKey: new Uint8Array(await readFile(files['good.bek'])) },
        'startup key',
      ],
      [['--key-file', files.fvek], { fvek: FVEK }, 'FVEK'],
      [['--passphrase-file', files.password], { passphrase: ascii('anaconda') }, 'password'],
    ];
    for (const [i, [opts, secret, protector]] of cases.entries()) {
      bitlkSeen.length = 0;
      const out = join(dir, `bitlk-${i}.out`);
      const r = await x(['decrypt', files['bitlk.img'], out, ...opts]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.loads).toEqual(['bitlk']);
      expect(bitlkSeen).toEqual([secret]);
      expect(r.stderr).toMatch(
        new RegExp(`^x-disk: BitLocker aes-xts-plain64, 512-byte sectors, 64 KiB, ${protector}, kernel stand-in\\n`),
      );
      expect(sameBytes(await readFile(out), want)).toBe(true);
    }
    // the recovery password from stdin, with the newline a file or echo adds
    bitlkSeen.length = 0;
    const s = await x(['decrypt', files['bitlk.img'], '-', '--recovery-password', '-'], `${RECOVERY}\n`);
    expect(s.code).toBe(0);
    expect(bitlkSeen).toEqual([{ recoveryPassword: RECOVERY }]);
    expect(sameBytes(s.stdout, want)).toBe(true);
  });

  it('a BitLocker To Go volume with a clear key opens with no secret; one without needs a protector', async () => {
    bitlkSeen.length = 0;
    const out = join(dir, 'togo.out');
    const r = await x(['decrypt', files['togo.img'], out]);
    expect(r.code).toBe(0);
    expect(bitlkSeen).toEqual([{}]);
    expect(r.stderr).toMatch(/^x-disk: BitLocker .*, clear key, kernel stand-in\n/);
    expect(sameBytes(await readFile(out), plaintextOf(toGoClear))).toBe(true);
    const n = await x(['decrypt', files['bitlk.img'], join(dir, 'none.out')]);
    expect(n).toMatchObject({ code: 1, stderr: 'x-disk: the volume has no clear key\n' });
    await expect(stat(join(dir, 'none.out'))).rejects.toThrow(/ENOENT/);
  });

  it('exit 2 for a wrong password, recovery password, startup key or FVEK; 1 for a bad .BEK or --keyslot', async () => {
    const out = join(dir, 'never.out');
    for (const [opts, code, message] of [
      [['--passphrase-file', files['wrong-password']], 2, 'x-disk: wrong password\n'],
      [['--recovery-password', RECOVERY.replace('8', '9')], 2, 'x-disk: wrong recovery password\n'],
      [['--startup-key', files['wrong.bek']], 2, 'x-disk: the startup key does not open this volume\n'],
      [['--key-file', files['wrong-fvek']], 2, 'x-disk: the FVEK does not decrypt the boot sector\n'],
      [['--startup-key', files['not.bek']], 1, 'x-disk: not a startup key (.BEK) file\n'],
    ] as [string[], number, string][]) {
      const r = await x(['decrypt', files['bitlk.img'], out, ...opts]);
      expect({ code: r.code, stderr: r.stderr }, opts.join(' ')).toEqual({ code, stderr: message });
    }
    const k = await x(['decrypt', files['bitlk.img'], out, '--recovery-password', RECOVERY, '--keyslot', '0']);
    expect(k.code).toBe(1);
    expect(k.stderr).toMatch(/^x-disk: --keyslot is for LUKS volumes, not BitLocker\nusage:/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('FileVault 2: a passphrase or the volume key; BitLocker-only options are usage errors', async () => {
    const out = join(dir, 'fv.out');
    const r = await x(['decrypt', files['fv.img'], out, '--passphrase-file', files['fv-pass']]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.loads).toEqual(['fvault2', 'fvault2']); // its detection, then its adapter: no other package
    expect(r.stderr).toMatch(
      /^x-disk: FileVault 2 aes-xts-plain64, 512-byte sectors, 64 KiB, passphrase, kernel stand-in\n/,
    );
    expect(sameBytes(await readFile(out), plaintextOf(fv))).toBe(true);
    const k = await x(['decrypt', files['fv.img'], '-', '--key-file', files.fvek]);
    expect(k.code).toBe(0);
    expect(k.stderr).toMatch(/, volume key given, kernel stand-in\n/);
    expect(fvSeen.map((s) => Object.keys(s))).toEqual([['passphrase'], ['volumeKey']]);
    const w = await x(['decrypt', files['fv.img'], join(dir, 'fv-wrong'), '--passphrase-file', files.password]);
    expect(w).toMatchObject({ code: 2, stderr: 'x-disk: wrong passphrase\n' });
    for (const [opts, message] of [
      [
        ['--recovery-password', RECOVERY],
        /^x-disk: --recovery-password does not open a FileVault 2 volume \(it takes --passphrase-file or --key-file\)\n/,
      ],
      [['--startup-key', files['good.bek']], /^x-disk: --startup-key does not open a FileVault 2 volume/],
      [[], /^x-disk: a FileVault 2 volume needs --passphrase-file or --key-file\n/],
    ] as [string[], RegExp][]) {
      const u = await x(['decrypt', files['fv.img'], join(dir, 'fv-never'), ...opts]);
      expect(u.code).toBe(1);
      expect(u.stderr).toMatch(message);
    }
    await expect(stat(join(dir, 'fv-never'))).rejects.toThrow(/ENOENT/);
    expect(fvSeen).toHaveLength(3); // the usage errors never reached the package
  });

  it('--type names the formats of the table; the usage text lists them', async () => {
    const h = await x(['--help']);
    expect(h.stdout.toString()).toMatch(/x-disk dump IMAGE \[--json\] \[--type luks\|bitlk\|fvault2\]/);
    expect(h.stdout.toString()).toMatch(/IMAGE {5}LUKS \(luks\), BitLocker \(bitlk\) or FileVault 2 \(fvault2\)/);
    const t = await x(['dump', files['fv.img'], '--type', 'apfs']);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/^x-disk: --type takes luks, bitlk or fvault2, not "apfs"\nusage:/);
    const f = await x(['dump', files['fv.img'], '--type', 'bitlk']);
    expect(f).toMatchObject({ code: 1, stderr: 'x-disk: not a BitLocker volume\n' });
  });
});
