// Disk images made by other tools (../fixtures/README.md: cryptsetup's BitLocker and FileVault 2 test
// images), for the tests of @x/bitlocker, @x/filevault2 and @x/cli: each archive is unpacked once per test
// file into a temporary directory (removed after that file's tests), with the facts cryptsetup gives.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** One image's facts from images.conf (cryptsetup's names). */
export interface ImageFacts {
  readonly name: string;
  readonly path: string;
  /** The dm-crypt cipher: aes-cbc-eboiv, aes-cbc-elephant, aes-xts-plain64. */
  readonly cipher: string;
  readonly guid: string;
  readonly password: string;
  readonly passwordVmk: string;
  readonly recoveryPassword: string;
  readonly recoveryVmk: string;
  readonly startupKeyVmk: string;
  readonly clearKeyVmk: string;
  readonly smartCardVmk: string;
  /** The file system's UUID as lsblk shows it (NTFS serial, FAT volume id), '' when not given. */
  readonly uuid: string;
  /** SHA-256 of the mapped device, '' when cryptsetup's test does not check one. */
  readonly sha256: string;
}

const BITLK_ARCHIVE = fileURLToPath(new URL('../fixtures/bitlk-images.tar.xz', import.meta.url));
const FVAULT2_ARCHIVE = fileURLToPath(new URL('../fixtures/fvault2-images.tar.xz', import.meta.url));

const unpacked = new Map<string, string>();
/** Unpacks `archive` into a temporary directory (once per test file) and returns the directory. */
function unpack(archive: string, prefix: string): string {
  let dir = unpacked.get(archive);
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), prefix));
    execFileSync('tar', ['xJSf', archive, '-C', dir, '--no-same-owner']);
    unpacked.set(archive, dir);
    const made = dir;
    afterAll(() => {
      rmSync(made, { recursive: true, force: true });
      unpacked.delete(archive);
    });
  }
  return dir;
}

/**
 * The 14 BitLocker images of cryptsetup's tests (made by Windows 7, 10 and 11), unpacked, and their facts
 * from images.conf, in its order.
 *
 * @example
 * ```ts
 * const { images } = bitlockerImages();
 * for (const i of images) console.log(i.name, i.cipher, i.sha256);
 * ```
 */
export function bitlockerImages(): { dir: string; images: ImageFacts[] } {
  const base = join(unpack(BITLK_ARCHIVE, 'x-bitlk-images-'), 'bitlk-images');
  const conf = readFileSync(join(base, 'images.conf'), 'utf8');
  const images: ImageFacts[] = [];
  let cur: Record<string, string> | undefined;
  const flush = () => {
    if (!cur) return;
    const v = (k: string) => cur![k] ?? '';
    images.push({
      name: v('name'),
      path: join(base, `${v('name')}.img`),
      cipher: v('CIPHER'),
      guid: v('GUID'),
      password: v('PW'),
      passwordVmk: v('PW_VMK_GUID'),
      recoveryPassword: v('RP'),
      recoveryVmk: v('RP_VMK_GUID'),
      startupKeyVmk: v('SK_VMK_GUID'),
      clearKeyVmk: v('CLEARKEY_VMK_GUID'),
      smartCardVmk: v('SC_VMK_GUID'),
      uuid: v('UUID'),
      sha256: v('SHA256SUM'),
    });
  };
  for (const line of conf.split('\n')) {
    const section = /^\[(.+)\]$/.exec(line.trim());
    if (section) {
      flush();
      cur = { name: section[1] };
      continue;
    }
    const kv = /^(\w+)=(.*)$/.exec(line.trim());
    if (kv && cur) cur[kv[1]] = kv[2];
  }
  flush();
  return { dir: base, images };
}

/**
 * The .BEK file that unlocks the startup-key image, and one made for another volume.
 *
 * @example
 * ```ts
 * const { good } = startupKeyFiles(bitlockerImages().dir);
 * ```
 */
export function startupKeyFiles(base: string): { good: string; other: string } {
  return {
    good: join(base, '4381F759-C4F8-4DE0-BB61-FC33A831BDA5.BEK'),
    other: join(base, 'AA80A52B-9B66-47AE-B097-33F536FFBB07.BEK'),
  };
}

/**
 * What cryptsetup says about the FileVault 2 image `fvault2-images/small` (tests/fvault2-compat-test;
 * `fvault2Dump --dump-volume-key`).
 */
export const FILEVAULT2_FACTS = {
  passphrase: 'heslo123',
  physicalVolumeUuid: 'fc52bfae-5a1f-4f9b-b3a6-f33303a0e401',
  familyUuid: '33a76caa-1481-4bc5-8d04-1ac1707c19c0',
  logicalVolumeOffset: 67108864,
  logicalVolumeSize: 167772160,
  pbkdf2Iterations: 204222,
  pbkdf2Salt: '2c249edb6663d6fbcc7905b7a4d72752',
  volumeKey: '20734d3389212774d7610c29d732880916f3be14c4b12ac7aaf07e5ccc77b319',
  /** `blkid -po value -s UUID /dev/mapper/…`: the UUID of the HFS+ file system in the logical volume. */
  fileSystemUuid: 'de124d8a-2164-394e-924f-8e28db0a09cb',
  /** `sha256sum /dev/mapper/…`: the whole logical volume, decrypted. */
  sha256: '2c662e36c0f7e2f5583e6a939bbcbdc660805692d0fccaa45ad4052beb3b8e18',
} as const;

/**
 * The path of the FileVault 2 image `fvault2-images/small` (512 MiB, sparse), unpacked.
 *
 * @example
 * ```ts
 * const volume = await openFileVault2(await openFileSource(fileVault2Image()), { passphrase: FILEVAULT2_FACTS.passphrase });
 * ```
 */
export function fileVault2Image(): string {
  return join(unpack(FVAULT2_ARCHIVE, 'x-fvault2-images-'), 'fvault2-images', 'small');
}
