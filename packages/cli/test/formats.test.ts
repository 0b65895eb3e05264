// x-disk over a list of formats, in this process: the real LUKS format beside stand-in BitLocker and
// FileVault 2 DiskFormats (the interface of @x/disk-format, as their packages implement it): which option
// becomes which secret, the clear key, exit status 2 for a WrongSecretError of any format and 1 for their
// other errors, the usage errors of options a format does not take, the summary lines, `--type`, and that
// x-disk reads and opens through the format of the image only. (The packages' own DiskFormats are run on
// real images by x-disk-images.test.ts; their detection is tested in their packages.)
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { isBitlocker } from '@x/bitlocker/format';
import { type ByteSource, readBytes } from '@x/byte-source';
import {
  type DiskFormat,
  DiskError,
  HeaderError,
  type Opened,
  type Secret,
  WrongPassphraseError,
  WrongVolumeKeyError,
} from '@x/disk-format';
import { luksFormat } from '@x/luks/format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/x-disk-main.js';
import { luksFixture, sameBytes } from './helpers.js';

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const text = (b: Uint8Array) => new TextDecoder().decode(b);
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

class StandInError extends DiskError {}

/** What the stand-ins' volumes give back: the image, every byte XORed with 0x5a. */
const plaintextOf = (img: Uint8Array) => img.map((x) => x ^ 0x5a);

function standInVolume(src: ByteSource): Opened['volume'] {
  return {
    sectorSize: 512,
    payloadSize: src.size,
    kernel: 'stand-in',
    async read(dst: Uint8Array, firstSector: number) {
      await src.read(firstSector * 512, dst);
      for (let i = 0; i < dst.length; i++) dst[i] ^= 0x5a;
    },
    close() {},
  };
}

const RECOVERY = '111111-222222-333333-444444-555555-666666-777777-888888';
const FVEK = new Uint8Array(64).fill(7);

/** What a stand-in was given: `{ kind: bytes as text }`, or `{ volumeKey }`, or `{}` (no secret). */
type Seen = Record<string, string | Uint8Array>;
const seenOf = (secret: Secret | undefined): Seen => (secret ? { [secret.kind]: text(secret.bytes) } : {});

/** A stand-in of BitLocker's DiskFormat (its detection is the real one), recording the secrets it is given. */
function standInBitlocker(seen: Seen[], loads: string[]): DiskFormat {
  const opened = (src: ByteSource, protector: string): Opened => ({
    volume: standInVolume(src),
    summary: `BitLocker aes-xts-plain64, 512-byte sectors, 64 KiB, ${protector}, kernel stand-in`,
  });
  return {
    type: 'bitlk',
    name: 'BitLocker',
    secrets: ['passphrase', 'recoveryPassword', 'startupKey'],
    clearKey: true,
    keyslots: false,
    detect: isBitlocker,
    async readHeader(src) {
      loads.push('bitlk');
      const b = await readBytes(src, 0, 512);
      if (!isBitlocker(b)) throw new HeaderError('@x/bitlocker: not a BitLocker volume');
      const h = { oem: text(b.subarray(3, 11)), size: src.size };
      return { title: 'BitLocker', describe: () => `BitLocker stand-in: ${h.oem}, ${h.size} bytes`, toJson: () => h };
    },
    async open(src, secret) {
      loads.push('bitlk');
      seen.push(seenOf(secret));
      switch (secret?.kind) {
        case 'recoveryPassword':
          if (text(secret.bytes).trim() !== RECOVERY)
            throw new WrongPassphraseError('@x/bitlocker: wrong recovery password');
          return opened(src, 'recovery password');
        case 'startupKey':
          if (!sameBytes(secret.bytes.subarray(0, 3), ascii('BEK')))
            throw new StandInError('@x/bitlocker: not a startup key (.BEK) file');
          if (secret.bytes[3] !== 0x42)
            throw new WrongPassphraseError('@x/bitlocker: the startup key does not open this volume');
          return opened(src, 'startup key');
        case 'passphrase':
          if (text(secret.bytes) !== 'anaconda') throw new WrongPassphraseError('@x/bitlocker: wrong password');
          return opened(src, 'password');
        default:
          if ((await readBytes(src, 11, 1))[0] !== 1)
            throw new StandInError('@x/bitlocker: the volume has no clear key');
          return opened(src, 'clear key');
      }
    },
    async openWithVolumeKey(src, key) {
      loads.push('bitlk');
      seen.push({ volumeKey: Uint8Array.from(key) });
      if (!sameBytes(key, FVEK))
        throw new WrongVolumeKeyError('@x/bitlocker: the FVEK does not decrypt the boot sector');
      return opened(src, 'FVEK');
    },
  };
}

