// System encryption from an image of the system partition alone: the partition is cut out of a fixture
// drive (where its partition table says, MBR or GPT), and the header comes from the drive through the
// `header` option (cryptsetup's `--header`). The partition's sector 0 decrypts to the FAT boot sector with
// serial DEAD-BABE on every kernel, as the whole drive does in open.test.ts. Also: a partition cut from a
// drive whose whole area is encrypted (`_full`) needs `partitionOffset`, a detached header for an
// ordinary volume, and the options' checks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernels } from '@x/cbc';
import { testedKernels } from '@x/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { HeaderError, openTcrypt, tcryptFormatWith } from '../src/index.js';
import { extractImages, fatSerial, serialOf, PASSWORD } from './images.js';

const { dir, remove } = extractImages();
afterAll(remove);
const image = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const all = testedKernels(kernels());

/** Byte offset and length of partition `index` (0-based) of a drive: from the GPT when there is one, else the MBR. */
function partition(drive: Uint8Array, index: number): { offset: number; size: number } {
  const v = new DataView(drive.buffer, drive.byteOffset, drive.length);
  if (new TextDecoder().decode(drive.subarray(512, 520)) === 'EFI PART') {
    const entries = Number(v.getBigUint64(512 + 72, true)) * 512;
    const e = entries + index * v.getUint32(512 + 84, true);
    const first = Number(v.getBigUint64(e + 32, true));
    const last = Number(v.getBigUint64(e + 40, true));
    return { offset: first * 512, size: (last - first + 1) * 512 };
  }
  const e = 446 + 16 * index;
  return { offset: v.getUint32(e + 8, true) * 512, size: v.getUint32(e + 12, true) * 512 };
}

