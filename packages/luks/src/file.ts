/**
 * `@x/luks/file`: a {@link ByteSource} over a file, for Node (the main entry point stays free of `node:`
 * modules so that browsers can load it). The same function as `@x/byte-source/file`, which owns it.
 *
 * @example
 * ```ts
 * import { openLuks } from '@x/luks';
 * import { openFileSource } from '@x/luks/file';
 * const src = await openFileSource('disk.img');
 * try {
 *   const volume = await openLuks(src, { passphrase: 'secret' });
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