/** A stand-in of FileVault 2's DiskFormat: "CS" at byte 88 marks it; passphrase `open sesame` or the volume key FVEK. */
function standInFileVault2(seen: Seen[], loads: string[]): DiskFormat {
  const opened = (src: ByteSource, how: string): Opened => ({
    volume: standInVolume(src),
    summary: `FileVault 2 aes-xts-plain64, 512-byte sectors, 64 KiB, ${how}, kernel stand-in`,
  });
  return {
    type: 'fvault2',
    name: 'FileVault 2',
    secrets: ['passphrase'],
    clearKey: false,
    keyslots: false,
    detect: (first) => first[88] === 0x43 && first[89] === 0x53,
    async readHeader(src) {
      loads.push('fvault2');
      return { title: 'FileVault 2', describe: () => `FileVault 2 stand-in: ${src.size} bytes`, toJson: () => ({}) };
    },
    async open(src, secret) {
      loads.push('fvault2');
      seen.push(seenOf(secret));
      if (text(secret!.bytes) !== 'open sesame') throw new WrongPassphraseError('@x/filevault2: wrong passphrase');
      return opened(src, 'passphrase');
    },
    async openWithVolumeKey(src, key) {
      loads.push('fvault2');
      seen.push({ volumeKey: Uint8Array.from(key) });
      if (!sameBytes(key, FVEK)) throw new WrongVolumeKeyError('@x/filevault2: wrong volume key');
      return opened(src, 'volume key given');
    },
  };
}