describe('the system partition alone, its header from the drive', () => {
  const drives = [
    ['sys_vc_1_mbr_part-sha256-xts-aes', 'sha256', 0],
    ['sys_vc_1_gpt_part-sha512-xts-aes', 'sha512', 2],
  ] as const;
  it.each(drives.flatMap(([name, prf, index]) => all.map((k) => [`${name} on ${k}`, name, prf, index, k] as const)))(
    '%s',
    async (_n, name, prf, index, kernel) => {
      const drive = image(name);
      const p = partition(drive, index);
      const part = drive.slice(p.offset, p.offset + p.size);
      const v = await openTcrypt(part, { passphrase: PASSWORD, prf, system: true, header: drive, kernel });
      try {
        expect(v.kernel).toBe(kernel);
        // the header's encrypted area is the partition the table describes
        expect(v.header?.mkOffset).toBe(p.offset);
        expect(v.header?.volumeSize).toBe(p.size);
        expect([v.payloadOffset, v.payloadSize]).toEqual([0, p.size]);
        const boot = new Uint8Array(512);
        await v.read(boot, 0);
        expect(fatSerial(boot)).toBe('DEAD-BABE');
        // the same sectors as the drive opened whole
        const whole = await openTcrypt(drive, { passphrase: PASSWORD, prf, system: true, kernel });
        const a = new Uint8Array(512 * 64);
        const b = new Uint8Array(512 * 64);
        await v.read(a, 1000);
        await whole.read(b, 1000);
        whole.close();
        expect(a).toEqual(b);
      } finally {
        v.close();
      }
    },
  );
  it('the header source may be the drive’s first 63 sectors alone; the DiskFormat takes the option too', async () => {
    const drive = image('sys_vc_1_mbr_part-sha256-xts-aes');
    const p = partition(drive, 0);
    const part = drive.subarray(p.offset, p.offset + p.size);
    const header = drive.slice(0, 63 * 512);
    expect(await serialOf(part, { passphrase: PASSWORD, prf: 'sha256', system: true, header })).toBe('DEAD-BABE');
    const format = tcryptFormatWith({ prf: 'sha256', system: true, header });
    const { volume } = await format.open(
      (await import('@x/byte-source')).bytesSource(part),
      {
        kind: 'passphrase',
        bytes: new TextEncoder().encode(PASSWORD),
      },
      {},
    );
    const boot = new Uint8Array(512);
    await volume.read(boot, 0);
    volume.close();
    expect(fatSerial(boot)).toBe('DEAD-BABE');
  });
  it('a partition cut from a wholly encrypted drive (_full) opens with its partitionOffset, and not without', async () => {
    const drive = image('sys_vc_1_mbr_full-sha256-xts-aes');
    const p = partition(drive, 0);
    const part = drive.subarray(p.offset, p.offset + p.size);
    const options = { passphrase: PASSWORD, prf: 'sha256', system: true, header: drive } as const;
    expect(await serialOf(part, { ...options, partitionOffset: p.offset })).toBe('DEAD-BABE');
    // without it, the IV sectors start at the header's master key offset (32256): another tweak, no boot sector
    const v = await openTcrypt(part, { ...options, partitionOffset: undefined }).catch((e) => e);
    expect(v).toBeInstanceOf(HeaderError); // the drive's encrypted area is longer than the partition image
    expect(v.message).toMatch(/describes a system partition of 18842112 bytes, longer than the image/);
  });
  it('a truncated partition image, a partitionOffset outside the area, and options that do not go together', async () => {
    const drive = image('sys_vc_1_mbr_part-sha256-xts-aes');
    const p = partition(drive, 0);
    const base = { passphrase: PASSWORD, prf: 'sha256', system: true, header: drive } as const;
    const part = drive.subarray(p.offset, p.offset + p.size - 512);
    await expect(openTcrypt(part, base)).rejects.toThrow(HeaderError);
    await expect(openTcrypt(part, base)).rejects.toThrow(
      /^@x\/tcrypt: the system header describes a system partition of 16777216 bytes, longer than the image \(16776704 bytes\): a truncated image, or a partition of a drive encrypted whole \(give options\.partitionOffset\)$/,
    );
    await expect(openTcrypt(part, { ...base, partitionOffset: 512 })).rejects.toThrow(
      /^@x\/tcrypt: options\.partitionOffset 512 is outside the encrypted area of the drive/,
    );
    await expect(openTcrypt(part, { ...base, partitionOffset: 1000 })).rejects.toThrow(RangeError);
    await expect(openTcrypt(part, { ...base, partitionOffset: '0' as never })).rejects.toThrow(TypeError);
    await expect(openTcrypt(part, { ...base, header: undefined, partitionOffset: 0 })).rejects.toThrow(
      /partitionOffset goes with system and header/,
    );
    await expect(openTcrypt(part, { ...base, header: 'drive' as never })).rejects.toThrow(TypeError);
    await expect(openTcrypt(part, { header: drive, volumeKey: new Uint8Array(64) })).rejects.toThrow(
      /options\.header goes with the secrets/,
    );
    await expect(openTcrypt(part, { ...base, header: drive.subarray(0, 32000) })).rejects.toThrow(
      /^@x\/tcrypt: the header source \(32000 bytes\) is too short to hold the system header$/,
    );
  });
});

describe('a detached header for an ordinary volume', () => {
  it('an image whose own header is wiped opens with its header from a copy', async () => {
    const original = image('tc_5-sha512-xts-aes');
    const wiped = Uint8Array.from(original);
    wiped.fill(0, 0, 512);
    await expect(openTcrypt(wiped, { passphrase: PASSWORD, prf: 'sha512' })).rejects.toThrow(/no primary header/);
    expect(await serialOf(wiped, { passphrase: PASSWORD, prf: 'sha512', header: original })).toBe('DEAD-BABE');
  });
  it('a legacy hidden volume: the header source’s size places its header, the image holds the volume', async () => {
    const img = image('tc_2-ripemd160-lrw-aes-hidden');
    const hidden = { passphrase: 'bbbbbbbbbbbb', prf: 'ripemd160', hidden: true } as const;
    expect(await serialOf(img, { ...hidden, header: Uint8Array.from(img) })).toBe('CAFE-BABE');
  });
});
