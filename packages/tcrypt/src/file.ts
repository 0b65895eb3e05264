/**
 * `@x/tcrypt/file`: a `ByteSource` over a file, for Node (the main entry point stays free of `node:`
 * modules so that browsers can load it), for images and keyfiles alike. The same function as
 * `@x/byte-source/file`, which owns it.
 *
 * @example
 * ```ts
 * import { openTcrypt } from '@x/tcrypt';
 * import { openFileSource } from '@x/tcrypt/file';
 * const src = await openFileSource('volume.hc');
 * try {
 *   const volume = await openTcrypt(src, { passphrase: 'secret' });
 *   volume.close();
 * } finally {
 *   await src.close();
 * }
 * ```
 *
 * @packageDocumentation
 */
export { openFileSource } from '@x/byte-source/file';
