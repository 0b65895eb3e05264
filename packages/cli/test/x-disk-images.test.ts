// x-disk as a child process on real BitLocker and FileVault 2 images (the cryptsetup project's test images,
// kept by @x/testkit): detection and dump, decryption with every kind
// of secret, the output's SHA-256 against the device cryptsetup maps, the kernel forced in turn with
// X_AES_KERNEL, and the exit codes for wrong secrets, a bad .BEK and a truncated image.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, truncate, copyFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitlockerImages, FILEVAULT2_FACTS as FACTS, fileVault2Image, startupKeyFiles } from '@x/testkit/disk-images';
import { luksFixture, runDisk } from './helpers.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const all = testedKernels(kernels());
let turn = 0;
const nextKernel = () => ({ X_AES_KERNEL: all[turn++ % all.length] });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-disk-images-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function nothingWritten(out: string) {
  await expect(stat(out)).rejects.toThrow(/ENOENT/);
  expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
}

describe('BitLocker', () => {
  const { dir: images, images: all_ } = bitlockerImages();

  describe.each(all_.map((i) => [i.name, i] as const))('%s', (_name, image) => {
    it('dump detects BitLocker and prints its header (text and --json)', async () => {
      const r = await runDisk(['dump', image.path]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.toString()).toMatch(/^Info for BITLK( To Go)? device\.\n/);
      expect(r.stdout.toString()).toContain(`GUID:         \t${image.guid}\n`);
      const j = await runDisk(['dump', image.path, '--json', '--type', 'bitlk']);
      expect(j.code).toBe(0);
      expect(JSON.parse(j.stdout.toString())).toMatchObject({ guid: image.guid, encryption: { cipher: image.cipher } });
    });

    const runs: [string, string[], string][] = [];
    if (image.password) runs.push(['its password', ['--passphrase-file', 'PW'], 'password']);
    if (image.recoveryPassword)
      runs.push(['its recovery password', ['--recovery-password', image.recoveryPassword], 'recovery password']);
    if (image.startupKeyVmk) runs.push(['its .BEK', ['--startup-key', startupKeyFiles(images).good], 'startup key']);
    if (image.clearKeyVmk && !image.password) runs.push(['nothing (its clear key)', [], 'clear key']);
    it.each(runs)('decrypt with %s writes the volume cryptsetup maps', async (_how, args, protector) => {
      const pw = join(dir, `${image.name}.pw`);
      await writeFile(pw, image.password);
      const real = args.map((a) => (a === 'PW' ? pw : a));
      const env = nextKernel();
      const r = await runDisk(['decrypt', image.path, '-', ...real], { env });
      expect(r.stderr).toMatch(
        new RegExp(
          `^x-disk: BitLocker( To Go)? ${image.cipher}, \\d+-byte sectors, [\\d.]+ MiB, ${protector}, kernel ${env.X_AES_KERNEL}( \\(\\d+ threads\\))?\\n`,
        ),
      );
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe((await stat(image.path)).size);
      if (image.sha256) expect(sha256(r.stdout)).toBe(image.sha256);
    });
  });

  it('writes OUT only when complete, and a wrong password, recovery password or key file exits 2 with no OUT', async () => {
    const image = all_.find((i) => i.name === 'bitlk-aes-xts-128')!;
    const out = join(dir, 'xts.img');
    const pw = join(dir, 'right.pw');
    await writeFile(pw, image.password);
    const ok = await runDisk(['decrypt', image.path, out, '--passphrase-file', pw]);
    expect(ok.code).toBe(0);
    expect(sha256(await readFile(out))).toBe(image.sha256);
    await rm(out);
    const wrongPw = join(dir, 'wrong.pw');
    await writeFile(wrongPw, 'anacondA');
    const key = join(dir, 'wrong.key');
    await writeFile(
      key,
      Uint8Array.from({ length: 32 }, (_, i) => i),
    );
    const same = join(dir, 'same-halves.key');
    await writeFile(same, new Uint8Array(32).fill(3));
    for (const [args, message] of [
      [['--passphrase-file', wrongPw], /^x-disk: wrong password$/m],
      [['--recovery-password', all_[0].recoveryPassword], /^x-disk: wrong recovery password$/m],
      [['--volume-key-file', key], /^x-disk: the FVEK does not decrypt the boot sector to a boot record$/m],
      [['--volume-key-file', same], /^x-disk: the FVEK is not a valid key for aes-xts-plain64: /m],
    ] as const) {
      const r = await runDisk(['decrypt', image.path, out, ...args]);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
      await nothingWritten(out);
    }
  });

  it('a bad .BEK and a truncated image exit 1 with a clear message and no OUT', async () => {
    const sk = all_.find((i) => i.name === 'bitlk-aes-xts-128-startup-key')!;
    const out = join(dir, 'never.img');
    const bad = join(dir, 'bad.BEK');
    await writeFile(bad, (await readFile(startupKeyFiles(images).good)).subarray(0, 100));
    const r = await runDisk(['decrypt', sk.path, out, '--startup-key', bad]);
    expect(r.stderr).toMatch(/^x-disk: the startup key file is not a BitLocker \.BEK file: /m);
    expect(r.code).toBe(1);
    await nothingWritten(out);
    const short = join(dir, 'short.img');
    await copyFile(all_.find((i) => i.name === 'bitlk-aes-xts-128-clearkey-only')!.path, short);
    await truncate(short, 40 << 20);
    const t = await runDisk(['decrypt', short, out]);
    expect(t.stderr).toMatch(
      /^x-disk: the image \(41943040 bytes\) is shorter than the encrypted volume \(104857600 bytes\): truncated$/m,
    );
    expect(t.code).toBe(1);
    await nothingWritten(out);
  });

  it('the partially encrypted image: dump reports the encrypted size, decrypt gives the volume', async () => {
    const p = all_.find((i) => i.name === 'bitlk-partially-encrypted-aes-cbc-128')!;
    const d = await runDisk(['dump', p.path]);
    expect(d.stdout.toString()).toMatch(/^Encrypted: {4}\t104857600 of 104857600 \[bytes\] \(100\.0%\)$/m);
    expect(d.stdout.toString()).toMatch(/^Type: {9}\tencrypt-on-write$/m);
    const pw = join(dir, 'partial.pw');
    await writeFile(pw, p.password);
    const r = await runDisk(['decrypt', p.path, '-', '--passphrase-file', pw]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(104857600);
    expect(r.stdout.subarray(3, 11).toString()).toBe('NTFS    ');
  });
});

describe('as a cryptsetup user types it: -d PASSFILE, --volume-key-file, --threads', () => {
  it('x-disk decrypt IMAGE OUT -d PASSFILE opens LUKS, BitLocker and FileVault 2, on 1 or 3 threads alike', async () => {
    const sample = luksFixture('sample-luks2.img');
    const l = await runDisk(['decrypt', sample, '-', '-d', luksFixture('sample.passphrase')]);
    expect(l.code).toBe(0);
    expect(l.stdout.toString()).toMatch(/^x-aes sample volume\n/);
    const bitlk = bitlockerImages().images.find((i) => i.name === 'bitlk-aes-xts-128')!;
    const fv = fileVault2Image();
    for (const [image, password, sum] of [
      [bitlk.path, bitlk.password, bitlk.sha256],
      [fv, FACTS.passphrase, FACTS.sha256],
    ]) {
      const pw = join(dir, 'cryptsetup-style.pw');
      await writeFile(pw, password);
      for (const threads of ['1', '3']) {
        const r = await runDisk(['decrypt', image, '-', '-d', pw, '--threads', threads], { env: nextKernel() });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(threads === '1' ? /, kernel [\w-]+\n/ : / \(3 threads\)\n/);
        expect(sha256(r.stdout)).toBe(sum);
      }
    }
  });

  it('--volume-key-file is the raw volume key; --key-file is not (it is the passphrase)', async () => {
    const image = fileVault2Image();
    const key = join(dir, 'fv-vk.key');
    await writeFile(key, Buffer.from(FACTS.volumeKey, 'hex'));
    const k = await runDisk(['decrypt', image, '-', '--volume-key-file', key, '--threads', '2']);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stderr).toMatch(/, volume key given, kernel \S+ \(2 threads\)\n/);
    expect(sha256(k.stdout)).toBe(FACTS.sha256);
    const asPassphrase = await runDisk(['decrypt', image, join(dir, 'never.out'), '--key-file', key]);
    expect(asPassphrase.code).toBe(2); // the key's bytes as a passphrase open no user
    expect(asPassphrase.stderr).toMatch(/^x-disk: the passphrase opens no crypto user of the volume/);
    await nothingWritten(join(dir, 'never.out'));
  });
});

