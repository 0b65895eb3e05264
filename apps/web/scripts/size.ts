// `npm run size -w @x/web`: what a visitor downloads, file by file, raw and gzip -9 (node:zlib), from a
// fresh build. The README quotes the total.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildPage } from '../test/harness.ts';

const dist = await buildPage();
try {
  const files = (await readdir(dist.dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  let raw = 0;
  let gz = 0;
  const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`.padStart(10);
  console.log(`${'file'.padEnd(32)}${'raw'.padStart(10)}${'gzip'.padStart(10)}`);
  for (const f of files) {
    const bytes = await readFile(f);
    const z = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gz += z;
    console.log(`${relative(dist.dir, f).padEnd(32)}${kB(bytes.length)}${kB(z)}`);
  }
  console.log(`${'total'.padEnd(32)}${kB(raw)}${kB(gz)}`);
} finally {
  await dist.remove();
}
