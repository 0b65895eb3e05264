// x-disk on TrueCrypt/VeraCrypt images with cryptsetup's options (cryptsetup-tcryptOpen(8), tcryptDump):
// `--type tcrypt`, `-d` keyfiles, `--passphrase-file` or the passphrase on stdin, `--veracrypt-pim`
// and `--veracrypt-query-pim`, `--tcrypt-hidden`, `--tcrypt-system`, `--tcrypt-backup`, `--hash`,
// `--disable-veracrypt`, `--volume-key-file`, `--threads`. The images are cryptsetup's test images as
// @x/tcrypt keeps them (packages/tcrypt/test/fixtures, from ../shared/fixtures/tcrypt/tcrypt-images.tar.xz),
// extracted once here; the answer is cryptsetup's tcrypt-compat-test's: `blkid -p -o value -s UUID` on the
// decrypted volume prints DEAD-BABE (CAFE-BABE for a hidden volume). Each run gives the PRF hint (`--hash`)
// that the image's name says, so that one derivation runs, except the one test of the search without it.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesSource } from '@x/byte-source';
import { unlockTcrypt } from '@x/tcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture, runDisk, sameBytes } from './helpers.js';
import { extractImages, HIDDEN_PASSWORD, PASSWORD, PIM_PASSWORD } from './tcrypt-images.js';

