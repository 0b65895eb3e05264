// The BitLocker test images (./fixtures/README.md): unpacked once per test file into a temporary
// directory, and their facts from images.conf.
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

const ARCHIVE = fileURLToPath(new URL('fixtures/bitlk-images.tar.xz', import.meta.url));
let dir: string | undefined;

/** Unpacks the images (once per test file) and returns their facts, in images.conf order. */
export function bitlockerImages(): { dir: string; images: ImageFacts[] } {
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'x-bitlocker-'));
    execFileSync('tar', ['xJSf', ARCHIVE, '-C', dir, '--no-same-owner']);
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });
  }
  const base = join(dir, 'bitlk-images');
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

/** The .BEK file that unlocks the startup-key image, and one made for another volume. */
export function startupKeyFiles(base: string): { good: string; other: string } {
  return {
    good: join(base, '4381F759-C4F8-4DE0-BB61-FC33A831BDA5.BEK'),
    other: join(base, 'AA80A52B-9B66-47AE-B097-33F536FFBB07.BEK'),
  };
}
