/**
 * What the README's examples cost in a browser bundle: each entry is bundled by esbuild from the built
 * packages (dist/, what users install), for the browser, minified, then gzipped (level 9). Prints a
 * Markdown table for the README.
 *
 *   npm run size --workspace @x/bench     (after `npm run build`)
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The README's examples, as entry modules. */
const ENTRIES: [string, string][] = [
  [
    '`@x/cbc` (README example: every kernel, WebAssembly included)',
    `import { newCipher, init } from '@x/cbc';
     await init();
     const c = newCipher(new Uint8Array(32));
     c.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 512, new Uint8Array(32));
     c.dispose();`,
  ],
  [
    '`@x/cbc/portable` (the same, portable kernel only)',
    `import { newCipher } from '@x/cbc/portable';
     const c = newCipher(new Uint8Array(32));
     c.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 512, new Uint8Array(32));
     c.dispose();`,
  ],
  [
    '`@x/xts` (every kernel)',
    `import { newXts } from '@x/xts';
     const x = newXts(new Uint8Array(64).map((_, i) => i));
     x.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 512, new Uint8Array(32));`,
  ],
  [
    '`@x/xts/portable`',
    `import { newXts } from '@x/xts/portable';
     const x = newXts(new Uint8Array(64).map((_, i) => i));
     x.decryptSectors(new Uint8Array(1024), new Uint8Array(1024), 512, new Uint8Array(32));`,
  ],
];

/** The minified browser bundle of `source`. */
export async function bundle(source: string, conditions: string[] = []): Promise<Uint8Array> {
  const out = await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions,
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].contents;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const rows = ['| entry | minified | minified + gzip |', '| --- | ---: | ---: |'];
  for (const [label, source] of ENTRIES) {
    const min = await bundle(source);
    const gz = gzipSync(min, { level: 9 });
    const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    rows.push(`| ${label} | ${kib(min.length)} | ${kib(gz.length)} |`);
  }
  console.log(`esbuild ${(await import('esbuild')).version}, --bundle --minify --platform=browser, gzip -9:\n`);
  console.log(rows.join('\n'));
}