/** blkid, where it is installed (util-linux); undefined when it is not. */
const BLKID = ['/usr/sbin/blkid', '/sbin/blkid', 'blkid'].find((b) => {
  try {
    execFileSync(b, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!BLKID) console.log('tcrypt.test.ts: blkid is not installed: the FAT serials are read from the boot sectors alone');

/** The FAT volume serial of a boot sector as blkid prints it: FAT32's at 67, FAT12/16's at 39. */
function fatSerial(boot: Uint8Array): string {
  const fat32 = new TextDecoder().decode(boot.subarray(82, 87)) === 'FAT32';
  const at = fat32 ? 67 : 39;
  const hex = Array.from(boot.slice(at, at + 4).reverse(), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}

/**
 * The serial of the file system at `offset` of the file `path`: what `blkid -p -o value -s UUID` prints
 * (with `-O offset`), checked against the boot sector's own field; the boot sector's alone without blkid.
 */
async function serialOf(path: string, offset = 0): Promise<string> {
  const fh = await open(path, 'r');
  const boot = new Uint8Array(512);
  try {
    await fh.read(boot, 0, 512, offset);
  } finally {
    await fh.close();
  }
  const own = fatSerial(boot);
  if (!BLKID) return own;
  const args = ['-p', ...(offset ? ['-O', String(offset)] : []), '-o', 'value', '-s', 'UUID', path];
  const printed = execFileSync(BLKID, args, { encoding: 'utf8' }).trim();
  expect(printed).toBe(own);
  return printed;
}

const { images, remove } = extractImages();
const img = (name: string) => join(images, name);
let dir: string;
const files: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-disk-tcrypt-out-'));
  for (const [name, text] of [
    ['pw', PASSWORD],
    ['hidden.pw', HIDDEN_PASSWORD],
    ['pim.pw', PIM_PASSWORD],
    ['empty.pw', ''],
    ['wrong.pw', 'aaaaaaaaaaab'],
  ]) {
    files[name] = join(dir, name);
    await writeFile(files[name], text);
  }
});
afterAll(async () => {
  remove();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh OUT path. */
let outs = 0;
const outPath = () => join(dir, `out-${++outs}.img`);

/** No OUT and no temporary `.part` file left. */
async function nothingWritten(out: string) {
  await expect(stat(out)).rejects.toThrow(/ENOENT/);
  expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
}

/** `x-disk decrypt IMAGE OUT --type tcrypt …`: exit 0, and the serial of what it wrote. */
async function decryptOk(image: string, args: string[], stdin?: string): Promise<{ out: string; stderr: string }> {
  const out = outPath();
  const r = await runDisk(['decrypt', img(image), out, '--type', 'tcrypt', ...args], { stdin });
  expect(r.stderr).toMatch(/^x-disk: (VeraCrypt|TrueCrypt|TrueCrypt\/VeraCrypt) aes-(xts-plain64|lrw-benbi|cbc-tcw), /);
  expect(r.code).toBe(0);
  return { out, stderr: r.stderr };
}

const WRONG =
  /either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher x-disk does not open \(Serpent, Twofish/;

describe('dump: the header as cryptsetup tcryptDump prints it, which needs the secret', () => {
  it('vc_1-sha512-xts-aes: text with --passphrase-file, JSON with the passphrase on stdin', async () => {
    const t = await runDisk([
      'dump',
      img('vc_1-sha512-xts-aes'),
      '--type',
      'tcrypt',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha512',
    ]);
    expect(t.stderr).toBe('');
    expect(t.code).toBe(0);
    const text = t.stdout.toString();
    expect(text).toMatch(/^VERACRYPT header information\n/);
    for (const line of [
      'PBKDF2 hash:\tsha512',
      'Cipher chain:\taes',
      'Cipher mode:\txts-plain64',
      'MK offset:\t131072 [bytes]',
      'Iterations:  \t500000',
    ])
      expect(text).toContain(`${line}\n`);
    const j = await runDisk(['dump', img('vc_1-sha512-xts-aes'), '--type', 'tcrypt', '--json', '--hash', 'sha512'], {
      stdin: `${PASSWORD}\n`,
    });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout.toString())).toMatchObject({
      magic: 'VERA',
      cipher: 'aes',
      mode: 'xts-plain64',
      kdf: { prf: 'sha512', iterations: 500000 },
    });
  });

  it('the hidden volume header (--tcrypt-hidden), and a wrong passphrase exits 2', async () => {
    const h = await runDisk(
      ['dump', img('vc_1-sha512-xts-aes-hidden'), '--type', 'tcrypt', '--tcrypt-hidden', '--hash', 'sha512'],
      {
        stdin: HIDDEN_PASSWORD,
      },
    );
    expect(h.code).toBe(0);
    expect(h.stdout.toString()).toMatch(/\nHidden size:\t\d+ \[bytes\]\n/);
    const w = await runDisk(['dump', img('vc_1-sha512-xts-aes'), '--type', 'tcrypt', '--hash', 'sha512'], {
      stdin: 'nope',
    });
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(WRONG);
  });
});

describe('decrypt: the volume, whose file system blkid knows', () => {
  it('vc_1-sha512-xts-aes (--hash sha512): DEAD-BABE, the passphrase from a file or from stdin', async () => {
    const file = await decryptOk('vc_1-sha512-xts-aes', ['--passphrase-file', files.pw, '--hash', 'sha512']);
    expect(await serialOf(file.out)).toBe('DEAD-BABE');
    expect((await stat(file.out)).size).toBe(36864);
    const stdin = await decryptOk('vc_1-sha512-xts-aes', ['--hash', 'sha512'], `${PASSWORD}\n`);
    expect(sameBytes(await readFile(file.out), await readFile(stdin.out))).toBe(true);
  });

  it('vc_1-sha512-xts-aes without --hash: every PRF tried, the same volume', async () => {
    const { out } = await decryptOk('vc_1-sha512-xts-aes', ['--passphrase-file', files.pw]);
    expect(await serialOf(out)).toBe('DEAD-BABE');
  });

  it('keyfiles: two -d (in either order: the pool adds them); one of them alone exits 2; keyfiles and an empty passphrase', async () => {
    const kf = ['-d', img('keyfile1'), '--key-file', img('keyfile2')];
    const { out } = await decryptOk('vck_1-sha512-xts-aes', [...kf, '--passphrase-file', files.pw, '--hash', 'sha512']);
    expect(await serialOf(out)).toBe('DEAD-BABE');
    const swapped = await decryptOk(
      'vck_1-sha512-xts-aes',
      ['-d', img('keyfile2'), '-d', img('keyfile1'), '--hash', 'sha512'],
      PASSWORD,
    );
    expect(sameBytes(await readFile(out), await readFile(swapped.out))).toBe(true);
    for (const one of ['keyfile1', 'keyfile2']) {
      const never = outPath();
      const r = await runDisk([
        'decrypt',
        img('vck_1-sha512-xts-aes'),
        never,
        '--type',
        'tcrypt',
        '-d',
        img(one),
        '--passphrase-file',
        files.pw,
        '--hash',
        'sha512',
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(WRONG);
      await nothingWritten(never);
    }
    const nopw = await decryptOk('vck_1_nopw-sha256-xts-aes', [
      ...kf,
      '--passphrase-file',
      files['empty.pw'],
      '--hash',
      'sha256',
    ]);
    expect(await serialOf(nopw.out)).toBe('DEAD-BABE');
  });

  it('PIM: --veracrypt-pim 1234, or asked for (--veracrypt-query-pim: the line after the passphrase); a wrong PIM exits 2', async () => {
    const image = 'vcpim_1_1234-sha256-xts-aes';
    const given = await decryptOk(image, [
      '--passphrase-file',
      files['pim.pw'],
      '--veracrypt-pim',
      '1234',
      '--hash',
      'sha256',
    ]);
    expect(given.stderr).toContain('pbkdf2-sha256 1249000 iterations');
    expect(await serialOf(given.out)).toBe('DEAD-BABE');
    const asked = await decryptOk(image, ['--veracrypt-query-pim', '--hash', 'sha256'], `${PIM_PASSWORD}\n1234\n`);
    expect(sameBytes(await readFile(given.out), await readFile(asked.out))).toBe(true);
    const never = outPath();
    const w = await runDisk([
      'decrypt',
      img(image),
      never,
      '--type',
      'tcrypt',
      '--passphrase-file',
      files['pim.pw'],
      '--veracrypt-pim',
      '1233',
      '--hash',
      'sha256',
    ]);
    expect(w.code).toBe(2);
    await nothingWritten(never);
  });

  it('a hidden volume: --tcrypt-hidden with its passphrase is CAFE-BABE, the outer one DEAD-BABE', async () => {
    const image = 'vc_1-sha512-xts-aes-hidden';
    const hidden = await decryptOk(image, [
      '--tcrypt-hidden',
      '--passphrase-file',
      files['hidden.pw'],
      '--hash',
      'sha512',
    ]);
    expect(hidden.stderr).toContain(', hidden header, ');
    expect(await serialOf(hidden.out)).toBe('CAFE-BABE');
    const outer = await decryptOk(image, ['--passphrase-file', files.pw, '--hash', 'sha512']);
    expect(await serialOf(outer.out)).toBe('DEAD-BABE');
  });

  it('system encryption (--tcrypt-system): the system partition, and the whole encrypted area of a full drive (--threads 1 or 2: the same bytes)', async () => {
    const part = await decryptOk('sys_vc_1_mbr_part-sha256-xts-aes', ['--tcrypt-system', '--hash', 'sha256'], PASSWORD);
    expect(part.stderr).toContain(', system header, ');
    expect(await serialOf(part.out)).toBe('DEAD-BABE');
    // a whole drive: OUT is the area its header describes; the partition starts inside it (its MBR entry)
    const full = await decryptOk('sys_vc_1_mbr_full-sha256-xts-aes', [
      '--tcrypt-system',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha256',
    ]);
    const [, size, at] = /, ([\d.]+ [KM]iB) at (\d+), system header/.exec(full.stderr)!;
    const drive = await readFile(img('sys_vc_1_mbr_full-sha256-xts-aes'));
    const lba = new DataView(drive.buffer, drive.byteOffset).getUint32(446 + 8, true);
    expect(size).toBe(`${((await stat(full.out)).size / (1 << 20)).toFixed(1)} MiB`);
    expect(await serialOf(full.out, lba * 512 - Number(at))).toBe('DEAD-BABE');
    const one = await decryptOk(
      'sys_vc_1_mbr_full-sha256-xts-aes',
      ['--tcrypt-system', '--hash', 'sha256', '--threads', '1'],
      PASSWORD,
    );
    const two = await decryptOk(
      'sys_vc_1_mbr_full-sha256-xts-aes',
      ['--tcrypt-system', '--hash', 'sha256', '--threads', '2'],
      PASSWORD,
    );
    expect(two.stderr).toMatch(/\(2 threads\)\n/);
    const bytes = await readFile(one.out);
    expect(sameBytes(bytes, await readFile(two.out))).toBe(true);
    expect(sameBytes(bytes, await readFile(full.out))).toBe(true);
  });

  it.each([
    ['tc_2-ripemd160-lrw-aes', 'ripemd160', 'aes-lrw-benbi'],
    ['tc_1-sha1-cbc-aes', 'sha1', 'aes-cbc-tcw'],
  ])("TrueCrypt 1.0–4.3's modes: %s (--hash %s) opens as %s, to DEAD-BABE", async (image, hash, mode) => {
    const { out, stderr } = await decryptOk(image, ['--passphrase-file', files.pw, '--hash', hash]);
    expect(stderr).toMatch(new RegExp(`^x-disk: TrueCrypt ${mode}, `));
    expect(await serialOf(out)).toBe('DEAD-BABE');
  });

  it('--tcrypt-backup opens from the backup header when the primary one is gone', async () => {
    const broken = join(dir, 'no-primary.img');
    await copyFile(img('vc_1-sha512-xts-aes'), broken);
    const fh = await open(broken, 'r+');
    await fh.write(new Uint8Array(512), 0, 512, 0);
    await fh.close();
    const never = outPath();
    const r = await runDisk([
      'decrypt',
      broken,
      never,
      '--type',
      'tcrypt',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha512',
    ]);
    expect(r.code).toBe(2);
    await nothingWritten(never);
    const out = outPath();
    const b = await runDisk([
      'decrypt',
      broken,
      out,
      '--type',
      'tcrypt',
      '--tcrypt-backup',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha512',
    ]);
    expect(b.stderr).toContain(', backup header, ');
    expect(b.code).toBe(0);
    expect(await serialOf(out)).toBe('DEAD-BABE');
  });

  it('a wrong passphrase exits 2 with both possibilities named, and leaves no OUT', async () => {
    const out = outPath();
    const r = await runDisk([
      'decrypt',
      img('vc_1-sha512-xts-aes'),
      out,
      '--type',
      'tcrypt',
      '--passphrase-file',
      files['wrong.pw'],
      '--hash',
      'sha512',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^x-disk: no primary header decrypts: either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher x-disk does not open/,
    );
    expect(r.stderr.split('\n').length).toBe(2); // one line
    await nothingWritten(out);
  });

  it('--disable-veracrypt: TrueCrypt headers only', async () => {
    const never = outPath();
    const v = await runDisk([
      'decrypt',
      img('vc_1-sha512-xts-aes'),
      never,
      '--type',
      'tcrypt',
      '--disable-veracrypt',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha512',
    ]);
    expect(v.code).toBe(2);
    await nothingWritten(never);
    const t = await decryptOk('tc_5-sha512-xts-aes', [
      '--disable-veracrypt',
      '--passphrase-file',
      files.pw,
      '--hash',
      'sha512',
    ]);
    expect(t.stderr).toMatch(/^x-disk: TrueCrypt aes-xts-plain64, /);
    expect(await serialOf(t.out)).toBe('DEAD-BABE');
  });

  it('--volume-key-file: the XTS key opens the container to the same bytes; another key exits 2', async () => {
    const image = img('vc_1-sha512-xts-aes');
    const { volumeKey } = await unlockTcrypt(bytesSource(new Uint8Array(await readFile(image))), {
      passphrase: PASSWORD,
      prf: 'sha512',
    });
    const key = join(dir, 'vc.key');
    await writeFile(key, volumeKey);
    const byKey = await decryptOk('vc_1-sha512-xts-aes', ['--volume-key-file', key]);
    const byPass = await decryptOk('vc_1-sha512-xts-aes', ['--passphrase-file', files.pw, '--hash', 'sha512']);
    expect(sameBytes(await readFile(byKey.out), await readFile(byPass.out))).toBe(true);
    volumeKey[0] ^= 1;
    await writeFile(key, volumeKey);
    const never = outPath();
    const w = await runDisk(['decrypt', image, never, '--type', 'tcrypt', '--volume-key-file', key]);
    expect(w.code).toBe(2);
    await nothingWritten(never);
  });
});

describe('the command line', () => {
  it('an image with no --type is not recognized, and the message says --type tcrypt', async () => {
    const r = await runDisk(['decrypt', img('vc_1-sha512-xts-aes'), outPath(), '--passphrase-file', files.pw]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /\(no known signature\); --type names the format \(a TrueCrypt\/VeraCrypt volume has no signature: --type tcrypt\)\n$/,
    );
  });

  it.each([
    [['--tcrypt-hidden'], /^x-disk: --tcrypt-hidden is for TrueCrypt\/VeraCrypt volumes \(--type tcrypt\), not LUKS\n/],
    [
      ['-d', 'a', '-d', 'b'],
      /^x-disk: only one --key-file opens a LUKS volume \(more are TrueCrypt\/VeraCrypt keyfiles, with --type tcrypt\)\n/,
    ],
  ])("a LUKS image refuses what is only TrueCrypt/VeraCrypt's: %s", async (args, message) => {
    const r = await runDisk(['decrypt', luksFixture('sample-luks2.img'), outPath(), ...args]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    [['--hash', 'md5'], /^x-disk: --hash takes ripemd160, sha512, .*stribog512, not "md5"\n/],
    [
      ['--tcrypt-system', '--tcrypt-hidden'],
      /^x-disk: --tcrypt-system takes neither --tcrypt-hidden nor --tcrypt-backup/,
    ],
    [['--veracrypt-pim', 'x'], /^x-disk: --veracrypt-pim takes a whole number from 0 to 2147468, not "x"\n/],
    [
      ['--veracrypt-pim', '5', '--disable-veracrypt'],
      /^x-disk: --veracrypt-pim and --veracrypt-query-pim are for VeraCrypt volumes/,
    ],
    [['--recovery-password', '1'], /^x-disk: --recovery-password does not open a TrueCrypt\/VeraCrypt volume/],
    [
      ['--volume-key-file', 'k', '-d', 'kf'],
      /^x-disk: --volume-key-file opens the volume without a passphrase or keyfiles/,
    ],
    [['-S', '1'], /^x-disk: --key-slot is for LUKS volumes, not TrueCrypt\/VeraCrypt\n/],
    [['-d', 'no-such-keyfile'], /^x-disk: no-such-keyfile: no such file\n/],
  ])('--type tcrypt %s is a usage error (exit 1, no OUT)', async (args, message) => {
    const out = outPath();
    const r = await runDisk(['decrypt', img('vc_1-sha512-xts-aes'), out, '--type', 'tcrypt', ...args]);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(1);
    await nothingWritten(out);
  });

  it('--help of decrypt and dump lists the TrueCrypt/VeraCrypt options', async () => {
    for (const command of ['decrypt', 'dump']) {
      const h = await runDisk([command, '--help']);
      expect(h.code).toBe(0);
      const text = h.stdout.toString();
      for (const o of [
        'veracrypt-pim N',
        'veracrypt-query-pim',
        'tcrypt-hidden',
        'tcrypt-system',
        'tcrypt-backup',
        'hash NAME',
        'disable-veracrypt',
      ])
        expect(text).toMatch(new RegExp(`^ {2}--${o} +TrueCrypt/VeraCrypt: `, 'm'));
      expect(text).toMatch(/^ {2}-d, --key-file FILE +[\s\S]*?keyfile/m);
    }
  });
});

/** The runs an image's name asks for (cryptsetup's names; see @x/tcrypt's fixtures README): options, stdin, serial. */
function runsOf(name: string): { label: string; args: string[]; stdin: string; serial: string }[] {
  const m = /^([a-z_0-9]+)-([a-z0-9]+)-(?:xts|lrw|cbc)-aes(-hidden)?$/.exec(name);
  if (!m) return [];
  const [, kind, prf, hidden] = m;
  const args = ['--hash', prf === 'blake2s' ? 'blake2s-256' : prf];
  if (/^(tck|vck)/.test(kind)) args.push('-d', img('keyfile1'), '-d', img('keyfile2'));
  const pim = /^vcpim_1_(\d+)$/.exec(kind);
  if (pim) args.push('--veracrypt-pim', pim[1]);
  if (kind.startsWith('sys_')) args.push('--tcrypt-system');
  let stdin = pim ? PIM_PASSWORD : PASSWORD;
  if (kind.endsWith('_nopw')) stdin = '';
  if (kind.endsWith('_pw72')) stdin = 'aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffffffffffff';
  const runs = [{ label: name, args, stdin, serial: 'DEAD-BABE' }];
  if (hidden)
    runs.push({
      label: `${name} (hidden)`,
      args: [...args, '--tcrypt-hidden'],
      stdin: HIDDEN_PASSWORD,
      serial: 'CAFE-BABE',
    });
  return runs;
}

/**
 * The acceptance: every AES-only image of the archive (XTS, LRW and CBC, and each hidden volume)
 * through x-disk with the options its name asks for, `blkid` on each OUT. With X_CLI_TCRYPT_ALL=1 only (47
 * runs, about a minute on 2 shared cores); the library's own tests open each of them on every kernel.
 */
describe.skipIf(!process.env.X_CLI_TCRYPT_ALL)('every AES-only image (X_CLI_TCRYPT_ALL=1)', () => {
  const runs = readdirSync(images).sort().flatMap(runsOf);
  it('has the 47 runs (41 images, 6 hidden volumes)', () => expect(runs.length).toBe(47));
  it.each(runs.map((r) => [r.label, r] as const))('%s', async (_label, r) => {
    const image = r.label.replace(' (hidden)', '');
    const { out, stderr } = await decryptOk(image, r.args, r.stdin);
    const at = Number(/ at (\d+), /.exec(stderr)![1]);
    let offset = 0;
    if (image.includes('_full')) {
      const drive = await readFile(img(image));
      offset = new DataView(drive.buffer, drive.byteOffset).getUint32(446 + 8, true) * 512 - at;
    }
    expect(await serialOf(out, offset)).toBe(r.serial);
    await rm(out);
  });
});

/**
 * The other half: each of the 52 images of other ciphers (Serpent, Twofish, Camellia, Kuznyechik,
 * Blowfish, CAST5, Triple DES and cascades), with its right password and PRF hint, exits 2 with the message
 * that names both possibilities, and leaves no OUT. With X_CLI_TCRYPT_ALL=1 only.
 */
describe.skipIf(!process.env.X_CLI_TCRYPT_ALL)('every image of another cipher exits 2 (X_CLI_TCRYPT_ALL=1)', () => {
  const others = readdirSync(images)
    .sort()
    .filter((n) => /^[a-z_0-9]+-[a-z0-9]+-(xts|lrw|cbc)-/.test(n) && runsOf(n).length === 0);
  it('has the 52 images', () => expect(others.length).toBe(52));
  it.each(others)('%s', async (name) => {
    const [kind, prf] = name.split('-');
    const args = ['--hash', prf === 'blake2s' ? 'blake2s-256' : prf];
    if (/^(tck|vck)/.test(kind)) args.push('-d', img('keyfile1'), '-d', img('keyfile2'));
    const pim = /^vcpim_1_(\d+)$/.exec(kind);
    if (pim) args.push('--veracrypt-pim', pim[1]);
    if (kind.startsWith('sys_')) args.push('--tcrypt-system');
    const out = outPath();
    const r = await runDisk(['decrypt', img(name), out, '--type', 'tcrypt', ...args], {
      stdin: pim ? PIM_PASSWORD : PASSWORD,
    });
    expect(r.stderr).toMatch(WRONG);
    expect(r.code).toBe(2);
    await nothingWritten(out);
  });
});