/** The real LUKS format, recording when x-disk reads or opens through it. */
function recordedLuks(loads: string[]): DiskFormat {
  return {
    ...luksFormat,
    readHeader(src) {
      loads.push('luks');
      return luksFormat.readHeader(src);
    },
    open(src, secret, options) {
      loads.push('luks');
      return luksFormat.open(src, secret, options);
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

describe('x-disk with BitLocker and FileVault 2 stand-ins', () => {
  let dir: string;
  const loads: string[] = [];
  const bitlkSeen: Seen[] = [];
  const fvSeen: Seen[] = [];
  const formats: DiskFormat[] = [
    recordedLuks(loads),
    standInBitlocker(bitlkSeen, loads),
    standInFileVault2(fvSeen, loads),
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
      write('fat.img', image('MSWIN4.1')),
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

  const x = async (args: string[], stdin = '', list: readonly DiskFormat[] = formats) => {
    const m = memoryIo(stdin);
    loads.length = 0;
    const code = await main(args, m.io, list);
    return { code, stdout: m.stdout(), stderr: m.stderr(), loads: [...loads] };
  };

  it('dump: the format describes its header; only that format is read', async () => {
    const d = await x(['dump', files['bitlk.img']]);
    expect(d).toMatchObject({ code: 0, stderr: '', loads: ['bitlk'] });
    expect(d.stdout.toString()).toBe('BitLocker stand-in: -FVE-FS-, 65536 bytes\n');
    const j = await x(['dump', files['togo.img'], '--json']);
    expect(JSON.parse(j.stdout.toString())).toEqual({ oem: 'MSWIN4.1', size: 65536 });
    const f = await x(['dump', files['fv.img']]);
    expect(f.stdout.toString()).toBe('FileVault 2 stand-in: 65536 bytes\n');
    const l = await x(['dump', luksFixture('sample-luks2.img')]);
    expect(l.code).toBe(0);
    expect(l.loads).toEqual(['luks']); // LUKS is told by its magic: no other format is asked for more
    const t = await x(['dump', files['bitlk.img'], '--type', 'luks']);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/^x-disk: not a LUKS volume/);
  });

  it('the first format of the list that matches, or the one --type names; none: an error naming them', async () => {
    const two = formats.slice(0, 2);
    expect((await x(['dump', files['bitlk.img']], '', two)).stdout.toString()).toMatch(/^BitLocker stand-in/);
    const sample = await x(['dump', luksFixture('sample-luks2.img')], '', two);
    expect(sample.stdout.toString()).toMatch(/^LUKS header information/);
    const fat = await x(['dump', files['fat.img']], '', two);
    expect(fat).toMatchObject({
      code: 1,
      stderr: `x-disk: ${files['fat.img']} is not a LUKS or BitLocker volume that x-disk recognizes (no known signature); --type names the format\n`,
    });
  });

  it('each option reaches the format as its secret, and the plaintext is written', async () => {
    const want = plaintextOf(bitlk);
    const cases: [string[], Seen, string][] = [
      [['--recovery-password', RECOVERY], { recoveryPassword: RECOVERY }, 'recovery password'],
      [['--startup-key', files['good.bek']], { startupKey: text(await readFile(files['good.bek'])) }, 'startup key'],
      [['--volume-key-file', files.fvek], { volumeKey: FVEK }, 'FVEK'],
      [['--passphrase-file', files.password], { passphrase: 'anaconda' }, 'password'],
      [['-d', files.password], { passphrase: 'anaconda' }, 'password'],
      [['--key-file', files.password], { passphrase: 'anaconda' }, 'password'],
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
    // the recovery password from stdin, as typed into a file or echoed (the format drops the newline)
    bitlkSeen.length = 0;
    const s = await x(['decrypt', files['bitlk.img'], '-', '--recovery-password', '-'], `${RECOVERY}\n`);
    expect(s.code).toBe(0);
    expect(bitlkSeen).toEqual([{ recoveryPassword: `${RECOVERY}\n` }]);
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

  it('exit 2 for a wrong password, recovery password, startup key or FVEK; 1 for a bad .BEK or --key-slot', async () => {
    const out = join(dir, 'never.out');
    for (const [opts, code, message] of [
      [['--passphrase-file', files['wrong-password']], 2, 'x-disk: wrong password\n'],
      [['--recovery-password', RECOVERY.replace('8', '9')], 2, 'x-disk: wrong recovery password\n'],
      [['--startup-key', files['wrong.bek']], 2, 'x-disk: the startup key does not open this volume\n'],
      [['--volume-key-file', files['wrong-fvek']], 2, 'x-disk: the FVEK does not decrypt the boot sector\n'],
      [['--startup-key', files['not.bek']], 1, 'x-disk: not a startup key (.BEK) file\n'],
    ] as [string[], number, string][]) {
      const r = await x(['decrypt', files['bitlk.img'], out, ...opts]);
      expect({ code: r.code, stderr: r.stderr }, opts.join(' ')).toEqual({ code, stderr: message });
    }
    const k = await x(['decrypt', files['bitlk.img'], out, '--recovery-password', RECOVERY, '--keyslot', '0']);
    expect(k.code).toBe(1);
    expect(k.stderr).toMatch(/^x-disk: --key-slot is for LUKS volumes, not BitLocker\nusage:/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('FileVault 2: a passphrase or the volume key; BitLocker-only options are usage errors', async () => {
    const out = join(dir, 'fv.out');
    const r = await x(['decrypt', files['fv.img'], out, '--passphrase-file', files['fv-pass']]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.loads).toEqual(['fvault2']); // its format only
    expect(r.stderr).toMatch(
      /^x-disk: FileVault 2 aes-xts-plain64, 512-byte sectors, 64 KiB, passphrase, kernel stand-in\n/,
    );
    expect(sameBytes(await readFile(out), plaintextOf(fv))).toBe(true);
    const k = await x(['decrypt', files['fv.img'], '-', '--volume-key-file', files.fvek]);
    expect(k.code).toBe(0);
    expect(k.stderr).toMatch(/, volume key given, kernel stand-in\n/);
    expect(fvSeen.map((s) => Object.keys(s))).toEqual([['passphrase'], ['volumeKey']]);
    const w = await x(['decrypt', files['fv.img'], join(dir, 'fv-wrong'), '--passphrase-file', files.password]);
    expect(w).toMatchObject({ code: 2, stderr: 'x-disk: wrong passphrase\n' });
    for (const [opts, message] of [
      [
        ['--recovery-password', RECOVERY],
        /^x-disk: --recovery-password does not open a FileVault 2 volume \(it takes --key-file or --volume-key-file\)\n/,
      ],
      [['--startup-key', files['good.bek']], /^x-disk: --startup-key does not open a FileVault 2 volume/],
      [[], /^x-disk: a FileVault 2 volume needs --key-file or --volume-key-file\n/],
    ] as [string[], RegExp][]) {
      const u = await x(['decrypt', files['fv.img'], join(dir, 'fv-never'), ...opts]);
      expect(u.code).toBe(1);
      expect(u.stderr).toMatch(message);
    }
    await expect(stat(join(dir, 'fv-never'))).rejects.toThrow(/ENOENT/);
    expect(fvSeen).toHaveLength(3); // the usage errors never reached the format
  });

  it('--type names the formats of the list; the usage text lists them', async () => {
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
