// The list of formats: its order and entries, that detection through it tells the committed LUKS sample,
// and what importing it costs: the code that runs before a format is detected is the formats' detection
// and nothing else (no format's header, key or volume code, no cipher), each format's code being split
// off behind a dynamic import() that only opening an image of that format reaches.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesSource } from '@x/byte-source';
import { detectFormat } from '@x/disk-format';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../src/index.js';

const luksFixture = (name: string) =>
  join(dirname(createRequire(import.meta.url).resolve('@x/luks/package.json')), 'test', 'fixtures', name);

describe('FORMATS', () => {
  it('lists LUKS, BitLocker and FileVault 2, in the order detection tries them, then TrueCrypt/VeraCrypt (never detected)', () => {
    expect(FORMATS.map((f) => [f.type, f.name])).toEqual([
      ['luks', 'LUKS'],
      ['bitlk', 'BitLocker'],
      ['fvault2', 'FileVault 2'],
      ['tcrypt', 'TrueCrypt/VeraCrypt'],
    ]);
    for (const f of FORMATS) expect(f.detect).toBeTypeOf(f.type === 'tcrypt' ? 'undefined' : 'function');
  });

  it('detects the LUKS sample and reads its header', async () => {
    const src = bytesSource(new Uint8Array(await readFile(luksFixture('sample-luks2.img'))));
    const f = await detectFormat(src, FORMATS);
    expect(f?.type).toBe('luks');
    const h = await f!.readHeader(src);
    expect(h.title).toBe('LUKS2');
    expect(h.describe()).toMatch(/^LUKS header information \(version 2\)\n/);
    expect(await detectFormat(bytesSource(new Uint8Array(4096)), FORMATS)).toBeUndefined();
  });

  it('loads detection only: every format’s other code is behind a dynamic import', async () => {
    const esbuild = await import('esbuild');
    const out = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['source'],
      outdir: '/virtual',
      write: false,
      metafile: true,
    });
    const outputs = out.metafile.outputs;
    // the entry's chunk and the chunks it imports statically: what runs when the list is imported
    const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint === 'src/index.ts')!;
    const loaded = new Set<string>();
    const visit = (o: string) => {
      if (loaded.has(o)) return;
      loaded.add(o);
      for (const i of outputs[o].imports) if (i.kind === 'import-statement') visit(i.path);
    };
    visit(entry);
    const inputs = [...loaded].flatMap((o) => Object.keys(outputs[o].inputs)).sort();
    const allowed = [
      /^src\/index\.ts$/,
      /\/(luks|bitlocker|filevault2|tcrypt)\/src\/format\.ts$/,
      /\/filevault2\/src\/(detect|crc32c)\.ts$/,
      /\/(disk-format|byte-source)\/src\//,
    ];
    expect(inputs.filter((f) => !allowed.some((a) => a.test(f)))).toEqual([]);
    // and the code left out is there, split off: each format's header reading and its volume
    const all = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
    for (const f of [
      'luks/src/luks2.ts',
      'bitlocker/src/metadata.ts',
      'filevault2/src/volume.ts',
      'tcrypt/src/volume.ts',
      'ccm/src/',
    ])
      expect(
        all.some((i) => i.includes(f)),
        f,
      ).toBe(true);
  });
});
