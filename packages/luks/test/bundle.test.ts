// A user's bundle that imports only @x/luks carries no code of the other disk formats: the format
// detection of `x-disk` lives in @x/cli and loads each format's package only when it opens one.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('a bundle of @x/luks', () => {
  it('has no BitLocker, FileVault 2 or command-line code in it', async () => {
    const esbuild = await import('esbuild');
    const out = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['source'],
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs).toContain('src/volume.ts'); // paths are relative to this package
    for (const other of ['../bitlocker/', '../filevault2/', '../cli/', '../ccm/'])
      expect(inputs.filter((f) => f.includes(other))).toEqual([]);
    const js = out.outputFiles[0].text;
    expect(js).not.toContain('-FVE-FS-');
    expect(js).not.toMatch(/from\s*["']node:/);
  });
});
