// Two output rules of both commands (issue 15): a closed pipe is a normal end, not a crash; and OUT may
// never be the image itself, by whatever name, not even with --force.
import { copyFile, link, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bitlockerImages } from '@x/testkit/disk-images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture, runCli, runDisk } from './helpers.js';

const SAMPLE = luksFixture('sample-luks2.img');
const SAMPLE_PASS = luksFixture('sample.passphrase');
const clear = bitlockerImages().images.find((i) => i.name === 'bitlk-aes-xts-128-clearkey-only')!;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-cli-output-rules-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a closed pipe on standard output', () => {
  it.each([
    [
      'x-luks decrypt IMAGE -',
      () => runCli(['decrypt', SAMPLE, '-', '--passphrase-file', SAMPLE_PASS], { closeStdout: true }),
    ],
    ['x-luks dump IMAGE --json', () => runCli(['dump', SAMPLE, '--json'], { closeStdout: true })],
    ['x-disk decrypt IMAGE - (100 MiB)', () => runDisk(['decrypt', clear.path, '-'], { closeStdout: true })],
    ['x-disk dump IMAGE', () => runDisk(['dump', clear.path], { closeStdout: true })],
  ])('%s ends with status 0 and no stack trace', async (_what, run) => {
    const r = await run();
    expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });
});

describe('OUT that is the image itself', () => {
  it('is refused under its own name, a hard link and a symbolic link, with --force, and the image is untouched', async () => {
    const image = join(dir, 'volume.img');
    await copyFile(SAMPLE, image);
    const before = await readFile(image);
    await link(image, join(dir, 'hard.img'));
    await symlink(image, join(dir, 'soft.img'));
    const pass = join(dir, 'pass');
    await writeFile(pass, await readFile(SAMPLE_PASS));
    for (const out of [
      image,
      join(dir, 'hard.img'),
      join(dir, 'soft.img'),
      join(dir, '..', dir.split('/').pop()!, 'volume.img'),
    ]) {
      for (const run of [runCli, runDisk]) {
        const r = await run(['decrypt', image, out, '--passphrase-file', pass, '--force']);
        expect(r.stderr).toMatch(
          /^x-(luks|disk): .* is the image itself: refusing to write its plaintext over it, even with --force$/m,
        );
        expect(r.code).toBe(1);
      }
    }
    expect(Buffer.compare(await readFile(image), before)).toBe(0);
  });
});