describe('FileVault 2', () => {
  const image = fileVault2Image();

  it('dump detects FileVault 2; decrypt with the password and with the volume key gives the logical volume', async () => {
    const d = await runDisk(['dump', image]);
    expect(d.code).toBe(0);
    expect(d.stdout.toString()).toContain(FACTS.physicalVolumeUuid);
    const pw = join(dir, 'fv.pw');
    await writeFile(pw, FACTS.passphrase);
    const r = await runDisk(['decrypt', image, '-', '--passphrase-file', pw], { env: nextKernel() });
    expect(r.code).toBe(0);
    expect(sha256(r.stdout)).toBe(FACTS.sha256);
    const key = join(dir, 'fv.key');
    await writeFile(key, Buffer.from(FACTS.volumeKey, 'hex'));
    const k = await runDisk(['decrypt', image, '-', '--volume-key-file', key, '--type', 'fvault2'], {
      env: nextKernel(),
    });
    expect(k.code).toBe(0);
    expect(sha256(k.stdout)).toBe(FACTS.sha256);
  });

  it('a wrong password exits 2; a recovery password is a usage error (exit 1)', async () => {
    const pw = join(dir, 'fv-wrong.pw');
    await writeFile(pw, 'heslo124');
    const out = join(dir, 'fv.out');
    const r = await runDisk(['decrypt', image, out, '--passphrase-file', pw]);
    expect(r.code).toBe(2);
    await nothingWritten(out);
    const u = await runDisk(['decrypt', image, out, '--recovery-password', '000000']);
    expect(u.code).toBe(1);
    await nothingWritten(out);
  });
});
