// `npm run sample` (the repository's `npm start` runs it): x-luks on the sample volume that @x/luks commits
// (packages/luks/test/fixtures), in this process — `x-luks dump`, then `x-luks decrypt` into a temporary
// file, then the first lines of the plaintext, checked against the text the volume was made from. Needs
// the built dist/ (turbo builds it).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { main } from '../dist/x-luks-main.js';

const fixtures = join(dirname(createRequire(import.meta.url).resolve('@x/luks/package.json')), 'test', 'fixtures');
const here = (p) => join(fixtures, p);
const image = here('sample-luks2.img');
const passphraseFile = here('sample.passphrase');
const show = (p) => relative(process.cwd(), p) || p;

const dir = await mkdtemp(join(tmpdir(), 'x-luks-sample-'));
const out = join(dir, 'sample.txt');
try {
  console.log(`$ x-luks dump ${show(image)}`);
  if ((await main(['dump', image])) !== 0) process.exit(1);
  console.log(`\n$ x-luks decrypt ${show(image)} ${out} --passphrase-file ${show(passphraseFile)}`);
  if ((await main(['decrypt', image, out, '--passphrase-file', passphraseFile])) !== 0) process.exit(1);

  const plain = await readFile(out);
  const expected = await readFile(here('sample.txt'));
  const rest = plain.subarray(expected.length);
  if (!plain.subarray(0, expected.length).equals(expected) || rest.some((b) => b !== 0)) {
    console.error('x-luks sample: the plaintext is not the text the volume was made from');
    process.exit(1);
  }
  const lines = expected.toString('utf8').split('\n');
  console.log(`\n$ head -n 9 ${out}`);
  console.log(lines.slice(0, 9).join('\n'));
  console.log(
    `… (${lines.length - 1} lines of text, then ${rest.length} zero bytes: the plaintext is exactly the text the volume was made from)\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
