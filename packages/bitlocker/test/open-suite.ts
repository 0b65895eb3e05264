// Every BitLocker test image (./fixtures/README.md), opened the ways a user can: with its password and
// with its recovery password (each on a different kernel, in turn), the startup-key image with its .BEK,
// the clear-key image with nothing. The plaintext volume's SHA-256 must equal the one of the device
// cryptsetup maps (images.conf SHA256SUM), and its file system UUID the one lsblk shows there. With
// cryptsetup here, `bitlkDump` must agree with our header, and the FVEK it dumps must open the volume to
// the same bytes on every kernel.
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openFileSource } from '@x/byte-source/file';
import { kernels } from '@x/cbc';
import { cryptsetupRequirement, runCryptsetup } from '@x/containers';
import { testedKernels } from '@x/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitlockerSecret, type BitlockerVolume, openBitlocker, readBitlockerHeader } from '../src/index.js';
import { unlockVmk, unsealFvek } from '../src/keys.js';
import { bitlockerImages, type ImageFacts, startupKeyFiles } from '@x/testkit/disk-images';

const cs = cryptsetupRequirement();

/** SHA-256 of the whole plaintext volume, read in 4 MiB pieces. */
export async function volumeSha256(v: BitlockerVolume): Promise<string> {
  const hash = createHash('sha256');
  const buf = new Uint8Array(4 << 20);
  for (let off = 0; off < v.payloadSize; off += buf.length) {
    const piece = buf.subarray(0, Math.min(buf.length, v.payloadSize - off));
    await v.read(piece, off / v.sectorSize);
    hash.update(piece);
  }
  return hash.digest('hex');
}

