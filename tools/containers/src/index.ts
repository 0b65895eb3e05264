/**
 * `@x/containers`: a test helper that makes real LUKS1/LUKS2 containers with cryptsetup over random data,
 * so conformance tests check this project's decryption against files that nobody here encrypted.
 *
 * @example
 * ```ts
 * import { cryptsetupRequirement, makeLuks2Container, convertToLuks1 } from '@x/containers';
 * if (cryptsetupRequirement().run) {
 *   const c = await makeLuks2Container({ cipher: 'aes-cbc-essiv:sha256', keySize: 256, sectorSize: 512 });
 *   const v1 = await convertToLuks1(c);
 *   await Promise.all([c.remove(), v1.remove()]);
 * }
 * ```
 *
 * @packageDocumentation
 */
export {
  cryptsetupRequirement,
  cryptsetupStatus,
  hasCryptsetup,
  runCryptsetup,
  type CryptsetupOutput,
  type CryptsetupRequirement,
  type CryptsetupStatus,
} from './cryptsetup.js';
export {
  convertToLuks1,
  dumpVolumeKey,
  dumpWithVolumeKey,
  makeLuks2Container,
  mapLimit,
  parseVolumeKey,
  removeAllContainers,
  type Container,
  type ContainerSpec,
  type PbkdfSpec,
} from './luks.js';
export { describeWithCryptsetup } from './suite.js';
export { editLuks2Json, resealLuks2Copy, setLuks2SegmentCipher, type Luks2JsonEdit } from './rewrite.js';
export { makeDetachedHeader, reencryptDecryptArgs, type DetachedHeaderSpec } from './offline.js';
export { LUKS_MATRIX, MATRIX_CASES, makeMatrix, type MatrixCase, type MatrixEntry } from './matrix.js';
export {
  ADIANTUM,
  ADIANTUM_BASES,
  ADIANTUM_CASES,
  type AdiantumCase,
  type AdiantumImage,
  makeAdiantumImages,
  type NewSectorCipher,
  writeAt,
} from './adiantum.js';
