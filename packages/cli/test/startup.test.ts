// What a command loads: `--help` and `--version` no format's code beyond its detection, no AES kernel and no
// thread code; `dump` the detected format's package but no kernel, no decrypt code and no other format's
// code. The commands run from their sources (node with tsx and the "source" condition) with a module hook
// that lists every file loaded. (How fast they start is measured by `npm run bench -- --startup` in
// tools/bench, not here.)
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luksFixture } from './helpers.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
let dir: string;
let register: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-cli-startup-'));
  const hooks = join(dir, 'hooks.mjs');
  // the hook, as the text of a module: each file loaded, on stderr
  const hook = [
    'export async function load(url, context, next) {',
    "  if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n');",
    '  return next(url, context);',
    '}',
  ];
  await writeFile(hooks, `${hook.join('\n')}\n`);
  register = join(dir, 'register.mjs');
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The files of the repository (relative paths) that `command args` loads, run from its source. */
function loaded(command: 'x-disk' | 'x-luks', args: string[]): Promise<string[]> {
  const main = fileURLToPath(new URL(`../src/${command}.ts`, import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', register, '--conditions=source', main, ...args],
      { maxBuffer: 16 << 20 },
      (err, _stdout, stderr) => {
        if (err) return reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${stderr}`));
        const files = [...stderr.matchAll(/^LOADED (file:\S+)$/gm)].map((m) => fileURLToPath(m[1]));
        resolve(files.map((f) => (f.startsWith(REPO) ? f.slice(REPO.length) : f)));
      },
    );
  });
}

/** The files of `files` under a folder of the repository (`packages/aes-kernels/`). */
const under = (files: readonly string[], folder: string) => files.filter((f) => f.includes(folder));

/** What no command loads before it reads its command line, nor `dump`: kernels, modes, threads, decrypting. */
const NEVER_AT_START = [
  'packages/aes-kernels/',
  'packages/aes-portable/',
  'packages/aes-wasm-kernel/',
  'packages/aes-native-addon/',
  'packages/dm-crypt/',
  'packages/xts/',
  'packages/cbc/',
  'packages/cli/src/decrypt-threads.ts',
  'packages/cli/src/disk-decrypt.ts',
  'packages/cli/src/output.ts',
  'packages/cli/src/x-luks-encrypt.ts',
  'packages/cli/src/x-luks-keys.ts',
  'node_modules/@noble/',
];

describe('start-up: what a command loads', () => {
  it('x-disk --help and --version: the list of formats, each its detection alone', async () => {
    for (const args of [['--help'], ['--version']]) {
      const files = await loaded('x-disk', args);
      expect(files).toContain('packages/cli/src/x-disk-main.ts');
      for (const folder of NEVER_AT_START) expect(under(files, folder), folder).toEqual([]);
      for (const format of ['luks', 'bitlocker', 'filevault2']) {
        const own = under(files, `packages/${format}/src/`).map((f) => f.slice(`packages/${format}/src/`.length));
        expect(own[0]).toBe('format.ts');
        // FileVault 2 is told by a checksum of its volume header: its detection is two small files more
        expect(
          own.filter((f) => !['format.ts', 'detect.ts', 'crc32c.ts'].includes(f)),
          format,
        ).toEqual([]);
      }
    }
  }, 120_000);

  it('x-luks --help: LUKS detection alone, none of encrypt, add-key or remove-key', async () => {
    const files = await loaded('x-luks', ['--help']);
    expect(files).toContain('packages/cli/src/x-luks-commands.ts');
    for (const folder of NEVER_AT_START) expect(under(files, folder), folder).toEqual([]);
    expect(under(files, 'packages/luks/src/')).toEqual(['packages/luks/src/format.ts']);
    expect(under(files, 'packages/bitlocker/')).toEqual([]);
  }, 120_000);

  it('x-disk dump of a LUKS2 image: the LUKS header code, no kernel, no other format beyond detection', async () => {
    const files = await loaded('x-disk', ['dump', luksFixture('sample-luks2.img')]);
    expect(files).toContain('packages/luks/src/describe.ts');
    expect(files).not.toContain('packages/luks/src/volume.ts');
    for (const folder of NEVER_AT_START.filter((f) => f !== 'node_modules/@noble/'))
      expect(under(files, folder), folder).toEqual([]);
    expect(under(files, 'packages/bitlocker/src/')).toEqual(['packages/bitlocker/src/format.ts']);
  }, 120_000);
});
