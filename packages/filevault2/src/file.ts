/**
 * `@x/filevault2/file`: a `ByteSource` over a file, for Node (the main entry point stays free of `node:`
 * modules so that browsers can load it). The same function as `@x/byte-source/file`, which owns it.
 *
 * @example
 * ```ts
 * import { openFileVault2 } from '@x/filevault2';
 * import { openFileSource } from '@x/filevault2/file';
 * const src = await openFileSource('disk.img');
 * try {
 *   const volume = await openFileVault2(src, { passphrase: 'secret' });
 *   // … volume.read(buf, sector) …
 *   volume.close();
 * } finally {
 *   await src.close();
 * }
 * ```
 *
 * @packageDocumentation
 */
export { openFileSource } from '@x/byte-source/file';
