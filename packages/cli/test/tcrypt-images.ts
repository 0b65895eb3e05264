// The TrueCrypt/VeraCrypt images the x-disk tests open: cryptsetup's test images as @x/tcrypt keeps them
// (packages/tcrypt/test/fixtures/tcrypt-images.tar.xz, from ../shared/fixtures/tcrypt/; see its README),
// extracted as @x/tcrypt's test/images.ts extracts them, and their passwords.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const PASSWORD = 'aaaaaaaaaaaa';
export const HIDDEN_PASSWORD = 'bbbbbbbbbbbb';
export const PIM_PASSWORD = 'cccccccccccccccccccc';

/** Extracts @x/tcrypt's archive of cryptsetup's images (as its test/images.ts does) into a temporary folder. */
export function extractImages(): { images: string; remove: () => void } {
  const tcrypt = dirname(createRequire(import.meta.url).resolve('@x/tcrypt/package.json'));
  const tmp = mkdtempSync(join(tmpdir(), 'x-disk-tcrypt-'));
  execFileSync('tar', ['-xJSf', join(tcrypt, 'test', 'fixtures', 'tcrypt-images.tar.xz'), '-C', tmp]);
  return { images: join(tmp, 'tcrypt-images'), remove: () => rmSync(tmp, { recursive: true, force: true }) };
}
