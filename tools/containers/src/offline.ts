// cryptsetup 2.6 as an independent decryptor of a payload, with no device-mapper: it decrypts a LUKS2
// payload offline only under a detached header whose data offset is 0. So the payload alone goes into a
// data file, a detached header is made for it with the volume's own key, cipher and sector size
// (`luksFormat --header HDR --offset 0 --volume-key-file VK`), and `reencrypt --decrypt
// --force-offline-reencrypt` decrypts the data file in place. Used by tests that check what this project
// encrypted, and by the bench to time cryptsetup's decryption.
import { rm, writeFile } from 'node:fs/promises';
import { runCryptsetup } from './cryptsetup.js';

/** The payload's parameters and the files involved. */
export interface DetachedHeaderSpec {
  /** The detached header file to make (it must not exist). */
  header: string;
  /** The data file: the payload alone. */
  data: string;
  /** The volume key. Written to `${header}.vk` for cryptsetup and removed at once. */
  volumeKey: Uint8Array;
  cipher: string;
  sectorSize: number;
  /** The passphrase file the detached header's keyslot takes (PBKDF2, 1000 iterations). */
  keyFile: string;
}

/**
 * Makes a detached LUKS2 header (data offset 0) for the payload in `spec.data`, keyed with its volume key.
 *
 * @example
 * ```ts
 * await makeDetachedHeader({ header: hdr, data, volumeKey, cipher: 'aes-xts-plain64', sectorSize: 512, keyFile: pass });
 * await runCryptsetup(reencryptDecryptArgs(hdr, data, pass));
 * ```
 */
export async function makeDetachedHeader(spec: DetachedHeaderSpec): Promise<void> {
  const vk = `${spec.header}.vk`;
  await writeFile(vk, spec.volumeKey, { mode: 0o600 });
  try {
    await runCryptsetup([
      'luksFormat',
      '--type',
      'luks2',
      '--header',
      spec.header,
      '--offset',
      '0',
      '--volume-key-file',
      vk,
      '--cipher',
      spec.cipher,
      '--key-size',
      String(spec.volumeKey.length * 8),
      '--sector-size',
      String(spec.sectorSize),
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      spec.keyFile,
      '--batch-mode',
      '--disable-locks',
      spec.data,
    ]);
  } finally {
    await rm(vk, { force: true });
  }
}

/**
 * The arguments of `cryptsetup reencrypt --decrypt --force-offline-reencrypt` over a data file under its
 * detached header (`extra`, e.g. `['--resilience', 'none']`, before the header). cryptsetup 2.6 may extend
 * a regular file to a whole number of 4 KiB while it decrypts in place: compare only the payload's length.
 *
 * @example
 * ```ts
 * await runCryptsetup(reencryptDecryptArgs(hdr, data, pass, ['--resilience', 'none']));
 * ```
 */
export function reencryptDecryptArgs(header: string, data: string, keyFile: string, extra: string[] = []): string[] {
  return [
    'reencrypt',
    '--decrypt',
    '--force-offline-reencrypt',
    ...extra,
    '--header',
    header,
    data,
    '--key-file',
    keyFile,
    '--batch-mode',
    '--disable-locks',
  ];
}
