// The fixture images (fixtures/README.md), extracted once per test file into a temporary folder, and what
// each name asks for.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTcrypt, type TcryptOpenOptions } from '../src/index.js';

export const PASSWORD = 'aaaaaaaaaaaa';
export const HIDDEN_PASSWORD = 'bbbbbbbbbbbb';
export const PIM_PASSWORD = 'cccccccccccccccccccc';
export const LONG_PASSWORD = 'aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffffffffffff';

/** Extracts the archive; returns its folder and a function that removes it. */
export function extractImages(): { dir: string; remove: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), 'x-tcrypt-'));
  execFileSync('tar', ['-xJSf', join(import.meta.dirname, 'fixtures', 'tcrypt-images.tar.xz'), '-C', tmp]);
  return { dir: join(tmp, 'tcrypt-images'), remove: () => rmSync(tmp, { recursive: true, force: true }) };
}

/** An image and how it opens. */
export interface Case {
  readonly name: string;
  readonly prf: string;
  readonly mode: string;
  readonly chain: string;
  readonly hidden: boolean;
  readonly serial: 'DEAD-BABE' | 'CAFE-BABE';
  /** The options its name asks for (keyfiles as bytes), without the PRF hint. */
  options(dir: string): TcryptOpenOptions;
}

/** The cases of an image: the outer volume, and the hidden one for `-hidden`. */
export function casesOf(name: string): Case[] {
  const m = /^([a-z_0-9]+)-([a-z0-9]+)-(xts|lrw|cbc)-(.+?)(-hidden)?$/.exec(name);
  if (!m) return [];
  const [, kind, prf, mode, chain, hiddenMark] = m;
  const base = (dir: string): TcryptOpenOptions => {
    const keyfiles =
      kind.startsWith('tck') || kind.startsWith('vck')
        ? [readFileSync(join(dir, 'keyfile1')), readFileSync(join(dir, 'keyfile2'))].map((b) => new Uint8Array(b))
        : undefined;
    let passphrase = PASSWORD;
    if (kind.endsWith('_nopw')) passphrase = '';
    if (kind.endsWith('_pw72')) passphrase = LONG_PASSWORD;
    const pim = /^vcpim_1_(\d+)$/.exec(kind);
    if (pim) passphrase = PIM_PASSWORD;
    return {
      passphrase,
      ...(keyfiles ? { keyfiles } : {}),
      ...(pim ? { pim: Number(pim[1]) } : {}),
      ...(kind.startsWith('sys_') ? { system: true } : {}),
    };
  };
  const out: Case[] = [{ name, prf, mode, chain, hidden: false, serial: 'DEAD-BABE', options: base }];
  if (hiddenMark)
    out.push({
      name: `${name} (hidden)`,
      prf,
      mode,
      chain,
      hidden: true,
      serial: 'CAFE-BABE',
      options: (dir) => ({ ...base(dir), passphrase: HIDDEN_PASSWORD, hidden: true }),
    });
  return out;
}

/** Every image name of the archive (without extracting it). */
export function imageNames(): string[] {
  const list = execFileSync('tar', ['-tJf', join(import.meta.dirname, 'fixtures', 'tcrypt-images.tar.xz')], {
    encoding: 'utf8',
  });
  return list
    .split('\n')
    .map((l) => l.replace(/^tcrypt-images\//, ''))
    .filter((n) => n !== '' && !/^(README|keyfile\d)$/.test(n))
    .sort();
}

/** The FAT volume serial of a boot sector, as blkid prints it: FAT32's at 67, FAT12/16's at 39. */
export function fatSerial(boot: Uint8Array): string {
  const fat32 = new TextDecoder().decode(boot.subarray(82, 87)) === 'FAT32';
  const at = fat32 ? 67 : 39;
  const hex = Array.from(boot.slice(at, at + 4).reverse(), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}

export const listDir = (dir: string) => readdirSync(dir);

/** The FAT serial of the volume `img` opens to with `options` (its first sector), the volume closed after. */
export async function serialOf(img: Uint8Array, options: TcryptOpenOptions): Promise<string> {
  const v = await openTcrypt(img, options);
  try {
    const boot = new Uint8Array(512);
    await v.read(boot, 0);
    return fatSerial(boot);
  } finally {
    v.close();
  }
}
