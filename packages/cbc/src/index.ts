export { newCipher, type Cipher, type CipherOptions } from './cipher.js';
export { kernels } from '@x/aes-kernels';
