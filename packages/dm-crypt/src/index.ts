/**
 * `@x/dm-crypt`: the data path of a Linux dm-crypt target for AES, in JavaScript. A cipher spec as
 * cryptsetup and LUKS headers write it (`aes-xts-plain64`, `aes-cbc-essiv:sha256`, `capi:xts(aes)-plain64`,
 * `aes-ecb`, BitLocker's `aes-cbc-elephant`) becomes one object that decrypts or encrypts any number of
 * whole sectors per call, with the IVs of all of them generated in one batch (`@x/disk-iv`) and the data
 * done in one kernel call (`@x/cbc`, `@x/xts`).
 *
 * @example
 * ```ts
 * import { newSectorCipher } from '@x/dm-crypt';
 * const c = newSectorCipher('aes-cbc-essiv:sha256', volumeKey);
 * c.decrypt(plain, payload.subarray(0, 512 * 8), 0); // payload sectors 0 … 7
 * c.dispose();
 * ```
 *
 * @packageDocumentation
 */
export { newSectorCipher, type SectorCipher, type SectorCipherOptions } from './sector-cipher.js';
export { parseCipherSpec, type CipherSpec } from './spec.js';
