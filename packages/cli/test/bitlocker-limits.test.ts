// Issue 25, item 4, for BitLocker through the command: a password's or recovery password's stretch
// (2^20 SHA-256 rounds, fixed by the format) goes through the same KDF limits as every other derivation, so
// `--max-iterations` below it refuses the image before anything is derived, with the option that raises it,
// and at or above it the volume opens. The image is cryptsetup's Windows 10 test image, kept by @x/testkit.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bitlockerImages } from '@x/testkit/disk-images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDisk } from './helpers.js';

const STRETCH = 0x100000;
const image = bitlockerImages().images.find((i) => i.name === 'bitlk-aes-xts-128')!;
let dir: string;
let pw: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-cli-bitlocker-limits-'));
  pw = join(dir, 'pw');
  await writeFile(pw, image.password);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('BitLocker under --max-iterations', () => {
  it.each([
    ['password', () => ['--passphrase-file', pw]],
    ['recovery password', () => ['--recovery-password', image.recoveryPassword]],
  ])('its %s: refused below the stretch, with the option that raises the limit; nothing written', async (_k, args) => {
    const out = join(dir, 'out.img');
    const r = await runDisk(['decrypt', image.path, out, ...args(), '--max-iterations', String(STRETCH - 1)]);
    expect(r.stderr).toMatch(
      new RegExp(
        `^x-disk: .*stretch\\.iterations ${STRETCH} is above maxIterations, ${STRETCH - 1} \\(--max-iterations ${STRETCH} tries it\\)$`,
        'm',
      ),
    );
    expect(r.code).toBe(1);
    expect(await readdir(dir)).toEqual(['pw']);
  });

  it('opens at the stretch exactly: the limit is inclusive', async () => {
    const r = await runDisk(['decrypt', image.path, '-', '--passphrase-file', pw, '--max-iterations', String(STRETCH)]);
    expect(r.code, r.stderr).toBe(0);
    expect(createHash('sha256').update(r.stdout).digest('hex')).toBe(image.sha256);
  });
});