/** The file system UUID lsblk shows for a boot sector: NTFS's 64-bit serial, FAT's volume id. */
export function fsUuid(boot: Uint8Array): string {
  const hex = (from: number, n: number) =>
    Array.from(boot.subarray(from, from + n).reverse(), (b) => b.toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase();
  const oem = new TextDecoder().decode(boot.subarray(3, 11));
  if (oem === 'NTFS    ') return hex(0x48, 8);
  const fat32 = new TextDecoder().decode(boot.subarray(0x52, 0x57)) === 'FAT32';
  const id = hex(fat32 ? 0x43 : 0x27, 4); // the volume id of FAT32, of FAT12/16
  return `${id.slice(0, 4)}-${id.slice(4)}`;
}

/** The FVEK this package unwraps (password, else recovery password, else clear key), for the kernel runs. */
async function ourFvek(image: ImageFacts): Promise<Uint8Array> {
  const h = await readBitlockerHeader(await readFile(image.path));
  const secret = image.password
    ? { passphrase: image.password }
    : image.recoveryPassword
      ? { recoveryPassword: image.recoveryPassword }
      : {};
  const { vmk } = unlockVmk(h.metadata, secret, undefined);
  return unsealFvek(h.metadata, vmk, undefined);
}

export function openSuite(select: (image: ImageFacts) => boolean): void {
  const { dir, images } = bitlockerImages();
  const all = testedKernels(kernels());
  let turn = 0;
  const nextKernel = () => all[turn++ % all.length];

  describe.each(images.filter(select).map((i) => [i.name, i] as const))('%s', (_name, image) => {
    const sums: string[] = [];
    let scratch: string | undefined;
    afterAll(async () => {
      if (scratch) await rm(scratch, { force: true });
    });

    async function open(secret: BitlockerSecret): Promise<{ v: BitlockerVolume; sha: string; uuid: string }> {
      const src = await openFileSource(image.path);
      try {
        const v = await openBitlocker(src, secret);
        try {
          const boot = new Uint8Array(v.sectorSize);
          await v.read(boot, 0);
          return { v, sha: await volumeSha256(v), uuid: fsUuid(boot) };
        } finally {
          v.close();
        }
      } finally {
        await src.close();
      }
    }

    function check(r: { v: BitlockerVolume; sha: string; uuid: string }, protector: string) {
      expect(r.v.cipher).toBe(image.cipher);
      expect(r.v.protector).toBe(protector);
      if (image.sha256) expect(r.sha).toBe(image.sha256);
      if (image.uuid) expect(r.uuid).toBe(image.uuid);
      sums.push(r.sha);
      expect(new Set(sums).size).toBe(1); // every way in gives the same bytes
    }

    it('reads the header images.conf describes', async () => {
      const h = await readBitlockerHeader(await readFile(image.path));
      expect(h.metadata.guid).toBe(image.guid);
      expect(h.metadata.encryption.cipher).toBe(image.cipher);
      const byKind = (kind: string) => h.metadata.protectors.find((p) => p.protection === kind)?.guid ?? '';
      // images.conf names the protectors cryptsetup's test uses (not every one an image has)
      for (const [kind, vmk] of [
        ['password', image.passwordVmk],
        ['recovery password', image.recoveryVmk],
        ['startup key', image.startupKeyVmk],
        ['clear key', image.clearKeyVmk],
        ['smart card', image.smartCardVmk],
      ])
        if (vmk) expect(byKind(kind)).toBe(vmk);
    });

    if (image.password !== '')
      it('opens with its password', async () => {
        check(await open({ passphrase: image.password, kernel: nextKernel() }), 'password');
      });

    if (image.recoveryPassword !== '')
      it('opens with its recovery password', async () => {
        check(await open({ recoveryPassword: image.recoveryPassword, kernel: nextKernel() }), 'recovery password');
      });

    if (image.startupKeyVmk !== '')
      it('opens with its startup key (.BEK)', async () => {
        const bek = new Uint8Array(await readFile(startupKeyFiles(dir).good));
        check(await open({ startupKey: bek, kernel: nextKernel() }), 'startup key');
      });

    if (image.clearKeyVmk !== '' && image.password === '')
      it('opens with nothing: its clear key', async () => {
        check(await open({ kernel: nextKernel() }), 'clear key');
      });

    describe.runIf(cs.run)('against cryptsetup', () => {
      let fvek: Uint8Array;
      let fvekFrom = '';
      beforeAll(async () => {
        scratch = join(dir, `${image.name}.secret`);
        const secret = image.password || image.recoveryPassword;
        let args = ['bitlkDump', '--dump-volume-key', image.path];
        if (secret) {
          await writeFile(scratch, secret);
          args = [...args, '--key-file', scratch];
        } else {
          args = [...args, '--key-file', '/dev/null'];
        }
        const out = await runCryptsetup(args).catch(() => undefined);
        const m = out && /(?:MK dump|Volume key):\s*((?:[0-9a-f]{2}\s*)+)/.exec(out.stdout);
        if (m) {
          fvek = Uint8Array.from(m[1].trim().split(/\s+/), (x) => Number.parseInt(x, 16));
          fvekFrom = 'cryptsetup';
        } else {
          // cryptsetup 2.6 dumps no key for a clear-key-only or an encrypt-on-write volume: ours, then
          fvek = await ourFvek(image);
          fvekFrom = 'this package';
        }
      });

      it('bitlkDump shows the same header', async () => {
        const { stdout } = await runCryptsetup(['bitlkDump', image.path]);
        const h = await readBitlockerHeader(await readFile(image.path));
        const field = (label: string) => new RegExp(`^${label}:\\s*(.*)$`, 'm').exec(stdout)?.[1].trim();
        expect(field('GUID')).toBe(h.metadata.guid);
        expect(field('Sector size')).toBe(`${h.sectorSize} [bytes]`);
        expect(field('Volume size')).toBe(`${h.metadata.encryptedSize} [bytes]`);
        // cryptsetup 2.6 reads the first metadata copy without its CRC-32 (2.7 checks it, as Windows does):
        // where that copy is damaged (the -crc image) its description is not the one in use
        if (h.metadata.index === 0) expect(field('Description')).toBe(h.metadata.description);
        else expect(h.copies[0].problem).toBe('CRC-32 mismatch');
        expect(`${field('Cipher name')}-${field('Cipher mode')}`).toBe(h.metadata.encryption.cipher);
        expect(field('Cipher key')).toMatch(new RegExp(`^${h.metadata.encryption.keyBits} (\\[bits\\]|bits)$`));
        const theirs = [...stdout.matchAll(/GUID:\s*(\S+)\s*\n\s*Protection:\s*(.+)\n\s*Salt:\s*([0-9a-f]+)/g)].map(
          (x) => `${x[1]} ${x[2].trim()} ${x[3]}`,
        );
        const ours = [
          ...(await import('../src/describe.js'))
            .describeBitlocker(h)
            .matchAll(/GUID:\s*(\S+)\s*\n\s*Protection:\s*(.+)\n\s*Salt:\s*([0-9a-f]+)/g),
        ].map((x) => `${x[1]} ${x[2].trim()} ${x[3]}`);
        expect(ours).toEqual(theirs);
        const offsets = [...stdout.matchAll(/Offset:\s*(\d+)/g)].map((x) => Number(x[1]));
        expect(offsets).toEqual([...h.metadata.metadataOffsets, h.metadata.volumeHeader.offset]);
      });

      it.each(all)('the FVEK cryptsetup dumps opens it to the same bytes on kernel %s', async (kernel) => {
        expect(fvek.length, `the FVEK (from ${fvekFrom})`).toBe(
          (await readBitlockerHeader(await readFile(image.path))).metadata.encryption.keyBits / 8,
        );
        check(await open({ fvek, kernel }), 'FVEK');
      });
    });
  });
  if (cs.failure) it('cryptsetup is installed (required under CI)', () => expect.fail(cs.failure));
  if (cs.skipNotice) it.skip(cs.skipNotice, () => {});
}
