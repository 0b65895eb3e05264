/**
 * `@x/disk-iv`: the per-sector IVs of real disk formats (dm-crypt's `plain`, `plain64`, `plain64be`,
 * `benbi`, `null`, `essiv:<hash>`, `eboiv`, `tcw`), byte-identical to Linux dm-crypt and cryptsetup, to feed
 * `@x/cbc`'s `decryptSectors`.
 *
 * @example
 * ```ts
 * import { newCipher } from '@x/cbc';
 * import { newIvGenerator } from '@x/disk-iv';
 * const cbc = newCipher(volumeKey);
 * const gen = newIvGenerator('essiv:sha256', volumeKey);
 * const ivs = new Uint8Array(16 * n);
 * gen.generate(ivs, 0, n);
 * cbc.decryptSectors(plaintext, payload.subarray(0, 512 * n), 512, ivs);
 * ```
 *
 * @packageDocumentation
 */
export { newIvGenerator, type IvGenerator, type IvGeneratorOptions } from './generator.js';
